/* routes.c — the JSON API of `npusim serve` as one function from a
 * request (method, path, body) to a response (status, type, body), apart
 * from the HTTP server (cli/http_server.c), so that every route reads as data:
 * the route table below. Errors are 400 with the message the CLI prints
 * for the same input, as {"error": "..."}.
 *
 * Names from a request (model, chip, system) are names only: no path, no
 * ".json", so a request reads nothing but the configs folder's files. */
#define _DEFAULT_SOURCE  /* open_memstream, DT_REG on glibc */
#include "api/api.h"

#include "api/fields_ref.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "calib/op_table.h"
#include "calib/validate.h"
#include "study/run/run.h"
#include "study/view/view.h"
#include "power/energy.h"
#include "base/clock.h"
#include "traces/fields.h"
#include "base/json_strict.h"
#include "base/pyfmt.h"
#include "traces/precision.h"
#include "traces/trace_csv.h"
#include "base/utf8.h"

int api_reply_json(struct api_response *r, int status, cJSON *j)
{
    r->status = status;
    r->type = "application/json";
    /* cJSON allocates through the hooks study/run/pyjson.c installs: its text is
     * freed with cJSON_free, the response's with free */
    char *text = cJSON_PrintUnformatted(j);
    r->body = text ? strdup(text) : NULL;
    cJSON_free(text);
    cJSON_Delete(j);
    if (!r->body) {
        r->status = 500;
        r->body = strdup("{\"error\": \"out of memory\"}");
    }
    return 0;
}

double api_deadline(const struct api_ctx *ctx)
{
    return ctx->time_limit_s > 0 ? clock_monotonic_s() + ctx->time_limit_s : 0;
}

int api_reply_error(struct api_response *r, int status, const char *msg)
{
    /* A message may echo request text cut at a byte count ("%.100s"), which
     * can split a character: the body is well-formed UTF-8 whatever it says. */
    size_t n = 3 * strlen(msg) + 1;
    char *text = malloc(n);
    if (text)
        utf8_clean(text, n, msg);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "error", text ? text : "out of memory");
    free(text);
    return api_reply_json(r, status, j);
}

/* What a JSON value is, for "expected ..., got X" (a number as written). */
static const char *json_kind(const cJSON *v, char *buf, size_t n)
{
    if (cJSON_IsNumber(v))   /* 1.9, not 1.8999999999999999 */
        return num_text_shortest(v->valuedouble, buf, n);
    return cJSON_IsString(v) ? "text" : cJSON_IsArray(v) ? "a list" : cJSON_IsObject(v) ? "an object"
           : cJSON_IsBool(v) ? "true or false" : "null";
}

/* A whole-number member from 1 to max into *v (absent: 0); -1 with msg
 * naming it, the range and what it got: {"m": 1.9} is refused as npusim op
 * -m 1.9 is, not computed with 1. JSON does not tell 1.0 from 1. */
static int whole_of(const cJSON *req, const char *key, int64_t max, int64_t *v, char *msg, size_t n)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(req, key);
    *v = 0;
    if (!x)
        return 0;
    double d = cJSON_IsNumber(x) ? x->valuedouble : 0;
    if (d >= 1 && d <= (double)max && d == floor(d))
        return *v = (int64_t)d, 0;
    char got[40];
    snprintf(msg, n, "\"%s\": expected a whole number from 1 to %lld, got %s", key, (long long)max,
             json_kind(x, got, sizeof got));
    return -1;
}

/* A config name: letters, digits, '_', '-', '.', at most 64, no "..". */
bool api_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 64 || strstr(s, "..") || (n > 5 && !strcmp(s + n - 5, ".json")))
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
            return false;
    return true;
}

/* A string member that must be a name (or, for a caller in this process,
 * also a path); def when absent. NULL with msg set when bad. */
