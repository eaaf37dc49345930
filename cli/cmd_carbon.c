/* cmd_carbon.c — `npusim carbon`: the carbon and energy stage (power.md §8, §10).
 *
 * Reads every energy stats file of the requested models and versions under
 * --results (a raw_<dvfs> tree written by `npusim energy`), and for each carbon
 * intensity writes the file back with the deployment-level keys added:
 *   <parent of results>/carbon_<PG>/dvfs_<D>/CI<ci>/UTIL<u>/<model>/<pstr>/<file>
 * This file turns the options into a struct carbon_request and prints what
 * the stage (study/stages/carbon_stage.h, which holds the defaults, takes
 * the system config's and checks the values) did; carbon_command_run is
 * the entry for a request already made (npusim suite). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lists.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "study/stages/stages.h"

static const char carbon_help[] =
    "usage: npusim carbon --results DIR/raw_<dvfs> --models M[,M...] --versions V[,V...]\n"
    "                     --pg STRATEGY [--dvfs D] [--workload W] [--ci CI[,CI...]]\n"
    "                     [--util U] [--lifetime L[,L...]] [-j N] [--configs DIR] [--profile NAME]\n"
    "\n"
    "Adds idle/active/average/peak power, the energy shares and per-lifetime energy,\n"
    "carbon and efficiency figures (with and without embodied carbon) to every energy\n"
    "stats file <model>/<pstr>/<workload>-v<V>[_prefill|_decode].json under DIR/raw_<dvfs>,\n"
    "and writes them to DIR/carbon_<PG>/dvfs_<D>/CI<ci>/UTIL<u>/<model>/<pstr>/ (all of them or,\n"
    "on an error, none). A model, version or intensity named twice counts once.\n"
    "\n"
    "options:\n"
    "      --results DIR       energy results tree (from npusim energy)\n"
    "  -m, --models LIST       model names (folders under DIR)\n"
    "  -c, --chips LIST        chip versions (2,3,4,5e,5p,6e,6p; also --versions)\n"
    "  -w, --workload W        inference (default) or training\n"
    "      --pg NAME           power-gating strategy whose energy_stats are used (NoPG, Full, ...)\n"
    "      --dvfs NAME         DVFS policy; names the output folder only (default None)\n"
    "      --ci LIST           carbon intensities, kgCO2e/kWh, 0 to 100\n"
    "      --util U            duty cycle in (0, 1]\n"
    "      --lifetime LIST     lifetimes in whole years, 1 to 100\n"
    "                          (defaults of these three: the system config's carbon_intensity_kgCO2_per_kWh,\n"
    "                          duty_cycle and lifetime_years; under --profile neusim the reference\n"
    "                          script's 0.1352, 0.6 and 1; the command says which it used)\n";
/* Then the shared options' lines (cli/options.h) and -h. */
#define CARBON_SHARED (SHARED_CONFIGS | SHARED_PROFILE | SHARED_JOBS | SHARED_QUIET)

/* The command line's texts split, whose items the request borrows. */
struct carbon_lists {
    char *bufs[4];
    char *models[CARBON_MAX_ITEMS], *versions[CARBON_MAX_ITEMS];
};

/* --ci: a comma list of numbers into r (the stage checks the values; the
 * check runs here too, to name a value as spelt). 0 or a usage error. */
static int parse_ci_list(struct carbon_request *r, struct carbon_lists *l, const char *cis)
{
    char *item[CARBON_MAX_ITEMS];
    l->bufs[2] = strdup(cis);
    int n = l->bufs[2] ? split_inplace(l->bufs[2], item, CARBON_MAX_ITEMS) : -1;
    if (n <= 0)
        return usage_error("carbon", "--ci \"%s\": expected a comma list of carbon intensities", cis);
    struct npu_err e;
    for (int i = 0; i < n; i++) {
        double v;
        if (parse_f64_strict(item[i], &v))
            v = NAN;   /* not a number: the check's message */
        if (carbon_ci_check(v, item[i], &e))
            return usage_error("carbon", "%s", e.msg);
        r->ci_kgCO2e_per_kWh[i] = v;
    }
    r->nci = n;
    return 0;
}

/* --lifetime: a comma list of whole years into r. 0 or a usage error. */
static int parse_life_list(struct carbon_request *r, struct carbon_lists *l, const char *lifes)
{
    char *item[CARBON_MAX_ITEMS];
    l->bufs[3] = strdup(lifes);
    int n = l->bufs[3] ? split_inplace(l->bufs[3], item, CARBON_MAX_ITEMS) : -1;
    if (n <= 0)
        return usage_error("carbon", "--lifetime \"%s\": expected a comma list of years", lifes);
    struct npu_err e;
    for (int i = 0; i < n; i++) {
        char *end;
        long long v = strtoll(item[i], &end, 10);
        if (*end || end == item[i])
            v = 0;   /* not a whole number: the check's message */
        if (carbon_lifetime_check(v, item[i], &e))
            return usage_error("carbon", "%s", e.msg);
        r->lifetime_years[i] = v;
    }
    r->nlifetimes = n;
    return 0;
}

