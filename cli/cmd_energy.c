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
 * This file parses and checks the options; the stage is energy_stage.c. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <getopt.h>

#include "base/lists.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "base/textfile.h"
#include "study/stages/energy_stage.h"
#include "study/stages/staging.h"
#include "power/pg.h"

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
    "      --dvfs D            DVFS policy: None (default) or Ideal\n"
    "      --configs DIR       where strategy files (pg/) are looked up first\n"
    "      --profile NAME      behaviour profile: physical (default) or neusim\n"
    "  -j, --jobs N            threads (default: all cores); outputs are identical for every N\n"
    "  -q, --quiet             no progress line (drawn only on a terminal anyway)\n"
    "  -h, --help              this help\n";

enum { O_RESULTS = 1000, O_MODELS, O_VERSIONS, O_PG, O_DVFS, O_CONFIGS, O_PROFILE, O_JOBS };

static int parse_args(int argc, char **argv, struct energy_opts *o)
{
    static const struct option longopts[] = {
        { "results", required_argument, 0, O_RESULTS }, { "models", required_argument, 0, 'm' },
        { "chips", required_argument, 0, 'c' }, { "versions", required_argument, 0, 'c' },
        { "workload", required_argument, 0, 'w' }, { "quiet", no_argument, 0, 'q' },
        { "pg", required_argument, 0, O_PG }, { "dvfs", required_argument, 0, O_DVFS },
        { "configs", required_argument, 0, O_CONFIGS }, { "profile", required_argument, 0, O_PROFILE },
        { "jobs", required_argument, 0, 'j' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    const char *models = NULL, *versions = NULL, *pgs = "NoPG,Base,HW,Full,Ideal";
    optind = 1;
    opterr = 0;
    int ch;
    o->jobs = sysconf(_SC_NPROCESSORS_ONLN);
    while ((ch = getopt_long(argc, argv, "hqj:m:c:w:", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': fputs(energy_help, stdout); return 1;
        case 'q': o->quiet = true; break;
        case O_RESULTS: o->results = optarg; break;
        case 'j':
            if (parse_jobs("energy", optarg, &o->jobs))
                return EXIT_USAGE;
            break;
        case 'm': case O_MODELS: models = optarg; break;
        case 'c': case O_VERSIONS: versions = optarg; break;
        case 'w': o->workload = optarg; break;
        case O_PG: pgs = optarg; break;
        case O_DVFS: o->dvfs_str = optarg; break;
        case O_CONFIGS: o->configs = optarg; break;
        case O_PROFILE:
            if (!(o->prof = profile_by_name(optarg)))
                return usage_error("energy", "unknown profile \"%s\" (known: %s)", optarg, profile_names());
            break;
        case ':': return usage_error("energy", "option %s needs a value", argv[optind - 1]);
        default: return bad_option("energy", argv[optind - 1], longopts);
        }
    }
    if (optind < argc)
        return usage_error("energy", "unexpected argument \"%s\"", argv[optind]);
    if (!o->results || !models || !versions)
        return usage_error("energy", "--results, --models and --versions are required");
    if (strcmp(o->workload, "inference") && strcmp(o->workload, "training"))
        return usage_error("energy", "--workload \"%s\": expected inference or training", o->workload);
    const struct { const char *flag, *text; struct list *l; } lists[] = {
        { "--models", models, &o->models }, { "--versions", versions, &o->versions }, { "--pg", pgs, &o->pgs },
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (list_split(lists[i].text, lists[i].l))
            return usage_error("energy", "%s \"%s\": expected a comma-separated list of at most %d items, "
                               "none empty", lists[i].flag, lists[i].text, MAX_LIST);
    if (o->pgs.n > MAX_PG)
        return usage_error("energy", "--pg: at most %d strategies", MAX_PG);
    /* Slowdowns divide by NoPG's time, so NoPG comes first (the reference
     * fails with a KeyError otherwise, quirk power Q22). */
    if (strcmp(o->pgs.item[0], "NoPG") != 0)
        return usage_error("energy", "--pg \"%s\": the first strategy must be NoPG (slowdowns are relative to it)",
                           pgs);
    struct npu_err e;
    for (int i = 0; i < o->pgs.n; i++) {
        for (int k = 0; k < i; k++)
            if (strcmp(o->pgs.item[k], o->pgs.item[i]) == 0)
                return usage_error("energy", "--pg: strategy \"%s\" is listed twice", o->pgs.item[i]);
        if (pg_strategy_lookup(o->pgs.item[i], o->configs, o->prof, &o->pg[i], &e))
            return usage_error("energy", "--pg: %s", e.msg);
    }
    if (dvfs_policy_parse(o->dvfs_str, &o->dvfs, &e))
        return usage_error("energy", "--dvfs: %s", e.msg);
    /* RESULTS/ -> RESULTS_<dvfs>, as the reference renames the results folder. */
    char res[4096];
    snprintf(res, sizeof res, "%s", o->results);
    for (size_t l = strlen(res); l > 1 && res[l - 1] == '/'; l--)
        res[l - 1] = '\0';
    const char *last = strrchr(res, '/');
    last = last ? last + 1 : res;
    if (!*last || !strcmp(last, ".") || !strcmp(last, ".."))
        return usage_error("energy", "--results \"%s\": name the results folder itself (its name gets the "
                                     "suffix _%s)", o->results, o->dvfs_str);
    if ((size_t)snprintf(o->out_root, sizeof o->out_root, "%s_%s", res, o->dvfs_str) >= sizeof o->out_root)
        return usage_error("energy", "--results: path too long");
    if (!path_is_dir(o->results)) {
        fprintf(stderr, "npusim energy: --results \"%s\": no such folder (run npusim sweep --out %s first)\n",
                o->results, o->results);
        return EXIT_USAGE;
    }
    return 0;
}

int cmd_energy(int argc, char **argv) { return energy_command(argc, argv, NULL, NULL); }

int energy_command(int argc, char **argv, struct results *in, struct results *out)
{
    struct energy_opts *o = calloc(1, sizeof *o);
    if (!o)
        return report_error("energy", &(struct npu_err){ "out of memory" });
    o->workload = "inference";
    o->dvfs_str = "None";
    o->prof = profile_default();
    o->in = in;
    o->out = out;
    o->missing = STRBUF_GROWING;
    int rc = parse_args(argc, argv, o);
    if (rc == 1)
        rc = 0;
    else if (rc == 0) {
        struct jobs js = { 0 };
        struct npu_err e;
        struct progress prog;
        o->progress = progress_hooks(&prog, "npusim energy", o->quiet);
        stage_progress_begin(&o->progress, 0);
        rc = energy_run_jobs(o, &js, &e);
        stage_progress_end(&o->progress);
        /* The models and versions without results, unless none has any:
         * then the error below says so alone. */
        if (o->missing.n && (rc || js.n || in))
            fwrite(o->missing.s, 1, o->missing.n, stderr);
        if (rc)
            rc = report_error("energy", &e);
        /* Models named of which none has results: a typo or the wrong tree,
         * an error. In a suite the sweep lines before ran, so nothing to do
         * is theirs: they found no valid configuration (e.g. training points
         * that all run out of memory), and said so. */
        bool warn_only = in || o->prof->stage_without_results_warns;   /* the reference's scripts skip */
        if (!rc && js.n == 0 && !warn_only)
            rc = usage_error("energy", "no %s results for any model and version named under %s (expected "
                             "the results tree npusim sweep writes: <model>/<pstr>/%s-v<V>*.json)", o->workload,
                             o->results, o->workload);
        else if (!rc && js.n == 0)
            fprintf(stderr, "npusim energy: warning: no %s results for any requested model and version "
                            "under %s; nothing written\n", o->workload, o->results);
        if (!rc && js.n > 0 && energy_commit(o, &e))
            rc = report_error("energy", &e);
        staging_remove(o->staging);
        if (!rc && js.n > 0)
            fprintf(stderr, "npusim energy: %zu statistics files x %d strategies written under %s\n", js.n,
                    o->pgs.n, o->out_root);
        free(js.j);
    }
    free(o->missing.s);
    list_free(&o->models);
    list_free(&o->versions);
    list_free(&o->pgs);
    free(o);
    return rc;
}
