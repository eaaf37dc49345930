/* cmd_carbon.c — `npusim carbon`: the carbon and energy stage (power.md §8, §10).
 *
 * Reads every energy stats file of the requested models and versions under
 * --results (a raw_<dvfs> tree written by `npusim energy`), and for each carbon
 * intensity writes the file back with the deployment-level keys added:
 *   <parent of results>/carbon_<PG>/dvfs_<D>/CI<ci>/UTIL<u>/<model>/<pstr>/<file>
 * This file parses and checks the options; the stage is carbon_stage.c. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/lists.h"
#include "study/stages/carbon_stage.h"
#include "study/run/config.h"
#include "power/system.h"
#include "base/pyfmt.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "base/textfile.h"
#include "traces/profile.h"

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
    "                          script's 0.1352, 0.6 and 1; the command says which it used)\n"
    "      --configs DIR       where the system config is looked for first (chip data and PUE come\n"
    "                          from each file's sim_config)\n"
    "      --profile NAME      behaviour profile: physical (default) or neusim\n"
    "  -j, --jobs N            threads (default: all cores); outputs are identical for every N\n"
    "  -q, --quiet             no progress line (drawn only on a terminal anyway)\n"
    "  -h, --help              this help\n";

/* --ci: a comma list of carbon intensities >= 0, repeats dropped (the same
 * folder name CI<repr> means the same bits). 0 or a usage error. */
static int parse_ci_list(struct carbon_opts *o, const char *cis)
{
    char *item[MAX_ITEMS];
    o->bufs[2] = strdup(cis);
    int n = o->bufs[2] ? split_inplace(o->bufs[2], item, MAX_ITEMS) : -1;
    if (n <= 0)
        return usage_error("carbon", "--ci \"%s\": expected a comma list of carbon intensities", cis);
    o->nci = 0;
    for (int i = 0; i < n; i++) {
        double v;
        double hi = system_field_max("carbon_intensity_kgCO2_per_kWh");
        if (parse_f64_strict(item[i], &v) || v < 0 || v > hi)
            return usage_error("carbon", "--ci \"%s\": expected a carbon intensity from 0 to %g (kgCO2e/kWh)",
                               item[i], hi);
        bool dup = false;
        for (int k = 0; k < o->nci; k++)
            dup |= memcmp(&o->ci[k], &v, sizeof v) == 0;
        if (!dup)
            o->ci[o->nci++] = v;
    }
    return 0;
}

/* --lifetime: a comma list of positive whole years, repeats dropped (one
 * key, as in a Python dict). 0 or a usage error. */
static int parse_life_list(struct carbon_opts *o, const char *lifes)
{
    char *item[MAX_ITEMS];
    o->bufs[3] = strdup(lifes);
    int n = o->bufs[3] ? split_inplace(o->bufs[3], item, MAX_ITEMS) : -1;
    if (n <= 0)
        return usage_error("carbon", "--lifetime \"%s\": expected a comma list of years", lifes);
    o->nlife = 0;
    for (int i = 0; i < n; i++) {
        char *end;
        long long v = strtoll(item[i], &end, 10);
        double hi = system_field_max("lifetime_years");
        if (*end || end == item[i] || v <= 0 || (double)v > hi)
            return usage_error("carbon", "--lifetime \"%s\": expected a positive whole number of years, at most %g",
                               item[i], hi);
        bool dup = false;
        for (int k = 0; k < o->nlife; k++)
            dup |= o->life[k] == v;
        if (!dup)
            o->life[o->nlife++] = v;
    }
    return 0;
}

/* The intensity, duty cycle and lifetime not given as options: the system
 * config's (power/system.h, the one set of defaults), or under the profile
 * switch carbon_script_defaults the reference script's. said gets the line
 * naming the values used and where each came from. 0 or a usage error. */
