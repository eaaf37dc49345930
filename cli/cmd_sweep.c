/* cmd_sweep.c — `npusim sweep`: the reference's design-space sweep driver
 * (opsgen.md §13), on N threads, with an optional one-row-per-point summary.
 *
 * This file parses the options and the spec into a plan (models x chips x
 * spec field combinations x chip counts x parallelism x batch sizes, the
 * shard, the energy pass) and runs it with sweep_run.h. Per point: validate
 * (skip = "invalid" when both phases fail, with the 1.5x out-of-memory
 * allowance), map parallelism to torus axes, run opsgen + chipsim and
 *  - with --out (or no --summary): write the reference results tree
 *      OUT/<model>/<pstr>/<workload>-v<V>{,_prefill,_decode}.csv, _prefill.json, _decode.json
 *    without the energy pass, as the reference's sweep;
 *  - with --summary: run the energy pass (NoPG/None unless --pg/--dvfs) and
 *    form one CSV row (sweep_row.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chipsim/chipsim.h"
#include "base/lists.h"
#include "cli/cli.h"
#include "cli/mpi_world.h"
#include "study/run/family.h"
#include "base/strbuf.h"
#include "study/run/ordered_pool.h"
#include "cli/interrupt.h"
#include "cli/progress.h"
#include "study/sweep/sweep_points.h"
#include "study/sweep/sweep_row.h"
#include "study/stages/staging.h"
#include "study/run/results.h"
#include "study/sweep/sweep_spec.h"
#include "study/sweep/sweep_run.h"
#include "opsgen/opsgen.h"
#include "opsgen/sweep.h"
#include "power/carbon.h"
#include "power/energy.h"
#include "power/invariants.h"
#include "power/powercap.h"
#include "power/pg.h"
#include "base/atomic.h"
#include "base/textfile.h"

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
    "      --summary FILE      one CSV row per configuration (written atomically)\n"
    "  -j, --jobs N            threads (default: all cores); outputs are identical for every N\n"
    "      --shard K/N         only points whose index i has i %% N == K-1 (default: from\n"
    "                          SLURM_ARRAY_TASK_ID/_COUNT/_MIN); join summaries with npusim merge\n"
    "      --pg STRATEGY       summary: power-gating strategy of the energy pass (default NoPG)\n"
    "      --dvfs POLICY       summary: DVFS policy (default None)\n"
    "      --ci CI             summary: carbon intensity, kgCO2e/kWh (default: the system config's)\n"
    "      --util U            summary: duty cycle in (0, 1] (default: the system config's)\n"
    "      --lifetime L        summary: lifetime in years (default: the system config's)\n"
    "      --skip-existing     leave configurations whose files are there (resumes a killed sweep)\n"
    "      --dry-run           simulate every valid configuration but write nothing\n"
    "  -q, --quiet             no progress line (it is drawn only on a terminal anyway)\n"
    "      --configs DIR       config folder (see npusim run --help)\n"
    "      --profile NAME      behaviour profile: physical (default) or neusim\n"
    "  -h, --help              this help\n";

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
    *k = (long)a - 1;
    *n = (long)b;
    return 0;
}

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

enum { O_MODELS = 1000, O_WORKLOAD, O_VERSIONS, O_CHIPS, O_BATCHES, O_SEQLEN, O_OUT, O_CONFIGS,
       O_PROFILE, O_SKIP, O_DRY, O_SUMMARY, O_SPEC, O_SHARD, O_PG, O_DVFS, O_CI, O_UTIL, O_LIFE, O_STATS,
       O_DP, O_TP, O_PP, O_EP };

/* --dp, --tp, --pp, --ep LIST (in that order: sweep_plan's only[]): the
 * degrees a sweep keeps of those it enumerates. */
static const char *const degree_flags[] = { "--dp", "--tp", "--pp", "--ep" };

static int parse_degrees(int d, const char *arg, struct sweep_plan *plan)
{
    struct list l;
    bool ok = list_split(arg, &l) == 0 && l.n <= SWEEP_ONLY_MAX;
    for (int i = 0; ok && i < l.n; i++)
        ok = parse_i64_strict(l.item[i], &plan->only[d][i]) == 0 && plan->only[d][i] >= 1 &&
             plan->only[d][i] <= (int64_t)FIELD_INT_MAX;
    plan->nonly[d] = l.n;
    list_free(&l);
    if (ok)
        return 0;
    return usage_error("sweep", "%s \"%s\": expected a comma-separated list of at most %d positive integers",
                       degree_flags[d], arg, SWEEP_ONLY_MAX);
}

