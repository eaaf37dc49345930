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
    "                      [--requests N] [--warmup N] [--duration S] [--seed S] [--lengths SPEC|FILE]\n"
    "                      [--trace FILE]\n"
    "                      [--scheduler static|continuous|chunked|inflight|disaggregated|padded]\n"
    "                      [--batch B]\n"
    "                      [--max-num-seqs N] [--max-num-batched-tokens N] [--block-size N]\n"
    "                      [--kv-reserve F | --kv-free-fraction F] [--admit-kv-free F] [--swap]\n"
    "                      [--async-scheduling]\n"
    "                      [--capacity-policy max-utilization|guaranteed-no-evict] [--max-new-tokens N]\n"
    "                      [--replicas N] [--router NAME] [--pp-microbatches N]\n"
    "                      [--batcher-wait S [--batcher-size N]]\n"
    "                      [--slo ttft_ms=X,tpot_ms=Y] [-o DIR] [--json]\n"
    "\n"
    "Simulates serving traffic, not one batch: requests arrive (at a rate, from a closed\n"
    "loop of clients, all at once, or replayed from a trace), a router gives each to a\n"
    "replica, and each replica's scheduler runs passes over its paged KV cache, every\n"
    "pass timed by the chip model on what it holds (docs/serving.md). Prints TTFT, TPOT,\n"
    "ITL, end-to-end and queueing percentiles, throughput and goodput. LLM inference of\n"
    "llama-family (dense, local attention, mixtures of experts) and DeepSeek models (MoE\n"
    "experts over --ep of a replica's --tp chips);\n"
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
    "      --think-time S      with --concurrency: a client waits an exponential time of mean S\n"
    "                          seconds after a response before its next request (default 0)\n"
    "      --offline           every request at time 0\n"
    "      --requests N        requests in all (default 1000)\n"
    "      --warmup N          the first N requests warm the engine up: they run, but no latency,\n"
    "                          ITL, goodput or throughput figure counts them (default 0). Those\n"
    "                          figures are then over the measured requests' time, from the first\n"
    "                          one's arrival to the last one's end, as a benchmark's steady state\n"
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
    "      --scheduler NAME    chunked (default), continuous, static, inflight (TensorRT-LLM without\n"
    "                          chunked context: whole prompts mixed with decodes), disaggregated or\n"
    "                          padded (XLA's static shapes: one padded prompt a prefill, every slot\n"
    "                          over the cache)\n"
    "  -b, --batch B           static: requests per batch (default 32)\n"
    "      --max-num-seqs N    requests in a pass at most (default 256)\n"
    "      --max-num-batched-tokens N  tokens in a pass at most (default: --max-context;\n"
    "                          chunked: 8192, the budget of every pass)\n"
    "      --block-size N      tokens per KV-cache block (default 16)\n"
    "      --kv-reserve F      fraction of HBM kept free (default 0.1: vLLM's 0.9 utilisation)\n"
    "      --kv-free-fraction F  instead, the KV cache takes F of the memory the weights and a\n"
    "                          pass's activations leave (TensorRT-LLM's kv_cache_free_gpu_mem_fraction)\n"
    "      --admit-kv-free F   new prompts join a pass only while more than F of the KV blocks\n"
    "                          are free (default 0: no gate; AMD's vLLM VLLM_SCHED_PREFILL_KVC_FREEPCT/100)\n"
    "      --swap              preempted requests swap their KV to host memory (default: recompute)\n"
    "      --async-scheduling  vLLM's: each pass is scheduled as the one before starts, so a\n"
    "                          request queued after that joins a pass later\n"
    "      --capacity-policy NAME  max-utilization (default: admit on the blocks a pass needs,\n"
    "                          preempt when the cache runs short; vLLM's) or guaranteed-no-evict\n"
    "                          (TensorRT-LLM's default: admit only when the prompt's and answer's\n"
    "                          blocks are all free, never preempt)\n"
    "      --max-new-tokens N  the max_tokens every request carries: answers stop at N, and\n"
    "                          guaranteed-no-evict promises the prompt's and N tokens' blocks\n"
    "                          (default: each request's own answer length)\n"
    "      --replicas N        replicas of the model (default 1)\n"
    "      --router NAME       round-robin (default), least-outstanding or least-kv\n"
    "      --pp-microbatches N passes in flight per replica under --pp, each with its own\n"
    "                          scheduler, --max-num-seqs and share of the KV cache (default: one\n"
    "                          per stage, as vLLM's virtual engines; 1: one pass at a time)\n"
    "      --batcher-wait S    a front-end batcher holds arrivals and sends them together to one\n"
    "                          replica once the last send is S seconds old (checked at each\n"
    "                          arrival, and S after the last check); default off\n"
    "      --batcher-size N    ... or as soon as it holds N (default: no bound)\n"
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

/* A knob's option code is O_KNOB + its enum serving_knob (serving/request.h). */
enum { O_KNOB = 0x400, O_OFFLINE = 0x500, O_SWAP, O_FIND, O_JSON, O_TIMELINE, O_ASYNC };

struct serving_args {
    struct common_opts co;
    struct serving_knobs k;
    bool json;
    char batch[32];
};

