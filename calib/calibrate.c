/* calibrate.c — kernel efficiencies fitted with GSL's robust regression
 * (see calibrate.h). */
#include "calib/calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "traces/precision.h"

/* One measured row: its roofline time on the chip without efficiencies
 * (x), its measured time (y), its group. */
struct point {
    double x_ns, y_ns;
    int kc, prec;
    const char *op;            /* its operator type, for the held-out table */
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
            p[k++] = (struct point){ pr.time_us * 1e3, row->r.measured_us * 1e3, kc, row->r.prec, row->r.op };
        }
    *out = p;
    *np = k;
    return 0;
}

/* Fits every (class, format) group among the points with use[i] (NULL:
 * all), in first-seen order, then one t0 per class (t0[kc]: the median of
 * its formats' fits). idx: room for np indices. */
static void fit_groups(const struct point *p, int np, const bool *use, int *idx, struct calib_fit *fits,
                       int *nfits, double *t0)
{
    *nfits = 0;
    for (int i = 0; i < np; i++) {
        if (use && !use[i])
            continue;
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
            if ((!use || use[j]) && p[j].kc == f->kernel_class && p[j].prec == f->prec)
                idx[k++] = j;
        f->n = k;
        f->mape_before = mape_of(p, idx, k, 0, 1);
        f->two_params = k >= 3 && fit_two(p, idx, k, &f->t0_ns, &f->e) == 0;
        if (!f->two_params)
            f->t0_ns = 0, f->e = fit_e_alone(p, idx, k);
        f->clamped = f->e > 1.0 || f->e < 0.01;
        f->e = f->e > 1.0 ? 1.0 : f->e < 0.01 ? 0.01 : f->e;
    }
    for (int kc = 0; kc < KC_COUNT; kc++) {
        double t[PREC_COUNT];
        size_t k = 0;
        for (int g = 0; g < *nfits; g++)
            if (fits[g].kernel_class == kc)
                t[k++] = fits[g].t0_ns;
        t0[kc] = 0;
        if (k) {
            gsl_sort(t, 1, k);
            t0[kc] = gsl_stats_median_from_sorted_data(t, 1, k);
        }
    }
}

/* The time the fits give point i: its group's, else the roofline's. */
static double fitted_ns(const struct point *pt, const struct calib_fit *fits, int nfits, const double *t0)
{
    for (int g = 0; g < nfits; g++)
        if (fits[g].kernel_class == pt->kc && fits[g].prec == pt->prec)
            return t0[pt->kc] + pt->x_ns / fits[g].e;
    return pt->x_ns;
}

/* Seeded k-fold cross-validation: each point predicted by the fit of the
 * other folds; the roofline's error beside it. */
static void cross_validate(const struct point *p, int np, int *idx, struct calib_cv *cv)
{
    memset(cv, 0, sizeof *cv);
    if (np < 2)
        return;
    cv->folds = np < CALIB_CV_FOLDS ? np : CALIB_CV_FOLDS;
    int *fold = malloc((size_t)np * sizeof *fold);
    bool *use = malloc((size_t)np * sizeof *use);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!fold || !use || !r) {
        cv->folds = 0;
        goto out;
    }
    gsl_rng_set(r, CALIB_CV_SEED);
    for (int i = 0; i < np; i++)
        fold[i] = i;
    gsl_ran_shuffle(r, fold, (size_t)np, sizeof *fold);   /* a permutation; position % folds is the fold */
    int *fold_of = idx;   /* reuse: fold_of[point] */
    int *tmp = malloc((size_t)np * sizeof *tmp);
    if (!tmp) {
        cv->folds = 0;
        goto out;
    }
    for (int i = 0; i < np; i++)
        fold_of[fold[i]] = i % cv->folds;
    memcpy(fold, fold_of, (size_t)np * sizeof *fold);
    for (int f = 0; f < cv->folds; f++) {
        struct calib_fit fits[CALIB_FITS_MAX];
        int nfits;
        double t0[KC_COUNT];
        for (int i = 0; i < np; i++)
            use[i] = fold[i] != f;
        fit_groups(p, np, use, tmp, fits, &nfits, t0);
        for (int i = 0; i < np; i++) {
            if (use[i])
                continue;
            double after = fabs(fitted_ns(&p[i], fits, nfits, t0) - p[i].y_ns) / p[i].y_ns * 100;
            double before = fabs(p[i].x_ns - p[i].y_ns) / p[i].y_ns * 100;
            int g = 0;
            while (g < cv->n_op && strcmp(cv->by_op[g].name, p[i].op))
                g++;
            if (g == cv->n_op && g < CALIB_CV_OPS)
                snprintf(cv->by_op[cv->n_op++].name, sizeof cv->by_op[0].name, "%s", p[i].op);
            if (g < CALIB_CV_OPS) {
                cv->by_op[g].n++;
                cv->by_op[g].mape_before += before;
                cv->by_op[g].mape_after += after;
            }
            cv->n++;
            cv->mape_before += before;
            cv->mape_after += after;
        }
    }
    free(tmp);
    for (int g = 0; g < cv->n_op; g++)
        cv->by_op[g].mape_before /= cv->by_op[g].n, cv->by_op[g].mape_after /= cv->by_op[g].n;
    if (cv->n)
        cv->mape_before /= cv->n, cv->mape_after /= cv->n;
out:
    gsl_rng_free(r);
    free(use);
    free(fold);
}

int calibrate_run(const struct op_table *tables, const char *const *files, int n, const struct chip_config *chip,
                  const struct profile *prof, struct chip_config *out, struct calib_fit *fits, int *nfits,
                  struct calib_cv *cv, struct npu_err *e)
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
    double t0[KC_COUNT];
    fit_groups(p, np, NULL, idx, fits, nfits, t0);
    for (int g = 0; g < *nfits; g++)
        out->kernel_eff[fits[g].kernel_class].by_prec[fits[g].prec] = fits[g].e;
    for (int kc = 0; kc < KC_COUNT; kc++)
        for (int g = 0; g < *nfits; g++)
            if (fits[g].kernel_class == kc)
                out->kernel_eff[kc].t0_ns = t0[kc];
    for (int g = 0; g < *nfits; g++) {
        struct calib_fit *f = &fits[g];
        int k = 0;
        for (int j = 0; j < np; j++)
            if (p[j].kc == f->kernel_class && p[j].prec == f->prec)
                idx[k++] = j;
        f->mape_after = mape_of(p, idx, k, t0[f->kernel_class], f->e);
    }
    if (cv)
        cross_validate(p, np, idx, cv);
    free(idx);
    free(p);
    return 0;
}
