/* http_work.c — the bounded work queue of `npusim serve` (http.h):
 * the requests that compute (a run, a sweep, a fleet, a validation, a
 * calibration) wait here for one of --threads workers, apart from the
 * thread that reads and answers connections. Every item taken is answered
 * exactly once: with its result, 503 when the queue is full or the server
 * is stopping, or 504 when it waited longer than --queue-timeout.
 *
 * Main data structure: struct work_queue, a FIFO of struct work_item with
 * one lock. An item's state moves QUEUED -> RUNNING -> ANSWERED (or
 * QUEUED/RUNNING -> ANSWERED when expired or stopped); whoever moves it
 * to ANSWERED calls its answer function, outside the lock (the answer
 * resumes a libmicrohttpd connection, which takes the library's locks).
 * refs counts the holders (the connection, the queue) so an item outlives
 * a worker that finishes after the answer was given. */
#include "cli/http.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"

enum { ITEM_NEW, ITEM_QUEUED, ITEM_RUNNING, ITEM_ANSWERED };

static const char waited_too_long[] =
    "the request waited too long for a free worker (--queue-timeout): the server is busy; try again later";

struct work_queue {
    struct work_queue_opts o;
    pthread_mutex_t lock;
    pthread_cond_t more, idle;      /* an item queued; a worker finished */
    struct work_item *head, *tail;  /* waiting, oldest first */
    struct work_item **running;     /* o.threads slots */
    int64_t queued, busy;
    bool stopping;
    pthread_t *threads;
    int64_t started;
};

static void drop_ref(struct work_item *it)
{
    if (--it->refs == 0) {
        free(it->path), free(it->body), free(it->r.body);
        free(it);
    }
}

/* Sets an error answer on an item (under the lock); the caller then
 * calls it->answer outside the lock. */
static void set_error(struct work_item *it, int status, const char *msg)
{
    it->state = ITEM_ANSWERED;
    free(it->r.body);
    api_reply_error(&it->r, status, msg);
}

static struct work_item *pop(struct work_queue *q)
{
    struct work_item *it = q->head;
    if (it && !(q->head = it->next))
        q->tail = NULL;
    if (it)
        q->queued--;
    return it;
}

