/* opstr.c — op strings: a shared "" and a per-thread lookaside of blocks.
 *
 * A configuration builds ~80 ops with up to nine short strings each (names,
 * config, shapes, tile reprs) and frees them all together when its trace
 * goes. glibc's per-thread cache keeps only seven chunks per size, so most of
 * those frees and the next configuration's mallocs went through the general
 * allocator (bin sorting, consolidation): a fifth of a sweep's instructions.
 * As in SQLite's lookaside allocator, short strings instead come in four
 * fixed block sizes and freed blocks wait on per-thread free lists for the
 * next string, up to a bound; longer strings use malloc directly.
 *
 * Each block starts with an 8-byte header: a word holding its size class
 * (NCLS: a plain malloc) and, once a writer has scanned it, the length and
 * CSV form of its text (the seal, opstr.h), then a count of references. An
 * op string is never written after it is made, so copies of an op (energy
 * strategies, traces held by cli/trace_memo.c) share it: opstr_share counts
 * one more owner, and the block goes when the last one releases it. The
 * count is atomic, as sharers may live on other threads; a release that
 * finds itself the only owner (the common case) needs no atomic write, since
 * no one else holds the string to share it meanwhile. Lists are thread-local, so no locks, and a
 * block freed on another thread than it was made on simply joins that
 * thread's list. A thread's lists are freed when it exits (tss destructor);
 * the main thread's stay reachable until the process ends. */
#include "traces/opstr.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

const char opstr_empty[1] = "";

#define HDR OPSTR_HDR             /* header bytes; keeps the text 8-aligned */
#define REF_AT 4                 /* the reference count's offset in the header */
_Static_assert(sizeof(atomic_uint) <= REF_AT && REF_AT + sizeof(atomic_uint) <= HDR,
               "the class-and-seal word and the count fit in the header");
#define NCLS 4
static const size_t cls_bytes[NCLS] = { 32, 64, 128, 256 };   /* header included */
#define LIST_MAX 1024            /* blocks kept per class and thread (< 0.5 MiB) */
#ifdef __SANITIZE_ADDRESS__
/* make check: every block goes straight back to free(), so AddressSanitizer
 * still sees a use after release. */
#define KEEP_BLOCKS 0
#else
#define KEEP_BLOCKS 1
#endif

struct free_block {
    struct free_block *next;
};

struct free_list {
    struct free_block *head;
    unsigned n;
};

static _Thread_local struct free_list lists[NCLS];
/* 0: no destructor yet; 1: registered; -1: tss failed, keep nothing. */
static _Thread_local int thread_state;

static tss_t exit_key;
/* pthread_once rather than C11 call_once: ThreadSanitizer sees its ordering
 * (glibc's call_once reaches it through an internal, unintercepted call). */
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static int exit_key_ok;

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fputs("npusim: out of memory\n", stderr);
        abort();
    }
    return p;
}

/* tss destructor: the exiting thread's lists go back to malloc. */
static void drain(void *unused)
{
    (void)unused;
    for (int c = 0; c < NCLS; c++) {
        while (lists[c].head) {
            struct free_block *b = lists[c].head;
            lists[c].head = b->next;
            free(b);
        }
        lists[c].n = 0;
    }
}

static void make_exit_key(void) { exit_key_ok = tss_create(&exit_key, drain) == thrd_success; }

/* Whether this thread may keep blocks (its lists will be drained at exit). */
static int may_keep(void)
{
    if (thread_state == 0) {
        pthread_once(&exit_once, make_exit_key);
        /* The destructor runs only for threads with a non-NULL value. */
        thread_state = exit_key_ok && tss_set(exit_key, (void *)lists) == thrd_success ? 1 : -1;
    }
    return thread_state > 0;
}

char *opstr_alloc(size_t n)
{
    unsigned c = 0;
    while (c < NCLS && n + HDR > cls_bytes[c])
        c++;
    unsigned char *b;
    if (c < NCLS && lists[c].head) {
        b = (unsigned char *)lists[c].head;
        lists[c].head = lists[c].head->next;
        lists[c].n--;
    } else {
        b = xmalloc(c < NCLS ? cls_bytes[c] : n + HDR);
    }
    atomic_init((atomic_uint *)(void *)b, c);   /* not sealed */
    atomic_init((atomic_uint *)(void *)(b + REF_AT), 1u);
    return (char *)b + HDR;
}

unsigned opstr_seal(const char *s)
{
    size_t len = strcspn(s, "\""), cut = strcspn(s, ",\r\n");
    unsigned v = s[len] != '\0' || len > OPSTR_SEALED_MAX ? OPSTR_UNSEALED
                                                          : (unsigned)(len + 1) << 1 | (cut != len);
    atomic_uint *meta = (atomic_uint *)(void *)(s - HDR);   /* the header, not the text */
    atomic_store_explicit(meta, atomic_load_explicit(meta, memory_order_relaxed) | v << 8, memory_order_relaxed);
    return v;
}

static atomic_uint *refs(char *s) { return (atomic_uint *)(void *)(s - HDR + REF_AT); }

char *opstr_share(char *s)
{
    if (s && s != opstr_empty)
        atomic_fetch_add_explicit(refs(s), 1u, memory_order_relaxed);
    return s;
}

void opstr_release(char *s)
{
    if (!s || s == opstr_empty)
        return;
    atomic_uint *r = refs(s);
    if (atomic_load_explicit(r, memory_order_acquire) != 1u &&
        atomic_fetch_sub_explicit(r, 1u, memory_order_acq_rel) != 1u)
        return;   /* others still hold it */
    unsigned char *b = (unsigned char *)s - HDR;
    unsigned c = atomic_load_explicit((atomic_uint *)(void *)b, memory_order_relaxed) & 0xffu;
    if (KEEP_BLOCKS && c < NCLS && lists[c].n < LIST_MAX && may_keep()) {
        struct free_block *f = (struct free_block *)(void *)b;
        f->next = lists[c].head;
        lists[c].head = f;
        lists[c].n++;
    } else {
        free(b);
    }
}
