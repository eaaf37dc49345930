/* team.c — a fixed team of threads run through two barriers (see team.h). */
#include "calib/team.h"

/* One team at a time per process (npusim measure runs one). */
struct member { struct team *t; int tid; };
static struct member members[TEAM_MAX];

static void *member_main(void *p)
{
    struct member *me = p;
    struct team *t = me->t;
    for (;;) {
        pthread_barrier_wait(&t->go);
        if (t->quit)
            return NULL;
        t->fn(t->arg, me->tid, t->n);
        pthread_barrier_wait(&t->done);
    }
}

int team_start(struct team *t, int n)
{
    if (n < 1 || n > TEAM_MAX)
        return -1;
    t->n = n;
    t->quit = false;
    if (pthread_barrier_init(&t->go, NULL, (unsigned)n) || pthread_barrier_init(&t->done, NULL, (unsigned)n))
        return -1;
    for (int i = 1; i < n; i++) {
        members[i] = (struct member){ t, i };
        /* On a failure the started threads stay parked at go (a barrier
         * cannot shrink); the caller gives up the whole run. */
        if (pthread_create(&t->th[i], NULL, member_main, &members[i]))
            return -1;
    }
    return 0;
}

void team_run(struct team *t, team_fn fn, void *arg)
{
    t->fn = fn;
    t->arg = arg;
    if (t->n > 1)
        pthread_barrier_wait(&t->go);
    fn(arg, 0, t->n);
    if (t->n > 1)
        pthread_barrier_wait(&t->done);
}

void team_stop(struct team *t)
{
    t->quit = true;
    if (t->n > 1) {
        pthread_barrier_wait(&t->go);
        for (int i = 1; i < t->n; i++)
            pthread_join(t->th[i], NULL);
    }
    pthread_barrier_destroy(&t->go);
    pthread_barrier_destroy(&t->done);
    t->n = 0;
}
