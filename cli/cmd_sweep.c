/* cmd_sweep.c — `npusim sweep`: the reference's design-space sweep driver
 * (opsgen.md §13), on N threads, with an optional one-row-per-point summary.
 *
 * This file parses the command line into a struct sweep_request (the shared
 * options from cli/options.h), picks the shard an MPI rank or a SLURM array
 * task runs, catches SIGINT and SIGTERM, calls the sweep stage
 * (study/sweep/sweep_stage.h: the plan, the staged outputs, the run) and
 * prints what it did; under mpirun, rank 0 merges the ranks' summaries. Per
 * point the stage validates (skip = "invalid" when both phases fail, with
 * the 1.5x out-of-memory allowance), maps parallelism to torus axes, runs
 * opsgen + chipsim and
 *  - with --out (or no --summary): writes the reference results tree
 *      OUT/<model>/<pstr>/<workload>-v<V>{,_prefill,_decode}.csv, _prefill.json, _decode.json
 *    without the energy pass, as the reference's sweep;
 *  - with --summary: runs the energy pass (NoPG/None unless --pg/--dvfs) and
 *    forms one CSV row (sweep_row.h).
 *
 * Main data structure: struct sweep_args, the request and the parsed lists
 * it borrows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lists.h"
#include "cli/cli.h"
#include "cli/sweep_serving.h"
#include "serving/serving.h"
#include "cli/interrupt.h"
#include "cli/mpi_world.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "power/system.h"
#include "study/stages/stages.h"
#include "study/sweep/sweep.h"
#include "traces/fields.h"

/* The help, around the shared options' lines (cli/options.h). */
static const char sweep_help[] =
    "usage: npusim sweep -m M[,M...] -c V[,V...] --num-chips N[,N...] -b B[,B...]\n"
    "                    [--workload W] [--seqlen IN_OUT] [-o DIR] [--configs DIR] [--profile NAME]\n"
    "                    [--skip-existing] [--dry-run]\n"
    "       npusim sweep --spec SPEC.json --summary FILE.csv [-j N] [--shard K/N] [...]\n"
    "\n"
    "Sweeps every valid parallelism (data/tensor/pipeline over ICI, data/pipeline over\n"
    "DCN pods) for each chip count, chip version and global batch size, and writes the\n"
    "reference results tree under DIR (default ./results):\n"
    "  DIR/<model>/<pstr>/inference-v<V>.csv, _prefill.csv, _decode.csv,\n"
    "  _prefill.json, _decode.json\n"
    "with pstr = dp<D>-tp<T>-pp<P>-dpdcn<D'>-tpdcn1-ppdcn<P'>-bs<B>. A configuration is\n"
    "skipped when both phases fail validation (out of memory beyond 1.5x HBM, pipeline\n"
    "deeper than the layers, pod too large, ...). Versions are TPU names without\n"
    "\"tpuv\" (2,3,4,5e,5p,6e,6p,7) or any chip's name (h100, b200, mi300x, ...).\n"
    "\n"
    "Each configuration is published whole as it finishes (its folder swapped in);\n"
    "SIGINT or SIGTERM stops the sweep between configurations (exit 130, 143), keeping\n"
    "those finished; --skip-existing then finishes the rest.\n"
    "\n"
    "With --summary, writes one CSV row per configuration instead (in enumeration\n"
    "order; no per-op files unless --out is given too): the point, its status (ok,\n"
    "invalid: why, error: message), TTFT, TPOT, throughput, energy and carbon per\n"
    "unit of work, memory and one column per swept spec field. A spec\n"
    "(docs/sweep-spec.md) sweeps lists or ranges of any model, chip or system field.\n"
    "Without --out, consecutive field combinations that leave the operator generator's\n"
    "inputs unchanged (e.g. hbm_bw_GBps, num_sa, freq_GHz) share one generated trace\n"
    "per point; the file is the same bytes either way.\n"
    "\n"
    "options:\n"
    "  -m, --models LIST       model configs (every family: llama, deepseek, dit, gligen, dlrm)\n"
    "  -w, --workload W        inference (default) or training (llama: one CSV + JSON per point)\n"
    "  -c, --chips LIST        chip versions or names (also --versions)\n"
    "      --num-chips LIST    chip counts\n"
    "  -b, --batch-sizes LIST  global batch sizes\n"
    "      --spec FILE         sweep spec (JSON): models, chips, num_chips, batch_sizes,\n"
    "                          fields; command-line lists take precedence\n"
    "      --seqlen IN_OUT     override input/output sequence lengths (e.g. 2048_256);\n"
    "                          results go under <model>_<IN>_<OUT>/\n"
    "      --tp LIST, --dp LIST, --pp LIST, --ep LIST\n"
    "                          keep only the points with these tensor, data, pipeline, expert\n"
    "                          parallelism degrees (within a pod; default: every one)\n"
    "  -o, --out DIR           results folder (default ./results, none with --summary)\n"
    "      --summary FILE      one CSV row per configuration (written atomically)\n";
