/* clock.h — monotonic seconds, the one clock for deadlines, progress rates
 * and measured repetitions (never for outputs: they stay deterministic).
 * No data structure. */
#ifndef NPUSIM_CLOCK_H
#define NPUSIM_CLOCK_H

#include <time.h>

static inline double clock_monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
