/* progress.c — the progress line of long commands (see progress.h). */
#include "cli/progress.h"

#include <unistd.h>

#include "base/clock.h"


void progress_init(struct progress *p, bool on, long total)
{
    p->on = on;
    p->total = total;
    p->start = p->last = clock_monotonic_s();
    p->width = 0;
    p->out = stderr;
    if (!p->cmd)
        p->cmd = "npusim";
}

void progress_update(struct progress *p, long done)
{
    if (!p->on)
        return;
    double t = clock_monotonic_s();
    if (p->width && t - p->last < 0.25)   /* the first update draws at once: a short run shows it too */
        return;
    p->last = t;
    double el = t - p->start, rate = el > 0 ? (double)done / el : 0;
    char line[160];
    int n;
    if (p->total > 0 && rate > 0) {
        long left = (long)((double)(p->total - done) / rate + 0.5);
        if (left < 0)
            left = 0;
        n = snprintf(line, sizeof line, "%s: %ld/%ld (%.1f%%)  %.1f/s  %ld:%02ld left", p->cmd, done,
                     p->total, 100.0 * (double)done / (double)p->total, rate, left / 60, left % 60);
    } else
        n = snprintf(line, sizeof line, "%s: %ld  %.1f/s", p->cmd, done, rate);
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

static void hook_begin(void *arg, long total) { progress_init(arg, true, total); }
static void hook_update(void *arg, long done) { progress_update(arg, done); }
static void hook_end(void *arg) { progress_end(arg); }

struct stage_progress progress_hooks(struct progress *p, const char *cmd, bool quiet)
{
    p->cmd = cmd;
    p->on = false;
    return (struct stage_progress){ !quiet && isatty(2), hook_begin, hook_update, hook_end, p };
}
