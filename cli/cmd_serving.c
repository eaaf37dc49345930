/* cmd_serving.c — `npusim serving`: requests served by replicas of a model
 * over time (serving/serving.h), its options turned into a serving_spec.
 * Not `npusim serve`, the HTTP server. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/interrupt.h"
#include "base/lists.h"
#include "serving/serving.h"

static const char serving_help[] =
    "usage: npusim serving [-m MODEL] [-c CHIP] [-s SYSTEM] [--set KEY=VALUE]... [--tp N] [--pp N]\n"
    "                      [--rate R [--arrival poisson|gamma:CV|constant] | --concurrency N | --offline]\n"
    "                      [--requests N] [--duration S] [--seed S] [--lengths SPEC|FILE] [--trace FILE]\n"
    "                      [--scheduler static|continuous|chunked|disaggregated] [--batch B]\n"
    "                      [--max-num-seqs N] [--max-num-batched-tokens N] [--block-size N]\n"
    "                      [--kv-reserve F] [--swap] [--replicas N] [--router NAME]\n"
    "                      [--slo ttft_ms=X,tpot_ms=Y] [-o DIR] [--json]\n"
    "\n"
    "Simulates serving traffic, not one batch: requests arrive (at a rate, from a closed\n"
    "loop of clients, all at once, or replayed from a trace), a router gives each to a\n"
    "replica, and each replica's scheduler runs passes over its paged KV cache, every\n"
    "pass timed by the chip model on what it holds (docs/serving.md). Prints TTFT, TPOT,\n"
    "ITL, end-to-end and queueing percentiles, throughput and goodput. LLM inference of\n"
    "llama-family and DeepSeek models (MoE experts over --ep of a replica's --tp chips);\n"
    "DLRM, DiT and GLIGEN are not served. The HTTP server is `npusim serve`.\n"
    "\n"
    "options:\n"
    "  -m, --model NAME|PATH   model config (default llama3-8b)\n"
    "  -c, --chip NAME|PATH    chip config (default tpuv5p)\n"
    "  -s, --system NAME|PATH  system config (default system_config)\n"
    "      --set KEY=VALUE     override one config field (repeatable)\n"
    "      --configs DIR       where to look for configs first\n"
    "      --profile NAME      physical (default) or neusim\n"
    "      --tp N, --pp N, --ep N  one replica's tensor, pipeline, expert parallelism\n"
    "  workload\n"
    "      --rate R            requests per second (default 1), Poisson unless --arrival\n"
    "      --arrival SHAPE     poisson (default), gamma:CV (CV of the gaps) or constant\n"
    "      --concurrency N     a closed loop: N clients, each sending its next request as one ends\n"
    "      --offline           every request at time 0\n"
    "      --requests N        requests in all (default 1000)\n"
    "      --duration S        arrivals stop after S seconds (the ones in flight finish)\n"
    "      --seed S            the arrivals' and lengths' seed (default 1)\n"
    "      --lengths SPEC      chat (default), summarize, fixed:IN:OUT, uniform:IN_LO:IN_HI:OUT_LO:OUT_HI,\n"
    "                          lognormal:IN_MEAN:IN_CV:OUT_MEAN:OUT_CV, or a CSV of\n"
    "                          input_tokens,output_tokens pairs drawn with replacement\n"
    "      --max-context N     tokens a request may hold, prompt and answer (default 8192);\n"
    "                          drawn lengths are clipped to it, a trace's are refused past it\n"
    "      --trace FILE        replay arrivals and lengths from a CSV or JSONL trace (Azure,\n"
    "                          Vidur, LLMServingSim, Mooncake columns; docs/serving.md); sorted\n"
    "  scheduling\n"
    "      --scheduler NAME    continuous (default), chunked, static or disaggregated\n"
    "  -b, --batch B           static: requests per batch (default 32)\n"
    "      --max-num-seqs N    requests in a pass at most (default 256)\n"
    "      --max-num-batched-tokens N  tokens in a pass at most (default: --max-context;\n"
    "                          chunked: 2048, the budget of every pass)\n"
    "      --block-size N      tokens per KV-cache block (default 16)\n"
    "      --kv-reserve F      fraction of HBM kept free (default 0.1: vLLM's 0.9 utilisation)\n"
    "      --swap              preempted requests swap their KV to host memory (default: recompute)\n"
    "      --replicas N        replicas of the model (default 1)\n"
    "      --router NAME       round-robin (default), least-outstanding or least-kv\n"
    "      --prefill-tp N, --decode-tp N, --prefill-replicas N, --decode-replicas N\n"
    "                          disaggregated: each pool's tensor parallelism and replicas\n"
    "  power\n"
    "      --pg STRATEGY       power gating in the passes and the idle gaps (NoPG, Base, HW, Full,\n"
    "                          Ideal, ... or a JSON file; default NoPG); summary \"pg\" compares\n"
    "                          with a NoPG run of the same requests: energy saved, latency paid\n"
    "      --dvfs POLICY       None (default) or Ideal\n"
    "  outputs\n"
    "      --slo ttft_ms=X,tpot_ms=Y  the SLO goodput counts (either bound alone is fine); also\n"
    "                          bounds on the run's statistics, METRIC_STAT_UNIT=X: ttft, tpot, itl\n"
    "                          (ms), e2e, queue (s); p50, p90, p95, p99, mean, max (ttft_p99_ms=500)\n"
    "      --find-rate         find the highest --rate (Poisson unless --arrival) whose run meets\n"
    "                          the --slo statistic bounds, by doubling then bisection from --rate\n"
    "                          (default: half the offline throughput) with the same seed; prints\n"
    "                          max_rate_rps and per chip, then that run\n"
    "      --rate-tolerance F  --find-rate stops within F of the rate (default 0.01)\n"
    "  -o, --out DIR           write DIR/requests.csv, DIR/iterations.csv, DIR/summary.json\n"
    "      --json              print summary.json on stdout instead of the table\n"
    "      --timeline FILE     write the run as Chrome trace JSON (Perfetto): a track per\n"
    "                          replica with a slice per pass, a track per request\n"
    "  -h, --help              this help\n";

enum {
    O_RATE = 0x400, O_ARRIVAL, O_CONCURRENCY, O_OFFLINE, O_REQUESTS, O_DURATION, O_SEED, O_LENGTHS, O_TRACE,
    O_SCHED, O_MAXSEQS, O_MAXTOK, O_BLOCK, O_RESERVE, O_SWAP, O_REPLICAS, O_ROUTER, O_PTP, O_DTP, O_PREP,
    O_DREP, O_SLO, O_JSON, O_CONTEXT, O_FIND, O_TOL, O_PG, O_DVFS, O_TIMELINE,
};

struct serving_args {
    struct common_opts co;
    const char *rate, *arrival, *lengths, *trace, *out, *slo, *pg, *dvfs, *timeline;
    long long concurrency, requests, seed, max_seqs, max_tokens, block, replicas, ptp, dtp, prep, drep, context;
    double duration_s, reserve, tolerance;
    bool offline, swap, json, requests_given, find_rate;
    struct serving_slo slo_b;
    enum serving_scheduler sched;
    enum serving_router router;
};

static int whole(const char *name, const char *v, long long lo, long long hi, long long *out)
{
    int64_t x;
    if (parse_i64_strict(v, &x) || x < lo || x > hi)
        return usage_error("serving", "--%s \"%s\": expected a whole number from %lld to %lld", name, v, lo, hi);
    *out = x;
    return 0;
}

static int real(const char *name, const char *v, double lo, double hi, bool lo_open, double *out)
{
    double x;
    if (parse_f64_strict(v, &x) || !isfinite(x) || x < lo || (lo_open && x == lo) || x > hi)
        return usage_error("serving", "--%s \"%s\": expected a number %s %g and at most %g", name, v,
                           lo_open ? "above" : "from", lo, hi);
    *out = x;
    return 0;
}

static int take(struct serving_args *a, int ch, const char *v)
{
    switch (ch) {
    case O_RATE: a->rate = v; return 0;
    case O_ARRIVAL: a->arrival = v; return 0;
    case O_CONCURRENCY: return whole("concurrency", v, 1, 16777216, &a->concurrency);
    case O_OFFLINE: a->offline = true; return 0;
    case O_REQUESTS: a->requests_given = true; return whole("requests", v, 1, 100000000, &a->requests);
    case O_DURATION: return real("duration", v, 0, 1e9, true, &a->duration_s);
    case O_SEED: return whole("seed", v, 0, 4294967295LL, &a->seed);
    case O_LENGTHS: a->lengths = v; return 0;
    case O_TRACE: a->trace = v; return 0;
    case O_SCHED:
        return serving_scheduler_parse(v, &a->sched)
                   ? usage_error("serving", "--scheduler \"%s\": expected " SERVING_SCHEDULERS, v) : 0;
    case O_ROUTER:
        return serving_router_parse(v, &a->router)
                   ? usage_error("serving", "--router \"%s\": expected " SERVING_ROUTERS, v) : 0;
    case O_MAXSEQS: return whole("max-num-seqs", v, 1, 1048576, &a->max_seqs);
    case O_MAXTOK: return whole("max-num-batched-tokens", v, 1, 16777216, &a->max_tokens);
    case O_BLOCK: return whole("block-size", v, 1, 65536, &a->block);
    case O_RESERVE: return real("kv-reserve", v, 0, 0.99, false, &a->reserve);
    case O_SWAP: a->swap = true; return 0;
    case O_REPLICAS: return whole("replicas", v, 1, 65536, &a->replicas);
    case O_PTP: return whole("prefill-tp", v, 1, 65536, &a->ptp);
    case O_DTP: return whole("decode-tp", v, 1, 65536, &a->dtp);
    case O_PREP: return whole("prefill-replicas", v, 1, 65536, &a->prep);
    case O_DREP: return whole("decode-replicas", v, 1, 65536, &a->drep);
    case O_CONTEXT: return whole("max-context", v, 2, 16777216, &a->context);
    case O_SLO: a->slo = v; return 0;
    case O_FIND: a->find_rate = true; return 0;
    case O_PG: a->pg = v; return 0;
    case O_TIMELINE: a->timeline = v; return 0;
    case O_DVFS: a->dvfs = v; return 0;
    case O_TOL: return real("rate-tolerance", v, 0, 0.5, true, &a->tolerance);
    case O_JSON: a->json = true; return 0;
    case 'o': a->out = v; return 0;
    default: return -1;
    }
}

static int parse(int argc, char **argv, struct serving_args *a)
{
    static const struct option longopts[] = {
        /* a replica's parallelism; no --dp (replicas are --replicas) or --seqlen (lengths are --lengths) */
        COMMON_LONGOPTS, { "tp", required_argument, 0, CO_TP }, { "pp", required_argument, 0, CO_PP },
        { "ep", required_argument, 0, CO_EP },
        { "rate", required_argument, 0, O_RATE }, { "arrival", required_argument, 0, O_ARRIVAL },
        { "concurrency", required_argument, 0, O_CONCURRENCY }, { "offline", no_argument, 0, O_OFFLINE },
        { "requests", required_argument, 0, O_REQUESTS }, { "duration", required_argument, 0, O_DURATION },
        { "seed", required_argument, 0, O_SEED }, { "lengths", required_argument, 0, O_LENGTHS },
        { "trace", required_argument, 0, O_TRACE }, { "scheduler", required_argument, 0, O_SCHED },
        { "max-num-seqs", required_argument, 0, O_MAXSEQS },
        { "max-num-batched-tokens", required_argument, 0, O_MAXTOK },
        { "block-size", required_argument, 0, O_BLOCK }, { "kv-reserve", required_argument, 0, O_RESERVE },
        { "swap", no_argument, 0, O_SWAP }, { "replicas", required_argument, 0, O_REPLICAS },
        { "router", required_argument, 0, O_ROUTER }, { "prefill-tp", required_argument, 0, O_PTP },
        { "decode-tp", required_argument, 0, O_DTP }, { "prefill-replicas", required_argument, 0, O_PREP },
        { "decode-replicas", required_argument, 0, O_DREP }, { "slo", required_argument, 0, O_SLO },
        { "json", no_argument, 0, O_JSON }, { "out", required_argument, 0, 'o' },
        { "max-context", required_argument, 0, O_CONTEXT }, { "find-rate", no_argument, 0, O_FIND },
        { "rate-tolerance", required_argument, 0, O_TOL }, { "pg", required_argument, 0, O_PG },
        { "dvfs", required_argument, 0, O_DVFS }, { "timeline", required_argument, 0, O_TIMELINE },
        { 0, 0, 0, 0 },
    };
    *a = (struct serving_args){ .requests = 1000, .seed = 1, .max_seqs = 256, .block = 16, .replicas = 1,
                                .prep = 1, .drep = 1, .context = 8192, .reserve = 0.1, .tolerance = 0.01,
                                .sched = SCHED_CONTINUOUS,
                                .router = ROUTE_ROUND_ROBIN };
    common_opts_init(&a->co);
    optind = 1;
    opterr = 0;
    int ch, rc;
    while ((ch = command_opt("serving", serving_help, argc, argv, COMMON_SHORTOPTS "o:", longopts, &a->co, &rc)) != -1) {
        if (ch == OPT_EXIT)
            return rc ? rc : -1;
        int r = take(a, ch, optarg);
        if (r > 0)
            return r;
        if (r < 0)
            return bad_option("serving", argv[optind - 1], longopts);
    }
    if (optind < argc)
        return usage_error("serving", "unexpected argument \"%s\"", argv[optind]);
    if (common_refuse("serving", &a->co, "w", "it serves LLM inference"))
        return EXIT_USAGE;
    int modes = (a->rate != NULL) + (a->concurrency > 0) + a->offline + (a->trace != NULL);
    if (modes > 1)
        return usage_error("serving", "--rate, --concurrency, --offline and --trace exclude each other");
    if (a->trace && a->lengths)
        return usage_error("serving", "--trace gives the lengths: --lengths does not apply");
    if (a->arrival && !a->rate && !a->find_rate)
        return usage_error("serving", "--arrival shapes the gaps of --rate R: give --rate too");
    if (a->find_rate && (a->concurrency > 0 || a->offline || a->trace))
        return usage_error("serving", "--find-rate searches over --rate: --concurrency, --offline and --trace "
                                      "do not apply");
    char why[400];
    if (a->slo && serving_slo_parse(a->slo, &a->slo_b, why, sizeof why))
        return usage_error("serving", "--slo \"%s\": %s; expected ttft_ms=X,tpot_ms=Y and/or statistic bounds "
                                      "such as ttft_p99_ms=X,tpot_p99_ms=Y", a->slo, why);
    if (a->find_rate && a->slo_b.n == 0)
        return usage_error("serving", "--find-rate needs an --slo with a statistic bound, e.g. "
                                      "--slo ttft_p99_ms=500,tpot_p99_ms=50");
    return 0;
}