static const char sweep_help_mid[] =
    "      --shard K/N         only points whose index i has i % N == K-1 (default: from\n"
    "                          SLURM_ARRAY_TASK_ID/_COUNT/_MIN); join summaries with npusim merge\n"
    "      --pg STRATEGY       summary: power-gating strategy of the energy pass (default NoPG)\n"
    "      --dvfs POLICY       summary: DVFS policy (default None)\n"
    "      --ci CI             summary: carbon intensity, kgCO2e/kWh (default: the system config's)\n"
    "      --util U            summary: duty cycle in (0, 1] (default: the system config's)\n"
    "      --lifetime L        summary: lifetime in years (default: the system config's)\n"
    "      --skip-existing     leave configurations whose files are there (resumes a killed sweep)\n"
    "      --dry-run           simulate every valid configuration but write nothing\n"
    "  a serving spec (\"workload\": \"serving\", docs/serving.md): every point a serving run\n"
    "      --slo BOUNDS        e.g. ttft_p99_ms=2000,tpot_p99_ms=50 (overrides the spec's)\n"
    "      --select WHAT       fewest_chips, energy or carbon: the point meeting the SLO with\n"
    "                          the fewest chips, least energy or carbon per request\n";


/* "K/N" into *k, *n (the request checks 1 <= K <= N); -1 if it is not that. */
static int parse_shard(const char *s, long *k, long *n)
{
    char buf[64];
    int64_t a, b;
    const char *slash = s ? strchr(s, '/') : NULL;
    if (!slash || (size_t)(slash - s) >= sizeof buf)
        return -1;
    memcpy(buf, s, (size_t)(slash - s));
    buf[slash - s] = '\0';
    if (parse_i64_strict(buf, &a) || parse_i64_strict(slash + 1, &b) || b < 1 || a < 1 || a > b)
        return -1;
    *k = (long)a;
    *n = (long)b;
    return 0;
}

/* The SLURM array task's shard (0-based k): 1, 0 when not in an array, -1
 * when the variables do not describe a task of one. */
static int slurm_shard(long *k, long *n)
{
    const char *id = getenv("SLURM_ARRAY_TASK_ID"), *cnt = getenv("SLURM_ARRAY_TASK_COUNT");
    const char *min = getenv("SLURM_ARRAY_TASK_MIN"), *step = getenv("SLURM_ARRAY_TASK_STEP");
    int64_t i, c, m = 0, st = 1;
    if (!id || !cnt)
        return 0;
    if (parse_i64_strict(id, &i) || parse_i64_strict(cnt, &c) || c < 1 ||
        (min && parse_i64_strict(min, &m)) || (step && (parse_i64_strict(step, &st) || st < 1)))
        return -1;
    /* Array ids may start at 0 or 1 (or anywhere): the position within the
     * array is (id - min) / step; without MIN, ids are taken as 0-based. */
    int64_t pos = (i - m) / st;
    if (pos < 0 || pos >= c)
        return -1;
    *k = (long)pos;
    *n = (long)c;
    return 1;
}

enum { O_MODELS = 1000, O_WORKLOAD, O_VERSIONS, O_CHIPS, O_BATCHES, O_SEQLEN, O_OUT, O_SKIP, O_DRY,
       O_SUMMARY, O_SPEC, O_SHARD, O_PG, O_DVFS, O_CI, O_UTIL, O_LIFE, O_STATS, O_DP, O_TP, O_PP, O_EP, O_SLO,
       O_SELECT };

#define SWEEP_SHARED (SHARED_CONFIGS | SHARED_PROFILE | SHARED_JOBS | SHARED_QUIET)

/* --dp, --tp, --pp, --ep LIST (in that order, SWEEP_DEG_*): the degrees a
 * sweep keeps of those it enumerates. */