static const char *name_of(const struct api_ctx *ctx, const cJSON *req, const char *key, const char *def, char *msg,
                           size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key);
    if (!v)
        return def;
    if (!cJSON_IsString(v) || (!ctx->local && !api_name_ok(v->valuestring))) {
        snprintf(msg, n, "\"%s\": expected a config name (letters, digits, _ - .), not a path", key);
        return NULL;
    }
    return v->valuestring;
}

/* GET /api/chips, /api/models, /api/systems: the names where names resolve (npusim list). */
static int list_configs(const struct api_ctx *ctx, enum config_kind kind, const char *what, struct api_response *r)
{
    char (*names)[CONFIG_NAME_MAX] = calloc(CONFIG_NAMES_MAX, sizeof *names);
    if (!names)
        return api_reply_error(r, 500, "out of memory");
    size_t n = config_names(ctx->configs, ctx->only_configs, kind, names, CONFIG_NAMES_MAX);
    cJSON *j = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(j, what);
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(names[i]));
    free(names);
    return api_reply_json(r, 200, j);
}

static int strategies(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    (void)ctx, (void)req;
    static const char *const names[] = { "NoPG", "Base", "HW", "Full", "Ideal" };
    cJSON *j = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(j, "strategies");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(names[i]));
    return api_reply_json(r, 200, j);
}

static int chips(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    (void)req;
    return list_configs(ctx, CONFIG_CHIP, "chips", r);
}

static int models(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    (void)req;
    return list_configs(ctx, CONFIG_MODEL, "models", r);
}

static int systems(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    (void)req;
    return list_configs(ctx, CONFIG_SYSTEM, "systems", r);
}

/* GET /api/fields: the configuration reference (docs/configs.md) as rows. */
static void field_json(const struct field_row *row, void *arg)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", row->key);
    cJSON_AddStringToObject(o, "table", row->table);
    cJSON_AddStringToObject(o, "section", row->section);
    cJSON_AddStringToObject(o, "type", row->type);
    cJSON_AddStringToObject(o, "unit", row->unit);
    cJSON_AddStringToObject(o, "default", row->def);
    cJSON_AddStringToObject(o, "range", row->range);
    cJSON_AddStringToObject(o, "meaning", row->meaning);
    cJSON_AddItemToArray(arg, o);
}

static int fields(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    (void)ctx, (void)req;
    cJSON *j = cJSON_CreateObject();
    fields_reference(false, field_json, cJSON_AddArrayToObject(j, "fields"));
    return api_reply_json(r, 200, j);
}

/* "set": {"key": value, ...} as the CLI's "key=value" strings (in buf). */
static int sets_of(const cJSON *req, const char **sets, char bufs[][256], int max, int *n, char *msg, size_t mn)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(req, "set");
    *n = 0;
    if (!s)
        return 0;
    if (!cJSON_IsObject(s))
        return snprintf(msg, mn, "\"set\": expected an object of field: value"), -1;
    for (const cJSON *kv = s->child; kv; kv = kv->next) {
        if (*n == max)
            return snprintf(msg, mn, "\"set\": expected at most %d fields", max), -1;
        char *v = cJSON_IsString(kv) ? NULL : cJSON_PrintUnformatted(kv);
        int len = snprintf(bufs[*n], 256, "%s=%s", kv->string, v ? v : kv->valuestring ? kv->valuestring : "");
        cJSON_free(v);
        if (len >= 256)   /* never cut: a cut value would be another value */
            return snprintf(msg, mn, "\"set\": \"%.60s\": expected a field and its value in at most 255 characters",
                            kv->string), -1;
        sets[*n] = bufs[*n];
        (*n)++;
    }
    return 0;
}

