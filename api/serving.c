/* serving.c — POST /api/serving: `npusim serving` over the API, and the
 * route behind Python's npusim.serving(). The body names the model, chip,
 * system and config fields as /api/simulate does ("set"; "tp", "pp", "ep"
 * for a replica's parallelism), and the run's knobs by their JSON keys
 * (serving/request.h: "rate", "requests", "lengths", "seed", "scheduler",
 * "slo", "find_rate", "pg", ...; numbers or strings, booleans for
 * "offline", "swap", "find_rate"). The answer: {"summary": summary.json's
 * object, "requests": {column: [...]}, "iterations": {...}} ("rows": false
 * leaves the columns out).
 *
 * Bounded: a server's request holds at most API_SERVING_MAX_REQUESTS
 * requests (a duration needs "requests" too), reads no file (no "trace",
 * no lengths table: those are for a caller in this process), and stops with
 * 503 at --time-limit. Bad input answers 400 with the message the command
 * line would give, naming the JSON key. No data structure of its own. */
#include "api/api.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/lists.h"
#include "serving/serving.h"
#include "study/run/run.h"

#define API_SERVING_MAX_REQUESTS 100000

/* A server's limits: requests bounded, no file read. */
static int bounded(const struct api_ctx *ctx, const struct serving_knobs *k, char *msg, size_t n)
{
    if (ctx->local)
        return 0;
    const char *len = k->v[SK_LENGTHS];
    if (k->v[SK_TRACE] || (len && !strchr(len, ':') && strcmp(len, "chat") && strcmp(len, "summarize")))
        return snprintf(msg, n, "serving: the server reads no file: \"trace\" and a lengths table are for the "
                                "command line and Python; give \"lengths\" as chat, summarize, fixed:IN:OUT, "
                                "uniform:... or lognormal:..."), -1;
    int64_t r;
    if (k->v[SK_REQUESTS] && !parse_i64_strict(k->v[SK_REQUESTS], &r) && r > API_SERVING_MAX_REQUESTS)
        return snprintf(msg, n, "\"requests\": %lld; a server's run holds at most %d", (long long)r,
                        API_SERVING_MAX_REQUESTS), -1;
    if (k->v[SK_DURATION] && !k->v[SK_REQUESTS])
        return snprintf(msg, n, "\"duration\": give \"requests\" too (at most %d): a server's run is bounded",
                        API_SERVING_MAX_REQUESTS), -1;
    return 0;
}

/* The request with "tp", "pp", "ep" as fields of its "set" (a copy). */
static cJSON *with_degrees(const cJSON *req, char *msg, size_t n)
{
    static const struct { const char *key, *field; } deg[] = {
        { "tp", "tensor_parallelism_degree" }, { "pp", "pipeline_parallelism_degree" },
        { "ep", "expert_parallelism_degree" },
    };
    cJSON *c = cJSON_Duplicate(req, 1);
    if (!c)
        return snprintf(msg, n, "out of memory"), NULL;
    for (size_t i = 0; i < sizeof deg / sizeof deg[0]; i++) {
        cJSON *x = cJSON_DetachItemFromObjectCaseSensitive(c, deg[i].key);
        if (!x)
            continue;
        if (!cJSON_IsNumber(x) || x->valuedouble < 1 || x->valuedouble > 65536 ||
            x->valuedouble != floor(x->valuedouble)) {
            snprintf(msg, n, "\"%s\": expected a whole number from 1 to 65536", deg[i].key);
            cJSON_Delete(x);
            cJSON_Delete(c);
            return NULL;
        }
        cJSON *set = cJSON_GetObjectItemCaseSensitive(c, "set");
        if (!set)
            set = cJSON_AddObjectToObject(c, "set");
        cJSON_DeleteItemFromObjectCaseSensitive(set, deg[i].field);
        cJSON_AddItemToObject(set, deg[i].field, x);
    }
    return c;
}

