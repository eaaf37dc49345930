/* runs_fit.c — the parameters of calibrate --runs, the rows predicted with
 * them as chip overrides, and one nonlinear least-squares fit (see
 * runs_fit.h). Main data structure: struct rf_engine (runs_fit_internal.h),
 * the rows' distinct configurations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>

#include "calib/runs_fit_internal.h"

#define SETS_MAX 96
#define FD_STEP 1e-2          /* the forward difference, in the transformed parameter */
#define FAILED_RESIDUAL 10.0  /* a row whose run fails at a trial point: far off */
#define FIT_ITER_MAX 60
/* What an efficiency is before any row is seen, from published kernel
 * benchmarks, never from end-to-end rows (docs/validation.md, "Priors";
 * the figures and their sources: bench/public/kernel-benchmarks.md).
 * First the chip's own, measured on it (a group takes the row of any of its
 * chips; h200 shares h100's die); else the class's, over chips: GEMM
 * libraries reach 70-80% of the dense peak on large shapes, a streaming
 * kernel 80-90% of the HBM bandwidth, FlashAttention-2 and -3 35-75% of the
 * peak, an 8-GPU ring all-reduce 70-82% of one direction of the links. Host
 * times have none. */
static const struct runs_fit_prior_row { const char *chip; enum runs_fit_kind kind; int prec; double mean, sd; } chip_priors[] = {
    /* large GEMMs: stas00/ml-engineering maximum achievable matmul FLOPS, SemiAnalysis (Dec 2024) */
    { "h100", RF_GEMM, PREC_BF16, 0.77, 0.08 },        /* 794.5 (0.80) and ~720 (0.73) of 989.4 */
    { "h100", RF_GEMM, PREC_FP8_E4M3, 0.68, 0.08 },    /* 1402.6 (0.71) and ~1280 (0.65) of 1978.9 */
    { "a100", RF_GEMM, PREC_BF16, 0.86, 0.08 },        /* 271.2 and 267.9 of 312 */
    { "mi300x", RF_GEMM, PREC_BF16, 0.53, 0.08 },      /* AMD hipBLASLt 708 (0.54), stas00 668 (0.51), ~620 (0.47) */
    { "mi300x", RF_GEMM, PREC_FP8_E4M3, 0.43, 0.08 },  /* AMD hipBLASLt ~1250 (0.48), SemiAnalysis ~990 (0.38) */
    /* attention forward: FlashAttention-2 paper (A100 230 of 312), FlashAttention-3 (H100: FA2 35%, FA3 75%) */
    { "h100", RF_ATTENTION, -1, 0.55, 0.20 },
    { "a100", RF_ATTENTION, -1, 0.74, 0.10 },
    /* streaming HBM: ROCm profiler test 3910 GB/s, a user's ~4200 of 5300 */
    { "mi300x", RF_MEMORY, -1, 0.77, 0.08 },
    /* BabelStream, Azure ND H100 v5: copy 2.90, triad 2.97, dot 3.18 TB/s of 3.35 (0.87-0.95);
     * ND H200 v5: 4.01-4.48 of 4.8 (0.84-0.93) */
    { "h100", RF_MEMORY, -1, 0.90, 0.05 },
    /* A100 80 GB: Azure ND A100 v4 BabelStream and gpu-benches, 0.79-0.93 of 2039 GB/s */
    { "a100", RF_MEMORY, -1, 0.86, 0.05 },
    /* 8-GPU all-reduce bus bandwidth of the ring at large sizes over one
     * direction of the links (NCCL's protocol costs ~20%): H100/H200 ~370 of
     * 450 (nccl-tests #212, stas00 365.6), A100 231.6-235 of 300 (Azure,
     * nccl #1048), MI300X 314-319 of 448 (AMD ROCm blog, rccl-tests) */
    { "h100", RF_COLLECTIVE, -1, 0.82, 0.10 },
    { "a100", RF_COLLECTIVE, -1, 0.77, 0.10 },
    { "mi300x", RF_COLLECTIVE, -1, 0.71, 0.10 },
};
static const struct { double mean, sd; } class_priors[RF_KINDS] = {
    [RF_GEMM] = { 0.75, 0.15 }, [RF_MEMORY] = { 0.85, 0.10 }, [RF_ATTENTION] = { 0.60, 0.20 },
    [RF_COLLECTIVE] = { 0.75, 0.15 },
};

