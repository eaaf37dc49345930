/* calibrate.c — kernel efficiencies fitted with GSL's robust regression
 * (see calibrate.h). */
#include "study/calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "traces/precision.h"

/* One measured row: its roofline time on the chip without efficiencies
 * (x), its measured time (y), its group. */
struct point {
    double x_ns, y_ns;
    int kc, prec;
};

static int kc_by_name(const char *name)
{
    for (int k = 0; k < KC_COUNT; k++)
        if (!strcmp(kernel_class_name((enum kernel_class)k), name))
            return k;
    return -1;
}

/* e alone: minimise sum (1 - x / (e y))^2 over b = 1/e: b = sum(r) / sum(r^2), r = x/y. */
static double fit_e_alone(const struct point *p, const int *idx, int k)
{
    double s1 = 0, s2 = 0;
    for (int i = 0; i < k; i++) {
        double r = p[idx[i]].x_ns / p[idx[i]].y_ns;
        s1 += r, s2 += r * r;
    }
    return s2 > 0 && s1 > 0 ? s2 / s1 : 1.0;
}

/* t0 + x / e ~ y on relative residuals: 1 ~ t0 (1/y) + (1/e) (x/y), robustly. 0 when it fit. */
static int fit_two(const struct point *p, const int *idx, int k, double *t0, double *e)
{
    gsl_matrix *X = gsl_matrix_alloc((size_t)k, 2);
    gsl_vector *y = gsl_vector_alloc((size_t)k), *c = gsl_vector_alloc(2);
    gsl_matrix *cov = gsl_matrix_alloc(2, 2);
    gsl_multifit_robust_workspace *w = gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare, (size_t)k, 2);
    int rc = -1;
    if (X && y && c && cov && w) {
        for (int i = 0; i < k; i++) {
            gsl_matrix_set(X, (size_t)i, 0, 1.0 / p[idx[i]].y_ns);
            gsl_matrix_set(X, (size_t)i, 1, p[idx[i]].x_ns / p[idx[i]].y_ns);
            gsl_vector_set(y, (size_t)i, 1.0);
        }
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        int s = gsl_multifit_robust(X, y, c, cov, w);
        gsl_set_error_handler(old);
        double a = gsl_vector_get(c, 0), b = gsl_vector_get(c, 1);
        if ((s == GSL_SUCCESS || s == GSL_EMAXITER) && isfinite(a) && isfinite(b) && a >= 0 && b > 0) {
            *t0 = a;
            *e = 1.0 / b;
            rc = 0;
        }
    }
    gsl_multifit_robust_free(w);
    gsl_matrix_free(cov);
    gsl_vector_free(c);
    gsl_vector_free(y);
    gsl_matrix_free(X);
    return rc;
}

static double mape_of(const struct point *p, const int *idx, int k, double t0, double e)
{
    double s = 0;
    for (int i = 0; i < k; i++)
        s += fabs(t0 + p[idx[i]].x_ns / e - p[idx[i]].y_ns) / p[idx[i]].y_ns;
    return k ? 100 * s / k : 0;
}

static void reset_efficiencies(struct chip_config *c)
{
    for (int k = 0; k < KC_COUNT; k++) {
        c->kernel_eff[k].e_max = 1.0;
        c->kernel_eff[k].n_half = 0;
        c->kernel_eff[k].t0_ns = 0;
        memset(c->kernel_eff[k].by_prec, 0, sizeof c->kernel_eff[k].by_prec);
    }
}

/* The rows as points on the chip without efficiencies. */
static int collect(const struct op_table *tables, const char *const *files, int n, const struct chip_config *bare,
                   const struct profile *prof, struct point **out, int *np, struct npu_err *e)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += tables[i].n;
    struct point *p = calloc(total ? total : 1, sizeof *p);
    if (!p)
        return npu_errf(e, "calibrate: out of memory");
    int k = 0;
    for (int i = 0; i < n; i++)
        for (size_t j = 0; j < tables[i].n; j++) {
            const struct op_row *row = &tables[i].rows[j];
            struct op_prediction pr;
            struct npu_err pe;
            if (!(row->r.measured_us > 0)) {
                free(p);
                return npu_errf(e, "%s: line %d: column \"time_us\": expected a measured time above 0 us", files[i],
                                row->line);
            }
            if (op_predict(&row->r, bare, prof, &pr, &pe)) {
                free(p);
                return npu_errf(e, "%s: line %d: %s", files[i], row->line, pe.msg);
            }
            int kc = kc_by_name(pr.kernel_class);
            if (kc < 0) {
                free(p);
                return npu_errf(e, "%s: line %d: calibrating needs the physical profile (no kernel class under "
                                "neusim)", files[i], row->line);
            }
            p[k++] = (struct point){ pr.time_us * 1e3, row->r.measured_us * 1e3, kc, row->r.prec };
        }
    *out = p;
    *np = k;
    return 0;
}

int calibrate_run(const struct op_table *tables, const char *const *files, int n, const struct chip_config *chip,
                  const struct profile *prof, struct chip_config *out, struct calib_fit *fits, int *nfits,
                  struct npu_err *e)
{
    struct chip_config bare = *chip;
    reset_efficiencies(&bare);
    struct point *p = NULL;
    int np = 0;
    *nfits = 0;
    if (collect(tables, files, n, &bare, prof, &p, &np, e))
        return -1;
    int *idx = malloc((size_t)(np ? np : 1) * sizeof *idx);
    if (!idx) {
        free(p);
        return npu_errf(e, "calibrate: out of memory");
    }
    *out = *chip;
    for (int i = 0; i < np; i++) {
        int g = 0;
        while (g < *nfits && !(fits[g].kernel_class == p[i].kc && fits[g].prec == p[i].prec))
            g++;
        if (g < *nfits)
            continue;
        struct calib_fit *f = &fits[(*nfits)++];
        memset(f, 0, sizeof *f);
        f->kernel_class = p[i].kc, f->prec = p[i].prec;
        int k = 0;
        for (int j = 0; j < np; j++)
            if (p[j].kc == f->kernel_class && p[j].prec == f->prec)
                idx[k++] = j;
        f->n = k;
        f->mape_before = mape_of(p, idx, k, 0, 1);
        f->two_params = k >= 3 && fit_two(p, idx, k, &f->t0_ns, &f->e) == 0;
        if (!f->two_params)
            f->t0_ns = 0, f->e = fit_e_alone(p, idx, k);
        f->clamped = f->e > 1.0 || f->e < 0.01;
        f->e = f->e > 1.0 ? 1.0 : f->e < 0.01 ? 0.01 : f->e;
        out->kernel_eff[f->kernel_class].by_prec[f->prec] = f->e;
    }
    /* One t0 per class: the median of its formats' fits. */
    for (int kc = 0; kc < KC_COUNT; kc++) {
        double t[PREC_COUNT];
        size_t k = 0;
        for (int g = 0; g < *nfits; g++)
            if (fits[g].kernel_class == kc)
                t[k++] = fits[g].t0_ns;
        if (!k)
            continue;
        gsl_sort(t, 1, k);
        out->kernel_eff[kc].t0_ns = gsl_stats_median_from_sorted_data(t, 1, k);
    }
    for (int g = 0; g < *nfits; g++) {
        struct calib_fit *f = &fits[g];
        int k = 0;
        for (int j = 0; j < np; j++)
            if (p[j].kc == f->kernel_class && p[j].prec == f->prec)
                idx[k++] = j;
        f->mape_after = mape_of(p, idx, k, out->kernel_eff[f->kernel_class].t0_ns, f->e);
    }
    free(idx);
    free(p);
    return 0;
}
