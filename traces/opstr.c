/* opstr.c — op strings: a shared "" and per-thread free lists of blocks.
 *
 * A configuration builds ~80 ops with up to nine short strings each (names,
 * config, shapes, tile reprs) and frees them all together when its trace
 * goes; a suite holds a whole sweep's traces until its energy stage. As in
 * SQLite's lookaside allocator, short strings come in four fixed block sizes,
 * carved from 64 KiB slabs, and a freed block waits on its thread's free
 * list for the next string of its class; longer strings use malloc directly.
 * glibc's allocator took ~250 instructions a string and more to free it
 * (bin sorting, consolidation), and tens of thousands of them in a suite:
 * its per-thread cache keeps only seven chunks per size.
 *
 * Slabs are process-wide (a list under a lock, touched once per slab) and
 * never go back to malloc: a block may be freed on another thread than the
 * one that carved it, after that thread has exited. So a thread keeps at
 * most LIST_MAX free blocks per class: a full list, and every list of a
 * thread that exits (tss destructor), is parked whole on a process-wide
 * stack, from which a thread short of blocks takes one before it carves a
 * new slab. A thread that frees what others make (a summary sweep's writer)
 * thus hands the blocks back. Memory is bounded by the most blocks ever
 * live at once, plus what the lists hold.
 *
 * Each block starts with an 8-byte header: a word holding its size class
 * (NCLS: a plain malloc) and, once a writer has scanned it, the length and
 * CSV form of its text (the seal, opstr.h), then a count of references. An
 * op string is never written after it is made, so copies of an op (energy
 * strategies, traces held by study/run/results.c) share it: opstr_share counts
 * one more owner, and the block goes when the last one releases it. The
 * count is atomic, as sharers may live on other threads; a release that
 * finds itself the only owner (the common case) needs no atomic write, since
 * no one else holds the string to share it meanwhile. Lists are
 * thread-local, so no locks, and a block freed on another thread than it was
 * made on simply joins that thread's list. */
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
#define SLAB_BYTES (64u << 10)
#define LIST_MAX 1024            /* blocks a thread keeps per class (< 0.5 MiB): the rest spill */
#ifdef __SANITIZE_ADDRESS__
/* make check: every block is its own malloc and goes straight back to
 * free(), so AddressSanitizer still sees a use after release. */
#define KEEP_BLOCKS 0
#else
#define KEEP_BLOCKS 1
#endif

/* A free block; the first of a list parked on a spill stack also links
 * the next parked list and records its own list's length (a block is at
 * least 32 bytes). */
struct free_block {
    struct free_block *next;
    struct free_block *next_list;
    size_t n;
};
_Static_assert(sizeof(struct free_block) <= 32, "a free block fits the smallest class");

struct free_list {
    struct free_block *head;
    size_t n;
};

static _Thread_local struct free_list lists[NCLS];
/* 0: no destructor yet; 1: registered; -1: tss failed (the lists are lost
 * at exit: their blocks stay in their slabs, unused). */
static _Thread_local int thread_state;

/* Process-wide: every slab (never freed; reachable, for leak checkers), and
 * per class a stack of parked free lists, each moved whole (O(1)). */
struct slab {
    struct slab *next;
};
static struct {
    pthread_mutex_t lock;
    struct slab *slabs;
    struct free_block *spill[NCLS];
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

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

/* Parks this thread's list of class c on the spill stack; call with the
 * lock held. */
static void park(unsigned c)
{
    struct free_block *h = lists[c].head;
    if (!h)
        return;
    h->n = lists[c].n;
    h->next_list = pool.spill[c];
    pool.spill[c] = h;
    lists[c].head = NULL;
    lists[c].n = 0;
}

/* tss destructor: the exiting thread's lists are parked. */
static void drain(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pool.lock);
    for (unsigned c = 0; c < NCLS; c++)
        park(c);
    pthread_mutex_unlock(&pool.lock);
}

static void make_exit_key(void) { exit_key_ok = tss_create(&exit_key, drain) == thrd_success; }

/* Registers this thread's destructor once (best effort, see thread_state). */
static void register_thread(void)
{
    if (thread_state == 0) {
        pthread_once(&exit_once, make_exit_key);
        /* The destructor runs only for threads with a non-NULL value. */
        thread_state = exit_key_ok && tss_set(exit_key, (void *)lists) == thrd_success ? 1 : -1;
    }
}

/* Fills the empty list of class c: a parked list, else a new slab's blocks. */
static void refill(unsigned c)
{
    register_thread();
    pthread_mutex_lock(&pool.lock);
    struct free_block *h = pool.spill[c];
    if (h)
        pool.spill[c] = h->next_list;
    pthread_mutex_unlock(&pool.lock);
    if (h) {
        lists[c].head = h;
        lists[c].n = h->n;
        return;
    }
    unsigned char *s = xmalloc(SLAB_BYTES);
    pthread_mutex_lock(&pool.lock);
    ((struct slab *)(void *)s)->next = pool.slabs;
    pool.slabs = (struct slab *)(void *)s;
    pthread_mutex_unlock(&pool.lock);
    /* The first block's worth holds the slab's link; the rest are blocks. */
    size_t size = cls_bytes[c];
    struct free_block *head = NULL;
    size_t n = 0;
    for (size_t at = SLAB_BYTES - size; at >= size; at -= size, n++) {
        struct free_block *b = (struct free_block *)(void *)(s + at);
        b->next = head;
        head = b;
    }
    lists[c].head = head;
    lists[c].n = n;
}

char *opstr_alloc(size_t n)
{
    unsigned c = 0;
    while (c < NCLS && n + HDR > cls_bytes[c])
        c++;
    unsigned char *b;
    if (KEEP_BLOCKS && c < NCLS) {
        if (!lists[c].head)
            refill(c);
        b = (unsigned char *)lists[c].head;
        lists[c].head = lists[c].head->next;
        lists[c].n--;
        /* The next block is likely cold (freed long ago): its link is
         * fetched now, while the caller fills this one, not at the next
         * call, which would wait for it. */
        __builtin_prefetch(lists[c].head, 1);
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
    if (KEEP_BLOCKS && c < NCLS) {
        struct free_block *f = (struct free_block *)(void *)b;
        if (!lists[c].head)
            register_thread();   /* a thread that only frees: its list must be parked at exit */
        f->next = lists[c].head;
        lists[c].head = f;
        if (++lists[c].n >= LIST_MAX) {   /* a thread that frees more than it makes */
            pthread_mutex_lock(&pool.lock);
            park(c);
            pthread_mutex_unlock(&pool.lock);
        }
    } else {
        free(b);
    }
}
