/* cmd_energy.c — `npusim energy`: the reference's energy stage (power.md §7, §10).
 *
 * Walks a sweep's results tree (RESULTS/<model>/<pstr>/), and for every
 * statistics file of the requested versions and workload — LLM inference:
 * <workload>-v<V>_prefill and _decode; other families: the one <workload>-v<V>
 * (DLRM's per-chip and config files are not statistics files) — re-reads the
 * raw CSV, re-classifies the ops (§1.3), runs the per-op energy pass once per
 * power-gating strategy on a fresh copy, aggregates it (power/energy_stats.h)
 * and writes, under RESULTS_<dvfs>/ at the same relative place:
 *   <stem>_<strategy>.csv   one per strategy (the pass's per-op columns)
 *   <stem>.json             the input statistics plus energy_stats{strategy: ...}
 * The chip comes from the statistics' own sim_config, as in the reference.
 * This file turns the options into a struct energy_request and prints what
 * the stage (study/stages/energy_stage.h, which holds the defaults and the
 * checks) did; energy_command_run is the entry for a request already made
 * (npusim suite). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>

#include "base/lists.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "study/stages/stages.h"

static const char energy_help[] =
    "usage: npusim energy --results DIR --models M[,M...] --versions V[,V...]\n"
    "                     [--workload W] [--pg S[,S...]] [--dvfs D] [-j N] [--configs DIR] [--profile NAME]\n"
    "\n"
    "Per-operator energy for every configuration of a sweep's results tree DIR\n"
    "(npusim sweep --out DIR), once per power-gating strategy. For each\n"
    "DIR/<model>/<pstr>/<W>-v<V>[_prefill|_decode].json with its .csv it writes\n"
    "  DIR_<D>/<model>/<pstr>/<W>-v<V>[_phase]_<S>.csv   per-op energies, one per strategy\n"
    "  DIR_<D>/<model>/<pstr>/<W>-v<V>[_phase].json      the statistics plus energy_stats{S: ...}\n"
    "(e.g. results/raw -> results/raw_None). A model or version without results is\n"
    "reported and skipped; when none named has any, it is an error (exit 2).\n"
    "Statistics files are processed on N threads (-j, default:\n"
    "every core); the outputs are the same for every N.\n"
    "\n"
    "options:\n"
    "      --results DIR       the sweep's results tree (required)\n"
    "  -m, --models LIST       model folder names, e.g. llama3-8b,dlrm-s (required)\n"
    "  -c, --chips LIST        chip versions, e.g. 4,5p (required; also --versions)\n"
    "  -w, --workload W        inference (default) or training\n"
    "      --pg LIST           power-gating strategies, NoPG first (slowdowns are relative\n"
    "                          to it); default NoPG,Base,HW,Full,Ideal. Also\n"
    "                          <base>_vary_PG_delay_<k>, <base>_vary_Vth_<a>_<b> or a JSON file\n"
    "      --dvfs D            DVFS policy: None (default) or Ideal\n";
/* Then the shared options' lines (cli/options.h) and -h. */
#define ENERGY_SHARED (SHARED_CONFIGS | SHARED_PROFILE | SHARED_JOBS | SHARED_QUIET)

enum { O_RESULTS = 1000, O_MODELS, O_VERSIONS, O_PG, O_DVFS };

/* The command line's lists, whose items the request borrows. */
struct energy_lists {
    struct list models, versions, pgs;
};

/* argv into r (over energy_request_default) and sh: 0, 1 after -h (help
 * printed), or EXIT_USAGE after the message. Only text is turned into
 * values here; the stage checks them. */
