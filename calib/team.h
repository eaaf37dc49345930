/* team.h — a fixed team of threads that runs one function over a split of
 * the work, again and again, for the kernels of npusim measure: the threads
 * are started once, and each run costs two barrier waits, not n thread
 * creations (a kernel in L1 lasts a microsecond).
 *
 * Main data structure: struct team. */
#ifndef NPUSIM_TEAM_H
#define NPUSIM_TEAM_H

#include <pthread.h>
#include <stdbool.h>

#define TEAM_MAX 256

typedef void (*team_fn)(void *arg, int tid, int n_threads);

struct team {
    int n;                     /* threads, the caller's included */
    pthread_t th[TEAM_MAX];
    pthread_barrier_t go, done;
    team_fn fn;
    void *arg;
    bool quit;
};

/* Starts n - 1 threads (n in 1..TEAM_MAX); -1 when they cannot start. */
int team_start(struct team *t, int n);
/* fn(arg, tid, n) on every thread, the caller as tid 0; returns when all
 * have returned. */
void team_run(struct team *t, team_fn fn, void *arg);
void team_stop(struct team *t);

/* The [*lo, *hi) share of tid among n of count items. */
static inline void team_share(long count, int tid, int n, long *lo, long *hi)
{
    *lo = count * tid / n;
    *hi = count * (tid + 1) / n;
}

#endif