static void *worker(void *arg)
{
    struct work_queue *q = arg;
    pthread_mutex_lock(&q->lock);
    int64_t slot = q->started++;
    for (;;) {
        while (!q->head && !q->stopping)
            pthread_cond_wait(&q->more, &q->lock);
        if (q->stopping && !q->head)
            break;
        struct work_item *it = pop(q);
        it->state = ITEM_RUNNING;
        q->running[slot] = it;
        q->busy++;
        pthread_mutex_unlock(&q->lock);
        struct api_response r;
        double waited_s = clock_monotonic_s() - it->queued_s;
        if (waited_s > q->o.queue_timeout_s)   /* work_expire had not come round to it yet */
            api_reply_error(&r, 504, waited_too_long);
        else
            api_handle(q->o.ctx, it->method, it->path, it->body, it->len, &r);
        pthread_mutex_lock(&q->lock);
        q->running[slot] = NULL;
        q->busy--;
        pthread_cond_broadcast(&q->idle);
        bool mine = it->state == ITEM_RUNNING;   /* not answered meanwhile by work_stop */
        if (mine) {
            it->state = ITEM_ANSWERED;
            it->r = r;
        } else
            free(r.body);
        pthread_mutex_unlock(&q->lock);
        if (mine)
            it->answer(it, it->arg);
        pthread_mutex_lock(&q->lock);
        drop_ref(it);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

struct work_queue *work_start(const struct work_queue_opts *o)
{
    struct work_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->o = *o;
    q->running = calloc((size_t)o->threads, sizeof *q->running);
    q->threads = calloc((size_t)o->threads, sizeof *q->threads);
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->more, NULL);
    pthread_cond_init(&q->idle, NULL);
    int64_t made = 0;
    while (q->running && q->threads && made < o->threads && !pthread_create(&q->threads[made], NULL, worker, q))
        made++;
    if (made < o->threads) {
        fprintf(stderr, "npusim serve: cannot start %lld worker threads\n", (long long)o->threads);
        pthread_mutex_lock(&q->lock);
        q->stopping = true;
        pthread_cond_broadcast(&q->more);
        pthread_mutex_unlock(&q->lock);
        for (int64_t i = 0; i < made; i++)
            pthread_join(q->threads[i], NULL);
        free(q->running), free(q->threads), free(q);
        return NULL;
    }
    return q;
}

int work_submit(struct work_queue *q, struct work_item *it)
{
    pthread_mutex_lock(&q->lock);
    /* full: as many waiting as allowed beyond the workers, each of them busy */
    if (q->stopping || q->queued >= q->o.max_queued) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    it->state = ITEM_QUEUED;
    it->refs = 2;   /* the caller's and the queue's */
    it->queued_s = clock_monotonic_s();
    it->next = NULL;
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
    q->queued++;
    pthread_cond_signal(&q->more);
    pthread_mutex_unlock(&q->lock);
    return 0;
}

void work_release(struct work_queue *q, struct work_item *it)
{
    pthread_mutex_lock(&q->lock);
    drop_ref(it);
    pthread_mutex_unlock(&q->lock);
}

/* Takes out the waiting items for which pick says so, answered with
 * status and msg; answers them outside the lock. */
static void answer_waiting(struct work_queue *q, bool (*pick)(const struct work_item *, double), double cutoff,
                           int status, const char *msg)
{
    struct work_item *done = NULL, **pp;
    pthread_mutex_lock(&q->lock);
    for (pp = &q->head; *pp;) {
        struct work_item *it = *pp;
        if (!pick(it, cutoff)) {
            pp = &it->next;
            continue;
        }
        *pp = it->next;
        q->queued--;
        set_error(it, status, msg);
        it->next = done;
        done = it;
    }
    q->tail = NULL;
    for (struct work_item *it = q->head; it; it = it->next)
        q->tail = it;
    pthread_mutex_unlock(&q->lock);
    while (done) {
        struct work_item *it = done;
        done = it->next;
        it->answer(it, it->arg);
        work_release(q, it);   /* the queue's reference */
    }
}

/* Queued before cutoff (a clock_monotonic_s() time). */
static bool queued_before(const struct work_item *it, double cutoff)
{
    return it->queued_s < cutoff;
}

static bool every(const struct work_item *it, double cutoff)
{
    (void)it, (void)cutoff;
    return true;
}

void work_expire(struct work_queue *q)
{
    answer_waiting(q, queued_before, clock_monotonic_s() - q->o.queue_timeout_s, 504, waited_too_long);
}

int64_t work_running(struct work_queue *q)
{
    pthread_mutex_lock(&q->lock);
    int64_t n = q->busy + q->queued;
    pthread_mutex_unlock(&q->lock);
    return n;
}

void work_stop(struct work_queue *q, double grace_s, volatile int *cut, void (*poll)(volatile int *cut))
{
    pthread_mutex_lock(&q->lock);
    q->stopping = true;
    pthread_cond_broadcast(&q->more);
    pthread_mutex_unlock(&q->lock);
    double until = clock_monotonic_s() + grace_s;
    while (work_running(q) > 0 && clock_monotonic_s() < until && !*cut)
        poll(cut);   /* waits a little, and notices a second signal */
    answer_waiting(q, every, 0, 503, "the server stopped before this request was taken; try again later");
    struct work_item *late[256];
    int n = 0;
    pthread_mutex_lock(&q->lock);
    for (int64_t i = 0; i < q->o.threads && n < 256; i++) {
        struct work_item *it = q->running[i];
        if (it && it->state == ITEM_RUNNING) {
            set_error(it, 503, "the server stopped before this request finished; try again later");
            it->refs++;   /* ours until answered */
            late[n++] = it;
        }
    }
    pthread_mutex_unlock(&q->lock);
    for (int i = 0; i < n; i++) {
        late[i]->answer(late[i], late[i]->arg);
        work_release(q, late[i]);
    }
    /* a worker may still be inside a computation that cannot be
     * interrupted: work_free tells */
}

bool work_free(struct work_queue *q)
{
    pthread_mutex_lock(&q->lock);
    bool idle = q->busy == 0;
    q->stopping = true;
    pthread_cond_broadcast(&q->more);
    pthread_mutex_unlock(&q->lock);
    if (!idle)
        return false;
    for (int64_t i = 0; i < q->o.threads; i++)
        pthread_join(q->threads[i], NULL);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->more);
    pthread_cond_destroy(&q->idle);
    free(q->running), free(q->threads), free(q);
    return true;
}
