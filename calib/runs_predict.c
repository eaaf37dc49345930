/* runs_predict.c — a runs file's rows predicted as `npusim run` predicts
 * them (config_load with the row's values as overrides, the batch applied as
 * --batch does, the pipeline without its energy pass, the LLM statistics),
 * and the error statistics of `npusim validate --runs` per metric, source
 * and chip (see runs.h). Main data structure: struct run_validation. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/runs.h"
#include "calib/validate_internal.h"

#define SETS_MAX 64          /* the row's derived overrides, its own and the caller's */
#define SET_LEN 1024

double run_metric_value(const struct run_row *r, const struct run_prediction *p)
{
    double e2e_ms = p->ttft_sec * 1000 + (double)(r->output_len - 1) * p->tpot_ms;
    switch (r->metric) {
    case RUN_TTFT_MS: return p->ttft_sec * 1000;
    case RUN_TPOT_MS: case RUN_DECODE_STEP_MS: return p->tpot_ms;
    case RUN_E2E_LATENCY_MS: return e2e_ms;
    default: return (double)r->dp * (double)r->batch * (double)r->output_len / (e2e_ms / 1000);
    }
}

static bool looks_like_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".json"));
}

void run_config_name(const struct run_table *t, const char *cell, char *out, size_t n)
{
    const char *slash = strrchr(t->name, '/');
    if (looks_like_path(cell) && cell[0] != '/' && slash)
        snprintf(out, n, "%.*s/%s", (int)(slash - t->name), t->name, cell);
    else
        snprintf(out, n, "%s", cell);
}

struct overrides {
    char text[SETS_MAX][SET_LEN];
    const char *p[SETS_MAX];
    int n, n_derived, n_own;    /* derived from the columns, then the row's sets, then the caller's */
    enum run_col col[SETS_MAX]; /* the column a derived override comes from */
};

static int add_set(struct overrides *s, enum run_col col, const char *key, const char *val, size_t val_len)
{
    if (s->n >= SETS_MAX || strlen(key) + 1 + val_len >= SET_LEN)
        return -1;
    snprintf(s->text[s->n], SET_LEN, "%s%s%.*s", key, key[0] ? "=" : "", (int)val_len, val);
    s->col[s->n] = col;
    s->p[s->n] = s->text[s->n];
    s->n++;
    return 0;
}

static int add_int(struct overrides *s, enum run_col col, const char *key, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    return add_set(s, col, key, b, strlen(b));
}

/* The row's overrides, in the order they apply (with_ep: the expert
 * parallelism too, a field of the models with experts alone). -1 when
 * there are too many. */
static int row_overrides(const struct run_row *r, const struct run_predict_opts *o, bool with_ep, struct overrides *s)
{
    s->n = 0;
    int rc = add_int(s, RC_TP, "num_chips", r->tp * r->pp) | add_int(s, RC_DP, "data_parallelism_degree", 1) |
             add_int(s, RC_TP, "tensor_parallelism_degree", r->tp) |
             add_int(s, RC_PP, "pipeline_parallelism_degree", r->pp) |
             (with_ep ? add_int(s, RC_EP, "expert_parallelism_degree", r->ep) : 0) |
             add_int(s, RC_INPUT_LEN, "input_seqlen", r->input_len) |
             add_int(s, RC_OUTPUT_LEN, "output_seqlen", r->output_len);
    for (enum run_col c = RC_WDTYPE; c <= RC_KVDTYPE; c++)
        if (*run_cell(r, c))
            rc |= add_set(s, c, run_col_name[c], run_cell(r, c), strlen(run_cell(r, c)));
    s->n_derived = s->n;
    for (const char *p = run_cell(r, RC_SETS); *p;) {
        size_t n = strcspn(p, ";"), a = strspn(p, " \t"), b = n;
        while (b > a && strchr(" \t", p[b - 1]))
            b--;
        if (b > a)
            rc |= add_set(s, RC_SETS, "", p + a, b - a);
        p += n + (p[n] == ';');
    }
    s->n_own = s->n - s->n_derived;
    for (int i = 0; i < o->nsets; i++)
        rc |= add_set(s, RUN_COLS, "", o->sets[i], strlen(o->sets[i]));
    return rc ? -1 : 0;
}