/* The workload of the options: arrivals, lengths (a table read into *pairs). */
static int workload_of(const struct serving_args *a, struct serving_workload *w, int64_t **pairs)
{
    struct npu_err e;
    char spec[128];
    if (a->concurrency > 0)
        snprintf(spec, sizeof spec, "closed:%lld", a->concurrency);
    else if (a->offline)
        snprintf(spec, sizeof spec, "offline");
    else {
        const char *shape = a->arrival ? a->arrival : "poisson";
        const char *rate = a->rate ? a->rate : "1";
        if (!strncmp(shape, "gamma:", 6))
            snprintf(spec, sizeof spec, "gamma:%s:%s", rate, shape + 6);
        else if (!strcmp(shape, "poisson") || !strcmp(shape, "constant"))
            snprintf(spec, sizeof spec, "%s:%s", shape, rate);
        else
            return usage_error("serving", "--arrival \"%s\": expected poisson, gamma:CV or constant", shape);
        double r;
        if (parse_f64_strict(rate, &r) || !isfinite(r) || r <= 0)
            return usage_error("serving", "--rate \"%s\": expected requests per second above 0", rate);
    }
    if (serving_arrivals_parse(spec, &w->arrivals, &e))
        return usage_error("serving", "--arrival: %s", e.msg);
    w->seed = (uint64_t)a->seed;
    w->max_context = a->context;
    const char *len = a->lengths ? a->lengths : "chat";
    if (strchr(len, ':') || !strcmp(len, "chat") || !strcmp(len, "summarize")) {
        if (serving_lengths_parse(len, &w->lengths, &e))
            return usage_error("serving", "--lengths: %s", e.msg);
        return 0;
    }
    size_t n;
    if (serving_lengths_table(len, a->context, pairs, &n, &e))
        return usage_error("serving", "--lengths: %s", e.msg);
    w->lengths = (struct serving_lengths){ .kind = LENGTHS_TABLE, .pairs = *pairs, .npairs = n };
    return 0;
}

