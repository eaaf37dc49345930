/* request.c — a serving run's knobs into its spec (see request.h). Main
 * data structure: the knob table, each knob's name, kind, range and default. */
#include "serving/request.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lists.h"
#include "base/pyfmt.h"
#include "serving/trace_in.h"

enum kind { K_TEXT, K_WHOLE, K_REAL_OPEN, K_REAL };

static const struct {
    const char *name, *json;           /* the option without its dashes; the JSON key */
    enum kind kind;
    double lo, hi, def;                /* numbers: range and default */
} knobs[SK_N] = {
    [SK_RATE] = { "rate", "rate", K_TEXT, 0, 0, 0 },
    [SK_ARRIVAL] = { "arrival", "arrival", K_TEXT, 0, 0, 0 },
    [SK_CONCURRENCY] = { "concurrency", "concurrency", K_WHOLE, 1, 16777216, 0 },
    [SK_REQUESTS] = { "requests", "requests", K_WHOLE, 1, 100000000, 1000 },
    [SK_DURATION] = { "duration", "duration", K_REAL_OPEN, 0, 1e9, 0 },
    [SK_SEED] = { "seed", "seed", K_WHOLE, 0, 4294967295.0, 1 },
    [SK_LENGTHS] = { "lengths", "lengths", K_TEXT, 0, 0, 0 },
    [SK_MAX_CONTEXT] = { "max-context", "max_context", K_WHOLE, 2, 16777216, 8192 },
    [SK_TRACE] = { "trace", "trace", K_TEXT, 0, 0, 0 },
    [SK_SCHEDULER] = { "scheduler", "scheduler", K_TEXT, 0, 0, 0 },
    [SK_BATCH] = { "batch", "batch", K_WHOLE, 1, 1048576, 32 },
    [SK_MAX_SEQS] = { "max-num-seqs", "max_num_seqs", K_WHOLE, 1, 1048576, 256 },
    [SK_MAX_TOKENS] = { "max-num-batched-tokens", "max_num_batched_tokens", K_WHOLE, 1, 16777216, 0 },
    [SK_BLOCK] = { "block-size", "block_size", K_WHOLE, 1, 65536, 16 },
    [SK_RESERVE] = { "kv-reserve", "kv_reserve", K_REAL, 0, 0.99, 0.1 },
    [SK_REPLICAS] = { "replicas", "replicas", K_WHOLE, 1, 65536, 1 },
    [SK_ROUTER] = { "router", "router", K_TEXT, 0, 0, 0 },
    [SK_PREFILL_TP] = { "prefill-tp", "prefill_tp", K_WHOLE, 1, 65536, 0 },
    [SK_DECODE_TP] = { "decode-tp", "decode_tp", K_WHOLE, 1, 65536, 0 },
    [SK_PREFILL_REPLICAS] = { "prefill-replicas", "prefill_replicas", K_WHOLE, 1, 65536, 1 },
    [SK_DECODE_REPLICAS] = { "decode-replicas", "decode_replicas", K_WHOLE, 1, 65536, 1 },
    [SK_SLO] = { "slo", "slo", K_TEXT, 0, 0, 0 },
    [SK_TOLERANCE] = { "rate-tolerance", "rate_tolerance", K_REAL_OPEN, 0, 0.5, 0.01 },
    [SK_PG] = { "pg", "pg", K_TEXT, 0, 0, 0 },
    [SK_DVFS] = { "dvfs", "dvfs", K_TEXT, 0, 0, 0 },
    [SK_WARMUP] = { "warmup", "warmup", K_WHOLE, 0, 100000000, 0 },
    [SK_BATCHER_SIZE] = { "batcher-size", "batcher_size", K_WHOLE, 1, 1048576, 0 },
    [SK_BATCHER_WAIT] = { "batcher-wait", "batcher_wait_s", K_REAL_OPEN, 0, 3600, 0 },
    [SK_KV_FREE] = { "kv-free-fraction", "kv_free_fraction", K_REAL_OPEN, 0, 1, 0 },
    [SK_ADMIT_KV_FREE] = { "admit-kv-free", "admit_kv_free", K_REAL, 0, 0.99, 0 },
    [SK_CAPACITY] = { "capacity-policy", "capacity_policy", K_TEXT, 0, 0, 0 },
    [SK_PP_MICRO] = { "pp-microbatches", "pp_microbatches", K_WHOLE, 1, 65536, 0 },
    [SK_MAX_NEW_TOKENS] = { "max-new-tokens", "max_new_tokens", K_WHOLE, 1, 16777216, 0 },
    [SK_THINK_TIME] = { "think-time", "think_time_s", K_REAL, 0, 3600, 0 },
};

