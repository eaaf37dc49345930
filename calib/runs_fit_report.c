/* runs_fit_report.c — the report of calibrate --runs (see runs_fit.h): the
 * parameters with their bounds and values, the in-sample errors before and
 * after, the k-fold cross-validation and leave-one-source-out (the
 * headline), as text, markdown or JSON. No data structure of its own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "calib/runs_fit.h"

static const char *group_name(const struct runs_fit *f, int g) { return g < 0 ? "every chip" : f->group[g].name; }

static void bounds_text(const struct runs_fit_param *p, char *b, size_t n)
{
    if (runs_fit_kind_is_efficiency(p->kind))
        snprintf(b, n, "%g..%g", p->lo, p->hi);
    else
        snprintf(b, n, "%g..%g ns", p->lo, p->hi);
}

/* "0.75 +- 0.15", or "-" (a host time, or priors off) */
static void prior_text(const struct runs_fit *f, const struct runs_fit_param *p, char *b, size_t n)
{
    double mean, sd;
    if (f->prior_weight > 0 && runs_fit_prior(f, p, &mean, &sd))
        snprintf(b, n, "%g +- %g", mean, sd);
    else
        snprintf(b, n, "-");
}

static void params(struct strbuf *b, const struct runs_fit *f, bool md)
{
    if (f->prior_weight > 0)
        strbuf_printf(b, "Priors weighted %g: an efficiency one standard deviation from its prior costs as much "
                         "as a row %g%% off.\n%s", f->prior_weight, f->prior_weight * 100, md ? "\n" : "");
    strbuf_printf(b, md ? "| parameter | chips | bounds | prior | value | fields |\n|---|---|---|---|---|---|\n"
                        : "%-20s %-16s %-16s %-12s %10s  %s\n",
                  "parameter", "chips", "bounds", "prior", "value", "fields");
    for (int j = 0; j < f->nparam; j++) {
        const struct runs_fit_param *p = &f->param[j];
        char name[64], bounds[64], prior[64], value[64], kb[8][64];
        runs_fit_param_name(p, name, sizeof name);
        bounds_text(p, bounds, sizeof bounds);
        prior_text(f, p, prior, sizeof prior);
        if (!p->fitted)
            snprintf(value, sizeof value, "not fitted");
        else if (runs_fit_kind_is_efficiency(p->kind))
            snprintf(value, sizeof value, "%.4f", p->value);
        else
            snprintf(value, sizeof value, "%.0f", round(p->value));
        const char *const *keys = runs_fit_param_keys(p, kb);
        char fields[512] = "";
        for (int k = 0; keys[k]; k++)
            snprintf(fields + strlen(fields), sizeof fields - strlen(fields), "%s%s", k ? ", " : "", keys[k]);
        strbuf_printf(b, md ? "| %s | %s | %s | %s | %s | %s |\n" : "%-20s %-16s %-16s %-12s %10s  %s\n", name,
                      group_name(f, p->group), bounds, prior, value, fields);
    }
    bool idle = false;
    for (int j = 0; j < f->nparam; j++)
        idle |= !f->param[j].fitted;
    if (idle)
        strbuf_puts(b, md ? "\nNot fitted: no row moves it; the chip keeps its own value.\n"
                          : "(not fitted: no row moves it; the chip keeps its own value)\n");
}

/* One figure as "12.34" (or "-" without rows). */
static const char *pct(char *buf, const struct error_stats *s, bool max)
{
    if (!s->count)
        return "-";
    snprintf(buf, 32, "%.2f", max ? s->max_ape_pct : s->mape_pct);
    return buf;
}

