/* calibrate.c — kernel efficiencies fitted with GSL's robust regression
 * (see calibrate.h). */
#include "calib/calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "base/clock.h"
#include "traces/precision.h"

#define CALIB_ROBUST_MIN_ROWS 8

/* One measured row: its roofline time on the chip without efficiencies
 * (x), its measured time (y), its kernel size (n), its group. */
struct point {
    double x_ns, y_ns, n;
    int kc, prec;
    const char *op;            /* its operator type, for the held-out table */
};

/* One class's fit: t = t0_f + x / e_f (1 + n_half / n); b[f] = 1 / e_f. */
struct class_fit {
    enum calib_model model;
    double n_half;
    double t0[PREC_COUNT], b[PREC_COUNT];
};

const char *calib_model_name(enum calib_model m)
{
    static const char *const names[] = { "x/e", "t0 + x/e", "saturating" };
    return names[m];
}

static int kc_by_name(const char *name)
{
    for (int k = 0; k < KC_COUNT; k++)
        if (!strcmp(kernel_class_name((enum kernel_class)k), name))
            return k;
    return -1;
}

static double model_ns(const struct class_fit *c, const struct point *p)
{
    double sat = c->n_half > 0 && p->n > 0 ? 1 + c->n_half / p->n : 1;
    return c->t0[p->prec] + p->x_ns * c->b[p->prec] * sat;
}

static double mape_of(const struct class_fit *c, const struct point *p, const int *idx, int k)
{
    double s = 0;
    for (int i = 0; i < k; i++)
        s += fabs(model_ns(c, &p[idx[i]]) - p[idx[i]].y_ns) / p[idx[i]].y_ns;
    return k ? 100 * s / k : 0;
}

/* e alone per format: minimise sum (1 - b x / y)^2: b = sum(r) / sum(r^2), r = x/y. */
static void fit_e_alone(const struct point *p, const int *idx, int k, struct class_fit *c)
{
    memset(c, 0, sizeof *c);
    double s1[PREC_COUNT] = { 0 }, s2[PREC_COUNT] = { 0 };
    for (int i = 0; i < k; i++) {
        double r = p[idx[i]].x_ns / p[idx[i]].y_ns;
        s1[p[idx[i]].prec] += r, s2[p[idx[i]].prec] += r * r;
    }
    for (int f = 0; f < PREC_COUNT; f++)
        c->b[f] = s1[f] > 0 && s2[f] > 0 ? s1[f] / s2[f] : 1.0;
}

/* The formats among the rows: col[f] = their number (1..), or 0. */
static int format_columns(const struct point *p, const int *idx, int k, int *col)
{
    int nf = 0;
    memset(col, 0, PREC_COUNT * sizeof *col);
    for (int i = 0; i < k; i++)
        if (!col[p[idx[i]].prec])
            col[p[idx[i]].prec] = ++nf;
    return nf;
}

/* t0 + b x ~ y on relative residuals: 1 ~ t0 (1/y) + b (x/y), robustly, over
 * the rows of one format. 0 when it fit with t0 >= 0 and b > 0. */
static int fit_two(const struct point *p, const int *idx, int k, double *t0, double *b)
{
    gsl_matrix *X = gsl_matrix_alloc((size_t)k, 2);
    gsl_vector *y = gsl_vector_alloc((size_t)k), *v = gsl_vector_alloc(2);
    gsl_matrix *cov = gsl_matrix_alloc(2, 2);
    /* bisquare weights need rows to spare: with few, one outlier weight-down leaves too few */
    gsl_multifit_robust_workspace *w =
        gsl_multifit_robust_alloc(k >= CALIB_ROBUST_MIN_ROWS ? gsl_multifit_robust_bisquare : gsl_multifit_robust_ols, (size_t)k, 2);
    int rc = -1;
    if (X && y && v && cov && w) {
        for (int i = 0; i < k; i++) {
            gsl_matrix_set(X, (size_t)i, 0, 1.0 / p[idx[i]].y_ns);
            gsl_matrix_set(X, (size_t)i, 1, p[idx[i]].x_ns / p[idx[i]].y_ns);
            gsl_vector_set(y, (size_t)i, 1.0);
        }
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        int st = gsl_multifit_robust(X, y, v, cov, w);
        gsl_set_error_handler(old);
        double a = gsl_vector_get(v, 0), c = gsl_vector_get(v, 1);
        if ((st == GSL_SUCCESS || st == GSL_EMAXITER) && isfinite(a) && isfinite(c) && a >= 0 && c > 0) {
            *t0 = a, *b = c;
            rc = 0;
        }
    }
    gsl_multifit_robust_free(w);
    gsl_matrix_free(cov);
    gsl_vector_free(v);
    gsl_vector_free(y);
    gsl_matrix_free(X);
    return rc;
}