/* A command-line comma list of positive integers as a spec list. */
static int ints_from_list(const struct list *l, int64_t max, cJSON **arr, struct spec_ints *out)
{
    *arr = cJSON_CreateArray();
    for (int i = 0; i < l->n; i++) {
        int64_t v;
        if (parse_i64_strict(l->item[i], &v) || v <= 0 || v > max)
            return i + 1;
        cJSON_AddItemToArray(*arr, cJSON_CreateNumber((double)v));
    }
    memset(out, 0, sizeof *out);
    out->list = *arr;
    out->count = l->n;
    return 0;
}

/* The staging folder of a results tree, beside it (its parents made first,
 * recorded in made to be taken back if the sweep fails), locked while the
 * sweep lives (*lock_fd); a dead run's staging folder is removed first. */
static int stage_tree(struct sweep_opts *o, struct made_dirs *made, int *lock_fd, struct npu_err *e)
{
    const char *slash = strrchr(o->out, '/');
    char parent[4200];
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - o->out) : 0, o->out);
    if (parent[0] && make_dirs_undoable(parent, made, e))
        return -1;
    staging_clean_stale(o->out, "sweep");
    return staging_create_locked(o->out, o->stage, sizeof o->stage, lock_fd, e);
}

/* Drops the staging folder: every finished configuration was published from
 * it as it finished (sweep_run.h), so what is left is folders and the
 * unfinished points' files. The parents stage_tree made go when nothing was
 * published into them. */
static void drop_stage(struct sweep_opts *o, struct made_dirs *made, int lock_fd, bool ok)
{
    staging_remove(o->stage);
    if (lock_fd >= 0)
        close(lock_fd);
    (ok ? made_dirs_keep : made_dirs_undo)(made);
}

/* Removes the summary's temporaries a killed sweep left beside it. */
static void clean_summary_temps(const char *summary)
{
    char dir[4200];
    path_folder(summary, dir, sizeof dir);
    staging_clean_temps(dir, path_base(summary), "sweep");
}

/* The one line of an interrupted sweep: what the tree keeps; the status. */
static int report_interrupt(const struct sweep_ctx *x, int sig)
{
    const struct sweep_opts *o = x->o;
    fprintf(stderr, "npusim sweep: interrupted by %s", interrupt_name(sig));
    if (o->tree && !o->dry_run)
        fprintf(stderr, "; %s/ keeps its earlier files and the %ld configuration%s finished before it, each "
                        "whole (--skip-existing finishes the rest)", o->out, x->published,
                x->published == 1 ? "" : "s");
    fprintf(stderr, "%s\n", o->summary && !o->dry_run ? "; the summary was not written" : "");
    return interrupt_status(sig);
}

/* The command line: the options, the lists as given, and what owns memory. */
struct sweep_args {
    struct sweep_opts o;
    const char *models, *versions, *chips, *batches, *spec_file, *shard, *workload, *configs;
    long jobs;
    bool stats, quiet;
    /* owned: the split lists, the JSON of the integer lists, the name arrays */
    struct list lm, lv, lc, lb;
    cJSON *jc, *jb;
    const char **mnames, **cnames;
    char (*cbuf)[64];
    struct sweep_spec spec;
    struct sweep_plan degrees;   /* only its only[] and nonly[]: --dp, --tp, --pp, --ep */
};

static void sweep_args_free(struct sweep_args *a)
{
    free(a->mnames);
    free(a->cnames);
    free(a->cbuf);
    cJSON_Delete(a->jc);
    cJSON_Delete(a->jb);
    list_free(&a->lm);
    list_free(&a->lv);
    list_free(&a->lc);
    list_free(&a->lb);
    sweep_spec_free(&a->spec);
}