/* Per metric and overall: before, after, k-fold and leave-one-source-out. */
static void figures(struct strbuf *b, const struct runs_fit *f, bool md)
{
    if (md)
        strbuf_printf(b, "| metric | rows | MAPE uncalibrated %% | MAPE in-sample %% | MAPE %d-fold %% | MAPE "
                         "leave-one-source-out %% | max APE leave-one-source-out %% |\n|---|---|---|---|---|---|---|\n",
                      f->folds);
    else
        strbuf_printf(b, "\n%-24s %5s %12s %10s %9s %9s %12s\n", "metric", "rows", "uncalibrated", "in-sample",
                      "k-fold", "LOSO", "LOSO max");
    for (int m = -1; m < RUN_METRICS; m++) {
        const struct error_stats *s[4] = {
            m < 0 ? &f->before.overall : &f->before.by_metric[m], m < 0 ? &f->after.overall : &f->after.by_metric[m],
            m < 0 ? &f->cv.overall : &f->cv.by_metric[m], m < 0 ? &f->loso.overall : &f->loso.by_metric[m] };
        if (!s[0]->count)
            continue;
        char p[5][32];
        strbuf_printf(b, md ? "| %s | %lld | %s | %s | %s | %s | %s |\n" : "%-24s %5lld %12s %10s %9s %9s %12s\n",
                      m < 0 ? "overall" : run_metric_name((enum run_metric)m), (long long)s[0]->count,
                      pct(p[0], s[0], false), pct(p[1], s[1], false), pct(p[2], s[2], false), pct(p[3], s[3], false),
                      pct(p[4], s[3], true));
    }
}

/* Leave one source out: per source, its rows predicted by the fit of the others. */
static void loso(struct strbuf *b, const struct runs_fit *f, bool md)
{
    if (f->n_source < 2) {
        strbuf_puts(b, md ? "\nOne source: nothing to leave out.\n" : "\nleave one source out: one source, nothing to "
                                                                       "leave out\n");
        return;
    }
    strbuf_puts(b, md ? "\n| source held out | rows | fitted on | parameters fitted | metric | MAPE % | max APE % |\n"
                        "|---|---|---|---|---|---|---|\n"
                      : "\nleave one source out (the headline: each source predicted by the fit of the others)\n");
    if (!md)
        strbuf_printf(b, "%-40s %5s %9s %6s  %-24s %9s %9s\n", "source held out", "rows", "fitted on", "params",
                      "metric", "MAPE %", "max APE %");
    for (int s = 0; s < f->n_source; s++) {
        const struct runs_fit_source *src = &f->source[s];
        for (int m = -1; m < RUN_METRICS; m++) {
            const struct error_stats *st = m < 0 ? &src->held_out.overall : &src->held_out.by_metric[m];
            if (!st->count || (m >= 0 && st->count == src->held_out.overall.count))
                continue;
            char p[2][32];
            strbuf_printf(b, md ? "| %s | %d | %d | %d | %s | %s | %s |\n" : "%-40.40s %5d %9d %6d  %-24s %9s %9s\n",
                          src->name, src->n_test, src->n_train, src->n_fitted,
                          m < 0 ? "all" : run_metric_name((enum run_metric)m),
                          pct(p[0], st, false), pct(p[1], st, true));
        }
    }
    char p[2][32];
    if (md)
        strbuf_printf(b, "| **pooled** | %lld | | | all | **%s** | %s |\n", (long long)f->loso.overall.count,
                      pct(p[0], &f->loso.overall, false), pct(p[1], &f->loso.overall, true));
    else
        strbuf_printf(b, "%-40s %5lld %9s %6s  %-24s %9s %9s\n", "pooled", (long long)f->loso.overall.count, "", "",
                      "all", pct(p[0], &f->loso.overall, false), pct(p[1], &f->loso.overall, true));
}

