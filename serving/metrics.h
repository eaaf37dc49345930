/* metrics.h — the latency figures `npusim serving` reports: each latency
 * (TTFT, TPOT, ITL, end to end, queueing) as {mean, p50, p90, p95, p99,
 * max} over the requests that have it.
 *
 * Percentiles interpolate linearly between the two nearest ranks (GSL's
 * gsl_stats_quantile_from_sorted_data; numpy.percentile's default, which
 * vLLM's benchmark_serving reports): the q-quantile of n sorted values is
 * x[i] + f (x[i+1] - x[i]) at i + f = q (n - 1).
 *
 * Main data structure: struct serving_dist. */
#ifndef NPUSIM_SERVING_METRICS_H
#define NPUSIM_SERVING_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct serving_dist {
    int64_t n;                               /* values it is over */
    double mean, p50, p90, p95, p99, max;    /* NAN when n is 0 */
};

/* The figures of the n values x (sorted in place; NAN values count as
 * none: the caller leaves them out). */
void serving_dist_of(double *x, size_t n, struct serving_dist *d);

/* The same over weighted values: value v[i] counted w[i] times (w >= 1),
 * n pairs (sorted in place by value): exactly serving_dist_of of the
 * expanded list, without expanding it (inter-token gaps: one value per
 * pass for every request that waited it). */
void serving_dist_weighted(double *v, int64_t *w, size_t n, struct serving_dist *d);

/* The growth of the requests in the system over the last three quarters of
 * the arrivals, relative to their mean (the summary's in_system_growth; ~0
 * when the replicas keep up, 1.2 for a system filling linearly from empty;
 * NAN under SERVING_GROWTH_MIN_REQUESTS requests). arrival_s and finish_s:
 * the n requests' times, any order. */
#define SERVING_GROWTH_MIN_REQUESTS 200
double serving_in_system_growth(const double *arrival_s, const double *finish_s, size_t n);

#endif
