/* ordered_pool.c — N workers, results consumed in order (see ordered_pool.h).
 *
 * One mutex guards the producer, the slot states and the consumer. A worker
 * takes the next task (waiting while the ring is full), works on it unlocked,
 * marks its slot done, and then emits every consecutive done slot from the
 * head: whichever worker completes the head task drains the buffer, so no
 * separate writer thread is needed. */
#include "study/run/ordered_pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

enum { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

struct pool {
    const struct ordered_pool_ops *ops;
    size_t item_size, window;
    unsigned char *items;
    unsigned char *state;
    unsigned long next_seq, emit_seq;  /* tasks handed out; tasks emitted */
    bool ended, stopped;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static void *slot(struct pool *p, unsigned long seq) { return p->items + (seq % p->window) * p->item_size; }

static void *worker(void *arg)
{
    struct pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->stopped || p->ended)
            break;
        if (p->next_seq - p->emit_seq >= p->window) {
            pthread_cond_wait(&p->cv, &p->mu);
            continue;
        }
        unsigned long seq = p->next_seq;
        void *it = slot(p, seq);
        int r = p->ops->next(p->ops->ctx, it);
        if (r <= 0) {
            if (r < 0)
                p->stopped = true;
            else
                p->ended = true;
            pthread_cond_broadcast(&p->cv);
            break;
        }
        p->next_seq++;
        p->state[seq % p->window] = SLOT_BUSY;
        pthread_mutex_unlock(&p->mu);
        p->ops->work(p->ops->ctx, it);
        pthread_mutex_lock(&p->mu);
        p->state[seq % p->window] = SLOT_DONE;
        bool emitted = false;
        while (p->emit_seq < p->next_seq && p->state[p->emit_seq % p->window] == SLOT_DONE) {
            void *head = slot(p, p->emit_seq);
            p->state[p->emit_seq % p->window] = SLOT_FREE;
            p->emit_seq++;
            emitted = true;
            if (!p->stopped && p->ops->emit(p->ops->ctx, head) != 0)
                p->stopped = true;
            else if (p->stopped && p->ops->discard)
                p->ops->discard(p->ops->ctx, head);
        }
        if (emitted)
            pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int ordered_pool_run(const struct ordered_pool_ops *ops, size_t item_size, int nthreads, size_t window)
{
    struct pool p = { .ops = ops, .item_size = item_size, .window = window ? window : 1 };
    p.items = calloc(p.window, item_size);
    p.state = calloc(p.window, 1);
    if (!p.items || !p.state) {
        free(p.items);
        free(p.state);
        return -1;
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    int rc = 0;
    if (nthreads <= 1) {
        worker(&p);
    } else {
        pthread_t *th = calloc((size_t)nthreads, sizeof *th);
        int started = 0;
        for (; th && started < nthreads; started++)
            if (pthread_create(&th[started], NULL, worker, &p) != 0)
                break;
        if (started == 0)
            worker(&p);   /* no thread at all: still finish the work here */
        for (int i = 0; i < started; i++)
            pthread_join(th[i], NULL);
        free(th);
    }
    /* Anything handed out but not emitted (a stop) is discarded. */
    for (; p.emit_seq < p.next_seq; p.emit_seq++)
        if (ops->discard)
            ops->discard(ops->ctx, slot(&p, p.emit_seq));
    if (p.stopped)
        rc = -1;
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    free(p.items);
    free(p.state);
    return rc;
}