/* A config_load error as the row's: its column (an override's key the
 * message quotes, the row's sets otherwise), without "--set: ". */
static int blame(const struct run_table *t, const struct run_row *r, const struct overrides *s,
                 const struct npu_err *le, struct npu_err *e)
{
    const char *msg = le->msg;
    if (!strncmp(msg, "--set: ", 7))
        msg += 7;
    for (int i = s->n_derived + s->n_own; i < s->n; i++) {   /* the caller's --set: its own message */
        char key[80];
        snprintf(key, sizeof key, "\"%.*s\"", (int)strcspn(s->p[i], "="), s->p[i]);
        if (strstr(msg, key))
            return npu_errf(e, "%s", le->msg);
    }
    int col = s->n_own ? RC_SETS : -1;
    for (int i = 0; i < s->n_derived; i++) {
        char key[80];
        snprintf(key, sizeof key, "\"%.*s\"", (int)strcspn(s->p[i], "="), s->p[i]);
        if (strstr(msg, key)) {
            col = s->col[i];
            break;
        }
    }
    if (col < 0)
        return npu_errf(e, "%s: line %d: %s", t->name, r->line, msg);
    return npu_errf(e, "%s: line %d: column \"%s\": %s", t->name, r->line, run_col_name[col], msg);
}

/* The family of row r's model, from its model and chip alone: 0; 1 with why
 * when no LLM inference family simulates it; -1 with e. */
static int row_family(const struct run_table *t, const struct run_row *r, const struct run_predict_opts *o,
                      const char *model, const char *chip, const struct family **fam, char *why, size_t whylen,
                      struct npu_err *e)
{
    char path[4096];
    struct npu_err le;
    if (config_resolve(o->configs_dir, CONFIG_CHIP, chip, path, sizeof path, &le))
        return npu_errf(e, "%s: line %d: column \"chip\": %s", t->name, r->line, le.msg);
    if (config_resolve(o->configs_dir, CONFIG_MODEL, model, path, sizeof path, &le))
        return npu_errf(e, "%s: line %d: column \"model\": %s", t->name, r->line, le.msg);
    struct loaded_config c;
    struct config_request q = { o->configs_dir, model, chip, NULL, NULL, 0, false };
    int rc = 0;
    if (config_load(&q, &c, &le))
        rc = npu_errf(e, "%s: line %d: %s", t->name, r->line, le.msg);
    else if (!(*fam = family_find(&c.model, "inference")))
        rc = 1, snprintf(why, whylen, "model \"%s\" (model_type \"%s\"): no model family simulates its inference",
                         c.model_name, c.model.model_type);
    else if (!(*fam)->llm_stats)
        rc = 1, snprintf(why, whylen, "model \"%s\": %s is not LLM inference (no TTFT or TPOT)", c.model_name,
                         (*fam)->name);
    config_free(&c);
    return rc;
}

/* The configs of row r loaded with its overrides and its batch, and the
 * family found: 0; 1 with why; -1 with e. */
