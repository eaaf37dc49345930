/* tls_table.h — zeroed per-thread tables on the heap, freed at thread exit.
 *
 * The memos of the hot paths (energy results, tile searches, divisor lists,
 * float texts) are per-thread direct-mapped tables, so threads never share
 * entries and results do not depend on the thread count. Kept as
 * _Thread_local arrays, they made the static TLS block ~1 MiB, and glibc
 * zeroes a new thread's whole block on the thread that calls
 * pthread_create, in pages of the fresh stack: the eight workers of a
 * four-stage suite cost its main thread ~3 ms of zeroing and page faults,
 * serial, before any work. A table allocated on first use costs only the
 * thread that uses it. Its pages are written at allocation: a hash
 * table's first touch of a page is a read, and calloc's untouched pages
 * would each take two faults, the second with a TLB flush on every CPU
 * running one of our threads (3 % of the perf suite's time, in the tail
 * memo alone).
 *
 * Usage: keep a _Thread_local pointer, and on NULL ask tls_table_calloc for
 * the table. NULL back means memory is short: the caller runs without its
 * memo (and asks again next time). */
#ifndef NPUSIM_TLS_TABLE_H
#define NPUSIM_TLS_TABLE_H

#include <stddef.h>

/* A zeroed block of `bytes`, every page already written, owned by the
 * calling thread: freed when the thread exits (the main thread's stay
 * until the process exits), or NULL. A thread owns at most TLS_TABLES_MAX
 * of them. The blocks go in a pthread key destructor: nothing may use them
 * from another key's destructor (no npusim code formats or simulates at
 * thread exit). */
#define TLS_TABLES_MAX 16
void *tls_table_calloc(size_t bytes);

#endif