/* Loads the request's model (when need_model), chip and system. */
int api_load_config(const struct api_ctx *ctx, const cJSON *req, bool need_model, struct loaded_config *c,
                    struct npu_err *e)
{
    char msg[200] = "";
    const char *model = need_model ? name_of(ctx, req, "model", CONFIG_DEFAULT_MODEL, msg, sizeof msg) : NULL;
    const char *chip = name_of(ctx, req, "chip", NULL, msg, sizeof msg);   /* NULL: config_load's default */
    const char *sys = name_of(ctx, req, "system", NULL, msg, sizeof msg);
    const char *sets[32];
    char bufs[32][256];
    int nsets = 0;
    if (*msg || sets_of(req, sets, bufs, 32, &nsets, msg, sizeof msg))
        return npu_errf(e, "%s", msg);
    struct config_request cr = { ctx->configs, model, chip, sys, sets, nsets, ctx->only_configs };
    memset(c, 0, sizeof *c);
    if (config_load(&cr, c, e)) {
        config_free(c);
        return -1;
    }
    c->strict = true;
    return 0;
}

/* A request member not among members (n of them) is answered 400 naming it,
 * the closest and what is expected; returns whether it was. Members a route
 * would ignore answer a request not asked ({"tp": 4}, {"model": ...} to op). */
bool api_unknown_member(const cJSON *req, const char *const *members, size_t n, const char *expected,
                        struct api_response *r)
{
    char why[400], hint[160];
    const char *bad = json_unknown_key(req, members, n, hint, sizeof hint);
    if (!bad)
        return false;
    snprintf(why, sizeof why, "unknown member \"%.100s\"%s: expected %s", bad, hint, expected);
    api_reply_error(r, 400, why);
    return true;
}

int api_measurements(const struct api_ctx *ctx, const cJSON *req, struct op_table *t, struct loaded_config *chip,
                     struct api_response *r)
{
    static const char *const members[] = { "measurements", "chip", "system", "set" };
    if (api_unknown_member(req, members, sizeof members / sizeof members[0], "measurements, chip, system, set", r))
        return -1;
    struct npu_err e;
    const char *name = "measurements";
    if (op_table_json(name, cJSON_GetObjectItemCaseSensitive(req, name), t, &e))
        return api_reply_error(r, 400, e.msg), -1;
    if (ctx->max_rows > 0 && t->n > (size_t)ctx->max_rows) {
        snprintf(e.msg, sizeof e.msg, "measurements: %zu rows; expected at most %ld (npusim serve --max-rows)", t->n,
                 ctx->max_rows);
        op_table_free(t);
        return api_reply_error(r, 400, e.msg), -1;
    }
    if (api_load_config(ctx, req, false, chip, &e)) {
        op_table_free(t);
        return api_reply_error(r, 400, e.msg), -1;
    }
    return 0;
}

/* POST /api/op: one operator predicted (npusim op). */
static int op(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    struct op_request q;
    op_request_init(&q);
    static const char *const members[] = { "op", "dtype", "m", "n", "k", "batch", "heads", "chip", "system", "set" };
    if (api_unknown_member(req, members, sizeof members / sizeof members[0],
                           "op, dtype, m, n, k, batch, heads, chip, set (an operator has no model)", r))
        return 0;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(req, "op"), *dt = cJSON_GetObjectItemCaseSensitive(req, "dtype");
    if (!cJSON_IsString(kind) || !op_kind_known(kind->valuestring))
        return api_reply_error(r, 400, "\"op\": expected one of " OP_REQUEST_KINDS);
    snprintf(q.op, sizeof q.op, "%s", kind->valuestring);
    q.prec = cJSON_IsString(dt) ? precision_by_name(dt->valuestring) : dt ? -1 : PREC_BF16;
    if (q.prec < 0)
        return api_reply_error(r, 400, "\"dtype\": expected a number format (fp32, bf16, fp8, ...)");
    static const char *const dims[] = { "m", "n", "k", "batch", "heads" };
    int64_t *dst[] = { &q.m, &q.n, &q.k, &q.batch, &q.heads };
    char msg[160];
    for (int i = 0; i < 5; i++)   /* 1.9 is refused, as npusim op -m 1.9 is (0: not given) */
        if (whole_of(req, dims[i], (int64_t)1 << 31, dst[i], msg, sizeof msg))
            return api_reply_error(r, 400, msg);
    struct loaded_config c;
    struct npu_err e;
    struct op_prediction p;
    if (api_load_config(ctx, req, false, &c, &e))
        return api_reply_error(r, 400, e.msg);
    int rc = op_predict(&q, &c.chip, ctx->prof, &p, &e);
    config_free(&c);
    if (rc)
        return api_reply_error(r, 400, e.msg);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "op", q.op);
    cJSON_AddStringToObject(j, "dtype", precision_info((enum precision)q.prec)->name);
    cJSON_AddNumberToObject(j, "time_us", p.time_us);
    cJSON_AddNumberToObject(j, "tflops", p.tflops);
    cJSON_AddNumberToObject(j, "intensity_flop_per_byte", p.intensity);
    cJSON_AddNumberToObject(j, "flops", (double)p.flops);
    cJSON_AddNumberToObject(j, "bytes", (double)p.bytes);
    cJSON_AddStringToObject(j, "bound", p.bound);
    cJSON_AddStringToObject(j, "kernel_class", p.kernel_class);
    cJSON_AddNumberToObject(j, "efficiency", p.efficiency);
    return api_reply_json(r, 200, j);
}

