/* cmd_slo.c — `npusim slo`: SLO-driven design-space selection (power.md §9,
 * §10). The command line made into the SLO stage's request
 * (study/stages/slo_stage.h), which writes
 *   OUT/<model>/<workload>.json   or   OUT/<model>/<workload>-<prefill|decode>.json
 * A model the analysis cannot handle (unknown class, no results, no reference
 * configuration) is skipped with a warning; every other file is still
 * written, all together. A statistics file that does not read (or lacks the
 * energy a choice needs) and a version no model named has results for are
 * errors (exit 2, nothing written). No data structure of its own: the
 * request, and the copies of the lists it points into. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lists.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "study/stages/stages.h"

static const char slo_usage[] =
    "usage: npusim slo --results DIR/carbon_<PG>/dvfs_<D>/CI<ci>/UTIL<u> --out OUT\n"
    "                  --models M[,M...] --versions V[,V...] [--workload W] [--slo-scales LIST]\n"
    "                  [--max-num-chips N] [--default-slo-multiple K] [--configs DIR] [--profile NAME]\n"
    "\n"
    "The SLO of a model is the best latency (TTFT, TPOT, step or request latency, or\n"
    "iteration time) of TPUv5p at the reference batch with the fewest chips, times K,\n"
    "times each scale. For every scale and version it reports the fewest chips meeting\n"
    "the SLO, the best throughput per chip, the best energy per unit of work and the\n"
    "best goodput per dollar, in OUT/<model>/<workload>[-<phase>].json. A model it\n"
    "cannot analyse is skipped with a warning; a statistics file that does not read,\n"
    "or a version none of the models has results for, is an error (exit 2).\n"
    "\n"
    "options:\n"
    "      --results DIR       carbon results tree (from npusim carbon)\n"
    "  -o, --out DIR           output folder\n"
    "  -m, --models LIST       model names\n"
    "  -c, --chips LIST        chip versions (2,3,4,5e,5p,6e,6p; also --versions)\n"
    "  -w, --workload W        inference (default: prefill, and decode for LLMs) or training\n"
    "      --slo-scales LIST   SLO multiples (default 1,2,3,4,5,6)\n"
    "      --max-num-chips N   ignore configurations with more chips (default 2147483647)\n"
    "      --default-slo-multiple K   the 1x SLO in units of the reference latency (default 1)\n";

/* The shared options slo takes: --configs is taken for symmetry (the
 * results carry their configs). */
#define SLO_SHARED (SHARED_CONFIGS | SHARED_PROFILE)

enum { SLO_RESULTS = 1000, SLO_SCALES, SLO_MAX_CHIPS, SLO_MULTIPLE };

int slo_command_run(const struct slo_request *r, const struct stage_io *io)
{
    struct npu_err e;
    if (slo_request_check(r, &e))
        return usage_error("slo", "%s", e.msg);
    struct slo_done done;
    if (slo_run(r, io, &done, &e))
        return report_error("slo", &e);
    fprintf(stderr, "npusim slo: %d of %d analyses written under %s\n", done.written, done.analyses, r->out_dir);
    return 0;
}

/* A comma list of names into list (its items point into *buf, a copy of
 * s): the count, or -1 for an empty item or more than SLO_MAX_ITEMS. */
static int split_names(const char *s, char **buf, const char **list)
{
    char *item[SLO_MAX_ITEMS];
    *buf = strdup(s);
    int n = *buf ? split_inplace(*buf, item, SLO_MAX_ITEMS) : -1;
    for (int i = 0; i < n; i++)
        list[i] = item[i];
    return n;
}

/* --slo-scales LIST into r's scales (their ranges are the stage's to check). */
static int parse_scales(const char *s, struct slo_request *r)
{
    char *buf = strdup(s), *item[SLO_MAX_ITEMS];
    int rc = 0;
    r->nscales = buf ? split_inplace(buf, item, SLO_MAX_ITEMS) : -1;
    if (r->nscales <= 0)
        rc = usage_error("slo", "--slo-scales \"%s\": expected a comma list of integers", s);
    for (int i = 0; i < r->nscales && !rc; i++)
        if (parse_i64_strict(item[i], &r->slo_scales[i]))
            rc = usage_error("slo", "--slo-scales \"%s\": expected a positive integer", item[i]);
    free(buf);
    return rc;
}

int cmd_slo(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "results", required_argument, 0, SLO_RESULTS },  { "out", required_argument, 0, 'o' },
        { "models", required_argument, 0, 'm' },   { "chips", required_argument, 0, 'c' }, { "versions", required_argument, 0, 'c' },
        { "workload", required_argument, 0, 'w' }, { "slo-scales", required_argument, 0, SLO_SCALES },
        { "max-num-chips", required_argument, 0, SLO_MAX_CHIPS }, { "default-slo-multiple", required_argument, 0, SLO_MULTIPLE },
        SHARED_LONGOPT_CONFIGS,                    SHARED_LONGOPT_PROFILE,
        { "help", no_argument, 0, 'h' },           { 0, 0, 0, 0 },
    };
    struct slo_request r = slo_request_default();
    struct shared_opts sh;
    shared_opts_init(&sh);
    const char *models = NULL, *versions = NULL, *scales = NULL;
    int c, rc = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:m:c:w:", longopts, NULL)) != -1) {
        int taken = shared_opt("slo", SLO_SHARED, &sh, c, optarg);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case SLO_RESULTS: r.results_dir = optarg; break;
        case 'o': r.out_dir = optarg; break;
        case 'm': models = optarg; break;
        case 'c': versions = optarg; break;
        case 'w': r.workload = optarg; break;
        case SLO_SCALES: scales = optarg; break;
        case SLO_MAX_CHIPS:
            if (parse_i64_strict(optarg, &r.max_num_chips))
                return usage_error("slo", "--max-num-chips \"%s\": expected a positive integer", optarg);
            break;
        case SLO_MULTIPLE:
            if (parse_i64_strict(optarg, &r.slo_multiple))
                return usage_error("slo", "--default-slo-multiple \"%s\": expected a positive integer", optarg);
            break;
        case 'h':
            fputs(slo_usage, stdout);
            shared_help(SLO_SHARED, stdout);
            fputs("  -h, --help              this help\n", stdout);
            return 0;
        default: return bad_option("slo", argv[optind - 1], longopts);
        }
    }
    if (optind < argc)
        return usage_error("slo", "unexpected argument \"%s\"", argv[optind]);
    r.configs = sh.configs;
    r.prof = sh.prof;
    char *bufs[2] = { NULL, NULL };
    if (models)
        r.nmodels = split_names(models, &bufs[0], r.models);
    if (versions)
        r.nversions = split_names(versions, &bufs[1], r.versions);
    if (scales && r.results_dir && r.out_dir && models && versions && r.nmodels > 0 && r.nversions > 0)
        rc = parse_scales(scales, &r);
    struct stage_io io = stage_io_none();
    if (!rc)
        rc = slo_command_run(&r, &io);
    free(bufs[0]);
    free(bufs[1]);
    return rc;
}