/* Per format: t0 and e where it has three rows and the line fits, else e
 * alone (t0 = 0). The class's model: the line if any format took it. */
static void fit_linear(const struct point *p, const int *idx, int k, struct class_fit *c)
{
    fit_e_alone(p, idx, k, c);
    int *sub = malloc((size_t)k * sizeof *sub);
    for (int f = 0; sub && f < PREC_COUNT; f++) {
        int n = 0;
        for (int i = 0; i < k; i++)
            if (p[idx[i]].prec == f)
                sub[n++] = idx[i];
        if (n >= 3 && fit_two(p, sub, n, &c->t0[f], &c->b[f]) == 0)
            c->model = CALIB_LINEAR;
    }
    free(sub);
}

/* The saturating curve's residuals (model / y - 1) and Jacobian, for
 * gsl_multifit_nlinear; parameters: t0 and b per format (columns 2 (f - 1)
 * and 2 (f - 1) + 1 of format number f), then n_half. */
struct sat_data { const struct point *p; const int *idx; int k; const int *col; int nf; };

static int sat_f(const gsl_vector *v, void *d, gsl_vector *f)
{
    const struct sat_data *s = d;
    double h = gsl_vector_get(v, 2 * (size_t)s->nf);
    for (int i = 0; i < s->k; i++) {
        const struct point *q = &s->p[s->idx[i]];
        size_t c = 2 * (size_t)(s->col[q->prec] - 1);
        double t0 = gsl_vector_get(v, c), b = gsl_vector_get(v, c + 1);
        gsl_vector_set(f, (size_t)i, (t0 + b * q->x_ns * (1 + h / q->n)) / q->y_ns - 1);
    }
    return GSL_SUCCESS;
}

static int sat_df(const gsl_vector *v, void *d, gsl_matrix *J)
{
    const struct sat_data *s = d;
    double h = gsl_vector_get(v, 2 * (size_t)s->nf);
    gsl_matrix_set_zero(J);
    for (int i = 0; i < s->k; i++) {
        const struct point *q = &s->p[s->idx[i]];
        size_t c = 2 * (size_t)(s->col[q->prec] - 1);
        double b = gsl_vector_get(v, c + 1);
        gsl_matrix_set(J, (size_t)i, c, 1 / q->y_ns);
        gsl_matrix_set(J, (size_t)i, c + 1, q->x_ns * (1 + h / q->n) / q->y_ns);
        gsl_matrix_set(J, (size_t)i, 2 * (size_t)s->nf, b * q->x_ns / (q->n * q->y_ns));
    }
    return GSL_SUCCESS;
}

/* The saturating curve from the linear fit lin; 0 when it fit with every
 * parameter in range. */
