/* metrics.c — mean, percentiles and maximum of a latency over the
 * requests, and whether the requests in the system kept growing
 * (metrics.h). Main data structure: struct serving_dist. */
#include "serving/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fit.h>
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

/* How much the requests in the system grew over the last three quarters of
 * the arrivals (the first quarter fills the system): the least-squares line
 * of their number at each arrival, L(t) = arrived - finished, against time,
 * its rise over that span over its mean. Under a load the replicas keep up
 * with it stays near 0 (a steady queue and batch); past it, they pile up: a
 * system filling linearly from empty, L = c t, rises 3/4 cT over a mean of
 * 5/8 cT, 1.2. */
double serving_in_system_growth(const double *arrival_s, const double *finish_s, size_t n)
{
    if (n < SERVING_GROWTH_MIN_REQUESTS)
        return NAN;
    size_t w = n - n / 4;
    double *a = malloc(n * sizeof *a), *f = malloc(n * sizeof *f), *l = malloc(w * sizeof *l);
    double g = NAN;
    if (a && f && l) {
        memcpy(a, arrival_s, n * sizeof *a);
        memcpy(f, finish_s, n * sizeof *f);
        gsl_sort(a, 1, n);
        gsl_sort(f, 1, n);
        size_t done = 0;
        for (size_t i = n / 4; i < n; i++) {
            while (done < n && f[done] <= a[i])
                done++;
            l[i - n / 4] = (double)(i + 1) - (double)done;
        }
        double c0, c1, cov00, cov01, cov11, sumsq, span = a[n - 1] - a[n / 4], mean = gsl_stats_mean(l, 1, w);
        if (span > 0 && mean > 0 && !gsl_fit_linear(a + n / 4, 1, l, 1, w, &c0, &c1, &cov00, &cov01, &cov11, &sumsq))
            g = c1 * span / mean;
    }
    free(a);
    free(f);
    free(l);
    return g;
}