static const char *const mem_classes[] = { "gemv", "elementwise", "activation", "reduction", "softmax" };

static bool is_efficiency(const struct runs_fit_param *p) { return runs_fit_kind_is_efficiency(p->kind); }

static bool group_has(const struct runs_fit *f, int g, const char *chip)
{
    for (int c = 0; g >= 0 && g < f->ngroup && c < f->group[g].nchips; c++)
        if (!strcmp(f->group[g].chip[c], chip))
            return true;
    return false;
}

/* The time parameters' scale: softplus(u) x scale; their start. */
static double time_scale(enum runs_fit_kind k) { return k == RF_STEP ? 1e6 : k == RF_LAYER || k == RF_REQUEST ? 1e4 : 1e3; }
static double start_value(const struct runs_fit_param *p)
{
    switch (p->kind) {
    case RF_STEP: return 1e6;      /* 1 ms */
    case RF_LAYER: return 1e4;     /* 10 us */
    case RF_LAUNCH: return 5e3;    /* 5 us: above the shortest kernels, so it moves them */
    case RF_LINK: return 2e3;      /* 2 us a collective step */
    case RF_REQUEST: return 1e4;   /* 10 us a sequence a pass */
    default: return 0.7;
    }
}

static double to_value(const struct runs_fit_param *p, double u)
{
    if (is_efficiency(p))
        return p->lo + (p->hi - p->lo) / (1 + exp(-u));
    double v = time_scale(p->kind) * (u > 30 ? u : log1p(exp(u)));
    return v > p->hi ? p->hi : v;
}

static double to_u(const struct runs_fit_param *p, double v)
{
    if (is_efficiency(p)) {
        double x = (v - p->lo) / (p->hi - p->lo);
        x = x < 1e-6 ? 1e-6 : x > 1 - 1e-6 ? 1 - 1e-6 : x;
        return log(x / (1 - x));
    }
    double y = v / time_scale(p->kind);
    return y > 30 ? y : log(expm1(y > 1e-9 ? y : 1e-9));
}

const char *runs_fit_param_name(const struct runs_fit_param *p, char *buf, size_t n)
{
    switch (p->kind) {
    case RF_GEMM:
        snprintf(buf, n, "gemm %s e",
                 p->prec == PREC_BF16 ? "bf16/fp16" : p->prec >= 0 ? precision_info((enum precision)p->prec)->name : "e_max");
        break;
    case RF_MEMORY: snprintf(buf, n, "memory-bound e"); break;
    case RF_ATTENTION: snprintf(buf, n, "attention e"); break;
    case RF_COLLECTIVE: snprintf(buf, n, "collective e"); break;
    case RF_STEP: snprintf(buf, n, "step_overhead_ns"); break;
    case RF_LAYER: snprintf(buf, n, "layer_overhead_ns"); break;
    case RF_LINK: snprintf(buf, n, "ici_latency_ns"); break;
    case RF_REQUEST: snprintf(buf, n, "request_overhead_ns"); break;
    default: snprintf(buf, n, "kernel_launch_ns"); break;
    }
    return buf;
}

const char *const *runs_fit_param_keys(const struct runs_fit_param *p, char (*buf)[64])
{
    static _Thread_local const char *keys[8];
    int n = 0;
    switch (p->kind) {
    case RF_GEMM:
        snprintf(buf[n++], 64, "kernel_efficiency.gemm.%s",
                 p->prec >= 0 ? precision_info((enum precision)p->prec)->name : "e_max");
        if (p->prec == PREC_BF16)   /* the two 16-bit formats: one parameter */
            snprintf(buf[n++], 64, "kernel_efficiency.gemm.fp16");
        break;
    case RF_MEMORY:
        for (size_t i = 0; i < sizeof mem_classes / sizeof mem_classes[0]; i++)
            snprintf(buf[n++], 64, "kernel_efficiency.%s.e_max", mem_classes[i]);
        break;
    case RF_ATTENTION: snprintf(buf[n++], 64, "kernel_efficiency.attention.e_max"); break;
    case RF_COLLECTIVE: snprintf(buf[n++], 64, "kernel_efficiency.collective.e_max"); break;
    case RF_STEP: snprintf(buf[n++], 64, "step_overhead_ns"); break;
    case RF_LAYER: snprintf(buf[n++], 64, "layer_overhead_ns"); break;
    case RF_LINK: snprintf(buf[n++], 64, "ici_latency_ns"); break;
    case RF_REQUEST: snprintf(buf[n++], 64, "request_overhead_ns"); break;
    default: snprintf(buf[n++], 64, "kernel_launch_ns"); break;
    }
    for (int i = 0; i < n; i++)
        keys[i] = buf[i];
    keys[n] = NULL;
    return keys;
}