static const char *const degree_flags[] = { "--dp", "--tp", "--pp", "--ep" };

static int parse_degrees(int d, const char *arg, struct sweep_request *r)
{
    struct list l;
    bool ok = list_split(arg, &l) == 0 && l.n <= SWEEP_ONLY_MAX;
    for (int i = 0; ok && i < l.n; i++)
        ok = parse_i64_strict(l.item[i], &r->degrees[d][i]) == 0 && r->degrees[d][i] >= 1 &&
             r->degrees[d][i] <= (int64_t)FIELD_INT_MAX;
    r->ndegrees[d] = ok ? l.n : 0;
    list_free(&l);
    if (ok)
        return 0;
    return usage_error("sweep", "%s \"%s\": expected a comma-separated list of at most %d positive integers",
                       degree_flags[d], arg, SWEEP_ONLY_MAX);
}

/* A numeric option's value, or a usage error naming what was expected. */
static int parse_number_option(int ch, const char *arg, struct sweep_request *r)
{
    /* As a system file bounds them: no 1e308 intensity reaches the summary as inf. */
    double ci_max = system_field_max("carbon_intensity_kgCO2_per_kWh"), life_max = system_field_max("lifetime_years");
    switch (ch) {
    case O_CI:
        if (parse_f64_strict(arg, &r->ci_kgCO2_per_kWh) || r->ci_kgCO2_per_kWh < 0 || r->ci_kgCO2_per_kWh > ci_max)
            return usage_error("sweep", "--ci \"%s\": expected a carbon intensity from 0 to %g (kgCO2e/kWh)", arg,
                               ci_max);
        return 0;
    case O_UTIL:
        if (parse_f64_strict(arg, &r->util) || r->util <= 0 || r->util > 1)
            return usage_error("sweep", "--util \"%s\": expected a duty cycle in (0, 1]", arg);
        return 0;
    default:   /* O_LIFE */
        if (parse_f64_strict(arg, &r->lifetime_years) || r->lifetime_years <= 0 || r->lifetime_years > life_max)
            return usage_error("sweep", "--lifetime \"%s\": expected a positive number of years, at most %g", arg,
                               life_max);
        return 0;
    }
}

/* The command line: the request, and the lists it borrows. */
struct sweep_args {
    struct sweep_request r;
    struct shared_opts sh;
    const char *models, *versions, *chips, *batches, *seqlen, *shard;   /* as given */
    const char *slo, *select;          /* a serving spec's */
    struct list lm, lv, lc, lb;
    int64_t num_chips[MAX_LIST], batch_sizes[MAX_LIST];
};

static void sweep_args_free(struct sweep_args *a)
{
    list_free(&a->lm);
    list_free(&a->lv);
    list_free(&a->lc);
    list_free(&a->lb);
}

/* The options without a value of their own to check; 1 taken, 0 not one of them. */
static int take_plain(int ch, const char *arg, struct sweep_args *a)
{
    struct sweep_request *r = &a->r;
    switch (ch) {
    case 'm': case O_MODELS: a->models = arg; return 1;
    case 'w': case O_WORKLOAD: r->workload = arg; return 1;
    case 'c': case O_VERSIONS: a->versions = arg; return 1;
    case O_CHIPS: a->chips = arg; return 1;
    case 'b': case O_BATCHES: a->batches = arg; return 1;
    case O_SEQLEN: a->seqlen = arg; return 1;
    case 'o': case O_OUT: r->out = arg; return 1;
    case O_SKIP: r->skip_existing = true; return 1;
    case O_DRY: r->dry_run = true; return 1;
    case O_SUMMARY: r->summary = arg; return 1;
    case O_SPEC: r->spec_file = arg; return 1;
    case O_SHARD: a->shard = arg; return 1;
    case O_PG: r->pg = arg; return 1;
    case O_DVFS: r->dvfs = arg; return 1;
    case O_STATS: r->stats = true; return 1;
    case O_SLO: a->slo = arg; return 1;
    case O_SELECT: a->select = arg; return 1;
    default: return 0;
    }
}

/* Parses argv into a->r (the lists as given in a). Returns 0, EXIT_USAGE,
 * or -1 after --help. */