/* The timed trace as the CSV `npusim run` writes per phase, every column,
 * with the stream's Phase column (Python's ops_frame reads it); NULL when
 * out of memory. */
static char *trace_csv_text(const struct trace *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct trace_csv_opts o = { PHASE_NONE, true, false };
    struct npu_err e;
    int rc = f ? trace_write_csv_stream(t, f, &o, &e) : -1;
    if (f && fclose(f))
        rc = -1;
    if (rc) {
        free(text);
        return NULL;
    }
    return text;
}

/* The per-operator rows and the totals of a timed trace. A trace of several
 * chips' ops (DLRM: op->group is the chip) times its phases by the chip
 * shown (the straggler, whose latency the summary gives: chips at a time
 * are concurrent, not summed) while its energy counts them all, as the run
 * summary and page do; energy_chips says how many chips energy_J counts
 * (1 for a trace of one chip's share). */
static cJSON *trace_json(const struct report_input *in)
{
    const struct trace *t = in->t;
    cJSON *ops = cJSON_CreateArray();
    static const char *const phases[] = { "ops", "prefill", "decode" };
    double time_s[3] = { 0 }, energy_J[3] = { 0 };
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        double n = op->count > 0 ? (double)op->count : 1;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", op->name ? op->name : "");
        cJSON_AddStringToObject(o, "phase", phases[op->phase]);
        cJSON_AddStringToObject(o, "type", op->parsed_op_type ? op->parsed_op_type : "");
        cJSON_AddNumberToObject(o, "count", n);
        cJSON_AddNumberToObject(o, "exe_ns", (double)op->exe_ns);
        cJSON_AddStringToObject(o, "bound", bounded_by_name(op->bounded_by));
        cJSON_AddNumberToObject(o, "flops", (double)op->flops);
        cJSON_AddNumberToObject(o, "bytes", (double)op->bytes);
        cJSON_AddItemToArray(ops, o);
        if (in->n_chips <= 1 || op->group == in->shown_chip)
            time_s[op->phase] += (double)op->exe_ns * n / 1e9;
        if (op->energy_done)
            energy_J[op->phase] += (op_static_energy_J(op) + op_dynamic_energy_J(op)) * n;
    }
    cJSON *j = cJSON_CreateObject(), *ph = cJSON_AddArrayToObject(j, "phases");
    for (int p = 0; p < 3; p++)
        if (time_s[p] > 0) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", phases[p]);
            cJSON_AddNumberToObject(o, "time_s", time_s[p]);
            cJSON_AddNumberToObject(o, "energy_J", energy_J[p]);
            cJSON_AddNumberToObject(o, "energy_chips", in->n_chips > 1 ? (double)in->n_chips : 1);
            cJSON_AddItemToArray(ph, o);
        }
    cJSON_AddItemToObject(j, "ops", ops);
    char *csv = trace_csv_text(t);
    if (csv)
        cJSON_AddStringToObject(j, "ops_csv", csv);
    free(csv);
    return j;
}