/* The overrides of group g (-2: none) for the values val where act. */
static int param_sets(const struct runs_fit *f, int g, const double *val, const bool *act, char (*sets)[128], int max)
{
    int n = 0, ngemm = 0;
    bool gemm_emax = false;
    double log_sum = 0;
    for (int j = 0; j < f->nparam && act; j++) {
        const struct runs_fit_param *p = &f->param[j];
        if (!act[j] || (p->group != g && p->group != -1))
            continue;
        char kb[8][64];
        const char *const *keys = runs_fit_param_keys(p, kb);
        for (int k = 0; keys[k] && n < max; k++) {
            if (is_efficiency(p))
                snprintf(sets[n++], 128, "%s=%.9g", keys[k], val[j]);
            else
                snprintf(sets[n++], 128, "%s=%lld", keys[k], (long long)llround(val[j]));
        }
        if (p->kind == RF_GEMM && p->prec >= 0)
            ngemm++, log_sum += log(val[j]);
        gemm_emax |= p->kind == RF_GEMM && p->prec < 0;
    }
    /* a format no row ran: its prior where a kernel benchmark measured it on
     * the chip (MI300X's bf16), else the geometric mean of those fitted */
    for (size_t i = 0; ngemm && i < sizeof chip_priors / sizeof chip_priors[0]; i++) {
        const struct runs_fit_prior_row *r = &chip_priors[i];
        bool fitted = false;
        for (int j = 0; j < f->nparam; j++)
            fitted |= act[j] && f->param[j].group == g && f->param[j].kind == RF_GEMM && f->param[j].prec == r->prec;
        if (r->kind != RF_GEMM || fitted || !group_has(f, g, r->chip))
            continue;
        if (n < max)
            snprintf(sets[n++], 128, "kernel_efficiency.gemm.%s=%.9g", precision_info((enum precision)r->prec)->name, r->mean);
        if (r->prec == PREC_BF16 && n < max)
            snprintf(sets[n++], 128, "kernel_efficiency.gemm.fp16=%.9g", r->mean);
    }
    if (ngemm && !gemm_emax && n < max)
        snprintf(sets[n++], 128, "kernel_efficiency.gemm.e_max=%.9g", exp(log_sum / ngemm));
    return n;
}

int runs_fit_sets(const struct runs_fit *f, int g, char (*sets)[128], int max)
{
    double val[RUNS_FIT_PARAMS_MAX];
    bool act[RUNS_FIT_PARAMS_MAX];
    for (int j = 0; j < f->nparam; j++)
        val[j] = f->param[j].value, act[j] = f->param[j].fitted;
    return param_sets(f, g, val, act, sets, max);
}

/* Configuration c predicted with the values val where act (NULL: none). */
static int predict_cfg(struct rf_engine *g, struct rf_cfg *c, const double *val, const bool *act, struct npu_err *e)
{
    static _Thread_local char sets[SETS_MAX][128];
    const char *ptr[SETS_MAX * 2];
    int n = 0;
    for (int i = 0; i < g->o->predict.nsets && n < SETS_MAX; i++)
        ptr[n++] = g->o->predict.sets[i];
    int k = param_sets(g->f, c->group, val, act, sets, SETS_MAX);
    for (int i = 0; i < k; i++)
        ptr[n++] = sets[i];
    struct run_predict_opts po = g->o->predict;
    po.sets = ptr, po.nsets = n;
    char why[512];
    int rc = run_predict(c->t, c->r, &po, &c->p, why, sizeof why, e);
    g->f->predictions++;
    if (rc < 0)
        return -1;
    c->ok = rc == 0;
    if (!c->ok)
        snprintf(c->why, sizeof c->why, "%s", why);
    return 0;
}

