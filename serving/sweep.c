/* sweep.c — a sweep of serving runs and the SLO selection (see sweep.h). */
#include "serving/sweep.h"

#include "serving/summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/json_strict.h"
#include "base/pyfmt.h"
#include "base/strbuf.h"
#include "serving/request.h"
#include "study/run/run.h"

/* The knobs a point may set besides serving/request.h's: a replica's
 * degrees (config fields) and the two switches. */
static const struct { const char *key, *field; } degrees[] = {
    { "tp", "tensor_parallelism_degree" }, { "pp", "pipeline_parallelism_degree" },
    { "ep", "expert_parallelism_degree" },
};

static bool knob_known(const char *k)
{
    for (size_t i = 0; i < sizeof degrees / sizeof degrees[0]; i++)
        if (!strcmp(k, degrees[i].key))
            return true;
    return serving_knob_run_switch(k) ||
           (serving_knob_find(k) >= 0 && strchr(k, '-') == NULL);
}

bool serving_sweep_is(const char *path)
{
    /* Only a regular file is peeked at: a pipe read here would be empty
     * for the batch sweep that reads it after. */
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode))
        return false;
    struct npu_err e;
    cJSON *j = json_read_file_strict(path, &e);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "workload");
    bool is = cJSON_IsString(w) && !strcmp(w->valuestring, "serving");
    cJSON_Delete(j);
    return is;
}

/* The values of a knob: a list, or one scalar as a list of one. */
static size_t count_of(const cJSON *v) { return cJSON_IsArray(v) ? (size_t)cJSON_GetArraySize(v) : 1; }
static const cJSON *value_at(const cJSON *v, size_t i) { return cJSON_IsArray(v) ? cJSON_GetArrayItem(v, (int)i) : v; }

static int names_list(const char *path, const cJSON *spec, const char *key, const cJSON **out, struct npu_err *e)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(spec, key);
    if (!cJSON_IsArray(l) || cJSON_GetArraySize(l) == 0)
        return npu_errf(e, "%s: \"%s\": expected a non-empty list of names", path, key);
    const cJSON *x;
    cJSON_ArrayForEach(x, l)
        if (!cJSON_IsString(x) || !x->valuestring[0] || strlen(x->valuestring) >= 128)
            return npu_errf(e, "%s: \"%s\": expected names (strings)", path, key);
    *out = l;
    return 0;
}

static const char *const select_names[] = { "", "fewest_chips", "energy", "carbon" };