static int parse_args(int argc, char **argv, struct energy_request *r, struct shared_opts *sh,
                      struct energy_lists *l)
{
    static const struct option longopts[] = {
        { "results", required_argument, 0, O_RESULTS }, { "models", required_argument, 0, 'm' },
        { "chips", required_argument, 0, 'c' }, { "versions", required_argument, 0, 'c' },
        { "workload", required_argument, 0, 'w' }, SHARED_LONGOPT_QUIET,
        { "pg", required_argument, 0, O_PG }, { "dvfs", required_argument, 0, O_DVFS },
        SHARED_LONGOPT_CONFIGS, SHARED_LONGOPT_PROFILE,
        SHARED_LONGOPT_JOBS, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    const char *models = NULL, *versions = NULL, *pgs = NULL;
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "hqj:m:c:w:", longopts, NULL)) != -1) {
        int taken = shared_opt("energy", ENERGY_SHARED, sh, ch, optarg);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken)
            continue;
        switch (ch) {
        case 'h':
            fputs(energy_help, stdout);
            shared_help(ENERGY_SHARED, stdout);
            fputs("  -h, --help              this help\n", stdout);
            return 1;
        case O_RESULTS: r->results = optarg; break;
        case 'm': case O_MODELS: models = optarg; break;
        case 'c': case O_VERSIONS: versions = optarg; break;
        case 'w': r->workload = optarg; break;
        case O_PG: pgs = optarg; break;
        case O_DVFS: r->dvfs = optarg; break;
        case ':': return usage_error("energy", "option %s needs a value", argv[optind - 1]);
        default: return bad_option("energy", argv[optind - 1], longopts);
        }
    }
    if (optind < argc)
        return usage_error("energy", "unexpected argument \"%s\"", argv[optind]);
    if (!r->results || !models || !versions)
        return usage_error("energy", "--results, --models and --versions are required");
    const struct { const char *flag, *text; struct list *l; } lists[] = {
        { "--models", models, &l->models }, { "--versions", versions, &l->versions }, { "--pg", pgs, &l->pgs },
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (lists[i].text && list_split(lists[i].text, lists[i].l))
            return usage_error("energy", "%s \"%s\": expected a comma-separated list of at most %d items, "
                               "none empty", lists[i].flag, lists[i].text, MAX_LIST);
    r->models = (const char *const *)l->models.item, r->nmodels = l->models.n;
    r->versions = (const char *const *)l->versions.item, r->nversions = l->versions.n;
    if (pgs)
        r->pgs = (const char *const *)l->pgs.item, r->npgs = l->pgs.n;
    r->configs = sh->configs;
    r->prof = sh->prof;
    r->jobs = sh->jobs_given ? sh->jobs : 0;
    return 0;
}

int cmd_energy(int argc, char **argv)
{
    struct energy_request r = energy_request_default();
    struct shared_opts sh;
    shared_opts_init(&sh);
    struct energy_lists l;
    memset(&l, 0, sizeof l);
    int rc = parse_args(argc, argv, &r, &sh, &l);
    if (rc == 1) {
        rc = 0;
    } else if (rc == 0) {
        struct stage_io io = stage_io_none();
        struct progress prog;
        io.progress = progress_hooks(&prog, "npusim energy", sh.quiet);
        rc = energy_command_run(&r, &io);
    }
    list_free(&l.models);
    list_free(&l.versions);
    list_free(&l.pgs);
    return rc;
}

/* Prints the lines of done->missing, each as a warning. */
static void print_missing(const char *text)
{
    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(stderr, "npusim energy: warning: %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

int energy_command_run(const struct energy_request *r, const struct stage_io *io)
{
    struct energy_done done;
    struct npu_err e;
    int failed = energy_run(r, io, &done, &e);
    bool suite = io && (io->in || io->suite);
    /* The models and versions without results, unless none has any: then
     * the error below says so alone. */
    if (done.missing && (failed || done.files || suite))
        print_missing(done.missing);
    free(done.missing);
    if (failed)
        return done.request_error ? usage_error("energy", "%s", e.msg) : report_error("energy", &e);
    /* Models named of which none has results: a typo or the wrong tree,
     * an error. In a suite the sweep lines before ran, so nothing to do
     * is theirs: they found no valid configuration (e.g. training points
     * that all run out of memory), and said so. */
    const struct profile *prof = r->prof ? r->prof : profile_default();
    bool warn_only = suite || prof->stage_without_results_warns;   /* the reference's scripts skip */
    if (done.nothing_found && !warn_only)
        return usage_error("energy", "no %s results for any model and version named under %s (expected "
                           "the results tree npusim sweep writes: <model>/<pstr>/%s-v<V>*.json)", r->workload,
                           r->results, r->workload);
    if (done.nothing_found)
        fprintf(stderr, "npusim energy: warning: no %s results for any requested model and version "
                        "under %s; nothing written\n", r->workload, r->results);
    else
        fprintf(stderr, "npusim energy: %zu statistics files x %d strategies written under %s\n", done.files,
                done.strategies, done.out_root);
    return 0;
}