static int take_defaults(struct carbon_opts *o, const char *configs, const struct profile *prof, const char *cis,
                         bool util_given, const char *lifes, char *said, size_t n)
{
    struct carbon_defaults cd = { { 0 }, { 0 } };
    struct loaded_config sys;
    struct npu_err e;
    struct config_request r = { configs, NULL, NULL, NULL, NULL, 0, false };
    /* Only looked for when a default is taken: a call that gives all three needs no system config. */
    bool need = !cis || !util_given || !lifes;
    if (need && config_load(&r, &sys, &e)) {
        config_free(&sys);
        return usage_error("carbon", "the system config (for the defaults of --ci, --util, --lifetime): %s", e.msg);
    }
    if (need) {
        carbon_defaults_of(&sys.sys, sys.sources, prof, true, &cd);
        if (!cis)
            o->ci[0] = cd.v[CD_CI], o->nci = 1;
        if (!util_given)
            o->util = cd.v[CD_DUTY];
        double life = cd.v[CD_LIFETIME];
        if (!lifes && life != floor(life)) {
            int rc = usage_error("carbon", "%s: field \"lifetime_years\" %g: carbon needs whole years; give "
                                 "--lifetime", cd.from[CD_LIFETIME], life);
            config_free(&sys);
            return rc;
        }
        if (!lifes)
            o->life[0] = (int64_t)life, o->nlife = 1;
    }
    /* The line: each value as the files' folders and keys name it. */
    char ci[256] = "", util[32], life[256] = "";
    for (int i = 0; i < o->nci; i++) {
        char one[40];
        py_repr_double(o->ci[i], one, sizeof one);
        snprintf(ci + strlen(ci), sizeof ci - strlen(ci), "%s%s", i ? "," : "", one);
    }
    carbon_default_text(o->util, util, sizeof util);
    for (int i = 0; i < o->nlife; i++)
        snprintf(life + strlen(life), sizeof life - strlen(life), "%s%lld", i ? "," : "", (long long)o->life[i]);
    const char *text[CD_N] = { ci, life, util, NULL };
    const char *from[CD_N] = { cis ? "--ci" : cd.from[CD_CI], lifes ? "--lifetime" : cd.from[CD_LIFETIME],
                               util_given ? "--util" : cd.from[CD_DUTY], "" };
    carbon_defaults_line(text, from, said, n);
    if (need)
        config_free(&sys);
    return 0;
}

int cmd_carbon(int argc, char **argv) { return carbon_command(argc, argv, NULL); }

/* --util: a duty cycle in (0, 1]; 0 or a bad value is refused with a message. */
static int parse_util(const char *arg, double *util)
{
    if (parse_f64_strict(arg, util) || *util < 0 || *util > 1)
        return usage_error("carbon", "--util \"%s\": expected a duty cycle in (0, 1]", arg);
    /* No work over the lifetime: carbon per unit of work is undefined
     * (the reference divides by zero). */
    if (*util == 0)
        return usage_error("carbon", "--util \"%s\": a duty cycle of 0 does no work, so carbon "
                                     "and energy per unit of work are undefined", arg);
    return 0;
}

