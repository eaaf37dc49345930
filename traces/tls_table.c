/* tls_table.c — per-thread tables on the heap (see tls_table.h).
 *
 * Main data structure: the calling thread's list of the blocks it owns, in
 * TLS (a few pointers). A process-wide pthread key whose value, once the
 * thread owns a block, points at that list: the key's destructor frees the
 * blocks when the thread exits. */
#include "traces/tls_table.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

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
    if (p)
        owned.block[owned.n++] = p;
    return p;
}