int serving_sweep_load(const char *path, const char *slo, const char *select, struct serving_sweep *w,
                       struct npu_err *e)
{
    memset(w, 0, sizeof *w);
    if (!(w->spec = json_read_file_strict(path, e)))
        return -1;
    static const char *const keys[] = { "workload", "models", "chips", "serving", "slo", "select" };
    char hint[160], why[400];
    const char *bad = json_unknown_key(w->spec, keys, 6, hint, sizeof hint);
    int rc = 0;
    if (!cJSON_IsObject(w->spec))
        rc = npu_errf(e, "%s: expected a JSON object", path);
    else if (bad)
        rc = npu_errf(e, "%s: unknown key \"%.60s\"%s: expected workload, models, chips, serving, slo, select", path,
                      bad, hint);
    if (!rc && (names_list(path, w->spec, "models", &w->models, e) || names_list(path, w->spec, "chips", &w->chips, e)))
        rc = -1;
    w->knobs = cJSON_GetObjectItemCaseSensitive(w->spec, "serving");
    if (!rc && !cJSON_IsObject(w->knobs))
        rc = npu_errf(e, "%s: \"serving\": expected an object of the runs' options (rate, replicas, scheduler, ...)",
                      path);
    w->points = rc ? 0 : (size_t)cJSON_GetArraySize(w->models) * (size_t)cJSON_GetArraySize(w->chips);
    const cJSON *k, *knobs = rc ? NULL : w->knobs;
    size_t nk = 0;
    cJSON_ArrayForEach(k, knobs) {
        size_t n = count_of(k);
        if (++nk > SERVING_SWEEP_MAX_KNOBS)
            rc = npu_errf(e, "%s: \"serving\": at most %d options", path, SERVING_SWEEP_MAX_KNOBS);
        else if (!knob_known(k->string) || !strcmp(k->string, "find_rate"))
            rc = npu_errf(e, "%s: \"serving\": unknown option \"%.60s\" (expected the keys of POST /api/serving: "
                             "rate, requests, lengths, scheduler, max_num_batched_tokens, replicas, tp, ...)", path,
                          k->string);
        for (size_t i = 0; !rc && i < n; i++) {
            const cJSON *v = value_at(k, i);
            if (!cJSON_IsNumber(v) && !cJSON_IsString(v) && !cJSON_IsBool(v))
                rc = npu_errf(e, "%s: \"serving\": \"%s\": expected a number, a string, true or false, or a "
                                 "non-empty list of them", path, k->string);
        }
        if (!rc && n == 0)
            rc = npu_errf(e, "%s: \"serving\": \"%s\": an empty list", path, k->string);
        if (!rc && w->points > SERVING_SWEEP_MAX_POINTS / n)
            rc = npu_errf(e, "%s: more than %d points", path, SERVING_SWEEP_MAX_POINTS);
        w->points *= n;
    }
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(w->spec, "slo"), *sel = cJSON_GetObjectItemCaseSensitive(w->spec, "select");
    const char *slo_text = slo ? slo : cJSON_IsString(s) ? s->valuestring : NULL;
    if (!rc && s && !cJSON_IsString(s))
        rc = npu_errf(e, "%s: \"slo\": expected a string such as \"ttft_p99_ms=500,tpot_p99_ms=50\"", path);
    if (!rc && slo_text && serving_slo_parse(slo_text, &w->slo, why, sizeof why))
        rc = npu_errf(e, "%s: \"%s\": %s", slo ? "--slo" : path, slo_text, why);
    const char *sel_text = select ? select : cJSON_IsString(sel) ? sel->valuestring : NULL;
    for (int i = 1; !rc && sel_text && i < 4 && w->select == SELECT_NONE; i++)
        if (!strcmp(sel_text, select_names[i]))
            w->select = (enum serving_select)i;
    if (!rc && sel_text && w->select == SELECT_NONE)
        rc = npu_errf(e, "%s: select \"%s\": expected fewest_chips, energy or carbon", select ? "--select" : path,
                      sel_text);
    if (!rc && w->select != SELECT_NONE && w->slo.n == 0)
        rc = npu_errf(e, "%s: a selection needs an SLO with a statistic bound (\"slo\" or --slo, e.g. "
                         "ttft_p99_ms=500,tpot_p99_ms=50)", path);
    if (rc)
        serving_sweep_free(w);
    return rc;
}

void serving_sweep_free(struct serving_sweep *w)
{
    cJSON_Delete(w->spec);
    memset(w, 0, sizeof *w);
}