static int fit_saturating(const struct point *p, const int *idx, int k, const int *col, int nf,
                          const struct class_fit *lin, struct class_fit *c)
{
    size_t np = 2 * (size_t)nf + 1;
    double nmin = INFINITY, nmax = 0;
    for (int i = 0; i < k; i++)
        nmin = fmin(nmin, p[idx[i]].n), nmax = fmax(nmax, p[idx[i]].n);
    if ((size_t)k < np + 1 || !(nmin > 0) || nmax < 4 * nmin)
        return -1;
    struct sat_data d = { p, idx, k, col, nf };
    gsl_multifit_nlinear_fdf fdf = { sat_f, sat_df, NULL, (size_t)k, np, &d, 0, 0, 0 };
    gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, (size_t)k, np);
    gsl_vector *v = gsl_vector_alloc(np);
    int rc = -1;
    if (w && v) {
        for (int f = 0; f < PREC_COUNT; f++)
            if (col[f]) {
                gsl_vector_set(v, 2 * (size_t)(col[f] - 1), lin->t0[f]);
                gsl_vector_set(v, 2 * (size_t)(col[f] - 1) + 1, lin->b[f]);
            }
        gsl_vector_set(v, np - 1, sqrt(nmin * nmax) * 0.1);   /* a knee among the sizes */
        int info;
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        int st = gsl_multifit_nlinear_init(v, &fdf, w);
        if (st == GSL_SUCCESS)
            st = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-10, NULL, NULL, &info, w);
        gsl_set_error_handler(old);
        const gsl_vector *x = w->x;
        bool ok = (st == GSL_SUCCESS || st == GSL_EMAXITER) && isfinite(gsl_vector_get(x, np - 1)) &&
                  gsl_vector_get(x, np - 1) > 0;
        for (int f = 0; f < PREC_COUNT && ok; f++)
            if (col[f]) {
                double t0 = gsl_vector_get(x, 2 * (size_t)(col[f] - 1)), b = gsl_vector_get(x, 2 * (size_t)(col[f] - 1) + 1);
                ok = isfinite(t0) && t0 >= 0 && isfinite(b) && b > 0;
            }
        if (ok) {
            memset(c, 0, sizeof *c);
            c->model = CALIB_SATURATING;
            c->n_half = gsl_vector_get(x, np - 1);
            for (int f = 0; f < PREC_COUNT; f++) {
                c->t0[f] = col[f] ? gsl_vector_get(x, 2 * (size_t)(col[f] - 1)) : 0;
                c->b[f] = col[f] ? gsl_vector_get(x, 2 * (size_t)(col[f] - 1) + 1) : 1.0;
            }
            rc = 0;
        }
    }
    gsl_vector_free(v);
    gsl_multifit_nlinear_free(w);
    return rc;
}

/* One class's rows: the line, the curve where it is better, else e alone. */
static void fit_class(const struct point *p, const int *idx, int k, struct class_fit *c)
{
    int col[PREC_COUNT];
    int nf = format_columns(p, idx, k, col);
    struct class_fit sat;
    fit_linear(p, idx, k, c);
    if (!fit_saturating(p, idx, k, col, nf, c, &sat) && mape_of(&sat, p, idx, k) < 0.9 * mape_of(c, p, idx, k))
        *c = sat;
}

/* Every class's efficiency as the chip fields' defaults give it. */
static void reset_efficiencies(struct chip_config *c)
{
    struct chip_config d;
    chip_config_default(&d);
    memcpy(c->kernel_eff, d.kernel_eff, sizeof c->kernel_eff);
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
                return npu_errf(e, "%s: %s %d: %s \"time_us\": expected a measured time above 0 us", files[i],
                                tables[i].row_unit, row->line, tables[i].cell_unit);
            }
            if (op_predict(&row->r, bare, prof, &pr, &pe)) {
                free(p);
                return npu_errf(e, "%s: %s %d: %s", files[i], tables[i].row_unit, row->line, pe.msg);
            }
            int kc = kc_by_name(pr.kernel_class);
            if (kc < 0) {
                free(p);
                return npu_errf(e, "%s: %s %d: calibrating needs the physical profile (no kernel class under "
                                "neusim)", files[i], tables[i].row_unit, row->line);
            }
            p[k++] = (struct point){ pr.time_us * 1e3, row->r.measured_us * 1e3, pr.kernel_size, kc, row->r.prec,
                                     row->r.op };
        }
    *out = p;
    *np = k;
    return 0;
}

/* t0 again for a format whose e was clamped, e held: the t0 of the free
 * fit went with an e the chip cannot hold (a GEMV the roofline already
 * predicts too slow fitted e > 1 and a t0 that made it slower still).
 * Least squares on relative residuals: t0 = sum((1 - m_i / y_i) / y_i) /
 * sum(1 / y_i^2), m_i the model without t0; at least 0. */