static char *command_text(int argc, char **argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n + 16);
    if (!s)
        return NULL;
    strcpy(s, "npusim");
    for (int i = 0; i < argc; i++)
        strcat(strcat(s, " "), argv[i]);
    return s;
}

static int spec_of(const struct serving_args *a, const struct loaded_config *c, const struct family *fam,
                   struct serving_spec *s)
{
    if (c->model.data_parallelism_degree > 1 || c->model.data_parallel_degree_dcn > 1)
        return usage_error("serving", "data parallelism: a replica is one copy of the model; give --replicas N "
                                      "instead of --dp");
    *s = (struct serving_spec){ .fam = fam, .c = c, .prof = a->co.sh.prof, .trace_path = a->trace,
                                .replicas = a->replicas, .kv_reserve = a->reserve, .prefill_tp = a->ptp,
                                .decode_tp = a->dtp, .prefill_replicas = a->prep, .decode_replicas = a->drep,
                                .out_dir = a->out, .timeline = a->timeline };
    struct serving_options *o = &s->o;
    o->scheduler = a->sched;
    o->router = a->router;
    o->batch = a->co.batch > 0 ? a->co.batch : 32;
    o->max_num_seqs = a->max_seqs;
    o->max_num_batched_tokens = a->max_tokens ? a->max_tokens : a->sched == SCHED_CHUNKED ? 2048 : a->context;
    o->block_size = a->block;
    o->swap = a->swap;
    o->max_requests = a->requests_given || !a->trace ? a->requests : 0;
    if (a->duration_s > 0) {
        o->duration_ns = (int64_t)(a->duration_s * 1e9);
        if (!a->requests_given)
            o->max_requests = 0;
    }
    s->slo_ttft_ms = a->slo_b.ttft_ms;
    s->slo_tpot_ms = a->slo_b.tpot_ms;
    return 0;
}

