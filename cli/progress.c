/* progress.c — the sweep's progress line (see progress.h). */
#include "cli/progress.h"

#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_init(struct progress *p, bool on, long total)
{
    p->on = on;
    p->total = total;
    p->start = p->last = now_s();
    p->width = 0;
    p->out = stderr;
}

void progress_update(struct progress *p, long done)
{
    if (!p->on)
        return;
    double t = now_s();
    if (t - p->last < 0.25)
        return;
    p->last = t;
    double el = t - p->start, rate = el > 0 ? (double)done / el : 0;
    char line[160];
    int n;
    if (p->total > 0 && rate > 0) {
        long left = (long)((double)(p->total - done) / rate + 0.5);
        if (left < 0)
            left = 0;
        n = snprintf(line, sizeof line, "npusim sweep: %ld/%ld (%.1f%%)  %.1f/s  %ld:%02ld left", done,
                     p->total, 100.0 * (double)done / (double)p->total, rate, left / 60, left % 60);
    } else
        n = snprintf(line, sizeof line, "npusim sweep: %ld  %.1f/s", done, rate);
    fprintf(p->out, "\r%s%*s", line, p->width > n ? p->width - n : 0, "");
    fflush(p->out);
    p->width = n;
}

void progress_end(struct progress *p)
{
    if (p->on && p->width) {
        fprintf(p->out, "\r%*s\r", p->width, "");
        fflush(p->out);
    }
    p->width = 0;
}
