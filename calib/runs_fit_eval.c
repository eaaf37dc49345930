/* runs_fit_eval.c — calibrate --runs from the rows to the figures (see
 * runs_fit.h): the rows' configurations, the groups of chips sharing a die
 * and the parameters; the fit on every row; the seeded k-fold
 * cross-validation and leave-one-source-out; the error figures. Main data
 * structure: struct runs_fit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "base/clock.h"
#include "calib/runs_fit_internal.h"

#define CHIPS_MAX (RUNS_FIT_GROUPS_MAX * RUNS_FIT_GROUP_CHIPS)

/* Chips that share a die share their efficiencies: the same compute units,
 * clock and peaks (h200 is h100's die with other memory). */
static bool same_die(const struct chip_config *a, const struct chip_config *b)
{
    return a->num_sa == b->num_sa && a->num_vu == b->num_vu && a->sa_dim == b->sa_dim && a->freq_GHz == b->freq_GHz &&
           !memcmp(a->matrix_tflops, b->matrix_tflops, sizeof a->matrix_tflops) &&
           !memcmp(a->vector_tflops, b->vector_tflops, sizeof a->vector_tflops) && !strcmp(a->kind, b->kind);
}

struct chips_seen {
    int n;
    char path[CHIPS_MAX][1024];
    int group[CHIPS_MAX];
    struct chip_config rep[RUNS_FIT_GROUPS_MAX];
};

/* Row r's group of chips (its chip loaded once): 0 with *g; -1 with e. */
static int group_of(struct runs_fit *f, struct chips_seen *s, const struct runs_fit_opts *o,
                    const struct run_table *t, const struct run_row *r, int *g, struct npu_err *e)
{
    char path[1024];
    run_config_name(t, run_cell(r, RC_CHIP), path, sizeof path);
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->path[i], path))
            return *g = s->group[i], 0;
    struct config_request q = { o->predict.configs_dir, NULL, path, NULL, o->predict.sets, o->predict.nsets, false };
    struct loaded_config c;
    struct npu_err le;
    if (config_load(&q, &c, &le))
        return npu_errf(e, "%s: line %d: column \"chip\": %s", t->name, r->line, le.msg);
    int k = 0;
    while (k < f->ngroup && !same_die(&s->rep[k], &c.chip))
        k++;
    int rc = 0;
    if (s->n >= CHIPS_MAX || (k == f->ngroup && k >= RUNS_FIT_GROUPS_MAX) ||
        (k < f->ngroup && f->group[k].nchips >= RUNS_FIT_GROUP_CHIPS))
        rc = npu_errf(e, "%s: line %d: column \"chip\": expected at most %d kinds of chip (%d of one die)", t->name,
                      r->line, RUNS_FIT_GROUPS_MAX, RUNS_FIT_GROUP_CHIPS);
    else {
        if (k == f->ngroup)
            s->rep[f->ngroup++] = c.chip;
        struct runs_fit_group *gr = &f->group[k];
        snprintf(gr->chip[gr->nchips], sizeof gr->chip[0], "%s", run_cell(r, RC_CHIP));
        gr->table[gr->nchips++] = t;
        size_t len = strlen(gr->name);
        snprintf(gr->name + len, sizeof gr->name - len, "%s%s", len ? "+" : "", run_cell(r, RC_CHIP));
        snprintf(s->path[s->n], sizeof s->path[0], "%s", path);
        s->group[s->n++] = *g = k;
    }
    config_free(&c);
    return rc;
}

static void add_param(struct runs_fit *f, enum runs_fit_kind kind, int group, int prec)
{
    struct runs_fit_param *p = &f->param[f->nparam++];
    memset(p, 0, sizeof *p);
    p->kind = kind, p->group = group, p->prec = prec;
    p->lo = runs_fit_kind_is_efficiency(kind) ? 0.05 : 0;
    p->hi = runs_fit_kind_is_efficiency(kind) ? 1 : kind == RF_STEP ? 1e10 : kind == RF_LINK ? 16777216 : 1e9;   /* the fields' ranges */
    p->value = NAN;
}

/* Per group: a GEMM efficiency per format its rows state, the memory-bound
 * and the attention efficiency, the collective step's latency; then the
 * host times of every chip. */
static void make_params(struct runs_fit *f)
{
    for (int g = 0; g < f->ngroup; g++) {
        bool seen[PREC_COUNT + 1] = { false };
        for (size_t i = 0; i < f->n; i++)
            if (f->rows[i].group == g && !seen[rf_row_format(f->rows[i].in) + 1]) {
                seen[rf_row_format(f->rows[i].in) + 1] = true;
                add_param(f, RF_GEMM, g, rf_row_format(f->rows[i].in));
            }
        add_param(f, RF_MEMORY, g, -1);
        add_param(f, RF_ATTENTION, g, -1);
        add_param(f, RF_COLLECTIVE, g, -1);
        add_param(f, RF_LINK, g, -1);
        add_param(f, RF_REQUEST, g, -1);
    }
    add_param(f, RF_STEP, -1, -1);
    add_param(f, RF_LAYER, -1, -1);
    add_param(f, RF_LAUNCH, -1, -1);
}