/* "pg": the strategies to compare, as a comma list (default all five;
 * [] none); names only. NULL with msg set when bad. */
static const char *pg_list_of(const cJSON *req, char *list, size_t n, char *msg, size_t mn)
{
    const cJSON *pg = cJSON_GetObjectItemCaseSensitive(req, "pg"), *it;
    if (!pg)
        return "NoPG,Base,HW,Full,Ideal";
    if (!cJSON_IsArray(pg) || cJSON_GetArraySize(pg) > REPORT_PG_MAX)
        return snprintf(msg, mn, "\"pg\": expected a list of at most %d strategy names", REPORT_PG_MAX), NULL;
    size_t used = 0;
    list[0] = '\0';
    cJSON_ArrayForEach(it, pg) {
        if (!cJSON_IsString(it) || !api_name_ok(it->valuestring) || strchr(it->valuestring, ','))
            return snprintf(msg, mn, "\"pg\": expected strategy names (NoPG, Base, HW, Full, Ideal, ...), not paths"),
                   NULL;
        used += (size_t)snprintf(list + used, used < n ? n - used : 0, "%s%s", used ? "," : "", it->valuestring);
    }
    return used >= n ? (snprintf(msg, mn, "\"pg\": too long"), NULL) : used ? list : "none";
}

/* The statistics JSONs `npusim run` would write for the timed trace t,
 * kept in memory (study/run/outputs.h memory sink): {"prefill": {...},
 * "decode": {...}} for an LLM, "run" for a family's one file, and DLRM's
 * "config_stats" and "chip<k>" besides. NULL with e on a failure. */
static cJSON *run_statistics(const struct api_ctx *ctx, const struct family *fam, const struct loaded_config *c,
                             const struct trace *t, struct npu_err *e)
{
    char base[600];
    snprintf(base, sizeof base, "%s_%s", c->model_name, c->chip_name);
    cJSON *files = cJSON_CreateObject(), *out = cJSON_CreateObject(), *it;
    if (fam->write(c, ctx->prof, t, ".", base, false, &(struct output_sink){ .memory = files }, e)) {
        cJSON_Delete(files), cJSON_Delete(out);
        return NULL;
    }
    size_t bl = strlen(base);
    while ((it = files->child) != NULL) {   /* "<base>_decode.json" -> "decode" */
        cJSON_DetachItemViaPointer(files, it);
        char key[300];
        const char *k = strncmp(it->string, base, bl) == 0 ? it->string + bl : it->string;
        snprintf(key, sizeof key, "%s", k + (k[0] == '_'));
        if (strlen(key) >= 5 && strcmp(key + strlen(key) - 5, ".json") == 0)
            key[strlen(key) - 5] = '\0';
        cJSON_AddItemToObject(out, key[0] ? key : "run", it);
    }
    cJSON_Delete(files);
    return out;
}

/* POST /api/simulate: one configuration end to end (npusim run), with the
 * figures of its report (npusim report). */