static void rows_md(struct strbuf *b, const struct runs_fit *f)
{
    strbuf_puts(b, "\n| id | source | chip | model | metric | measured | uncalibrated | in-sample | k-fold | "
                   "leave-one-source-out |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < f->n; i++) {
        const struct runs_fit_row *r = &f->rows[i];
        const double v[4] = { r->before, r->after, r->cv, r->loso };
        strbuf_printf(b, "| %s | %s | %s | %s | %s | %.6g |", run_cell(r->in, RC_ID), run_cell(r->in, RC_SOURCE),
                      run_cell(r->in, RC_CHIP), run_cell(r->in, RC_MODEL), run_metric_name(r->in->metric),
                      r->in->measured);
        for (int k = 0; k < 4; k++)
            if (isfinite(v[k]))
                strbuf_printf(b, " %.6g (%+.1f%%) |", v[k], (v[k] - r->in->measured) / r->in->measured * 100);
            else
                strbuf_puts(b, " - |");
        strbuf_puts(b, "\n");
    }
}

char *runs_fit_text(const struct runs_fit *f, bool md)
{
    struct strbuf b = STRBUF_GROWING;
    strbuf_printf(&b, md ? "%zu rows; %d fits (%ld runs predicted) in %.1f s, the fit on every row %.1f s.\n\n"
                         : "calibrate --runs: %zu rows; %d fits (%ld runs predicted) in %.1f s (the fit on every "
                           "row: %.1f s)\n\n",
                  f->n, f->fits, f->predictions, f->seconds, f->seconds_first);
    params(&b, f, md);
    if (md)
        strbuf_puts(&b, "\n");
    figures(&b, f, md);
    if (!md && f->folds)
        strbuf_printf(&b, "(MAPE %%; k-fold: %d folds, seed %lu, each row predicted by the fit of the other folds)\n",
                      f->folds, RUNS_FIT_SEED);
    loso(&b, f, md);
    if (md)
        rows_md(&b, f);
    return b.s;
}

static cJSON *stats_json(const struct error_stats *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "count", (double)s->count);
    if (s->count) {
        cJSON_AddNumberToObject(o, "mape_pct", s->mape_pct);
        cJSON_AddNumberToObject(o, "median_ape_pct", s->median_ape_pct);
        cJSON_AddNumberToObject(o, "max_ape_pct", s->max_ape_pct);
        cJSON_AddNumberToObject(o, "bias_pct", s->bias_pct);
    }
    return o;
}

static cJSON *figures_json(const struct runs_fit_figures *fg)
{
    cJSON *o = cJSON_CreateObject(), *m = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "overall", stats_json(&fg->overall));
    for (int k = 0; k < RUN_METRICS; k++)
        if (fg->by_metric[k].count)
            cJSON_AddItemToObject(m, run_metric_name((enum run_metric)k), stats_json(&fg->by_metric[k]));
    cJSON_AddItemToObject(o, "by_metric", m);
    return o;
}