static const char *const switches[] = { "offline", "swap", "async_scheduling", "find_rate" };

bool *serving_knob_switch(struct serving_knobs *k, const char *key)
{
    bool *to[] = { &k->offline, &k->swap, &k->async_scheduling, &k->find_rate };
    for (size_t i = 0; i < sizeof switches / sizeof switches[0]; i++)
        if (!strcmp(key, switches[i]))
            return to[i];
    return NULL;
}

bool serving_knob_run_switch(const char *key)
{
    struct serving_knobs any = { 0 };
    return serving_knob_switch(&any, key) && strcmp(key, "find_rate") != 0;
}

const char *serving_knob_name(enum serving_knob k, bool json)
{
    if ((int)k < 0 || k >= SK_N)
        return NULL;
    return json ? knobs[k].json : knobs[k].name;
}

int serving_knob_find(const char *name)
{
    for (int k = 0; k < SK_N; k++)
        if (!strcmp(name, knobs[k].name) || !strcmp(name, knobs[k].json))
            return k;
    return -1;
}

int serving_knobs_from_json(const cJSON *req, struct serving_knobs *k, char bufs[SK_N][48], char *msg, size_t n)
{
    memset(k, 0, sizeof *k);
    k->json_names = true;
    for (int i = 0; i < SK_N; i++) {
        const char *key = serving_knob_name((enum serving_knob)i, true);
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(req, key);
        if (!x)
            continue;
        if (cJSON_IsString(x))
            k->v[i] = x->valuestring;
        else if (cJSON_IsNumber(x) && isfinite(x->valuedouble))
            num_text_shortest(x->valuedouble, bufs[i], 48), k->v[i] = bufs[i];
        else
            return snprintf(msg, n, "\"%s\": expected a number or a string", key), -1;
    }
    for (size_t i = 0; i < sizeof switches / sizeof switches[0]; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(req, switches[i]);
        if (x && !cJSON_IsBool(x))
            return snprintf(msg, n, "\"%s\": expected true or false", switches[i]), -1;
        *serving_knob_switch(k, switches[i]) = cJSON_IsTrue(x);
    }
    return 0;
}

/* How a message names knob k: --rate or "rate". */
static const char *label(const struct serving_knobs *k, enum serving_knob i, char *buf, size_t n)
{
    if (k->json_names)
        snprintf(buf, n, "\"%s\"", knobs[i].json);
    else
        snprintf(buf, n, "--%s", knobs[i].name);
    return buf;
}

