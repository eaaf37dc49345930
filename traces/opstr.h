/* opstr.h — storage of the operator records' strings (traces/op.c).
 *
 * Every op string field holds either the shared read-only "" or a block from
 * opstr_alloc, possibly shared by several ops (counted); op.c releases them
 * with opstr_release and nothing else may free() them (the block starts
 * before the pointer). */
#ifndef NPUSIM_OPSTR_H
#define NPUSIM_OPSTR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* The shared empty string (never freed, never written). */
extern const char opstr_empty[1];

/* Room for n bytes (the caller writes the text and its NUL). Aborts on
 * out-of-memory, as the rest of op.c. */
char *opstr_alloc(size_t n);
/* One more owner of s (a string from opstr_alloc, or opstr_empty or NULL,
 * returned as they are): s itself, freed only when every owner has
 * released it. Strings are never written after they are made, so owners on
 * any thread may share one. */
char *opstr_share(char *s);
/* Releases one owner of a field's string; NULL and opstr_empty are ignored. */
void opstr_release(char *s);

/* Header layout (opstr.c): bytes 0 to 3 an atomic word, the size class in
 * its low byte and the seal above it, bytes 4 to 7 the count. The seal
 * records how a CSV field writes the text, so that a string written to
 * several CSVs (a sweep's three, each energy strategy's) is scanned once,
 * by its first writer, and never when it is not written at all (summary
 * sweeps): 0 not yet scanned, OPSTR_UNSEALED scan it every time (it holds a
 * quote, or is too long), else (length + 1) << 1 | quoted (a comma or line
 * break but no quote). Strings are never written after they are made, so
 * every writer computes the same seal: racing stores are harmless. */
#define OPSTR_HDR 8
#define OPSTR_SEALED_MAX 0x3ffffeu
#define OPSTR_UNSEALED 0xffffffu

/* Scans s, records its seal and returns it (opstr.c). */
unsigned opstr_seal(const char *s);

/* For s, an op field's string: true when it is opstr_empty or sealable,
 * with *len its length and *quoted whether a CSV field wraps it in quotes;
 * false when it must be scanned (see above). */
static inline bool opstr_csv_form(const char *s, size_t *len, bool *quoted)
{
    if (s == opstr_empty) {
        *len = 0;
        *quoted = false;
        return true;
    }
    const atomic_uint *meta = (const atomic_uint *)(const void *)(s - OPSTR_HDR);
    unsigned v = atomic_load_explicit(meta, memory_order_relaxed) >> 8;
    if (v == 0)
        v = opstr_seal(s);
    *len = (v >> 1) - 1;
    *quoted = v & 1;
    return v != OPSTR_UNSEALED;
}

#endif