/* --pg and --dvfs into the spec (pg holds the strategy). */
static int power_of(const struct serving_args *a, struct serving_spec *s, struct pg_strategy *pg)
{
    struct npu_err e;
    enum dvfs_policy p = DVFS_NONE;
    if (a->pg && pg_strategy_lookup(a->pg, a->co.sh.configs, a->co.sh.prof, pg, &e))
        return usage_error("serving", "--pg: %s", e.msg);
    if (a->dvfs && dvfs_policy_parse(a->dvfs, &p, &e))
        return usage_error("serving", "--dvfs: %s", e.msg);
    s->pg = a->pg ? pg : NULL;
    s->dvfs = (int)p;
    s->pg_compare = true;
    return 0;
}

static int family_served(const struct family *fam, const struct loaded_config *c)
{
    if (fam->step_attention && fam->mem_parts)
        return 0;
    return usage_error("serving", "model \"%s\" (%s): not served; the serving engine runs LLM inference "
                                  "(llama-family and DeepSeek models); DLRM, DiT and GLIGEN are not served",
                       c->model_name, fam->name);
}

/* --find-rate's lines above the table of the run at the rate found. */
static void find_print(const struct serving_find_result *r, const struct serving_slo *slo)
{
    char b[400] = "";
    for (int i = 0; i < slo->n; i++) {
        size_t l = strlen(b);
        snprintf(b + l, sizeof b - l, "%s%s=%g", i ? "," : "", slo->b[i].key, slo->b[i].limit);
    }
    if (!r->found) {
        const struct serving_rate_trial *t = r->n ? &r->trials[r->n - 1] : NULL;
        printf("  find-rate     no rate meets %s: the lowest tried, %g requests/s, misses %s (%d runs); the "
               "bound is below what a request takes without load\n", b, t ? t->rate_rps : 0,
               t && t->missed >= 0 ? slo->b[t->missed].key : "it", r->n);
        return;
    }
    printf("  find-rate     max_rate_rps %.4g (%.4g per chip) meets %s%s (tolerance %g, %d runs); that run:\n",
           r->max_rate_rps, r->max_rate_rps_per_chip, b, r->unbounded ? ", as did every rate tried" : "",
           r->tolerance, r->n);
}