/* argv into r (over carbon_request_default) and sh: 0, 1 after -h (help
 * printed), or EXIT_USAGE after the message. */
static int parse_args(int argc, char **argv, struct carbon_request *r, struct shared_opts *sh,
                      struct carbon_lists *l)
{
    static const struct option longopts[] = {
        { "results", required_argument, 0, 'R' }, { "models", required_argument, 0, 'm' },
        { "chips", required_argument, 0, 'c' }, { "versions", required_argument, 0, 'c' }, { "workload", required_argument, 0, 'w' },
        { "pg", required_argument, 0, 'G' },      { "dvfs", required_argument, 0, 'D' },
        { "ci", required_argument, 0, 'I' },      { "util", required_argument, 0, 'U' },
        { "lifetime", required_argument, 0, 'L' }, SHARED_LONGOPT_CONFIGS,
        SHARED_LONGOPT_PROFILE, SHARED_LONGOPT_JOBS,
        { "help", no_argument, 0, 'h' },         SHARED_LONGOPT_QUIET,
        { 0, 0, 0, 0 },
    };
    const char *models = NULL, *versions = NULL, *cis = NULL, *lifes = NULL;
    struct npu_err e;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hqj:m:c:w:", longopts, NULL)) != -1) {
        int taken = shared_opt("carbon", CARBON_SHARED, sh, c, optarg);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case 'R': r->results = optarg; break;
        case 'm': models = optarg; break;
        case 'c': versions = optarg; break;
        case 'w': r->workload = optarg; break;
        case 'G': r->pg = optarg; break;
        case 'D': r->dvfs = optarg; break;
        case 'I': cis = optarg; break;
        case 'U':
            if (parse_f64_strict(optarg, &r->duty_cycle))
                r->duty_cycle = -1;   /* not a number: the check's message */
            if (carbon_duty_cycle_check(r->duty_cycle, optarg, &e))
                return usage_error("carbon", "%s", e.msg);
            break;
        case 'L': lifes = optarg; break;
        case 'h':
            fputs(carbon_help, stdout);
            shared_help(CARBON_SHARED, stdout);
            fputs("  -h, --help              this help\n", stdout);
            return 1;
        default: return bad_option("carbon", argv[optind - 1], longopts);
        }
    }
    if (optind < argc)
        return usage_error("carbon", "unexpected argument \"%s\"", argv[optind]);
    if (!r->results || !models || !versions || !r->pg)
        return usage_error("carbon", "--results, --models, --versions and --pg are required");
    l->bufs[0] = strdup(models), l->bufs[1] = strdup(versions);
    r->nmodels = l->bufs[0] ? split_inplace(l->bufs[0], l->models, CARBON_MAX_ITEMS) : -1;
    r->nversions = l->bufs[1] ? split_inplace(l->bufs[1], l->versions, CARBON_MAX_ITEMS) : -1;
    if (r->nmodels <= 0 || r->nversions <= 0)
        return usage_error("carbon", "--models / --versions: expected a comma list of at most %d names",
                           CARBON_MAX_ITEMS);
    r->models = (const char *const *)l->models, r->versions = (const char *const *)l->versions;
    if ((cis && parse_ci_list(r, l, cis)) || (lifes && parse_life_list(r, l, lifes)))
        return EXIT_USAGE;
    r->configs = sh->configs;
    r->prof = sh->prof;
    r->jobs = sh->jobs_given ? sh->jobs : 0;
    return 0;
}

int cmd_carbon(int argc, char **argv)
{
    struct carbon_request r = carbon_request_default();
    struct shared_opts sh;
    shared_opts_init(&sh);
    struct carbon_lists l;
    memset(&l, 0, sizeof l);
    int rc = parse_args(argc, argv, &r, &sh, &l);
    if (rc == 1) {
        rc = 0;
    } else if (rc == 0) {
        struct stage_io io = stage_io_none();
        struct progress prog;
        io.progress = progress_hooks(&prog, "npusim carbon", sh.quiet);
        rc = carbon_command_run(&r, &io);
    }
    for (int i = 0; i < 4; i++)
        free(l.bufs[i]);
    return rc;
}

int carbon_command_run(const struct carbon_request *r, const struct stage_io *io)
{
    struct carbon_done done;
    struct npu_err e;
    if (carbon_run(r, io, &done, &e))
        return done.request_error ? usage_error("carbon", "%s", e.msg) : report_error("carbon", &e);
    fprintf(stderr, "npusim carbon: %s\nnpusim carbon: %d files written under %s/carbon_%s/dvfs_%s/\n", done.said,
            done.files, done.root, r->pg, r->dvfs);
    return 0;
}