static int row_config(const struct run_table *t, const struct run_row *r, const struct run_predict_opts *o,
                      struct loaded_config *c, const struct family **fam, char *why, size_t whylen, struct npu_err *e)
{
    char chip[4096], model[4096];
    run_config_name(t, run_cell(r, RC_CHIP), chip, sizeof chip);
    run_config_name(t, run_cell(r, RC_MODEL), model, sizeof model);
    int rc = row_family(t, r, o, model, chip, fam, why, whylen, e);
    if (rc)
        return rc;
    struct overrides *s = malloc(sizeof *s);
    if (!s)
        return npu_errf(e, "%s: line %d: out of memory", t->name, r->line);
    /* ep 1 on a model without experts is what it runs anyway: then without it */
    for (int with_ep = 1; with_ep >= 0 && !rc; with_ep--) {
        struct npu_err le;
        if (row_overrides(r, o, with_ep, s)) {
            rc = npu_errf(e, "%s: line %d: column \"sets\": expected at most %d overrides of at most %d characters "
                             "each", t->name, r->line, SETS_MAX - 16, SET_LEN - 1);
            break;
        }
        struct config_request q = { o->configs_dir, model, chip, NULL, s->p, s->n, false };
        if (!config_load(&q, c, &le))
            break;
        config_free(c);
        if (!with_ep || r->ep != 1 || !strstr(le.msg, "\"expert_parallelism_degree\": not a field"))
            rc = blame(t, r, s, &le, e);
    }
    free(s);
    if (rc)
        return rc;
    c->strict = true;
    const struct family *f = family_find(&c->model, "inference");   /* the row's sets may change it */
    if (!f || !f->llm_stats) {
        snprintf(why, whylen, "model \"%s\" with the row's sets: no LLM inference family simulates it", c->model_name);
        return 1;
    }
    family_apply_batch(c, *fam = f, r->batch);
    return 0;
}

int run_predict(const struct run_table *t, const struct run_row *r, const struct run_predict_opts *o,
                struct run_prediction *p, char *why, size_t whylen, struct npu_err *e)
{
    struct loaded_config c;
    const struct family *fam = NULL;
    memset(&c, 0, sizeof c);
    int rc = row_config(t, r, o, &c, &fam, why, whylen, e);
    if (rc) {
        config_free(&c);
        return rc;
    }
    struct trace tr;
    trace_init(&tr);
    struct llm_report rep;
    struct npu_err pe;
    if (pipeline_run(fam, &c, o->prof, false, &tr, &pe) || fam->llm_stats(&c, o->prof, &tr, &rep, &pe)) {
        snprintf(why, whylen, "%s", pe.msg + (strncmp(pe.msg, "--set: ", 7) ? 0 : 7));
        rc = 1;
    } else if (rep.prefill_oom || rep.decode_oom) {
        snprintf(why, whylen, "out of memory: %.2f GiB per chip in the prefill, %.2f GiB in the decode, of %lld GB HBM",
                 rep.prefill_mem_GiB, rep.decode_mem_GiB, (long long)c.chip.hbm_size_GB);
        rc = 1;
    } else {
        p->ttft_sec = rep.TTFT_sec;
        p->tpot_ms = rep.TPOT_ms_request;
    }
    trace_free(&tr);
    config_free(&c);
    return rc;
}

/* ---- the validation ---- */

bool run_same_config(const struct run_table *ta, const struct run_row *a, const struct run_table *tb,
                     const struct run_row *b)
{
    static const enum run_col cols[] = { RC_CHIP, RC_MODEL, RC_WDTYPE, RC_ADTYPE, RC_KVDTYPE, RC_SETS };
    if (a->tp != b->tp || a->pp != b->pp || a->ep != b->ep || a->batch != b->batch || a->input_len != b->input_len ||
        a->output_len != b->output_len)
        return false;
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        if (strcmp(run_cell(a, cols[i]), run_cell(b, cols[i])))
            return false;
    /* relative paths resolve against each file's folder */
    const char *sa = strrchr(ta->name, '/'), *sb = strrchr(tb->name, '/');
    size_t da = sa ? (size_t)(sa - ta->name) : 0, db = sb ? (size_t)(sb - tb->name) : 0;
    return da == db && !strncmp(ta->name, tb->name, da);
}

typedef const char *(*group_key)(const struct run_result *r);
static const char *metric_key(const struct run_result *r) { return run_metric_name(r->in->metric); }
static const char *source_key(const struct run_result *r) { return run_cell(r->in, RC_SOURCE); }
static const char *chip_key(const struct run_result *r) { return run_cell(r->in, RC_CHIP); }