/* A numeric option's value, or a usage error naming what was expected. */
static int parse_number_option(int ch, const char *arg, struct sweep_opts *o)
{
    /* As a system file bounds them: no 1e308 intensity reaches the summary as inf. */
    double ci_max = system_field_max("carbon_intensity_kgCO2_per_kWh"), life_max = system_field_max("lifetime_years");
    switch (ch) {
    case O_CI:
        if (parse_f64_strict(arg, &o->ci) || o->ci < 0 || o->ci > ci_max)
            return usage_error("sweep", "--ci \"%s\": expected a carbon intensity from 0 to %g (kgCO2e/kWh)", arg,
                               ci_max);
        o->ci_given = true;
        return 0;
    case O_UTIL:
        if (parse_f64_strict(arg, &o->util) || o->util <= 0 || o->util > 1)
            return usage_error("sweep", "--util \"%s\": expected a duty cycle in (0, 1]", arg);
        return 0;
    default:   /* O_LIFE */
        if (parse_f64_strict(arg, &o->lifetime) || o->lifetime <= 0 || o->lifetime > life_max)
            return usage_error("sweep", "--lifetime \"%s\": expected a positive number of years, at most %g", arg,
                               life_max);
        return 0;
    }
}

/* Parses argv into a. Returns 0, EXIT_USAGE, or -1 after --help. */
static int parse_sweep_args(int argc, char **argv, struct sweep_args *a)
{
    static const struct option longopts[] = {
        { "models", required_argument, 0, 'm' }, { "workload", required_argument, 0, 'w' },
        { "chips", required_argument, 0, 'c' }, { "versions", required_argument, 0, 'c' }, { "num-chips", required_argument, 0, O_CHIPS },
        { "batch-sizes", required_argument, 0, 'b' }, { "seqlen", required_argument, 0, O_SEQLEN },
        { "out", required_argument, 0, 'o' }, { "configs", required_argument, 0, O_CONFIGS },
        { "profile", required_argument, 0, O_PROFILE }, { "skip-existing", no_argument, 0, O_SKIP },
        { "dry-run", no_argument, 0, O_DRY }, { "summary", required_argument, 0, O_SUMMARY },
        { "spec", required_argument, 0, O_SPEC }, { "shard", required_argument, 0, O_SHARD },
        { "jobs", required_argument, 0, 'j' }, { "pg", required_argument, 0, O_PG },
        { "dvfs", required_argument, 0, O_DVFS }, { "ci", required_argument, 0, O_CI },
        { "util", required_argument, 0, O_UTIL }, { "lifetime", required_argument, 0, O_LIFE },
        { "stats", no_argument, 0, O_STATS }, { "quiet", no_argument, 0, 'q' },
        { "dp", required_argument, 0, O_DP }, { "tp", required_argument, 0, O_TP },
        { "pp", required_argument, 0, O_PP }, { "ep", required_argument, 0, O_EP },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    struct sweep_opts *o = &a->o;
    o->prof = profile_default();
    a->jobs = sysconf(_SC_NPROCESSORS_ONLN);
    optind = 1;
    opterr = 0;
    int ch;
    cli_short_options(":hqj:m:c:b:o:w:");
    while ((ch = getopt_long(argc, argv, ":hqj:m:c:b:o:w:", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': fputs(sweep_help, stdout); return -1;
        case 'm': case O_MODELS: a->models = optarg; break;
        case 'w': case O_WORKLOAD: a->workload = optarg; break;
        case 'c': case O_VERSIONS: a->versions = optarg; break;
        case O_CHIPS: a->chips = optarg; break;
        case 'b': case O_BATCHES: a->batches = optarg; break;
        case O_SEQLEN: o->seqlen = optarg; break;
        case 'o': case O_OUT: o->out = optarg; break;
        case O_CONFIGS: a->configs = optarg; break;
        case O_SKIP: o->skip_existing = true; break;
        case O_DRY: o->dry_run = true; break;
        case O_SUMMARY: o->summary = optarg; break;
        case O_SPEC: a->spec_file = optarg; break;
        case O_SHARD: a->shard = optarg; break;
        case O_PG: o->pg_name = optarg; break;
        case O_DVFS: o->dvfs_name = optarg; break;
        case O_STATS: a->stats = true; break;
        case O_DP: case O_TP: case O_PP: case O_EP:
            if (parse_degrees(ch - O_DP, optarg, &a->degrees))
                return EXIT_USAGE;
            break;
        case 'q': a->quiet = true; break;
        case 'j':
            if (parse_jobs("sweep", optarg, &a->jobs))
                return EXIT_USAGE;
            break;
        case O_CI: case O_UTIL: case O_LIFE:
            if (parse_number_option(ch, optarg, o))
                return EXIT_USAGE;
            break;
        case O_PROFILE:
            if (!(o->prof = profile_by_name(optarg)))
                return usage_error("sweep", "unknown profile \"%s\" (known: %s)", optarg, profile_names());
            break;
        default: return bad_option("sweep", argv[optind - 1], longopts);   /* ':' too: a missing value */
        }
    }
    if (optind < argc)
        return usage_error("sweep", "unexpected argument \"%s\"", argv[optind]);
    if (a->jobs < 1)
        a->jobs = 1;
    return 0;
}

/* The models and chips of the plan: the command line wins over the spec. */
static int plan_names(struct sweep_args *a, struct sweep_plan *plan)
{
    const struct sweep_spec *spec = &a->spec;
    plan->nmodels = a->models ? a->lm.n : spec->models ? cJSON_GetArraySize(spec->models) : 0;
    plan->nchips = a->versions ? a->lv.n : spec->chips ? cJSON_GetArraySize(spec->chips) : 0;
    a->mnames = calloc((size_t)plan->nmodels + 1, sizeof *a->mnames);
    a->cnames = calloc((size_t)plan->nchips + 1, sizeof *a->cnames);
    a->cbuf = calloc((size_t)plan->nchips + 1, sizeof *a->cbuf);
    if (!a->mnames || !a->cnames || !a->cbuf)
        return usage_error("sweep", "out of memory");
    for (int i = 0; i < plan->nmodels; i++)
        a->mnames[i] = a->models ? a->lm.item[i] : cJSON_GetArrayItem(spec->models, i)->valuestring;
    for (int i = 0; i < plan->nchips; i++) {
        if (a->versions)
            snprintf(a->cbuf[i], sizeof a->cbuf[i], "%s", a->lv.item[i]);   /* "5p": tpuv5p (config.c) */
        a->cnames[i] = a->versions ? a->cbuf[i] : cJSON_GetArrayItem(spec->chips, i)->valuestring;
    }
    plan->models = a->mnames;
    plan->chips = a->cnames;
    if (!plan->nmodels || !plan->nchips || !plan->num_chips.count || !plan->batches.count)
        return usage_error("sweep", "--models, --versions, --num-chips and --batch-sizes are required "
                                    "(or models, chips, num_chips and batch_sizes in --spec)");
    return 0;
}

/* The plan from the spec file and the command line (which wins). 0 or a usage error. */
static int build_plan(struct sweep_args *a, struct sweep_plan *plan)
{
    struct npu_err e;
    if (a->spec_file && sweep_spec_load(a->spec_file, &a->spec, &e))
        return report_error("sweep", &e);
    const struct sweep_spec *spec = &a->spec;
    memset(plan, 0, sizeof *plan);
    plan->configs = a->configs;
    plan->workload = a->workload ? a->workload : spec->workload ? spec->workload : "inference";
    plan->spec_file = a->spec_file;
    plan->fields = spec->fields;
    plan->nfields = spec->nfields;
    plan->num_chips = spec->num_chips;
    plan->batches = spec->batches;
    plan->shard_n = 1;
    memcpy(plan->only, a->degrees.only, sizeof plan->only);
    memcpy(plan->nonly, a->degrees.nonly, sizeof plan->nonly);
    if (strcmp(plan->workload, "inference") != 0 && strcmp(plan->workload, "training") != 0)
        return usage_error("sweep", "--workload \"%s\": expected inference or training", plan->workload);
    const struct { const char *flag, *text; struct list *l; } lists[] = {
        { "--models", a->models, &a->lm }, { "--versions", a->versions, &a->lv },
        { "--num-chips", a->chips, &a->lc }, { "--batch-sizes", a->batches, &a->lb },
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (lists[i].text && list_split(lists[i].text, lists[i].l))
            return usage_error("sweep", "%s \"%s\": expected a comma-separated list of at most %d items, "
                               "none empty", lists[i].flag, lists[i].text, MAX_LIST);
    int bad;
    int64_t max_chips = sweep_int_max("num_chips"), max_batch = sweep_int_max("global_batch_size");
    if (a->chips && (bad = ints_from_list(&a->lc, max_chips, &a->jc, &plan->num_chips)))
        return usage_error("sweep", "--num-chips: \"%s\" is not a positive integer of at most %lld",
                           a->lc.item[bad - 1], (long long)max_chips);
    if (a->batches && (bad = ints_from_list(&a->lb, max_batch, &a->jb, &plan->batches)))
        return usage_error("sweep", "--batch-sizes: \"%s\" is not a positive integer of at most %lld",
                           a->lb.item[bad - 1], (long long)max_batch);
    if (plan_names(a, plan))
        return EXIT_USAGE;
    struct sweep_opts *o = &a->o;
    if (o->seqlen && parse_seqlen(o->seqlen, &o->seq_in, &o->seq_out))
        return usage_error("sweep", "--seqlen \"%s\": expected IN_OUT, e.g. 4096_512", o->seqlen);
    if (a->shard && parse_shard(a->shard, &plan->shard_k, &plan->shard_n))
        return usage_error("sweep", "--shard \"%s\": expected K/N with 1 <= K <= N", a->shard);
    return 0;
}

/* The shard this process runs: --shard, else one per MPI rank (its summary
 * to a per-rank file rank 0 merges), else the SLURM array task's. */
static int pick_shard(struct sweep_args *a, struct sweep_plan *plan, char *rank_summary, size_t n)
{
    int ranks = mpi_world_size();
    if (a->shard)
        return 0;
    if (ranks > 1) {
        plan->shard_k = mpi_world_rank();
        plan->shard_n = ranks;
        if (a->o.summary) {
            snprintf(rank_summary, n, "%s.rank%d", a->o.summary, mpi_world_rank());
            a->o.summary = rank_summary;
        }
        return 0;
    }
    if (slurm_shard(&plan->shard_k, &plan->shard_n) < 0)
        return usage_error("sweep", "SLURM_ARRAY_TASK_ID/_COUNT/_MIN/_STEP do not describe a task of the array");
    return 0;
}

/* The energy pass the summary rows use: NoPG and no DVFS unless --pg/--dvfs. */
static int pick_energy(struct sweep_args *a)
{
    struct sweep_opts *o = &a->o;
    struct npu_err e;
    pg_strategy_default(&o->pg);
    snprintf(o->pg.name, sizeof o->pg.name, "NoPG");
    o->dvfs = DVFS_NONE;
    if (!o->pg_name && !o->dvfs_name)
        return 0;
    o->custom_energy = true;
    if (pg_strategy_lookup(o->pg_name ? o->pg_name : "NoPG", a->configs, o->prof, &o->pg, &e) ||
        dvfs_policy_parse(o->dvfs_name ? o->dvfs_name : "None", &o->dvfs, &e))
        return report_error("sweep", &e);
    return 0;
}


/* Under mpirun: every rank learns whether any failed and the summed counts;
 * rank 0 merges the per-rank summaries into final_summary. Returns rc. */
static int mpi_finish(struct sweep_ctx *x, const char *final_summary, const char *rank_summary, int rc)
{
    int ranks = mpi_world_size();
    struct npu_err e;
    rc = mpi_world_max(rc);
    if (rc && final_summary)
        remove(rank_summary);   /* this rank's committed part: no partial output */
    x->cnt.simulated = mpi_world_sum(x->cnt.simulated);
    x->cnt.invalid = mpi_world_sum(x->cnt.invalid);
    x->cnt.existing = mpi_world_sum(x->cnt.existing);
    x->cnt.errors = mpi_world_sum(x->cnt.errors);
    x->violating = mpi_world_sum(x->violating);
    if (!rc && final_summary && x->want_row && mpi_world_rank() == 0) {
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
/* The closing lines on stderr: counts and the invariants warning. */
static void report_counts(const struct sweep_ctx *x)
{
    fprintf(stderr, "npusim sweep: %ld configurations simulated, %ld invalid, %ld already present",
            x->cnt.simulated, x->cnt.invalid, x->cnt.existing);
    if (x->cnt.errors)
        fprintf(stderr, ", %ld failed", x->cnt.errors);
    fputc('\n', stderr);
    if (!x->o->dry_run) {   /* where the results are: the tree and the summary file */
        struct output o[2];
        int n = 0;
        output_clear(o, 2);
        if (x->o->tree)
            snprintf(o[n++].path, sizeof o[0].path, "%s/", x->o->out);
        if (x->o->summary)
            snprintf(o[n++].path, sizeof o[0].path, "%s", x->o->summary);
        if (n)
            cli_print_wrote_to(stderr, "sweep", o, n);
    }
    if (x->want_row && x->carbon_note[0])
        fprintf(stderr, "npusim sweep: summary carbon columns: %s%s\n", x->carbon_note,
                x->carbon_varies ? " (the first row's; the spec's fields change them in others)" : "");
    /* Never silent (power/invariants.h); the example is rank 0's first. */
    if (x->violating)
        fprintf(stderr, "npusim sweep: warning: %ld of %ld simulated points violate a physical invariant%s%s\n",
                x->violating, x->cnt.simulated, x->first_warn[0] ? "; first: " : "", x->first_warn);
}

int cmd_sweep(int argc, char **argv) { return sweep_command(argc, argv, NULL); }

int sweep_command(int argc, char **argv, struct results *keep)
{
    struct sweep_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_sweep_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct sweep_opts *o = &a.o;
    struct sweep_plan plan;
    struct npu_err e;
    const char *final_summary = o->summary;
    char rank_summary[4200] = "";
    rc = build_plan(&a, &plan);
    if (!rc)
        rc = pick_shard(&a, &plan, rank_summary, sizeof rank_summary);
    if (!rc)
        rc = pick_energy(&a);
    /* Without --summary the results tree is the output (./results by default). */
    o->tree = o->out || !o->summary;
    if (!o->out)
        o->out = "results";
    o->fatal_errors = !o->summary;

    struct sweep_ctx x;
    memset(&x, 0, sizeof x);
    for (int pos = 0; pos < SWEEP_BUNDLE_MAX; pos++)
        x.held[pos] = STRBUF_GROWING;
    x.o = o;
    struct progress prog;
    x.progress = progress_hooks(&prog, "npusim sweep", a.quiet);
    x.want_row = o->summary && !o->dry_run;
    /* Summary rows only: a bundle shares one generated trace (sweep_points.h). */
    plan.bundle_max = x.want_row && !o->tree ? SWEEP_BUNDLE_MAX : 1;
    struct atomic_file af;
    memset(&af, 0, sizeof af);
    bool af_open = false;
    if (!rc && sweep_enum_init(&x.en, &plan, &e))
        rc = report_error("sweep", &e);
    /* Degrees no configuration has would answer with an empty summary. */
    bool filtered = a.degrees.nonly[0] || a.degrees.nonly[1] || a.degrees.nonly[2] || a.degrees.nonly[3];
    if (!rc && filtered && sweep_enum_total(&x.en) == 0)
        rc = usage_error("sweep", "--dp/--tp/--pp/--ep: no configuration of the sweep has the degrees given "
                                  "(without them the sweep lists the ones it has)");
    if (!rc && x.want_row) {
        clean_summary_temps(o->summary);
        if (open_summary(&x, &af, &a.spec, &e))
            rc = report_error("sweep", &e);
        else
            af_open = true;
    }
    struct made_dirs made = { 0 };
    int stage_lock = -1;
    /* SIGINT, SIGTERM: the runner stops between points, the staging folder
     * and the summary's temporary go, the tree keeps whole configurations. */
    interrupt_catch("sweep", false);
    x.cancel = interrupt_flag();
    if (!rc && o->tree && !o->dry_run && stage_tree(o, &made, &stage_lock, &e))
        rc = report_error("sweep", &e);
    o->sink = (struct output_sink){ .staged = o->stage[0] != '\0', .keep = o->tree && !o->dry_run ? keep : NULL };
    if (o->sink.keep)
        results_begin(keep, o->out, o->stage[0] ? o->stage : NULL);
    if (!rc && !x.failed)
        run_points(&x, &plan, a.jobs);
    int sig = *x.cancel;
    if (!rc && sig)
        rc = report_interrupt(&x, sig);
    else if (!rc && x.failed)
        rc = report_error("sweep", &x.err);
    drop_stage(o, &made, stage_lock, rc == 0 || x.published > 0);
    if (o->sink.keep && rc)
        results_clear(keep);   /* what the failed sweep kept was never published */
    if (af_open) {
        if (rc)
            atomic_abort(&af);
        else if (atomic_commit(&af, &e))
            rc = report_error("sweep", &e);
    }
    if (mpi_world_size() > 1 && !a.shard)
        rc = mpi_finish(&x, final_summary, o->summary, rc);
    if (!rc && mpi_world_rank() == 0)
        report_counts(&x);
    if (a.stats) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(stderr, "npusim sweep: peak RSS %ld KiB\n", ru.ru_maxrss);
    }
    interrupt_restore();
    sweep_ctx_free(&x);
    sweep_args_free(&a);
    return rc;
}