int rf_predict(struct rf_engine *g, const double *val, const bool *act, const bool *want, double *out,
               struct npu_err *e)
{
    bool *need = calloc((size_t)g->ncfg + 1, sizeof *need);
    if (!need)
        return npu_errf(e, "calibrate: out of memory");
    for (size_t i = 0; i < g->f->n; i++)
        if (!want || want[i])
            need[g->f->rows[i].cfg] = true;
    int rc = 0;
    for (int c = 0; c < g->ncfg && !rc; c++)
        if (need[c])
            rc = predict_cfg(g, &g->cfg[c], val, act, e);
    for (size_t i = 0; i < g->f->n && !rc; i++) {
        const struct rf_cfg *c = &g->cfg[g->f->rows[i].cfg];
        double v = c->ok ? run_metric_value(g->f->rows[i].in, &c->p) : NAN;
        out[i] = (!want || want[i]) && isfinite(v) && v > 0 ? v : NAN;
    }
    free(need);
    return rc;
}

/* ---- one fit ---- */

struct rf_ctx {
    struct rf_engine *g;
    const int *rows;          /* the training rows */
    int nrows, nres;          /* nres: the rows' residuals, then one prior per parameter fitted */
    const int *ap;            /* the parameters fitted */
    int nap;
    double *u;                /* every parameter, transformed; the fitted ones from x */
    bool *act;
    bool *need;               /* configurations of training rows */
    struct run_prediction *base;   /* the last f's predictions */
    bool *base_ok;
    gsl_vector *base_x;       /* where they were made (NULL: none yet) */
    int failed;               /* a run could not be configured: e says why */
    struct npu_err *e;
};

static void values_of(const struct rf_ctx *x, const double *u, double *val)
{
    for (int j = 0; j < x->g->f->nparam; j++)
        val[j] = to_value(&x->g->f->param[j], u[j]);
}

static double residual(const struct rf_ctx *x, int i, const struct run_prediction *p, bool ok)
{
    const struct run_row *r = x->g->f->rows[x->rows[i]].in;
    double v = ok ? run_metric_value(r, p) : NAN;
    return isfinite(v) && v > 0 ? (v - r->measured) / r->measured : FAILED_RESIDUAL;
}

bool runs_fit_prior(const struct runs_fit *f, const struct runs_fit_param *p, double *mean, double *sd)
{
    *mean = class_priors[p->kind].mean, *sd = class_priors[p->kind].sd;
    for (size_t i = 0; i < sizeof chip_priors / sizeof chip_priors[0]; i++) {
        const struct runs_fit_prior_row *r = &chip_priors[i];
        if (r->kind == p->kind && (p->kind != RF_GEMM || r->prec == p->prec) && group_has(f, p->group, r->chip)) {
            *mean = r->mean, *sd = r->sd;
            return true;
        }
    }
    return *sd > 0;
}

/* The prior's residual of parameter p at value v, weighted w (0: a host time). */
static double prior_residual(const struct runs_fit *f, const struct runs_fit_param *p, double v, double w)
{
    double mean, sd;
    return runs_fit_prior(f, p, &mean, &sd) ? w * (v - mean) / sd : 0;
}

static int ctx_f(const gsl_vector *v, void *d, gsl_vector *out)
{
    struct rf_ctx *x = d;
    double val[RUNS_FIT_PARAMS_MAX];
    for (int j = 0; j < x->nap; j++)
        x->u[x->ap[j]] = gsl_vector_get(v, (size_t)j);
    values_of(x, x->u, val);
    for (int c = 0; c < x->g->ncfg && !x->failed; c++)
        if (x->need[c]) {
            if (predict_cfg(x->g, &x->g->cfg[c], val, x->act, x->e))
                x->failed = 1;
            x->base[c] = x->g->cfg[c].p, x->base_ok[c] = x->g->cfg[c].ok;
        }
    if (x->failed)
        return GSL_EFAILED;
    gsl_vector_set_zero(out);
    for (int i = 0; i < x->nrows; i++) {
        int c = x->g->f->rows[x->rows[i]].cfg;
        gsl_vector_set(out, (size_t)i, residual(x, i, &x->base[c], x->base_ok[c]));
    }
    for (int j = 0; j < x->nap; j++)   /* then one prior per parameter */
        gsl_vector_set(out, (size_t)(x->nrows + j),
                       prior_residual(x->g->f, &x->g->f->param[x->ap[j]], val[x->ap[j]], x->g->o->prior_weight));
    gsl_vector_memcpy(x->base_x, v);
    return GSL_SUCCESS;
}