static int parse_sweep_args(int argc, char **argv, struct sweep_args *a)
{
    static const struct option longopts[] = {
        { "models", required_argument, 0, 'm' }, { "workload", required_argument, 0, 'w' },
        { "chips", required_argument, 0, 'c' }, { "versions", required_argument, 0, 'c' }, { "num-chips", required_argument, 0, O_CHIPS },
        { "batch-sizes", required_argument, 0, 'b' }, { "seqlen", required_argument, 0, O_SEQLEN },
        { "out", required_argument, 0, 'o' }, SHARED_LONGOPT_CONFIGS,
        SHARED_LONGOPT_PROFILE, { "skip-existing", no_argument, 0, O_SKIP },
        { "dry-run", no_argument, 0, O_DRY }, { "summary", required_argument, 0, O_SUMMARY },
        { "spec", required_argument, 0, O_SPEC }, { "shard", required_argument, 0, O_SHARD },
        SHARED_LONGOPT_JOBS, { "pg", required_argument, 0, O_PG },
        { "dvfs", required_argument, 0, O_DVFS }, { "ci", required_argument, 0, O_CI },
        { "util", required_argument, 0, O_UTIL }, { "lifetime", required_argument, 0, O_LIFE },
        { "stats", no_argument, 0, O_STATS }, SHARED_LONGOPT_QUIET,
        { "dp", required_argument, 0, O_DP }, { "tp", required_argument, 0, O_TP },
        { "pp", required_argument, 0, O_PP }, { "ep", required_argument, 0, O_EP },
        { "slo", required_argument, 0, O_SLO }, { "select", required_argument, 0, O_SELECT },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    optind = 1;
    opterr = 0;
    int ch;
    cli_short_options(":hqj:m:c:b:o:w:");
    while ((ch = getopt_long(argc, argv, ":hqj:m:c:b:o:w:", longopts, NULL)) != -1) {
        int taken = shared_opt("sweep", SWEEP_SHARED, &a->sh, ch, optarg);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken || take_plain(ch, optarg, a))
            continue;
        switch (ch) {
        case 'h':
            fputs(sweep_help, stdout);
            shared_help(SHARED_JOBS, stdout);
            fputs(sweep_help_mid, stdout);
            shared_help(SWEEP_SHARED & ~SHARED_JOBS, stdout);
            fputs("  -h, --help              this help\n", stdout);
            return -1;
        case O_DP: case O_TP: case O_PP: case O_EP:
            if (parse_degrees(ch - O_DP, optarg, &a->r))
                return EXIT_USAGE;
            break;
        case O_CI: case O_UTIL: case O_LIFE:
            if (parse_number_option(ch, optarg, &a->r))
                return EXIT_USAGE;
            break;
        default: return bad_option("sweep", argv[optind - 1], longopts);   /* ':' too: a missing value */
        }
    }
    if (optind < argc)
        return usage_error("sweep", "unexpected argument \"%s\"", argv[optind]);
    return 0;
}

/* A comma list of positive integers, each at most max, into v. */
static int parse_ints(const char *flag, const struct list *l, int64_t max, int64_t *v)
{
    for (int i = 0; i < l->n; i++)
        if (parse_i64_strict(l->item[i], &v[i]) || v[i] <= 0 || v[i] > max)
            return usage_error("sweep", "%s: \"%s\" is not a positive integer of at most %lld", flag, l->item[i],
                               (long long)max);
    return 0;
}