static void text_of(const cJSON *v, char *buf, size_t n)
{
    if (cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    else if (cJSON_IsBool(v))
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else
        num_text_shortest(v->valuedouble, buf, n);
}

static void refuse(struct serving_sweep_row *r, const char *msg)
{
    snprintf(r->status, sizeof r->status, "refused");
    snprintf(r->message, sizeof r->message, "%s", msg);
}

/* One point: its knobs from index i (the last knob fastest), run. */
static void point(const struct serving_sweep *w, size_t i, const char *configs, const struct profile *prof,
                  struct serving_sweep_row *r)
{
    struct serving_knobs k = { .json_names = true };
    const char *sets[8];
    char setbuf[8][96];
    int nsets = 0;
    size_t nk = (size_t)cJSON_GetArraySize(w->knobs), idx[SERVING_SWEEP_MAX_KNOBS];
    const cJSON *kn[SERVING_SWEEP_MAX_KNOBS];
    size_t j = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, w->knobs)
        kn[j++] = it;
    for (size_t q = nk; q-- > 0;) {
        idx[q] = i % count_of(kn[q]);
        i /= count_of(kn[q]);
    }
    size_t nc = (size_t)cJSON_GetArraySize(w->chips);
    snprintf(r->chip, sizeof r->chip, "%s", cJSON_GetArrayItem(w->chips, (int)(i % nc))->valuestring);
    snprintf(r->model, sizeof r->model, "%s", cJSON_GetArrayItem(w->models, (int)(i / nc))->valuestring);
    for (size_t q = 0; q < nk; q++) {
        const cJSON *v = value_at(kn[q], idx[q]);
        text_of(v, r->value[q], sizeof r->value[q]);
        const char *key = kn[q]->string;
        int s = serving_knob_find(key);
        if (s >= 0)
            k.v[s] = r->value[q];
        else if (serving_knob_switch(&k, key))
            *serving_knob_switch(&k, key) = cJSON_IsTrue(v);
        for (size_t d = 0; d < sizeof degrees / sizeof degrees[0]; d++)
            if (!strcmp(key, degrees[d].key) && nsets < 8)
                snprintf(setbuf[nsets], sizeof setbuf[nsets], "%s=%s", degrees[d].field, r->value[q]),
                    sets[nsets] = setbuf[nsets], nsets++;
    }
    struct config_request cr = { configs, r->model, r->chip, NULL, sets, nsets, false };
    struct loaded_config c;
    struct npu_err e;
    memset(&c, 0, sizeof c);
    if (config_load(&cr, &c, &e)) {
        config_free(&c);
        return refuse(r, e.msg);
    }
    c.strict = true;   /* a point is a user's layout: refused where `npusim serving` refuses it */
    const struct family *fam = family_find(&c.model, "inference");
    if (!fam) {
        config_free(&c);
        return refuse(r, "no model family simulates its inference");
    }
    family_apply_batch(&c, fam, 0);
    struct serving_build *b = malloc(sizeof *b);
    char why[1200];
    cJSON *sum = NULL;
    if (!b)
        refuse(r, "out of memory");
    else if (serving_build(&k, fam, &c, prof, configs, b, why, sizeof why))
        refuse(r, why);
    else {
        b->spec.pg_compare = false;
        if (serving_simulate(&b->spec, &sum, &e))
            refuse(r, e.msg);
        serving_build_free(b);
    }
    free(b);
    config_free(&c);
    if (!sum)
        return;
    snprintf(r->status, sizeof r->status, "ok");
    r->chips = serving_summary_num(sum, "setting", "chips");
    r->throughput_rps = serving_summary_num(sum, NULL, "request_throughput_rps");
    r->output_tokens_per_s = serving_summary_num(sum, NULL, "output_tokens_per_s");
    r->ttft_p50_ms = serving_summary_num(sum, "ttft_ms", "p50"), r->ttft_p99_ms = serving_summary_num(sum, "ttft_ms", "p99");
    r->tpot_p50_ms = serving_summary_num(sum, "tpot_ms", "p50"), r->tpot_p99_ms = serving_summary_num(sum, "tpot_ms", "p99");
    r->e2e_p99_s = serving_summary_num(sum, "e2e_s", "p99");
    r->energy_per_request_J = serving_summary_num(sum, NULL, "energy_per_request_J");
    r->carbon_per_request_g = serving_summary_num(sum, NULL, "carbon_per_request_g");
    r->meets = serving_slo_met(&w->slo, sum);
    r->above_capacity = serving_summary_above_capacity(sum);
    cJSON_Delete(sum);
}