int carbon_command(int argc, char **argv, struct results *in)
{
    static const struct option longopts[] = {
        { "results", required_argument, 0, 'R' }, { "models", required_argument, 0, 'm' },
        { "chips", required_argument, 0, 'c' }, { "versions", required_argument, 0, 'c' }, { "workload", required_argument, 0, 'w' },
        { "pg", required_argument, 0, 'G' },      { "dvfs", required_argument, 0, 'D' },
        { "ci", required_argument, 0, 'I' },      { "util", required_argument, 0, 'U' },
        { "lifetime", required_argument, 0, 'L' }, { "configs", required_argument, 0, 'C' },
        { "profile", required_argument, 0, 'P' }, { "jobs", required_argument, 0, 'j' },
        { "help", no_argument, 0, 'h' },         { "quiet", no_argument, 0, 'q' },
        { 0, 0, 0, 0 },
    };
    struct carbon_opts o;
    memset(&o, 0, sizeof o);
    o.in = in;
    o.workload = "inference";
    o.dvfs = "None";
    o.jobs = sysconf(_SC_NPROCESSORS_ONLN);
    const char *models = NULL, *versions = NULL, *cis = NULL, *lifes = NULL, *configs = NULL;
    const struct profile *prof = profile_default();
    int c, rc = 0;
    bool quiet = false, util_given = false;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hqj:m:c:w:", longopts, NULL)) != -1) {
        switch (c) {
        case 'R': o.results = optarg; break;
        case 'm': case 'M': models = optarg; break;
        case 'c': case 'V': versions = optarg; break;
        case 'w':
            if (strcmp(optarg, "inference") && strcmp(optarg, "training"))
                return usage_error("carbon", "--workload \"%s\": expected inference or training", optarg);
            o.workload = optarg;
            break;
        case 'G': o.pg = optarg; break;
        case 'D': o.dvfs = optarg; break;
        case 'I': cis = optarg; break;
        case 'U':
            if (parse_util(optarg, &o.util))
                return EXIT_USAGE;
            util_given = true;
            break;
        case 'L': lifes = optarg; break;
        case 'C': configs = optarg; break;
        case 'j':
            if (parse_jobs("carbon", optarg, &o.jobs))
                return EXIT_USAGE;
            break;
        case 'P':
            if (!(prof = profile_by_name(optarg)))
                return usage_error("carbon", "--profile \"%s\": unknown profile (known: %s)", optarg, profile_names());
            break;
        case 'h': fputs(carbon_help, stdout); return 0;
        case 'q': quiet = true; break;
        default: return bad_option("carbon", argv[optind - 1], longopts);
        }
    }
    if (optind < argc)
        return usage_error("carbon", "unexpected argument \"%s\"", argv[optind]);
    if (!o.results || !models || !versions || !o.pg)
        return usage_error("carbon", "--results, --models, --versions and --pg are required");
    if (!o.pg[0] || strchr(o.pg, '/') || !o.dvfs[0] || strchr(o.dvfs, '/'))
        return usage_error("carbon", "--pg / --dvfs: expected a strategy / policy name");
    o.bufs[0] = strdup(models), o.bufs[1] = strdup(versions);
    o.nmodels = split_inplace(o.bufs[0], o.models, MAX_ITEMS);
    o.nversions = split_inplace(o.bufs[1], o.versions, MAX_ITEMS);
    if (o.nmodels <= 0 || o.nversions <= 0)
        rc = usage_error("carbon", "--models / --versions: expected a comma list of at most %d names", MAX_ITEMS);
    /* A repeated name, or carbon intensity below, would name the same output
     * files twice: each is analysed and written once. */
    o.nmodels = drop_repeats(o.models, o.nmodels);
    o.nversions = drop_repeats(o.versions, o.nversions);
    if (!rc && cis)
        rc = parse_ci_list(&o, cis);
    if (!rc && lifes)
        rc = parse_life_list(&o, lifes);
    char said[2048] = "";
    if (!rc)
        rc = take_defaults(&o, configs, prof, cis, util_given, lifes, said, sizeof said);
    if (!rc && !path_is_dir(o.results))
        rc = usage_error("carbon", "--results \"%s\": no such folder", o.results);
    struct carbon_done done;
    struct npu_err e;
    struct progress prog;
    o.progress = progress_hooks(&prog, "npusim carbon", quiet);
    stage_progress_begin(&o.progress, 0);
    if (!rc && carbon_run(&o, &done, &e))
        rc = report_error("carbon", &e);
    stage_progress_end(&o.progress);
    if (!rc)
        fprintf(stderr, "npusim carbon: %s\nnpusim carbon: %d files written under %s/carbon_%s/dvfs_%s/\n", said,
                done.files, done.root, o.pg, o.dvfs);
    for (int i = 0; i < 4; i++)
        free(o.bufs[i]);
    return rc;
}
