/* stage_io.h — what a caller hands a stage beside its request (the typed
 * entries of study/stages/ and study/sweep/): a suite's results held in
 * memory, the progress hooks, and the flag a signal sets to ask it to stop.
 * The request says what to compute; this says how the caller takes part.
 *
 * Main data structure: struct stage_io. */
#ifndef NPUSIM_STUDY_STAGE_IO_H
#define NPUSIM_STUDY_STAGE_IO_H

#include <signal.h>
#include <stddef.h>

#include "study/run/run.h"

struct results;

struct stage_io {
    /* A suite's results in memory (study/run/results.h), each may be NULL:
     * what the stage before wrote, taken instead of reading the files when
     * held, and where this stage's go for the next. */
    struct results *in, *out;
    struct stage_progress progress;     /* off unless the caller draws it */
    volatile sig_atomic_t *stop;        /* set by a signal: stop between units of work (NULL: never) */
    int suite;                          /* run by npusim suite: a model or version without results is
                                         * a warning, not an error (the sweeps before said why) */
};

/* The io of a plain call: nothing held, no progress, never stopped. */
static inline struct stage_io stage_io_none(void)
{
    struct stage_io io = { NULL, NULL, { 0 }, NULL, 0 };
    return io;
}

#endif