static int simulate(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    struct loaded_config c;
    struct npu_err e;
    char list[512], msg[160];
    /* Every member known: {"tp": 4} answered for one chip would mislead. */
    static const char *const members[] = { "model", "chip", "system", "batch", "set", "workload", "pg" };
    if (api_unknown_member(req, members, sizeof members / sizeof members[0],
                           "model, chip, system, batch, set (config fields, e.g. {\"tensor_parallelism_degree\": 4}), "
                           "workload, pg", r))
        return 0;
    const char *pg = pg_list_of(req, list, sizeof list, msg, sizeof msg);
    if (!pg)
        return api_reply_error(r, 400, msg);
    /* "workload": "inference" (default) or "training", as run --workload */
    const cJSON *wl = cJSON_GetObjectItemCaseSensitive(req, "workload");
    const char *workload = cJSON_IsString(wl) ? wl->valuestring : wl ? "" : "inference";
    if (strcmp(workload, "inference") && strcmp(workload, "training"))
        return api_reply_error(r, 400, "\"workload\": expected \"inference\" or \"training\"");
    int64_t batch;   /* bounded as --batch is (the field's range) */
    if (whole_of(req, "batch", (int64_t)FIELD_INT_MAX, &batch, msg, sizeof msg))
        return api_reply_error(r, 400, msg);
    if (api_load_config(ctx, req, true, &c, &e))
        return api_reply_error(r, 400, e.msg);
    const struct family *fam = family_find(&c.model, workload);
    if (!fam) {
        config_free(&c);
        char why[600];
        snprintf(why, sizeof why, "model: no model family simulates its %s (families: %s)", workload, families_list());
        return api_reply_error(r, 400, why);
    }
    family_apply_batch(&c, fam, batch);
    struct report_run run;
    report_run_init(&run);
    if (report_run_simulate(fam, &c, ctx->prof, true, pg, ctx->configs, &run, &e)) {
        report_run_free(&run);
        config_free(&c);
        return api_reply_error(r, 400, e.msg);
    }
    cJSON *stats = run_statistics(ctx, fam, &c, &run.t, &e);
    if (!stats) {
        report_run_free(&run);
        config_free(&c);
        return api_reply_error(r, 400, e.msg);
    }
    cJSON *j = trace_json(&run.in);
    cJSON_AddItemToObject(j, "statistics", stats);
    cJSON_AddStringToObject(j, "title", run.title);
    cJSON_AddStringToObject(j, "summary", run.summary ? run.summary : "");
    struct report_figures figs;
    free(report_html(&run.in, &figs));
    cJSON *pj = cJSON_AddArrayToObject(j, "power_gating");   /* each strategy's energy, per phase column */
    for (int s = 0; s < run.in.n_pg; s++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "strategy", run.in.pg_name[s]);
        cJSON_AddItemToObject(o, "energy_J", cJSON_CreateDoubleArray(run.in.pg_energy_J[s], 2));
        cJSON_AddItemToArray(pj, o);
    }
    cJSON *fj = cJSON_AddObjectToObject(j, "figures");
    for (int f = 0; f < FIG_COUNT; f++)
        if (figs.svg[f])
            cJSON_AddStringToObject(fj, report_figure_name[f], figs.svg[f]);
    report_figures_free(&figs);
    report_run_free(&run);
    config_free(&c);
    return api_reply_json(r, 200, j);
}

/* POST /api/validate: measured kernels against a chip (npusim validate). */
static int validate(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    struct loaded_config c;
    struct npu_err e;
    struct op_table t;   /* "measurements": CSV or twin text, or the twin's list of records */
    const char *name = "measurements";
    if (api_measurements(ctx, req, &t, &c, r))
        return 0;
    struct validation v;
    memset(&v, 0, sizeof v);
    if (validate_run(&t, &name, 1, &c.chip, c.chip_name, ctx->prof, &v, &e)) {
        op_table_free(&t);
        config_free(&c);
        return api_reply_error(r, 400, e.msg);
    }
    cJSON *j = validation_json(&v);
    char *svg = validation_roofline(&v, &c.chip, c.chip_name);
    cJSON_AddStringToObject(j, "roofline_svg", svg ? svg : "");
    free(svg);
    validation_free(&v);
    op_table_free(&t);
    config_free(&c);
    return api_reply_json(r, 200, j);
}