static int parse(int argc, char **argv, struct serving_args *a)
{
    /* every knob but --batch (common's -b) under its own name; a replica's
     * parallelism; no --dp (replicas are --replicas) or --seqlen (lengths
     * are --lengths) */
    struct option longopts[SK_N + 32];
    static const struct option fixed[] = {
        COMMON_LONGOPTS, { "tp", required_argument, 0, CO_TP }, { "pp", required_argument, 0, CO_PP },
        { "ep", required_argument, 0, CO_EP }, { "offline", no_argument, 0, O_OFFLINE },
        { "swap", no_argument, 0, O_SWAP }, { "find-rate", no_argument, 0, O_FIND },
        { "async-scheduling", no_argument, 0, O_ASYNC },
        { "json", no_argument, 0, O_JSON }, { "out", required_argument, 0, 'o' },
        { "timeline", required_argument, 0, O_TIMELINE },
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        longopts[n++] = fixed[i];
    for (int i = 0; i < SK_N; i++)
        if (i != SK_BATCH)
            longopts[n++] = (struct option){ serving_knob_name((enum serving_knob)i, false), required_argument, 0,
                                             O_KNOB + i };
    longopts[n] = (struct option){ 0, 0, 0, 0 };
    memset(a, 0, sizeof *a);
    common_opts_init(&a->co);
    optind = 1;
    opterr = 0;
    int ch, rc;
    while ((ch = command_opt("serving", serving_help, argc, argv, COMMON_SHORTOPTS "o:", longopts, &a->co, &rc)) != -1) {
        if (ch == OPT_EXIT)
            return rc ? rc : -1;
        if (ch >= O_KNOB && ch < O_KNOB + SK_N)
            a->k.v[ch - O_KNOB] = optarg;
        else if (ch == O_OFFLINE)
            a->k.offline = true;
        else if (ch == O_SWAP)
            a->k.swap = true;
        else if (ch == O_ASYNC)
            a->k.async_scheduling = true;
        else if (ch == O_FIND)
            a->k.find_rate = true;
        else if (ch == O_JSON)
            a->json = true;
        else if (ch == O_TIMELINE)
            a->k.timeline = optarg;
        else if (ch == 'o')
            a->k.out_dir = optarg;
        else
            return bad_option("serving", argv[optind - 1], longopts);
    }
    if (optind < argc)
        return usage_error("serving", "unexpected argument \"%s\"", argv[optind]);
    if (common_refuse("serving", &a->co, "w", "it serves LLM inference"))
        return EXIT_USAGE;
    if (a->co.batch > 0) {
        snprintf(a->batch, sizeof a->batch, "%lld", (long long)a->co.batch);
        a->k.v[SK_BATCH] = a->batch;
    }
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
static int simulate(const struct serving_build *b, struct serving_find_result *fr, cJSON **sum, struct npu_err *e)
{
    if (!b->find_rate)
        return serving_simulate(&b->spec, sum, e);
    return serving_find_rate(&b->spec, &b->slo, b->tolerance, b->start_rps, fr, sum, e);
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
    struct serving_build b;
    char why[1200];
    if (serving_build(&a.k, fam, &c, a.co.sh.prof, a.co.sh.configs, &b, why, sizeof why)) {
        config_free(&c);
        return usage_error("serving", "%s", why);
    }
    char *cmd = command_text(argc, argv);
    b.spec.command = cmd;
    /* a test switch (docs/serving.md): every pass's parts computed afresh */
    b.spec.memo_off = getenv("NPUSIM_SERVING_NO_MEMO") != NULL;
    interrupt_catch("serving", false);
    b.spec.o.stop = interrupt_flag();
    struct npu_err e;
    struct serving_find_result fr;
    cJSON *sum = NULL;
    if (simulate(&b, &fr, &sum, &e)) {
        int sig = *interrupt_flag();
        rc = sig ? (fprintf(stderr, "npusim serving: interrupted by %s; no output was written\n", interrupt_name(sig)),
                    interrupt_status(sig))
                 : report_error("serving", &e);
    }
    interrupt_restore();
    bool shown = !b.find_rate || fr.found;
    if (!rc && a.json) {
        char *text = cJSON_Print(sum);
        if (text)
            printf("%s\n", text);
        cJSON_free(text);
    } else if (!rc) {
        printf("npusim serving: %s on %s\n", c.model_name, c.chip_name);
        if (b.find_rate)
            find_print(&fr, &b.slo);
        if (shown) {
            serving_summary_print(sum, stdout);
            /* what every pass assumed, in `npusim run`'s words: profile, formats, calibration */
            run_notes_print(&c, a.co.sh.prof, a.k.v[SK_PG] ? a.k.v[SK_PG] : "NoPG", a.k.v[SK_DVFS], NULL, stdout);
        }
        if (a.k.out_dir && shown)
            printf("  outputs       %s/requests.csv, %s/iterations.csv, %s/summary.json\n", a.k.out_dir,
                   a.k.out_dir, a.k.out_dir);
        if (a.k.timeline && shown)
            printf("  timeline      %s (open it in ui.perfetto.dev)\n", a.k.timeline);
    }
    if (!rc && !b.find_rate && serving_summary_above_capacity(sum))
        fprintf(stderr, "npusim serving: warning: the rate is above what the replicas serve: the requests in the "
                        "system grew by %.0f%% of their mean over the run, so its latencies grow with --requests; "
                        "--find-rate --slo finds the rate they keep up with\n",
                100 * serving_summary_num(sum, NULL, "in_system_growth"));
    if (!rc)
        rc = stdout_flushed("serving");
    cJSON_Delete(sum);
    serving_build_free(&b);
    free(cmd);
    config_free(&c);
    return rc;
}