static double refit_t0(const struct point *p, int np, const bool *use, const struct class_fit *c, int kc, int prec)
{
    struct class_fit no_t0 = *c;
    no_t0.t0[prec] = 0;
    double num = 0, den = 0;
    for (int i = 0; i < np; i++)
        if ((!use || use[i]) && p[i].kc == kc && p[i].prec == prec) {
            double y = p[i].y_ns;
            num += (1 - model_ns(&no_t0, &p[i]) / y) / y;
            den += 1 / (y * y);
        }
    return den > 0 && num > 0 ? num / den : 0;
}

/* Fits every class among the points with use[i] (NULL: all) into cls[],
 * and lists its (class, format) groups in fits in first-seen order, e
 * clamped to [0.01, 1] (and cls[] with it, so predictions use what the chip
 * will hold). idx: room for np indices. */
static void fit_groups(const struct point *p, int np, const bool *use, int *idx, struct calib_fit *fits,
                       int *nfits, struct class_fit *cls)
{
    *nfits = 0;
    for (int kc = 0; kc < KC_COUNT; kc++) {
        int k = 0;
        for (int j = 0; j < np; j++)
            if ((!use || use[j]) && p[j].kc == kc)
                idx[k++] = j;
        memset(&cls[kc], 0, sizeof cls[kc]);
        for (int f = 0; f < PREC_COUNT; f++)
            cls[kc].b[f] = 1.0;
        if (k)
            fit_class(p, idx, k, &cls[kc]);
    }
    for (int i = 0; i < np; i++) {
        if (use && !use[i])
            continue;
        int g = 0;
        while (g < *nfits && !(fits[g].kernel_class == p[i].kc && fits[g].prec == p[i].prec))
            g++;
        if (g < *nfits) {
            fits[g].n++;
            continue;
        }
        struct calib_fit *f = &fits[(*nfits)++];
        struct class_fit *c = &cls[p[i].kc];
        memset(f, 0, sizeof *f);
        f->kernel_class = p[i].kc, f->prec = p[i].prec, f->n = 1;
        f->e = 1.0 / c->b[f->prec];
        f->clamped = f->e > 1.0 || f->e < 0.01;
        f->e = f->e > 1.0 ? 1.0 : f->e < 0.01 ? 0.01 : f->e;
        c->b[f->prec] = 1.0 / f->e;
        if (f->clamped)
            c->t0[f->prec] = refit_t0(p, np, use, c, f->kernel_class, f->prec);
        f->t0_ns = c->t0[f->prec], f->n_half = c->n_half, f->model = c->model;
    }
}

/* Seeded k-fold cross-validation: each point predicted by the fit of the
 * other folds; the roofline's error beside it. When the clock passed
 * deadline_s (0: none) before the last fold: the number of fits made,
 * calibrate_run's first included; else 0. */