/* A server's error names a config that is not there and the names there
 * are, never the server's folders it looked in (config_hide_paths), and a
 * file relative to the configs folder ("chips/h100.json: ..."), any other
 * by its name (config_relative_paths); a caller in this process
 * (ctx->local) gets the command line's message. */
static void hide_server_paths(const struct api_ctx *ctx, struct api_response *r)
{
    if (ctx->local || r->status < 400 || !r->body)
        return;
    cJSON *j = json_parse(r->body, strlen(r->body), "the response", NULL);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "error");
    char *msg = cJSON_IsString(m) ? strdup(m->valuestring) : NULL;
    if (msg) {
        config_hide_paths(msg);
        config_relative_paths(msg, ctx->configs);
        if (strcmp(msg, m->valuestring)) {
            free(r->body);
            api_reply_error(r, r->status, msg);
        }
    }
    cJSON_Delete(j);
    free(msg);
}

/* The routes: method, path, handler, whether a JSON body is needed. */
static const struct route {
    const char *method, *path;
    int (*handle)(const struct api_ctx *, const cJSON *, struct api_response *);
    bool body;
} routes[] = {
    { "GET", "/api/chips", chips, false },        { "GET", "/api/models", models, false },
    { "GET", "/api/strategies", strategies, false }, { "GET", "/api/systems", systems, false },
    { "GET", "/api/fields", fields, false },      { "POST", "/api/op", op, true },
    { "POST", "/api/simulate", simulate, true },  { "POST", "/api/validate", validate, true },
    { "POST", "/api/sweep", api_sweep, true },    { "POST", "/api/fleet", api_fleet, true },
    { "POST", "/api/calibrate", api_calibrate, true }, { "POST", "/api/energy", api_energy, true },
    { "POST", "/api/carbon", api_carbon, true },  { "POST", "/api/slo", api_slo, true },
    { "POST", "/api/serving", api_serving, true },
};

int api_handle(const struct api_ctx *given, const char *method, const char *path, const char *body, size_t len,
               struct api_response *r)
{
    memset(r, 0, sizeof *r);
    /* A server given no --configs reads the shipped folder alone, for the
     * strategies' files too (pg/), not only the configs' names. */
    struct api_ctx shipped = *given;
    char dir[PATH_MAX];
    if (given->only_configs && !given->configs && config_shipped_dir(dir, sizeof dir) == 0)
        shipped.configs = dir;
    const struct api_ctx *ctx = &shipped;
    if (!strcmp(path, "/") || !strcmp(path, "/index.html")) {
        if (strcmp(method, "GET"))
            return api_reply_error(r, 405, "/: expected GET");
        r->status = 200;
        r->type = "text/html; charset=utf-8";
        r->body = strdup(serve_page);
        return 0;
    }
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (strcmp(routes[i].path, path))
            continue;
        if (strcmp(routes[i].method, method)) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s: expected %s", path, routes[i].method);
            return api_reply_error(r, 405, msg);
        }
        if (!routes[i].body)
            return routes[i].handle(ctx, NULL, r);
        /* Strict: well-formed UTF-8, no duplicate keys, nothing after the
         * value, so a message never echoes bytes that are not text. */
        struct npu_err pe = { 0 };
        cJSON *req = json_parse_strict(body ? body : "", len, "the request body", &pe);
        if (!req)
            return api_reply_error(r, 400, pe.msg);
        if (!cJSON_IsObject(req)) {
            cJSON_Delete(req);
            return api_reply_error(r, 400, "the request body: expected a JSON object");
        }
        int rc = routes[i].handle(ctx, req, r);
        cJSON_Delete(req);
        hide_server_paths(ctx, r);
        return rc;
    }
    return api_reply_error(r, 404, "no such endpoint (GET /api/chips, /api/models, /api/systems, /api/strategies, "
                               "/api/fields; POST /api/op, "
                               "/api/simulate, /api/validate, /api/sweep, /api/fleet, /api/calibrate, "
                               "/api/energy, /api/carbon, /api/slo, /api/serving)");
}