int rf_setup(struct rf_engine *g, const struct run_table *tables, int n, struct npu_err *e)
{
    struct runs_fit *f = g->f;
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += tables[i].n;
    f->rows = calloc(total + 1, sizeof *f->rows);
    g->cfg = calloc(total + 1, sizeof *g->cfg);
    struct chips_seen *s = calloc(1, sizeof *s);
    if (!f->rows || !g->cfg || !s) {
        free(s);
        return npu_errf(e, "calibrate: out of memory");
    }
    int rc = 0;
    for (int i = 0; i < n && !rc; i++)
        for (size_t j = 0; j < tables[i].n && !rc; j++) {
            struct runs_fit_row *r = &f->rows[f->n];
            r->t = &tables[i], r->in = &tables[i].rows[j];
            r->before = r->after = r->cv = r->loso = NAN;
            int c = 0;
            while (c < g->ncfg && !run_same_config(g->cfg[c].t, g->cfg[c].r, r->t, r->in))
                c++;
            if (c == g->ncfg) {
                g->cfg[c].t = r->t, g->cfg[c].r = r->in;
                if ((rc = group_of(f, s, g->o, r->t, r->in, &g->cfg[c].group, e)))
                    break;
                g->ncfg++;
            }
            r->cfg = c, r->group = g->cfg[c].group;
            f->n++;
        }
    free(s);
    if (!rc)
        make_params(f);
    return rc;
}

void rf_engine_free(struct rf_engine *g)
{
    free(g->cfg);
    g->cfg = NULL;
}

void rf_figures(const struct runs_fit *f, const double *pred, const bool *which, struct runs_fit_figures *fig)
{
    double *p = malloc((f->n + 1) * sizeof *p), *m = malloc((f->n + 1) * sizeof *m);
    size_t *ids = malloc((f->n + 1) * sizeof *ids);
    memset(fig, 0, sizeof *fig);
    for (int metric = -1; p && m && ids && metric < RUN_METRICS; metric++) {
        size_t k = 0;
        for (size_t i = 0; i < f->n; i++)
            if ((!which || which[i]) && isfinite(pred[i]) && (metric < 0 || (int)f->rows[i].in->metric == metric))
                p[k] = pred[i], m[k] = f->rows[i].in->measured, ids[k++] = i;
        error_stats_of(p, m, ids, k, metric < 0 ? &fig->overall : &fig->by_metric[metric]);
    }
    free(ids);
    free(m);
    free(p);
}

/* The fit on the rows with train[i], the others predicted into out[i]; the
 * parameters fitted counted into *nfitted. */
static int held_out(struct rf_engine *g, const bool *train, double *out, int *nfitted, struct npu_err *e)
{
    double val[RUNS_FIT_PARAMS_MAX];
    bool act[RUNS_FIT_PARAMS_MAX];
    bool *test = malloc((g->f->n + 1) * sizeof *test);
    double *pred = malloc((g->f->n + 1) * sizeof *pred);
    int rc = !test || !pred ? npu_errf(e, "calibrate: out of memory") : rf_fit(g, train, val, act, e);
    for (size_t i = 0; test && i < g->f->n; i++)
        test[i] = !train[i];
    if (!rc)
        rc = rf_predict(g, val, act, test, pred, e);
    for (size_t i = 0; !rc && i < g->f->n; i++)
        if (test[i])
            out[i] = pred[i];
    *nfitted = 0;
    for (int j = 0; !rc && j < g->f->nparam; j++)
        *nfitted += act[j];
    free(pred);
    free(test);
    return rc;
}

/* Seeded k-fold cross-validation: each row predicted by the fit of the
 * other folds (one shuffle: every fit re-runs the simulator). */
static int cross_validate(struct rf_engine *g, double *cv, struct npu_err *e)
{
    struct runs_fit *f = g->f;
    f->folds = f->n < 2 ? 0 : f->n < RUNS_FIT_FOLDS ? (int)f->n : RUNS_FIT_FOLDS;
    if (!f->folds)
        return 0;
    int *perm = malloc(f->n * sizeof *perm), *fold = malloc(f->n * sizeof *fold);
    bool *train = malloc(f->n * sizeof *train);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int rc = !perm || !fold || !train || !r ? npu_errf(e, "calibrate: out of memory") : 0, nfitted;
    if (!rc) {
        gsl_rng_set(r, RUNS_FIT_SEED);
        for (size_t i = 0; i < f->n; i++)
            perm[i] = (int)i;
        gsl_ran_shuffle(r, perm, f->n, sizeof *perm);
        for (size_t i = 0; i < f->n; i++)
            fold[perm[i]] = (int)i % f->folds;
    }
    for (int k = 0; !rc && k < f->folds; k++) {
        for (size_t i = 0; i < f->n; i++)
            train[i] = fold[i] != k;
        rc = held_out(g, train, cv, &nfitted, e);
    }
    gsl_rng_free(r);
    free(train);
    free(fold);
    free(perm);
    return rc;
}