static int cross_validate(const struct point *p, int np, int *idx, struct calib_cv *cv, double deadline_s)
{
    int late = 0;
    memset(cv, 0, sizeof *cv);
    if (np < 2)
        return 0;
    cv->folds = np < CALIB_CV_FOLDS ? np : CALIB_CV_FOLDS;
    int *fold = malloc((size_t)np * sizeof *fold);
    bool *use = malloc((size_t)np * sizeof *use);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!fold || !use || !r) {
        cv->folds = 0;
        goto out;
    }
    gsl_rng_set(r, CALIB_CV_SEED);
    int *fold_of = idx;   /* reuse: fold_of[point] */
    int *tmp = malloc((size_t)np * sizeof *tmp);
    if (!tmp) {
        cv->folds = 0;
        goto out;
    }
    /* CALIB_CV_REPEATS shuffles from the one seeded generator: every row is
     * predicted that many times by fits that never saw it, so the figure
     * does not hang on one lucky or unlucky split of a few rows. */
    for (int rep = 0; rep < CALIB_CV_REPEATS && !late; rep++) {
    for (int i = 0; i < np; i++)
        fold[i] = i;
    gsl_ran_shuffle(r, fold, (size_t)np, sizeof *fold);   /* a permutation; position % folds is the fold */
    for (int i = 0; i < np; i++)
        fold_of[fold[i]] = i % cv->folds;
    memcpy(fold, fold_of, (size_t)np * sizeof *fold);
    for (int f = 0; f < cv->folds && !late; f++) {
        if (deadline_s > 0 && clock_monotonic_s() > deadline_s) {
            late = 1 + rep * cv->folds + f;   /* the first fit and these */
            break;
        }
        struct calib_fit fits[CALIB_FITS_MAX];
        int nfits;
        struct class_fit cls[KC_COUNT];
        for (int i = 0; i < np; i++)
            use[i] = fold[i] != f;
        fit_groups(p, np, use, tmp, fits, &nfits, cls);
        for (int i = 0; i < np; i++) {
            if (use[i])
                continue;
            double after = fabs(model_ns(&cls[p[i].kc], &p[i]) - p[i].y_ns) / p[i].y_ns * 100;
            double before = fabs(p[i].x_ns - p[i].y_ns) / p[i].y_ns * 100;
            int g = 0;
            char key[sizeof cv->by_op[0].name];
            snprintf(key, sizeof key, "%s %s", p[i].op, precision_info((enum precision)p[i].prec)->name);
            while (g < cv->n_op && strcmp(cv->by_op[g].name, key))
                g++;
            if (g == cv->n_op && g < CALIB_CV_OPS)
                snprintf(cv->by_op[cv->n_op++].name, sizeof cv->by_op[0].name, "%s", key);
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
    }
    free(tmp);
    /* means over every prediction; counts as rows (each was predicted once per shuffle) */
    for (int g = 0; g < cv->n_op; g++) {
        cv->by_op[g].mape_before /= cv->by_op[g].n, cv->by_op[g].mape_after /= cv->by_op[g].n;
        cv->by_op[g].n /= CALIB_CV_REPEATS;
    }
    if (cv->n)
        cv->mape_before /= cv->n, cv->mape_after /= cv->n;
    cv->n /= CALIB_CV_REPEATS;
out:
    gsl_rng_free(r);
    free(use);
    free(fold);
    return late;
}

int calibrate_run(const struct op_table *tables, const char *const *files, int n, const struct chip_config *chip,
                  const struct profile *prof, double deadline_s, struct chip_config *out, struct calib_fit *fits,
                  int *nfits, struct calib_cv *cv, struct npu_err *e)
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
    struct class_fit cls[KC_COUNT];
    fit_groups(p, np, NULL, idx, fits, nfits, cls);
    for (int g = 0; g < *nfits; g++) {
        struct calib_fit *f = &fits[g];
        struct kernel_efficiency *ke = &out->kernel_eff[f->kernel_class];
        ke->by_prec[f->prec] = f->e;
        ke->t0_by_prec[f->prec] = f->t0_ns;
        ke->n_half = f->n_half;
        ke->e_max = 1.0;
        int k = 0;
        for (int j = 0; j < np; j++)
            if (p[j].kc == f->kernel_class && p[j].prec == f->prec)
                idx[k++] = j;
        struct class_fit roofline = { .model = CALIB_E_ALONE };
        for (int q = 0; q < PREC_COUNT; q++)
            roofline.b[q] = 1.0;
        f->mape_before = mape_of(&roofline, p, idx, k);
        f->mape_after = mape_of(&cls[f->kernel_class], p, idx, k);
    }
    /* a format the class was not measured in: the median of the measured formats' t0 */
    for (int kc = 0; kc < KC_COUNT; kc++) {
        double t[PREC_COUNT];
        size_t k = 0;
        for (int g = 0; g < *nfits; g++)
            if (fits[g].kernel_class == kc)
                t[k++] = fits[g].t0_ns;
        if (k) {
            gsl_sort(t, 1, k);
            out->kernel_eff[kc].t0_ns = gsl_stats_median_from_sorted_data(t, 1, k);
        }
    }
    int done = cv ? cross_validate(p, np, idx, cv, deadline_s) : 0;
    free(idx);
    free(p);
    if (done)   /* the fit was made, its held-out error not: no answer rather than half of one */
        return npu_errf(e, "calibrate: the time limit was reached after %d of %d fits", done,
                        1 + CALIB_CV_REPEATS * cv->folds), CALIB_LATE;
    return 0;
}
