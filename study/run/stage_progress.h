/* stage_progress.h — how a long stage (a sweep, the energy and carbon
 * stages) reports how far it is, for a caller that shows it (the command
 * line draws cli/progress.h's line on a terminal). The stages call these in
 * their ordered emitters, so the counts are the same for every -j. No data
 * structure beyond the callbacks. */
#ifndef NPUSIM_STAGE_PROGRESS_H
#define NPUSIM_STAGE_PROGRESS_H

#include <stdbool.h>

struct stage_progress {
    bool on;
    void (*begin)(void *arg, long total);   /* total 0: not known in advance */
    void (*update)(void *arg, long done);
    void (*end)(void *arg);
    void *arg;
};

static inline void stage_progress_begin(const struct stage_progress *p, long total)
{
    if (p && p->on)
        p->begin(p->arg, total);
}
static inline void stage_progress_update(const struct stage_progress *p, long done)
{
    if (p && p->on)
        p->update(p->arg, done);
}
static inline void stage_progress_end(const struct stage_progress *p)
{
    if (p && p->on)
        p->end(p->arg);
}

#endif
