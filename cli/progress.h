/* progress.h — a progress line on stderr for long sweeps.
 *
 * "npusim sweep: 1234/5000 (24.7%)  812.3/s  0:04 left", redrawn in place at
 * most four times a second, and only when stderr is a terminal: scripts,
 * run-suite and the tests see nothing. Main data structure: struct progress,
 * the counts and the clock of the last redraw. */
#ifndef NPUSIM_CLI_PROGRESS_H
#define NPUSIM_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

struct progress {
    bool on;
    long total;         /* 0 = unknown */
    double start, last; /* monotonic seconds */
    int width;          /* length of the last line drawn, to blank it */
    FILE *out;
};

/* on: draw at all (normally isatty(2)). */
void progress_init(struct progress *p, bool on, long total);
/* Redraws if ~0.25 s passed since the last redraw. */
void progress_update(struct progress *p, long done);
/* Clears the line. */
void progress_end(struct progress *p);

#endif
