/* cmd_slo.c — `npusim slo`: SLO-driven design-space selection (power.md §9,
 * §10), the options of the SLO stage (study/stages/slo_stage.h), which writes
 *   OUT/<model>/<workload>.json   or   OUT/<model>/<workload>-<prefill|decode>.json
 * A model the analysis cannot handle (unknown class, no results, no reference
 * configuration) is skipped with a warning; every other file is still
 * written, all together. A statistics file that does not read (or lacks the
 * energy a choice needs) and a version no model named has results for are
 * errors (exit 2, nothing written). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "base/textfile.h"
#include "study/stages/slo_stage.h"
#include "base/lists.h"

static const char slo_help[] =
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
    "      --default-slo-multiple K   the 1x SLO in units of the reference latency (default 1)\n"
    "      --configs DIR       accepted for symmetry (the results carry their configs)\n"
    "      --profile NAME      behaviour profile: physical (default) or neusim\n"
    "  -h, --help              this help\n";

#define MAX_ITEMS SLO_MAX_ITEMS

/* --results must be a folder holding at least one of the models: a tree
 * holding none is the wrong tree (or the wrong level of it), an error
 * before any analysis. A model missing among others is skipped with a
 * warning by the stage, as the reference does (a sweep whose points were
 * all invalid leaves no folder). */
static int check_results(const struct slo_opts *o)
{
    if (!path_is_dir(o->results))
        return usage_error("slo", "--results \"%s\": no such folder", o->results);
    char first_missing[4096] = "";
    for (int i = 0; i < o->nmodels; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", o->results, o->models[i]);
        if (path_is_dir(dir))
            return 0;
        if (!first_missing[0])
            snprintf(first_missing, sizeof first_missing, "%s", dir);
    }
    return usage_error("slo", "%s: no such folder: --results holds none of the models named "
                       "(expected the carbon stage's CI<ci>/UTIL<u> folder)", first_missing);
}

int cmd_slo(int argc, char **argv) { return slo_command(argc, argv, false); }

int slo_command(int argc, char **argv, bool in_suite)
{
    static const struct option longopts[] = {
        { "results", required_argument, 0, 'R' },  { "out", required_argument, 0, 'o' },
        { "models", required_argument, 0, 'm' },   { "chips", required_argument, 0, 'c' }, { "versions", required_argument, 0, 'c' },
        { "workload", required_argument, 0, 'w' }, { "slo-scales", required_argument, 0, 'S' },
        { "max-num-chips", required_argument, 0, 'X' }, { "default-slo-multiple", required_argument, 0, 'K' },
        { "configs", required_argument, 0, 'C' },  { "profile", required_argument, 0, 'P' },
        { "help", no_argument, 0, 'h' },           { 0, 0, 0, 0 },
    };
    struct slo_opts o;
    memset(&o, 0, sizeof o);
    o.workload = "inference";
    o.max_chips = INT_MAX;
    o.multiple = 1;
    o.prof = profile_default();
    o.suite = in_suite;
    for (int i = 0; i < 6; i++)
        o.scales[i] = i + 1;
    o.nscales = 6;
    const char *models = NULL, *versions = NULL, *scales = NULL;
    int c, rc = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:m:c:w:", longopts, NULL)) != -1) {
        switch (c) {
        case 'R': o.results = optarg; break;
        case 'o': o.out = optarg; break;
        case 'm': case 'M': models = optarg; break;
        case 'c': case 'V': versions = optarg; break;
        case 'w':
            if (strcmp(optarg, "inference") && strcmp(optarg, "training"))
                return usage_error("slo", "--workload \"%s\": expected inference or training", optarg);
            o.workload = optarg;
            break;
        case 'S': scales = optarg; break;
        case 'X':
            if (parse_i64_strict(optarg, &o.max_chips) || o.max_chips < 1)
                return usage_error("slo", "--max-num-chips \"%s\": expected a positive integer", optarg);
            break;
        case 'K':
            if (parse_i64_strict(optarg, &o.multiple) || o.multiple <= 0)
                return usage_error("slo", "--default-slo-multiple \"%s\": expected a positive integer", optarg);
            break;
        case 'C': break;
        case 'P':
            if (!(o.prof = profile_by_name(optarg)))
                return usage_error("slo", "--profile \"%s\": unknown profile (known: %s)", optarg, profile_names());
            break;
        case 'h': fputs(slo_help, stdout); return 0;
        default: return bad_option("slo", argv[optind - 1], longopts);
        }
    }
    if (optind < argc)
        return usage_error("slo", "unexpected argument \"%s\"", argv[optind]);
    if (!o.results || !o.out || !models || !versions)
        return usage_error("slo", "--results, --out, --models and --versions are required");
    o.bufs[0] = strdup(models), o.bufs[1] = strdup(versions);
    o.nmodels = split_inplace(o.bufs[0], o.models, MAX_ITEMS);
    o.nversions = split_inplace(o.bufs[1], o.versions, MAX_ITEMS);
    if (o.nmodels <= 0 || o.nversions <= 0)
        rc = usage_error("slo", "--models / --versions: expected a comma list of at most %d names", MAX_ITEMS);
    if (!rc && scales) {
        char *item[MAX_ITEMS];
        o.bufs[2] = strdup(scales);
        o.nscales = split_inplace(o.bufs[2], item, MAX_ITEMS);
        if (o.nscales <= 0)
            rc = usage_error("slo", "--slo-scales \"%s\": expected a comma list of integers", scales);
        for (int i = 0; i < o.nscales && !rc; i++)
            if (parse_i64_strict(item[i], &o.scales[i]) || o.scales[i] <= 0)
                rc = usage_error("slo", "--slo-scales \"%s\": expected a positive integer", item[i]);
    }
    if (!rc)
        rc = check_results(&o);
    struct slo_done done;
    struct npu_err e;
    if (!rc && slo_run(&o, &done, &e))
        rc = report_error("slo", &e);
    else if (!rc)
        fprintf(stderr, "npusim slo: %d of %d analyses written under %s\n", done.written, done.analyses, o.out);
    for (int i = 0; i < 3; i++)
        free(o.bufs[i]);
    return rc;
}