/* Runs the spec, or the search over rates: 0, or -1 with e. */
static int simulate(const struct serving_args *a, const struct serving_spec *s, struct serving_find_result *fr,
                    cJSON **sum, struct npu_err *e)
{
    if (!a->find_rate)
        return serving_simulate(s, sum, e);
    double start = 0;
    if (a->rate)
        (void)parse_f64_strict(a->rate, &start);
    return serving_find_rate(s, &a->slo_b, a->tolerance, start, fr, sum, e);
}

int cmd_serving(int argc, char **argv)
{
    struct serving_args a;
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct loaded_config c;
    const struct family *fam;
    if (load_common("serving", &a.co, true, &c, &fam))
        return EXIT_USAGE;
    struct serving_spec s;
    int64_t *pairs = NULL;
    char *cmd = command_text(argc, argv);
    struct pg_strategy pg;
    rc = family_served(fam, &c) || spec_of(&a, &c, fam, &s) || power_of(&a, &s, &pg) ||
                 workload_of(&a, &s.w, &pairs) ? EXIT_USAGE : 0;
    cJSON *sum = NULL;
    struct serving_find_result fr;
    if (!rc) {
        s.command = cmd;
        /* a test switch (docs/serving.md): every pass's parts computed afresh */
        s.memo_off = getenv("NPUSIM_SERVING_NO_MEMO") != NULL;
        interrupt_catch("serving", false);
        s.o.stop = interrupt_flag();
        struct npu_err e;
        if (simulate(&a, &s, &fr, &sum, &e)) {
            int sig = *interrupt_flag();
            rc = sig ? (fprintf(stderr, "npusim serving: interrupted by %s; no output was written\n",
                                interrupt_name(sig)), interrupt_status(sig))
                     : report_error("serving", &e);
        }
        interrupt_restore();
    }
    if (!rc && a.json) {
        char *text = cJSON_Print(sum);
        if (text)
            printf("%s\n", text);
        cJSON_free(text);
    } else if (!rc) {
        printf("npusim serving: %s on %s\n", c.model_name, c.chip_name);
        if (a.find_rate)
            find_print(&fr, &a.slo_b);
        if (!a.find_rate || fr.found)
            serving_summary_print(sum, stdout);
        if (a.out && (!a.find_rate || fr.found))
            printf("  outputs       %s/requests.csv, %s/iterations.csv, %s/summary.json\n", a.out, a.out, a.out);
        if (a.timeline && (!a.find_rate || fr.found))
            printf("  timeline      %s (open it in ui.perfetto.dev)\n", a.timeline);
    }
    if (!rc)
        rc = stdout_flushed("serving");
    cJSON_Delete(sum);
    free(pairs);
    free(cmd);
    config_free(&c);
    return rc;
}