/* Leave one source out: each source's rows predicted by the fit of the others. */
static int leave_source_out(struct rf_engine *g, double *loso, struct npu_err *e)
{
    struct runs_fit *f = g->f;
    f->source = calloc(f->n + 1, sizeof *f->source);
    bool *train = malloc((f->n + 1) * sizeof *train);
    int rc = !f->source || !train ? npu_errf(e, "calibrate: out of memory") : 0;
    for (size_t i = 0; !rc && i < f->n; i++) {
        const char *name = run_cell(f->rows[i].in, RC_SOURCE);
        int s = 0;
        while (s < f->n_source && strcmp(f->source[s].name, name))
            s++;
        if (s == f->n_source)
            f->source[f->n_source++].name = name;
    }
    for (int s = 0; !rc && s < f->n_source && f->n_source > 1; s++) {
        struct runs_fit_source *src = &f->source[s];
        for (size_t i = 0; i < f->n; i++) {
            train[i] = strcmp(run_cell(f->rows[i].in, RC_SOURCE), src->name) != 0;
            src->n_train += train[i], src->n_test += !train[i];
        }
        rc = held_out(g, train, loso, &src->n_fitted, e);
        for (size_t i = 0; !rc && i < f->n; i++)
            train[i] = !train[i];
        if (!rc)
            rf_figures(f, loso, train, &src->held_out);
    }
    free(train);
    return rc;
}

/* The rows as the chips are given: each must be predicted. */
static int predict_before(struct rf_engine *g, double *out, struct npu_err *e)
{
    if (rf_predict(g, NULL, NULL, NULL, out, e))
        return -1;
    for (size_t i = 0; i < g->f->n; i++)
        if (!isfinite(out[i])) {
            const struct runs_fit_row *r = &g->f->rows[i];
            const struct rf_cfg *c = &g->cfg[r->cfg];
            return npu_errf(e, "%s: line %d: row %s cannot be predicted, so it cannot be fitted: %s", r->t->name,
                            r->in->line, run_cell(r->in, RC_ID),
                            c->ok ? "the prediction is not a positive number" : c->why);
        }
    return 0;
}

int runs_fit_run(const struct run_table *tables, int n, const struct runs_fit_opts *o, struct runs_fit *f,
                 struct npu_err *e)
{
    memset(f, 0, sizeof *f);
    f->prior_weight = o->prior_weight;
    if (o->predict.prof->chip_precisions_ignored)
        return npu_errf(e, "calibrate --runs: the profile %s has no kernel efficiencies or host times to fit (use "
                           "physical)", o->predict.prof->name);
    double t0 = clock_monotonic_s();
    struct rf_engine g = { f, o, NULL, 0 };
    double *buf = NULL, val[RUNS_FIT_PARAMS_MAX];
    bool act[RUNS_FIT_PARAMS_MAX];
    int rc = rf_setup(&g, tables, n, e);
    if (!rc && !(buf = malloc(4 * (f->n + 1) * sizeof *buf)))
        rc = npu_errf(e, "calibrate: out of memory");
    double *before = buf, *after = buf + f->n + 1, *cv = buf + 2 * (f->n + 1), *loso = buf + 3 * (f->n + 1);
    bool *all = calloc(f->n + 1, sizeof *all);
    for (size_t i = 0; all && i < f->n; i++)
        all[i] = true, cv[i] = loso[i] = NAN;
    if (!rc && !all)
        rc = npu_errf(e, "calibrate: out of memory");
    if (!rc)
        rc = predict_before(&g, before, e);
    if (!rc && !(rc = rf_fit(&g, all, val, act, e)))
        rc = rf_predict(&g, val, act, NULL, after, e);
    for (int j = 0; !rc && j < f->nparam; j++)
        f->param[j].value = val[j], f->param[j].fitted = act[j];
    f->seconds_first = clock_monotonic_s() - t0;
    if (!rc && o->cross_validate)
        rc = cross_validate(&g, cv, e) || leave_source_out(&g, loso, e) ? -1 : 0;
    for (size_t i = 0; !rc && i < f->n; i++) {
        struct runs_fit_row *r = &f->rows[i];
        r->before = before[i], r->after = after[i], r->cv = cv[i], r->loso = loso[i];
    }
    if (!rc) {
        rf_figures(f, before, NULL, &f->before);
        rf_figures(f, after, NULL, &f->after);
        rf_figures(f, cv, NULL, &f->cv);
        rf_figures(f, loso, NULL, &f->loso);
    }
    f->seconds = clock_monotonic_s() - t0;
    free(all);
    free(buf);
    rf_engine_free(&g);
    if (rc)
        runs_fit_free(f);
    return rc;
}

void runs_fit_free(struct runs_fit *f)
{
    free(f->rows);
    free(f->source);
    memset(f, 0, sizeof *f);
}