/* Forward differences, re-running for each parameter only the
 * configurations of the chips it applies to. */
static int ctx_df(const gsl_vector *v, void *d, gsl_matrix *J)
{
    struct rf_ctx *x = d;
    if (!gsl_vector_equal(v, x->base_x)) {
        gsl_vector *tmp = gsl_vector_alloc((size_t)x->nres);
        int st = tmp ? ctx_f(v, d, tmp) : GSL_ENOMEM;
        gsl_vector_free(tmp);
        if (st)
            return st;
    }
    gsl_matrix_set_zero(J);
    double val[RUNS_FIT_PARAMS_MAX];
    for (int j = 0; j < x->nap; j++)
        x->u[x->ap[j]] = gsl_vector_get(v, (size_t)j);
    for (int j = 0; j < x->nap && !x->failed; j++) {
        const struct runs_fit_param *p = &x->g->f->param[x->ap[j]];
        double v0 = to_value(p, x->u[x->ap[j]]);
        x->u[x->ap[j]] += FD_STEP;
        values_of(x, x->u, val);
        x->u[x->ap[j]] -= FD_STEP;
        gsl_matrix_set(J, (size_t)(x->nrows + j), (size_t)j,
                       (prior_residual(x->g->f, p, val[x->ap[j]], x->g->o->prior_weight) -
                        prior_residual(x->g->f, p, v0, x->g->o->prior_weight)) / FD_STEP);
        for (int c = 0; c < x->g->ncfg && !x->failed; c++) {
            struct rf_cfg *cf = &x->g->cfg[c];
            if (!x->need[c] || (p->group >= 0 && cf->group != p->group))
                continue;
            if (predict_cfg(x->g, cf, val, x->act, x->e)) {
                x->failed = 1;
                break;
            }
            for (int i = 0; i < x->nrows; i++)
                if (x->g->f->rows[x->rows[i]].cfg == c)
                    gsl_matrix_set(J, (size_t)i, (size_t)j,
                                   (residual(x, i, &cf->p, cf->ok) - residual(x, i, &x->base[c], x->base_ok[c])) / FD_STEP);
        }
    }
    return x->failed ? GSL_EFAILED : GSL_SUCCESS;
}

int rf_row_format(const struct run_row *r)
{
    const char *w = run_cell(r, RC_WDTYPE), *a = run_cell(r, RC_ADTYPE);
    int p = precision_by_name(*w ? w : a);   /* -1 when neither is stated */
    /* fp16 and bf16 run at one peak through the same GEMM kernels on every
     * chip npusim ships: one parameter, so rows of either inform both */
    return p == PREC_FP16 ? PREC_BF16 : p;
}

/* The candidates: parameters of the training rows' groups (a GEMM format:
 * of a training row's), and the host times. */
static void candidates(const struct rf_engine *g, const int *rows, int nrows, bool *act)
{
    const struct runs_fit *f = g->f;
    for (int j = 0; j < f->nparam; j++) {
        const struct runs_fit_param *p = &f->param[j];
        act[j] = p->group < 0;
        for (int i = 0; i < nrows && !act[j]; i++) {
            const struct runs_fit_row *r = &f->rows[rows[i]];
            act[j] = r->group == p->group && (p->kind != RF_GEMM || rf_row_format(r->in) == p->prec);
        }
    }
}

/* The parameters whose column of the Jacobian at the start is zero (no
 * training row moves with them) leave the fit: act[j] false. */