static int fail(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Every numeric knob checked and its value, or its default, in num. */
static int numbers(const struct serving_knobs *k, double num[SK_N], char *why, size_t n)
{
    char l[48];
    for (int i = 0; i < SK_N; i++) {
        num[i] = knobs[i].def;
        const char *v = k->v[i];
        if (knobs[i].kind == K_TEXT || !v)
            continue;
        if (knobs[i].kind == K_WHOLE) {
            int64_t x;
            if (parse_i64_strict(v, &x) || (double)x < knobs[i].lo || (double)x > knobs[i].hi)
                return fail(why, n, "%s \"%s\": expected a whole number from %.0f to %.0f",
                            label(k, (enum serving_knob)i, l, sizeof l), v, knobs[i].lo, knobs[i].hi);
            num[i] = (double)x;
        } else {
            double x;
            bool open = knobs[i].kind == K_REAL_OPEN;
            if (parse_f64_strict(v, &x) || !isfinite(x) || x < knobs[i].lo || (open && x == knobs[i].lo) ||
                x > knobs[i].hi)
                return fail(why, n, "%s \"%s\": expected a number %s %g and at most %g",
                            label(k, (enum serving_knob)i, l, sizeof l), v, open ? "above" : "from", knobs[i].lo,
                            knobs[i].hi);
            num[i] = x;
        }
    }
    return 0;
}

/* The knobs that exclude each other or need another. */
static int combinations(const struct serving_knobs *k, struct serving_build *b, char *why, size_t n)
{
    char a[48], c[48], d[48], t[48];
    label(k, SK_RATE, a, sizeof a), label(k, SK_CONCURRENCY, c, sizeof c), label(k, SK_TRACE, t, sizeof t);
    const char *off = k->json_names ? "\"offline\"" : "--offline";
    int modes = (k->v[SK_RATE] != NULL) + (k->v[SK_CONCURRENCY] != NULL) + k->offline + (k->v[SK_TRACE] != NULL);
    if (modes > 1)
        return fail(why, n, "%s, %s, %s and %s exclude each other", a, c, off, t);
    if (k->v[SK_TRACE] && k->v[SK_LENGTHS])
        return fail(why, n, "%s gives the lengths: %s does not apply", t, label(k, SK_LENGTHS, d, sizeof d));
    const char *find = k->json_names ? "\"find_rate\"" : "--find-rate";
    if (k->v[SK_ARRIVAL] && !k->v[SK_RATE] && !k->find_rate)
        return fail(why, n, "%s shapes the gaps of %s R: give %s too", label(k, SK_ARRIVAL, d, sizeof d), a, a);
    if (k->find_rate && (k->v[SK_CONCURRENCY] || k->offline || k->v[SK_TRACE]))
        return fail(why, n, "%s searches over %s: %s, %s and %s do not apply", find, a, c, off, t);
    char w[400];
    const char *slo = label(k, SK_SLO, d, sizeof d);
    if (k->v[SK_SLO] && serving_slo_parse(k->v[SK_SLO], &b->slo, w, sizeof w))
        return fail(why, n, "%s \"%s\": %s; expected ttft_ms=X,tpot_ms=Y and/or statistic bounds such as "
                            "ttft_p99_ms=X,tpot_p99_ms=Y", slo, k->v[SK_SLO], w);
    if (k->v[SK_KV_FREE] && k->v[SK_RESERVE])
        return fail(why, n, "%s and %s size the KV cache two ways (TensorRT-LLM's and vLLM's): give one",
                    label(k, SK_KV_FREE, d, sizeof d), label(k, SK_RESERVE, t, sizeof t));
    if (k->v[SK_THINK_TIME] && !k->v[SK_CONCURRENCY])
        return fail(why, n, "%s is a closed loop's (a client's wait before its next request): give %s N",
                    label(k, SK_THINK_TIME, d, sizeof d), c);
    if (k->v[SK_BATCHER_SIZE] && !k->v[SK_BATCHER_WAIT])
        return fail(why, n, "%s gives the front-end batcher's size: give %s S too (its wait in seconds)",
                    label(k, SK_BATCHER_SIZE, d, sizeof d), label(k, SK_BATCHER_WAIT, t, sizeof t));
    if (k->find_rate && b->slo.n == 0)
        return fail(why, n, "%s needs %s with a statistic bound, e.g. %s ttft_p99_ms=500,tpot_p99_ms=50", find,
                    k->json_names ? "an \"slo\"" : "an --slo", k->json_names ? "\"slo\":" : "--slo");
    return 0;
}

/* Arrivals and lengths into the workload. */
static int workload(const struct serving_knobs *k, const double num[SK_N], struct serving_build *b, char *why,
                    size_t n)
{
    struct serving_workload *w = &b->spec.w;
    struct npu_err e;
    char spec[160], l[48];
    if (k->v[SK_CONCURRENCY])
        snprintf(spec, sizeof spec, "closed:%.0f", num[SK_CONCURRENCY]);
    else if (k->offline)
        snprintf(spec, sizeof spec, "offline");
    else {
        const char *shape = k->v[SK_ARRIVAL] ? k->v[SK_ARRIVAL] : "poisson";
        const char *rate = k->v[SK_RATE] ? k->v[SK_RATE] : "1";
        double r;
        if (!strncmp(shape, "gamma:", 6))
            snprintf(spec, sizeof spec, "gamma:%.40s:%.40s", rate, shape + 6);
        else if (!strcmp(shape, "poisson") || !strcmp(shape, "constant"))
            snprintf(spec, sizeof spec, "%s:%.40s", shape, rate);
        else
            return fail(why, n, "%s \"%s\": expected poisson, gamma:CV or constant",
                        label(k, SK_ARRIVAL, l, sizeof l), shape);
        /* 1e9 requests/s: beyond any deployment, and keeps rate x time and
         * the replicas a fleet needs inside int64 */
        if (parse_f64_strict(rate, &r) || !isfinite(r) || r <= 0 || r > 1e9)
            return fail(why, n, "%s \"%s\": expected requests per second above 0, at most 1e9",
                        label(k, SK_RATE, l, sizeof l), rate);
        b->start_rps = k->v[SK_RATE] ? r : 0;
    }
    if (serving_arrivals_parse(spec, &w->arrivals, &e))
        return fail(why, n, "%s: %s", label(k, SK_ARRIVAL, l, sizeof l), e.msg);
    w->arrivals.think_s = num[SK_THINK_TIME];
    w->seed = (uint64_t)num[SK_SEED];
    w->max_context = (int64_t)num[SK_MAX_CONTEXT];
    const char *len = k->v[SK_LENGTHS] ? k->v[SK_LENGTHS] : "chat";
    if (strchr(len, ':') || !strcmp(len, "chat") || !strcmp(len, "summarize")) {
        if (serving_lengths_parse(len, &w->lengths, &e))
            return fail(why, n, "%s: %s", label(k, SK_LENGTHS, l, sizeof l), e.msg);
        return 0;
    }
    size_t np;
    if (serving_lengths_table(len, w->max_context, &b->pairs, &np, &e))
        return fail(why, n, "%s: %s", label(k, SK_LENGTHS, l, sizeof l), e.msg);
    w->lengths = (struct serving_lengths){ .kind = LENGTHS_TABLE, .pairs = b->pairs, .npairs = np };
    return 0;
}

/* Scheduler, router, limits, pools and files into the spec. */
static int options(const struct serving_knobs *k, const double num[SK_N], struct serving_build *b, char *why,
                   size_t n)
{
    struct serving_spec *s = &b->spec;
    struct serving_options *o = &s->o;
    char l[48];
    if (k->v[SK_SCHEDULER] && serving_scheduler_parse(k->v[SK_SCHEDULER], &o->scheduler))
        return fail(why, n, "%s \"%s\": expected " SERVING_SCHEDULERS, label(k, SK_SCHEDULER, l, sizeof l),
                    k->v[SK_SCHEDULER]);
    if (k->v[SK_ROUTER] && serving_router_parse(k->v[SK_ROUTER], &o->router))
        return fail(why, n, "%s \"%s\": expected " SERVING_ROUTERS, label(k, SK_ROUTER, l, sizeof l),
                    k->v[SK_ROUTER]);
    if (k->v[SK_CAPACITY] && serving_capacity_parse(k->v[SK_CAPACITY], &o->capacity))
        return fail(why, n, "%s \"%s\": expected " SERVING_CAPACITY_POLICIES, label(k, SK_CAPACITY, l, sizeof l),
                    k->v[SK_CAPACITY]);
    o->batch = (int64_t)num[SK_BATCH];
    o->max_num_seqs = (int64_t)num[SK_MAX_SEQS];
    o->max_num_batched_tokens = k->v[SK_MAX_TOKENS] ? (int64_t)num[SK_MAX_TOKENS]
                                : o->scheduler == SCHED_CHUNKED || o->scheduler == SCHED_INFLIGHT ? 8192
                                                                                                  : (int64_t)num[SK_MAX_CONTEXT];
    o->block_size = (int64_t)num[SK_BLOCK];
    o->max_context = (int64_t)num[SK_MAX_CONTEXT];
    /* A prompt runs whole under these two: one recomputed after preemption
     * (its prompt and answer so far) could outgrow the budget and wait
     * forever. vLLM V0 refuses the same setting (max_num_batched_tokens
     * below max_model_len without chunked prefill). */
    char c[48], sch[48];
    if ((o->scheduler == SCHED_CONTINUOUS || o->scheduler == SCHED_PADDED) &&
        o->max_num_batched_tokens < o->max_context)
        return fail(why, n, "%s %lld: below %s %lld, a request recomputed after preemption could never run "
                            "whole under the %s scheduler (vLLM V0 refuses this too); give at least %lld, or "
                            "%s chunked",
                    label(k, SK_MAX_TOKENS, l, sizeof l), (long long)o->max_num_batched_tokens,
                    label(k, SK_MAX_CONTEXT, c, sizeof c), (long long)o->max_context,
                    serving_scheduler_name(o->scheduler), (long long)o->max_context,
                    label(k, SK_SCHEDULER, sch, sizeof sch));
    o->swap = k->swap;
    o->async_scheduling = k->async_scheduling;
    o->max_requests = k->v[SK_REQUESTS] || !k->v[SK_TRACE] ? (int64_t)num[SK_REQUESTS] : 0;
    o->warmup = (int64_t)num[SK_WARMUP];
    o->batcher_size = (int64_t)num[SK_BATCHER_SIZE];
    o->batcher_wait_ns = (int64_t)llround(num[SK_BATCHER_WAIT] * 1e9);
    o->admit_kv_free = num[SK_ADMIT_KV_FREE];
    o->max_new_tokens = (int64_t)num[SK_MAX_NEW_TOKENS];
    if (o->warmup > 0 && o->max_requests > 0 && o->warmup >= o->max_requests)
        return fail(why, n, "%s %lld: expected fewer warm-up requests than the %lld requests",
                    label(k, SK_WARMUP, l, sizeof l), (long long)o->warmup, (long long)o->max_requests);
    if (k->v[SK_DURATION]) {
        o->duration_ns = (int64_t)(num[SK_DURATION] * 1e9);
        if (!k->v[SK_REQUESTS])
            o->max_requests = 0;
    }
    s->trace_path = k->v[SK_TRACE];
    s->json_names = k->json_names;
    s->replicas = (int64_t)num[SK_REPLICAS];
    s->kv_reserve = num[SK_RESERVE];
    s->kv_free_fraction = k->v[SK_KV_FREE] ? num[SK_KV_FREE] : 0;
    s->prefill_tp = (int64_t)num[SK_PREFILL_TP];
    s->decode_tp = (int64_t)num[SK_DECODE_TP];
    s->prefill_replicas = (int64_t)num[SK_PREFILL_REPLICAS];
    s->pp_microbatches = k->v[SK_PP_MICRO] ? (int64_t)num[SK_PP_MICRO] : 0;
    s->decode_replicas = (int64_t)num[SK_DECODE_REPLICAS];
    s->slo_ttft_ms = b->slo.ttft_ms;
    s->slo_tpot_ms = b->slo.tpot_ms;
    s->out_dir = k->out_dir;
    s->timeline = k->timeline;
    b->find_rate = k->find_rate;
    b->tolerance = num[SK_TOLERANCE];
    return 0;
}

/* --pg and --dvfs. */
static int power(const struct serving_knobs *k, const struct profile *prof, const char *configs,
                 struct serving_build *b, char *why, size_t n)
{
    struct npu_err e;
    enum dvfs_policy p = DVFS_NONE;
    char l[48];
    if (k->v[SK_PG] && pg_strategy_lookup(k->v[SK_PG], configs, prof, &b->pg, &e))
        return fail(why, n, "%s: %s", label(k, SK_PG, l, sizeof l), e.msg);
    if (k->v[SK_DVFS] && dvfs_policy_parse(k->v[SK_DVFS], &p, &e))
        return fail(why, n, "%s: %s", label(k, SK_DVFS, l, sizeof l), e.msg);
    b->spec.pg = k->v[SK_PG] ? &b->pg : NULL;
    b->spec.dvfs = (int)p;
    b->spec.pg_compare = true;
    return 0;
}

int serving_build(const struct serving_knobs *k, const struct family *fam, const struct loaded_config *c,
                  const struct profile *prof, const char *configs, struct serving_build *b, char *why,
                  size_t whylen)
{
    memset(b, 0, sizeof *b);
    if (!fam->step_attention || !fam->mem_parts)
        return fail(why, whylen, "model \"%s\" (%s): not served; the serving engine runs LLM inference "
                                 "(llama-family and DeepSeek models); DLRM, DiT and GLIGEN are not served",
                    c->model_name, fam->name);
    if (c->model.data_parallelism_degree > 1 || c->model.data_parallel_degree_dcn > 1)
        return fail(why, whylen, "data parallelism: a replica is one copy of the model; give %s instead",
                    k->json_names ? "\"replicas\"" : "--replicas N");
    double num[SK_N];
    b->spec = (struct serving_spec){ .fam = fam, .c = c, .prof = prof };
    b->spec.o.scheduler = SCHED_CHUNKED;   /* what vLLM V1 and SGLang run by default */
    b->spec.o.router = ROUTE_ROUND_ROBIN;
    if (numbers(k, num, why, whylen) || combinations(k, b, why, whylen) || options(k, num, b, why, whylen) ||
        power(k, prof, configs, b, why, whylen) || workload(k, num, b, why, whylen)) {
        serving_build_free(b);
        return -1;
    }
    return 0;
}

void serving_build_free(struct serving_build *b)
{
    free(b->pairs);
    b->pairs = NULL;
}
