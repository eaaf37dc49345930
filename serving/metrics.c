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

/* The value at 0-based rank k of the expanded list (pairs sorted). */
static double at_rank(const double *v, const int64_t *w, size_t n, int64_t k)
{
    for (size_t i = 0; i < n; i++) {
        if (k < w[i])
            return v[i];
        k -= w[i];
    }
    return v[n - 1];
}

static double weighted_quantile(const double *v, const int64_t *w, size_t n, int64_t total, double q)
{
    double h = q * (double)(total - 1);
    int64_t lo = (int64_t)h;
    double f = h - (double)lo, a = at_rank(v, w, n, lo);
    return f > 0 ? a + f * (at_rank(v, w, n, lo + 1) - a) : a;
}

struct vw { double v; int64_t w; };
static int vw_cmp(const void *a, const void *b)
{
    double x = ((const struct vw *)a)->v, y = ((const struct vw *)b)->v;
    return (x > y) - (x < y);
}

void serving_dist_weighted(double *v, int64_t *w, size_t n, struct serving_dist *d)
{
    struct vw *p = n ? malloc(n * sizeof *p) : NULL;
    int64_t total = 0;
    double sum = 0;
    for (size_t i = 0; p && i < n; i++) {
        p[i] = (struct vw){ v[i], w[i] };
        total += w[i];
    }
    if (!p || total == 0) {
        free(p);
        serving_dist_of(v, 0, d);
        return;
    }
    qsort(p, n, sizeof *p, vw_cmp);
    for (size_t i = 0; i < n; i++) {
        v[i] = p[i].v, w[i] = p[i].w;
        sum += v[i] * (double)w[i];
    }
    free(p);
    d->n = total;
    d->mean = sum / (double)total;
    d->p50 = weighted_quantile(v, w, n, total, 0.50);
    d->p90 = weighted_quantile(v, w, n, total, 0.90);
    d->p95 = weighted_quantile(v, w, n, total, 0.95);
    d->p99 = weighted_quantile(v, w, n, total, 0.99);
    d->max = v[n - 1];
}
