/* tls_table.c — per-thread tables on the heap (see tls_table.h).
 *
 * Main data structure: the calling thread's list of the blocks it owns, in
 * TLS (a few pointers). A process-wide pthread key whose value, once the
 * thread owns a block, points at that list: the key's destructor frees the
 * blocks when the thread exits. */
#include "base/tls_table.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

/* At most a page: each page of a block is written once at allocation. */
#define TOUCH_STRIDE 4096

struct owned {
    void *block[TLS_TABLES_MAX];
    int n;
};

static _Thread_local struct owned owned;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static bool key_ok;

static void free_owned(void *arg)
{
    struct owned *o = arg;
    for (int i = 0; i < o->n; i++)
        free(o->block[i]);
    o->n = 0;
}

static void make_key(void) { key_ok = pthread_key_create(&key, free_owned) == 0; }

void *tls_table_calloc(size_t bytes)
{
    pthread_once(&key_once, make_key);
    /* Without the key a block could not be freed at thread exit: none. */
    if (!key_ok || owned.n == TLS_TABLES_MAX)
        return NULL;
    if (owned.n == 0 && pthread_setspecific(key, &owned) != 0)
        return NULL;
    void *p = calloc(1, bytes);
    if (!p)
        return NULL;
    /* Write every page now. calloc hands out fresh pages untouched, and a
     * memo's first access to a slot is a read: the kernel maps the shared
     * zero page, and the write that follows must replace it and flush the
     * old mapping from every CPU running one of our threads (an IPI each,
     * costly in a VM and stalled when a vCPU is descheduled). A write
     * first is one ordinary fault. (A plain memset after malloc would do,
     * but gcc folds malloc+memset back into calloc.) */
    for (size_t at = 0; at < bytes; at += TOUCH_STRIDE)
        ((volatile char *)p)[at] = 0;
    owned.block[owned.n++] = p;
    return p;
}
