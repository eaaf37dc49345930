/* ordered_pool.h — run tasks on N threads, consume their results in order.
 *
 * A producer hands out tasks one at a time (next), workers process them
 * without any lock (work), and a consumer sees the results strictly in the
 * order the producer handed them out (emit), whatever order they finish in.
 * Main data structure: a ring of `window` item slots (the reorder buffer);
 * a task may only start while it is fewer than `window` tasks ahead of the
 * oldest unconsumed one, so memory stays bounded however many tasks there
 * are, and no task list is ever materialised. */
#ifndef NPUSIM_STUDY_ORDERED_POOL_H
#define NPUSIM_STUDY_ORDERED_POOL_H

#include <stddef.h>

struct ordered_pool_ops {
    void *ctx;
    /* Fills `item` with the next task: 1 = a task, 0 = no more, -1 = stop with
     * an error. Called with the pool's lock held (one call at a time). */
    int (*next)(void *ctx, void *item);
    /* Processes a task in place; runs concurrently with other work() calls. */
    void (*work)(void *ctx, void *item);
    /* Consumes a processed item, in next() order, with the lock held;
     * 0 = go on, -1 = stop (no further task starts). */
    int (*emit)(void *ctx, void *item);
    /* Releases whatever next() attached to an item that will not be emitted
     * (after a stop); may be NULL. Lock held. */
    void (*discard)(void *ctx, void *item);
};

/* Runs until next() returns 0 (then every task is emitted) or next()/emit()
 * stops it. nthreads <= 1 runs everything on the calling thread. Returns 0,
 * or -1 if stopped or a thread could not be created. */
int ordered_pool_run(const struct ordered_pool_ops *ops, size_t item_size, int nthreads, size_t window);

#endif
