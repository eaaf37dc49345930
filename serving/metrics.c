/* metrics.c — mean, percentiles and maximum of a latency over the
 * requests (metrics.h). Main data structure: struct serving_dist. */
#include "serving/metrics.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

void serving_dist_of(double *x, size_t n, struct serving_dist *d)
{
    d->n = (int64_t)n;
    if (n == 0) {
        d->mean = d->p50 = d->p90 = d->p95 = d->p99 = d->max = NAN;
        return;
    }
    gsl_sort(x, 1, n);
    d->mean = gsl_stats_mean(x, 1, n);
    d->p50 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.50);
    d->p90 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.90);
    d->p95 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.95);
    d->p99 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.99);
    d->max = x[n - 1];
}