static void add_number_or_null(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static cJSON *params_json(const struct runs_fit *f)
{
    cJSON *a = cJSON_CreateArray();
    for (int j = 0; j < f->nparam; j++) {
        const struct runs_fit_param *p = &f->param[j];
        cJSON *o = cJSON_CreateObject(), *keys = cJSON_CreateArray();
        char name[64], kb[8][64];
        cJSON_AddStringToObject(o, "name", runs_fit_param_name(p, name, sizeof name));
        cJSON_AddStringToObject(o, "chips", group_name(f, p->group));
        const char *const *k = runs_fit_param_keys(p, kb);
        for (int i = 0; k[i]; i++)
            cJSON_AddItemToArray(keys, cJSON_CreateString(k[i]));
        cJSON_AddItemToObject(o, "fields", keys);
        cJSON_AddNumberToObject(o, "lo", p->lo);
        cJSON_AddNumberToObject(o, "hi", p->hi);
        double mean, sd;
        bool has = f->prior_weight > 0 && runs_fit_prior(f, p, &mean, &sd);
        add_number_or_null(o, "prior_mean", has ? mean : NAN);
        add_number_or_null(o, "prior_sd", has ? sd : NAN);
        cJSON_AddBoolToObject(o, "fitted", p->fitted);
        add_number_or_null(o, "value", p->fitted ? p->value : NAN);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* Every chip of the rows with the fields its calibrated config sets
 * ("kernel_efficiency.gemm.bf16=0.774700286", as runs_fit_sets gives them):
 * what a preset takes from the fit (bench/write-presets.py). */
static cJSON *chips_json(const struct runs_fit *f)
{
    cJSON *a = cJSON_CreateArray();
    for (int g = 0; g < f->ngroup; g++) {
        char sets[96][128];
        int m = runs_fit_sets(f, g, sets, 96);
        for (int c = 0; c < f->group[g].nchips; c++) {
            cJSON *o = cJSON_CreateObject(), *s = cJSON_AddArrayToObject(o, "sets");
            cJSON_AddStringToObject(o, "chip", f->group[g].chip[c]);
            cJSON_AddStringToObject(o, "group", f->group[g].name);
            for (int i = 0; i < m; i++)
                cJSON_AddItemToArray(s, cJSON_CreateString(sets[i]));
            cJSON_AddItemToArray(a, o);
        }
    }
    return a;
}

cJSON *runs_fit_json(const struct runs_fit *f)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "prior_weight", f->prior_weight);
    cJSON_AddItemToObject(j, "parameters", params_json(f));
    cJSON *is = cJSON_AddObjectToObject(j, "in_sample");
    cJSON_AddItemToObject(is, "uncalibrated", figures_json(&f->before));
    cJSON_AddItemToObject(is, "calibrated", figures_json(&f->after));
    cJSON *cv = cJSON_AddObjectToObject(j, "cross_validation");
    cJSON_AddNumberToObject(cv, "folds", f->folds);
    cJSON_AddNumberToObject(cv, "seed", (double)RUNS_FIT_SEED);
    cJSON_AddItemToObject(cv, "held_out", figures_json(&f->cv));
    cJSON *lo = cJSON_AddObjectToObject(j, "leave_one_source_out"), *srcs = cJSON_AddArrayToObject(lo, "sources");
    for (int s = 0; s < f->n_source && f->n_source > 1; s++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "source", f->source[s].name);
        cJSON_AddNumberToObject(o, "rows", f->source[s].n_test);
        cJSON_AddNumberToObject(o, "fitted_on_rows", f->source[s].n_train);
        cJSON_AddNumberToObject(o, "parameters_fitted", f->source[s].n_fitted);
        cJSON_AddItemToObject(o, "held_out", figures_json(&f->source[s].held_out));
        cJSON_AddItemToArray(srcs, o);
    }
    cJSON_AddItemToObject(lo, "pooled", figures_json(&f->loso));
    cJSON_AddItemToObject(j, "chips", chips_json(f));
    cJSON *rows = cJSON_AddArrayToObject(j, "rows");
    for (size_t i = 0; i < f->n; i++) {
        const struct runs_fit_row *r = &f->rows[i];
        cJSON *o = cJSON_CreateObject();
        static const enum run_col cols[] = { RC_ID, RC_SOURCE, RC_CHIP, RC_MODEL };
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            cJSON_AddStringToObject(o, run_col_name[cols[c]], run_cell(r->in, cols[c]));
        cJSON_AddStringToObject(o, "metric", run_metric_name(r->in->metric));
        cJSON_AddNumberToObject(o, "measured", r->in->measured);
        add_number_or_null(o, "uncalibrated", r->before);
        add_number_or_null(o, "calibrated", r->after);
        add_number_or_null(o, "k_fold", r->cv);
        add_number_or_null(o, "leave_one_source_out", r->loso);
        cJSON_AddItemToArray(rows, o);
    }
    cJSON_AddNumberToObject(j, "fits", f->fits);
    cJSON_AddNumberToObject(j, "runs_predicted", (double)f->predictions);
    cJSON_AddNumberToObject(j, "seconds", f->seconds);
    return j;
}