/* The figures of the predicted rows whose key is name (NULL: every row). */
static void group_stats(const struct run_validation *v, group_key key, struct run_group *g, double *pm, size_t *idx)
{
    size_t k = 0;
    g->errors = 0;
    for (size_t i = 0; i < v->n; i++) {
        const struct run_result *r = &v->rows[i];
        if (key && strcmp(key(r), g->name))
            continue;
        if (!r->ok) {
            g->errors++;
            continue;
        }
        pm[k] = r->predicted, pm[v->n + k] = r->in->measured, idx[k++] = i;
    }
    error_stats_of(pm, pm + v->n, idx, k, &g->s);
}

/* The groups of a key, in first-seen order: their count (-1: out of memory). */
static int group_by(const struct run_validation *v, group_key key, struct run_group **out, double *pm, size_t *idx)
{
    struct run_group *g = calloc(v->n ? v->n : 1, sizeof *g);
    const char **names = malloc((v->n ? v->n : 1) * sizeof *names);
    if (!(*out = g) || !names) {
        free(names);
        return -1;
    }
    int n = 0;
    for (size_t i = 0; i < v->n; i++)
        n = validate_name_add(names, n, INT_MAX, key(&v->rows[i]));
    for (int j = 0; j < n; j++) {
        g[j].name = names[j];
        group_stats(v, key, &g[j], pm, idx);
    }
    free(names);
    return n;
}

/* Each row predicted, a configuration run once for the rows sharing it. */
static int predict_rows(const struct run_table *tables, int n, const struct run_predict_opts *o,
                        struct run_validation *v, struct npu_err *e)
{
    for (int i = 0; i < n; i++)
        for (size_t j = 0; j < tables[i].n; j++) {
            struct run_result *r = &v->rows[v->n];
            r->t = &tables[i], r->in = &tables[i].rows[j];
            const struct run_result *twin = NULL;
            for (size_t k = 0; k < v->n && !twin; k++)
                if (run_same_config(v->rows[k].t, v->rows[k].in, r->t, r->in))
                    twin = &v->rows[k];
            int rc;
            if (twin) {
                r->p = twin->p;
                snprintf(r->why, sizeof r->why, "%s", twin->why);
                rc = !twin->ok;
            } else if ((rc = run_predict(r->t, r->in, o, &r->p, r->why, sizeof r->why, e)) < 0)
                return -1;
            if (rc == 0) {
                r->predicted = run_metric_value(r->in, &r->p);
                r->error_pct = (r->predicted - r->in->measured) / r->in->measured * 100;
                if (!isfinite(r->error_pct) || !(r->predicted > 0))
                    rc = 1, snprintf(r->why, sizeof r->why, "the prediction is %g, not a positive number", r->predicted);
            }
            r->ok = rc == 0;
            v->n++;
            v->n_errors += !r->ok;
        }
    return 0;
}

int runs_validate(const struct run_table *tables, int n, const struct run_predict_opts *o, struct run_validation *v,
                  struct npu_err *e)
{
    memset(v, 0, sizeof *v);
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += tables[i].n;
    v->rows = calloc(total ? total : 1, sizeof *v->rows);
    double *pm = malloc(2 * (total ? total : 1) * sizeof *pm);
    size_t *idx = malloc((total ? total : 1) * sizeof *idx);
    int rc = !v->rows || !pm || !idx ? npu_errf(e, "validate: out of memory") : predict_rows(tables, n, o, v, e);
    if (!rc) {
        v->overall.name = "overall";
        group_stats(v, NULL, &v->overall, pm, idx);
        v->n_metric = group_by(v, metric_key, &v->by_metric, pm, idx);
        v->n_source = group_by(v, source_key, &v->by_source, pm, idx);
        v->n_chip = group_by(v, chip_key, &v->by_chip, pm, idx);
        if (v->n_metric < 0 || v->n_source < 0 || v->n_chip < 0)
            rc = npu_errf(e, "validate: out of memory");
    }
    free(pm);
    free(idx);
    if (rc)
        run_validation_free(v);
    return rc;
}

void run_validation_free(struct run_validation *v)
{
    free(v->rows);
    free(v->by_metric);
    free(v->by_source);
    free(v->by_chip);
    memset(v, 0, sizeof *v);
}