static int drop_idle(struct rf_ctx *x, int *ap, int *nap)
{
    gsl_vector *v = gsl_vector_alloc((size_t)*nap);
    gsl_matrix *J = gsl_matrix_alloc((size_t)x->nres, (size_t)*nap);
    int st = v && J ? GSL_SUCCESS : GSL_ENOMEM;
    for (int j = 0; !st && j < *nap; j++)
        gsl_vector_set(v, (size_t)j, x->u[ap[j]]);
    if (!st)
        st = ctx_df(v, x, J);
    int k = 0;
    for (int j = 0; !st && j < *nap; j++) {
        double m = 0;
        for (int i = 0; i < x->nrows; i++)
            m = fmax(m, fabs(gsl_matrix_get(J, (size_t)i, (size_t)j)));
        if (m > 1e-9)
            ap[k++] = ap[j];
        else
            x->act[ap[j]] = false;
    }
    if (!st)
        *nap = k;
    gsl_matrix_free(J);
    gsl_vector_free(v);
    return st;
}

/* GSL's trust region from x->u; the fitted u back in x->u. */
static int solve(struct rf_ctx *x)
{
    gsl_multifit_nlinear_fdf fdf = { ctx_f, ctx_df, NULL, (size_t)x->nres, (size_t)x->nap, x, 0, 0, 0 };
    gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, (size_t)x->nres, (size_t)x->nap);
    gsl_vector *v = gsl_vector_alloc((size_t)x->nap);
    int st = w && v ? GSL_SUCCESS : GSL_ENOMEM, info;
    for (int j = 0; !st && j < x->nap; j++)
        gsl_vector_set(v, (size_t)j, x->u[x->ap[j]]);
    gsl_vector_set_all(x->base_x, NAN);
    if (!st)
        st = gsl_multifit_nlinear_init(v, &fdf, w);
    if (!st)
        st = gsl_multifit_nlinear_driver(FIT_ITER_MAX, 1e-4, 1e-6, 1e-8, NULL, NULL, &info, w);
    if (!x->failed && w)
        for (int j = 0; j < x->nap; j++)
            if (isfinite(gsl_vector_get(w->x, (size_t)j)))
                x->u[x->ap[j]] = gsl_vector_get(w->x, (size_t)j);
    gsl_vector_free(v);
    gsl_multifit_nlinear_free(w);
    return x->failed ? -1 : st == GSL_ENOMEM ? -1 : 0;
}

int rf_fit(struct rf_engine *g, const bool *train, double *val, bool *act, struct npu_err *e)
{
    struct runs_fit *f = g->f;
    int *rows = malloc((f->n + 1) * sizeof *rows), *ap = malloc(RUNS_FIT_PARAMS_MAX * sizeof *ap);
    bool *need = calloc((size_t)g->ncfg + 1, sizeof *need), *base_ok = calloc((size_t)g->ncfg + 1, sizeof *base_ok);
    struct run_prediction *base = calloc((size_t)g->ncfg + 1, sizeof *base);
    double u[RUNS_FIT_PARAMS_MAX];
    int nrows = 0, nap = 0, rc = -1;
    for (size_t i = 0; rows && i < f->n; i++)
        if (train[i])
            rows[nrows++] = (int)i, need[f->rows[i].cfg] = true;
    f->fits++;
    if (rows && ap && need && base_ok && base) {
        candidates(g, rows, nrows, act);
        for (int j = 0; j < f->nparam; j++) {
            u[j] = to_u(&f->param[j], start_value(&f->param[j]));
            if (act[j])
                ap[nap++] = j;
        }
        struct rf_ctx x = { g, rows, nrows, nrows + nap, ap, nap, u, act, need, base, base_ok,
                            gsl_vector_alloc(nap ? (size_t)nap : 1), 0, e };
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        if (x.base_x) {
            gsl_vector_set_all(x.base_x, NAN);
            rc = nap && drop_idle(&x, ap, &x.nap) ? -1 : 0;
            if (!rc && x.nap) {
                x.nres = nrows + x.nap;
                gsl_vector_free(x.base_x);
                x.base_x = gsl_vector_alloc((size_t)x.nap);
                rc = x.base_x ? solve(&x) : -1;
            }
        }
        gsl_set_error_handler(old);
        gsl_vector_free(x.base_x);
        if (rc && !x.failed)
            npu_errf(e, "calibrate: out of memory");
    } else
        npu_errf(e, "calibrate: out of memory");
    for (int j = 0; !rc && j < f->nparam; j++)
        val[j] = act[j] ? to_value(&f->param[j], u[j]) : NAN;
    free(base);
    free(base_ok);
    free(need);
    free(ap);
    free(rows);
    return rc;
}
