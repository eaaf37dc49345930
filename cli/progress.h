/* progress.h — a progress line on stderr for long commands.
 *
 * "npusim sweep: 1234/5000 (24.7%)  812.3/s  0:04 left" (or, when the total
 * is not known ahead, "npusim energy: 1234  812.3/s"), redrawn in place at
 * most four times a second, and only when stderr is a terminal: scripts,
 * run-suite and the tests see nothing. Main data structure: struct progress,
 * the counts and the clock of the last redraw. */
#ifndef NPUSIM_CLI_PROGRESS_H
#define NPUSIM_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "study/run/run.h"

struct progress {
    bool on;
    long total;         /* 0 = unknown */
    double start, last; /* monotonic seconds */
    int width;          /* length of the last line drawn, to blank it */
    FILE *out;
    const char *cmd;    /* the line's prefix, "npusim sweep" */
};

/* on: draw at all (normally isatty(2)). */
void progress_init(struct progress *p, bool on, long total);
/* Draws the first time, then if ~0.25 s passed since the last redraw. */
void progress_update(struct progress *p, long done);
/* Clears the line. */
void progress_end(struct progress *p);

/* The callbacks a study stage reports through (study/run/stage_progress.h),
 * drawing p's line prefixed by cmd; on only when stderr is a terminal and
 * not quiet (--quiet). */
struct stage_progress progress_hooks(struct progress *p, const char *cmd, bool quiet);

#endif