static bool unknown(const cJSON *req, struct api_response *r)
{
    const char *members[SK_N + 16];
    size_t n = 0;
    static const char *const fixed[] = { "model", "chip", "system", "set", "tp", "pp", "ep", "offline", "swap",
                                         "async_scheduling", "find_rate", "rows" };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        members[n++] = fixed[i];
    for (int i = 0; i < SK_N; i++)
        members[n++] = serving_knob_name((enum serving_knob)i, true);
    return api_unknown_member(req, members, n,
                              "model, chip, system, set, tp, pp, ep, the run's knobs (rate, requests, lengths, seed, "
                              "scheduler, slo, pg, ...: docs/api.md), offline, swap, async_scheduling, find_rate, rows", r);
}

/* Runs the built request: the answer, or an error reply. */
static int run(const struct api_ctx *ctx, struct serving_build *b, bool rows, struct api_response *r)
{
    struct serving_rows rs = { 0 };
    b->spec.rows = rows ? &rs : NULL;
    b->spec.deadline_s = api_deadline(ctx);
    struct serving_find_result *fr = b->find_rate ? calloc(1, sizeof *fr) : NULL;
    struct npu_err e;
    cJSON *sum = NULL;
    int rc = b->find_rate ? (fr ? serving_find_rate(&b->spec, &b->slo, b->tolerance, b->start_rps, fr, &sum, &e)
                                : npu_errf(&e, "out of memory"))
                          : serving_simulate(&b->spec, &sum, &e);
    free(fr);
    if (rc) {
        serving_rows_free(&rs);
        bool late = b->spec.deadline_s > 0 && clock_monotonic_s() > b->spec.deadline_s;
        char msg[sizeof e.msg + 64];
        snprintf(msg, sizeof msg, "%s%s", e.msg, late ? " (npusim serve --time-limit)" : "");
        return api_reply_error(r, late ? 503 : 400, msg);
    }
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "summary", sum);
    if (rows) {
        cJSON *cols = serving_rows_json(&rs);
        cJSON_AddItemToObject(j, "requests", cJSON_DetachItemFromObjectCaseSensitive(cols, "requests"));
        cJSON_AddItemToObject(j, "iterations", cJSON_DetachItemFromObjectCaseSensitive(cols, "iterations"));
        cJSON_Delete(cols);
    }
    serving_rows_free(&rs);
    return api_reply_json(r, 200, j);
}

int api_serving(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    if (unknown(req, r))
        return 0;
    struct serving_knobs k;
    char bufs[SK_N][48], msg[1200];
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(req, "rows");
    if (rows && !cJSON_IsBool(rows))
        return api_reply_error(r, 400, "\"rows\": expected true or false");
    if (serving_knobs_from_json(req, &k, bufs, msg, sizeof msg) || bounded(ctx, &k, msg, sizeof msg))
        return api_reply_error(r, 400, msg);
    cJSON *body = with_degrees(req, msg, sizeof msg);
    if (!body)
        return api_reply_error(r, 400, msg);
    struct loaded_config c;
    struct npu_err e;
    int rc = api_load_config(ctx, body, true, &c, &e);
    cJSON_Delete(body);   /* the config keeps its own trees */
    if (rc)
        return api_reply_error(r, 400, e.msg);
    const struct family *fam = family_find(&c.model, "inference");
    if (!fam) {
        config_free(&c);
        return api_reply_error(r, 400, "model: no model family simulates its inference");
    }
    family_apply_batch(&c, fam, 0);
    struct serving_build *b = malloc(sizeof *b);   /* large (the strategy, the SLO): not on a server thread's stack */
    if (!b) {
        config_free(&c);
        return api_reply_error(r, 500, "out of memory");
    }
    if (serving_build(&k, fam, &c, ctx->prof, ctx->configs, b, msg, sizeof msg)) {
        free(b);
        config_free(&c);
        return api_reply_error(r, 400, msg);
    }
    rc = run(ctx, b, !rows || cJSON_IsTrue(rows), r);
    serving_build_free(b);
    free(b);
    config_free(&c);
    return rc;
}