/* The lists, --seqlen and --shard as the request's values. 0 or a usage error. */
static int request_lists(struct sweep_args *a)
{
    struct sweep_request *r = &a->r;
    const struct { const char *flag, *text; struct list *l; } lists[] = {
        { "--models", a->models, &a->lm }, { "--versions", a->versions, &a->lv },
        { "--num-chips", a->chips, &a->lc }, { "--batch-sizes", a->batches, &a->lb },
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (lists[i].text && list_split(lists[i].text, lists[i].l))
            return usage_error("sweep", "%s \"%s\": expected a comma-separated list of at most %d items, "
                               "none empty", lists[i].flag, lists[i].text, MAX_LIST);
    if (parse_ints("--num-chips", &a->lc, sweep_int_max("num_chips"), a->num_chips) ||
        parse_ints("--batch-sizes", &a->lb, sweep_int_max("global_batch_size"), a->batch_sizes))
        return EXIT_USAGE;
    r->models = (const char *const *)a->lm.item;
    r->nmodels = a->lm.n;
    r->chips = (const char *const *)a->lv.item;
    r->nchips = a->lv.n;
    r->num_chips = a->num_chips;
    r->nnum_chips = a->lc.n;
    r->batch_sizes = a->batch_sizes;
    r->nbatch_sizes = a->lb.n;
    if (a->seqlen && parse_seqlen(a->seqlen, &r->seq_in_tokens, &r->seq_out_tokens))
        return usage_error("sweep", "--seqlen \"%s\": expected IN_OUT, e.g. 4096_512", a->seqlen);
    if (a->shard && parse_shard(a->shard, &r->shard_k, &r->shard_n))
        return usage_error("sweep", "--shard \"%s\": expected K/N with 1 <= K <= N", a->shard);
    r->shard_given = a->shard != NULL;
    return 0;
}

/* The shard this process runs unless the request names one: one per MPI
 * rank (its summary to a per-rank file rank 0 merges), else the SLURM array
 * task's. */
static int pick_shard(struct sweep_request *q, char *rank_summary, size_t n)
{
    int ranks = mpi_world_size();
    long k, count;
    if (q->shard_given)
        return 0;
    if (ranks > 1) {
        q->shard_given = true;
        q->shard_k = mpi_world_rank() + 1;
        q->shard_n = ranks;
        if (q->summary) {
            snprintf(rank_summary, n, "%s.rank%d", q->summary, mpi_world_rank());
            q->summary = rank_summary;
        }
        return 0;
    }
    int s = slurm_shard(&k, &count);
    if (s < 0)
        return usage_error("sweep", "SLURM_ARRAY_TASK_ID/_COUNT/_MIN/_STEP do not describe a task of the array");
    if (s > 0) {
        q->shard_given = true;
        q->shard_k = k + 1;
        q->shard_n = count;
    }
    return 0;
}

/* Under mpirun: every rank learns whether any failed and the summed counts;
 * rank 0 merges the per-rank summaries into final_summary. Returns rc. */
static int mpi_finish(struct sweep_done *d, const char *final_summary, const char *rank_summary, int rc)
{
    int ranks = mpi_world_size();
    struct npu_err e;
    rc = mpi_world_max(rc);
    if (rc && final_summary)
        remove(rank_summary);   /* this rank's committed part: no partial output */
    d->cnt.simulated = mpi_world_sum(d->cnt.simulated);
    d->cnt.invalid = mpi_world_sum(d->cnt.invalid);
    d->cnt.existing = mpi_world_sum(d->cnt.existing);
    d->cnt.errors = mpi_world_sum(d->cnt.errors);
    d->violating = mpi_world_sum(d->violating);
    if (!rc && final_summary && d->rows && mpi_world_rank() == 0) {
        char (*paths)[4200] = calloc((size_t)ranks, sizeof *paths);
        const char **pp = calloc((size_t)ranks, sizeof *pp);
        for (int r = 0; paths && pp && r < ranks; r++) {
            snprintf(paths[r], sizeof paths[r], "%s.rank%d", final_summary, r);
            pp[r] = paths[r];
        }
        if (!paths || !pp || summary_merge(final_summary, pp, ranks, &e))
            rc = paths && pp ? report_error("sweep", &e) : usage_error("sweep", "out of memory");
        for (int r = 0; paths && r < ranks; r++)
            remove(paths[r]);
        free(paths);
        free(pp);
    }
    return mpi_world_max(rc);
}

/* The one line of an interrupted sweep: what the tree keeps; the status. */
static int report_interrupt(const struct sweep_request *q, const struct sweep_done *d)
{
    fprintf(stderr, "npusim sweep: interrupted by %s", interrupt_name(d->signal));
    if (d->out && !q->dry_run)
        fprintf(stderr, "; %s/ keeps its earlier files and the %ld configuration%s finished before it, each "
                        "whole (--skip-existing finishes the rest)", d->out, d->published,
                d->published == 1 ? "" : "s");
    fprintf(stderr, "%s\n", q->summary && !q->dry_run ? "; the summary was not written" : "");
    return interrupt_status(d->signal);
}

/* The closing lines on stderr: counts and the invariants warning. */
static void report_counts(const struct sweep_request *q, const struct sweep_done *d)
{
    fprintf(stderr, "npusim sweep: %ld configurations simulated, %ld invalid, %ld already present",
            d->cnt.simulated, d->cnt.invalid, d->cnt.existing);
    if (d->cnt.errors)
        fprintf(stderr, ", %ld failed", d->cnt.errors);
    fputc('\n', stderr);
    if (!q->dry_run) {   /* where the results are: the tree and the summary file */
        struct output o[2];
        int n = 0;
        output_clear(o, 2);
        if (d->out)
            snprintf(o[n++].path, sizeof o[0].path, "%s/", d->out);
        if (d->summary)
            snprintf(o[n++].path, sizeof o[0].path, "%s", d->summary);
        if (n)
            cli_print_wrote_to(stderr, "sweep", o, n);
    }
    if (d->rows && d->carbon_note[0])
        fprintf(stderr, "npusim sweep: summary carbon columns: %s%s\n", d->carbon_note,
                d->carbon_varies ? " (the first row's; the spec's fields change them in others)" : "");
    /* Never silent (power/invariants.h); the example is rank 0's first. */
    if (d->violating)
        fprintf(stderr, "npusim sweep: warning: %ld of %ld simulated points violate a physical invariant%s%s\n",
                d->violating, d->cnt.simulated, d->first_warn[0] ? "; first: " : "", d->first_warn);
}

int sweep_command_run(const struct sweep_request *r, const struct stage_io *io)
{
    struct sweep_request q = *r;
    struct stage_io sio = *io;
    struct sweep_done done;
    struct npu_err e;
    char rank_summary[4200] = "";
    memset(&done, 0, sizeof done);
    done.peak_rss_KiB = -1;
    int rc = pick_shard(&q, rank_summary, sizeof rank_summary);
    /* SIGINT, SIGTERM: the stage stops between points, the staging folder
     * and the summary's temporary go, the tree keeps whole configurations. */
    bool own_handler = !io->stop;
    if (own_handler) {
        interrupt_catch("sweep", false);
        sio.stop = (volatile sig_atomic_t *)interrupt_flag();
    }
    if (!rc && sweep_stage_run(&q, &sio, &done, &e))
        rc = done.signal ? report_interrupt(&q, &done)
             : done.request_error ? usage_error("sweep", "%s", e.msg)
                                  : report_error("sweep", &e);
    if (mpi_world_size() > 1 && !r->shard_given)
        rc = mpi_finish(&done, r->summary, q.summary, rc);
    if (!rc && mpi_world_rank() == 0)
        report_counts(&q, &done);
    if (q.stats && done.peak_rss_KiB >= 0)
        fprintf(stderr, "npusim sweep: peak RSS %ld KiB\n", done.peak_rss_KiB);
    if (own_handler)
        interrupt_restore();
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep_args *a = calloc(1, sizeof *a);
    if (!a)
        return usage_error("sweep", "out of memory");
    a->r = sweep_request_default();
    shared_opts_init(&a->sh);
    int rc = parse_sweep_args(argc, argv, a);
    if (!rc && a->r.spec_file && serving_sweep_is(a->r.spec_file)) {
        /* a serving spec: its own lists; the other options configure the batch sweep */
        rc = a->models || a->versions || a->chips || a->batches || a->seqlen || a->shard || a->r.out ||
                     a->r.pg || a->r.dvfs || a->r.dry_run || a->r.skip_existing
                 ? usage_error("sweep", "--spec %s is a serving spec: its models, chips and options are in it; "
                                        "--summary, --slo, --select, --configs and --profile apply", a->r.spec_file)
                 : sweep_serving(a->r.spec_file, a->r.summary, a->slo, a->select, &a->sh);
        sweep_args_free(a);
        free(a);
        return rc;
    }
    if (!rc && (a->slo || a->select))
        rc = usage_error("sweep", "--slo and --select choose among a serving spec's runs (\"workload\": "
                                  "\"serving\"); for a batch sweep, --slo-tpot-ms is report's");
    if (!rc)
        rc = request_lists(a);
    if (!rc) {
        a->r.configs = a->sh.configs;
        a->r.prof = a->sh.prof;
        a->r.jobs = a->sh.jobs;
        struct progress prog;
        struct stage_io io = stage_io_none();
        io.progress = progress_hooks(&prog, "npusim sweep", a->sh.quiet);
        rc = sweep_command_run(&a->r, &io);
    }
    sweep_args_free(a);
    free(a);
    return rc < 0 ? 0 : rc;
}