/* Whether row a is a better pick than b under the selection. */
static bool better(enum serving_select s, const struct serving_sweep_row *a, const struct serving_sweep_row *b)
{
    double x = s == SELECT_FEWEST_CHIPS ? a->chips : s == SELECT_ENERGY ? a->energy_per_request_J : a->carbon_per_request_g;
    double y = s == SELECT_FEWEST_CHIPS ? b->chips : s == SELECT_ENERGY ? b->energy_per_request_J : b->carbon_per_request_g;
    if (x != y)
        return x < y;
    return s == SELECT_FEWEST_CHIPS && a->energy_per_request_J < b->energy_per_request_J;   /* fewest, then least energy */
}

int serving_sweep_run(const struct serving_sweep *w, const char *configs, const struct profile *prof,
                      struct serving_sweep_row **rows, long *selected, struct npu_err *e)
{
    *selected = -1;
    if (!(*rows = calloc(w->points ? w->points : 1, sizeof **rows)))
        return npu_errf(e, "serving sweep: out of memory");
    for (size_t i = 0; i < w->points; i++) {
        struct serving_sweep_row *r = &(*rows)[i];
        point(w, i, configs, prof, r);
        if (w->select != SELECT_NONE && !strcmp(r->status, "ok") && r->meets && !r->above_capacity &&
            (*selected < 0 || better(w->select, r, &(*rows)[*selected])))
            *selected = (long)i;
    }
    return 0;
}

static void csv_cell(struct strbuf *b, const char *s)
{
    bool q = strpbrk(s, ",\"\n\r") != NULL;
    if (!q) {
        strbuf_puts(b, s);
        return;
    }
    strbuf_puts(b, "\"");
    for (const char *p = s; *p; p++)
        strbuf_printf(b, "%s%c", *p == '"' ? "\"" : "", *p);
    strbuf_puts(b, "\"");
}

char *serving_sweep_csv(const struct serving_sweep *w, const struct serving_sweep_row *rows, size_t n)
{
    struct strbuf b = STRBUF_GROWING;
    strbuf_puts(&b, "model,chip");
    const cJSON *k;
    cJSON_ArrayForEach(k, w->knobs) {
        strbuf_puts(&b, ",");
        csv_cell(&b, k->string);
    }
    strbuf_puts(&b, ",status,chips,request_throughput_rps,output_tokens_per_s,ttft_p50_ms,ttft_p99_ms,tpot_p50_ms,"
                    "tpot_p99_ms,e2e_p99_s,energy_per_request_J,carbon_per_request_g,meets_slo,above_capacity,message\n");
    size_t nk = (size_t)cJSON_GetArraySize(w->knobs);
    for (size_t i = 0; i < n; i++) {
        const struct serving_sweep_row *r = &rows[i];
        csv_cell(&b, r->model);
        strbuf_puts(&b, ",");
        csv_cell(&b, r->chip);
        for (size_t q = 0; q < nk; q++) {
            strbuf_puts(&b, ",");
            csv_cell(&b, r->value[q]);
        }
        strbuf_printf(&b, ",%s", r->status);
        const double v[] = { r->chips, r->throughput_rps, r->output_tokens_per_s, r->ttft_p50_ms, r->ttft_p99_ms,
                             r->tpot_p50_ms, r->tpot_p99_ms, r->e2e_p99_s, r->energy_per_request_J,
                             r->carbon_per_request_g };
        bool ok = !strcmp(r->status, "ok");
        for (size_t c = 0; c < sizeof v / sizeof v[0]; c++) {
            if (ok && isfinite(v[c]))
                strbuf_printf(&b, ",%.9g", v[c]);
            else
                strbuf_puts(&b, ",");
        }
        strbuf_printf(&b, ",%s,%s,", ok ? (r->meets ? "True" : "False") : "",
                      ok ? (r->above_capacity ? "True" : "False") : "");
        csv_cell(&b, r->message);
        strbuf_puts(&b, "\n");
    }
    return b.s;
}
