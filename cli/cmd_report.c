/* cmd_report.c — `npusim report`: one configuration run and shown as a
 * self-contained HTML page (study/view/report_html.h), each figure also as its
 * own SVG. No data structure of its own. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "study/run/run.h"
#include "study/view/view.h"
#include "base/textfile.h"
#include "base/lists.h"

static const char report_help[] =
    "usage: npusim report [-m MODEL] [-c CHIP] [-s SYSTEM] [--set KEY=VALUE]... [--batch B] [--tp N]...\n"
    "                     -o REPORT.html [--svg-dir DIR] [--pg LIST|none] [--no-energy]\n"
    "       npusim report PATH... [--run TEXT] [-c CHIP] [--slo-tpot-ms MS] -o REPORT.html [--svg-dir DIR]\n"
    "       npusim report --sweep SUMMARY.csv [--slo-tpot-ms MS] -o REPORT.html [--svg-dir DIR]\n"
    "\n"
    "Runs one configuration as `npusim run` does and writes it as one HTML page that\n"
    "needs no network to view (inline SVG and CSS): the run's summary; time per\n"
    "operator type, a stacked bar per phase and its table; every operator on the\n"
    "chip's roofline, coloured by what bounds it; energy by component; and the\n"
    "energy of each power-gating strategy of --pg with its saving against the first.\n"
    "\n"
    "With PATHs (a run's output folder, a results tree of npusim sweep, the energy\n"
    "stage's tree, statistics JSONs or trace CSVs), nothing is simulated: the runs are\n"
    "read back from their files. One run gives the page above (the power-gating\n"
    "section from the strategy traces beside it, the chip from its statistics' sim_config\n"
    "or -c). Several give one page of them all: a table of every run, time per\n"
    "operator type per run, throughput against batch and the Pareto front of the LLM\n"
    "runs, and each run's energy per strategy where the traces are there. A serving\n"
    "run's folder (npusim serving -o DIR) gives its page: the summary, latency CDFs,\n"
    "tokens per pass and KV-cache use over time, energy per request and power gating\n"
    "against NoPG (figures latency_cdf, batch_over_time, kv_over_time, energy_cdf).\n"
    "\n"
    "options:\n" COMMON_HELP PARALLEL_HELP
    "  -o, --out FILE          the HTML page\n"
    "      --svg-dir DIR       each figure also as DIR/<name>.svg (time_by_op_type,\n"
    "                          roofline, energy_by_component, power_gating)\n"
    "      --pg LIST           strategies to compare (default NoPG,Base,HW,Full,Ideal;\n"
    "                          none: no comparison)\n"
    "      --no-energy         no energy pass: no energy sections\n"
    "      --sweep FILE        a sweep's summary (npusim sweep --summary) instead of one run:\n"
    "                          throughput per chip against batch, throughput against chips, and\n"
    "                          time per output token against throughput per chip with the Pareto\n"
    "                          front tabled (figures throughput_vs_batch, throughput_vs_chips, pareto);\n"
    "                          configurations that do not fit in memory are drawn hollow and\n"
    "                          left off the lines and the front\n"
    "      --slo-tpot-ms MS    the SLO line on time per output token; the front's rows meeting it\n"
    "                          green, the others red\n"
    "      --run TEXT          with PATHs: only the runs whose path under PATH contains TEXT\n"
    "                          (one left: its own page)\n";

enum { O_SVG_DIR = 1, O_PG, O_NO_ENERGY, O_SWEEP, O_SLO, O_RUN };

/* A page and its figures (each NULL or handed over), written all together
 * or not at all: the figures as svg_dir/<name>.svg when svg_dir is given. */
static int write_figures(char *html, char **fig, const char *const *names, int n_fig, const char *out,
                         const char *svg_dir, struct npu_err *e)
{
    struct output o[1 + 8];
    output_clear(o, 1 + 8);
    int n = 0;
    snprintf(o[n].path, sizeof o[n].path, "%s", out);
    o[n++].text = html;
    for (int f = 0; f < n_fig; f++)
        if (svg_dir && fig[f] && n < 1 + 8) {
            snprintf(o[n].path, sizeof o[n].path, "%s/%s.svg", svg_dir, names[f]);
            o[n++].text = fig[f];
        } else
            free(fig[f]);
    return write_outputs(o, n, e);
}

static int write_report(const struct report_input *in, const char *out, const char *svg_dir, struct npu_err *e)
{
    struct report_figures figs;
    char *html = report_html(in, &figs);
    if (!html) {
        report_figures_free(&figs);
        return npu_errf(e, "report: out of memory");
    }
    return write_figures(html, figs.svg, report_figure_name, FIG_COUNT, out, svg_dir, e);
}

/* --sweep: the summary's page and its figures, written all together. */
static int sweep_report(const char *path, double slo, const char *out_path, const char *svg_dir)
{
    struct npu_err e;
    size_t len;
    char *csv = text_read_file(path, &len, &e);
    if (!csv)
        return report_error("report", &e);
    char *fig[SWEEP_FIG_COUNT];
    char *html = sweep_report_html(path, csv, len, slo, fig, &e);
    free(csv);
    if (!html)
        return report_error("report", &e);
    if (write_figures(html, fig, sweep_figure_name, SWEEP_FIG_COUNT, out_path, svg_dir, &e))
        return report_error("report", &e);
    printf("npusim report: wrote %s\n", out_path);
    return 0;
}


/* A serving run's folder (npusim serving -o DIR): its page. */
static int serving_report(const char *dir, const char *out, const char *svg_dir)
{
    static const char *const files[3] = { "summary.json", "requests.csv", "iterations.csv" };
    char path[3][4200], *text[3] = { NULL, NULL, NULL };
    size_t len[3] = { 0, 0, 0 };
    struct npu_err e;
    int rc = 0;
    for (int i = 0; i < 3 && !rc; i++) {
        snprintf(path[i], sizeof path[i], "%s/%s", dir, files[i]);
        rc = !(text[i] = text_read_file(path[i], &len[i], &e));
    }
    char *fig[SERVING_FIG_COUNT] = { 0 }, *html = NULL;
    if (!rc)
        rc = !(html = serving_report_html(dir, text[0], len[0], path[0], text[1], len[1], path[1], text[2], len[2],
                                          path[2], fig, &e));
    for (int i = 0; i < 3; i++)
        free(text[i]);
    if (!rc)
        rc = write_figures(html, fig, serving_figure_name, SERVING_FIG_COUNT, out, svg_dir, &e);
    if (rc)
        return report_error("report", &e);
    printf("npusim report: wrote %s%s%s\n", out, svg_dir ? " and the figures in " : "", svg_dir ? svg_dir : "");
    return 0;
}

/* Whether --tp, --dp, --pp, --ep or --seqlen was given: the sets common_opt
 * made for them (cli.h made_sets). */
static bool degrees_given(const struct common_opts *o)
{
    for (int i = 0; i < o->sh.nsets; i++)
        if (o->sh.sets[i] == o->made_sets[i])
            return true;
    return false;
}

/* PATHs: runs read back from their files, one run's page or the page of many. */
static int files_report(const char *const *paths, int n, const char *run, const struct common_opts *o, double slo,
                        const char *out, const char *svg_dir)
{
    struct npu_err e;
    struct found_runs f;
    struct loaded_config cfg;
    bool chip = o->chip != NULL;
    if (chip && load_common("report", o, false, &cfg, NULL))
        return EXIT_USAGE;
    int rc = runs_find(paths, n, &f, &e);
    if (!rc && run) {
        if (!runs_select(&f, run))
            rc = npu_errf(&e, "--run \"%s\": no run's path contains it", run);
    }
    if (!rc && f.n == 1) {
        struct report_run r;
        report_run_init(&r);
        rc = report_run_from_files(&f.r[0], chip ? &cfg.chip : NULL, chip ? cfg.chip_name : NULL, &r, &e) ||
             write_report(&r.in, out, svg_dir, &e);
        report_run_free(&r);
    } else if (!rc) {
        char title[600], *fig[TREE_FIG_COUNT];
        snprintf(title, sizeof title, "%zu runs under %s%s", f.n, paths[0], n > 1 ? " and more" : "");
        char *html = report_tree_html(title, &f, chip ? &cfg.chip : NULL, chip ? cfg.chip_name : NULL, slo, fig, &e);
        rc = !html || write_figures(html, fig, report_tree_figure_name, TREE_FIG_COUNT, out, svg_dir, &e);
    }
    runs_free(&f);
    if (chip)
        config_free(&cfg);
    if (rc)
        return report_error("report", &e);
    printf("npusim report: wrote %s%s%s\n", out, svg_dir ? " and the figures in " : "", svg_dir ? svg_dir : "");
    return 0;
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        COMMON_LONGOPTS, PARALLEL_LONGOPTS, { "out", required_argument, 0, 'o' }, { "svg-dir", required_argument, 0, O_SVG_DIR },
        { "pg", required_argument, 0, O_PG }, { "no-energy", no_argument, 0, O_NO_ENERGY },
        { "sweep", required_argument, 0, O_SWEEP }, { "slo-tpot-ms", required_argument, 0, O_SLO },
        { "run", required_argument, 0, O_RUN }, { 0, 0, 0, 0 },
    };
    struct common_opts o;
    common_opts_init(&o);
    const char *out = NULL, *svg_dir = NULL, *pg = "NoPG,Base,HW,Full,Ideal", *sweep = NULL, *run = NULL;
    double slo = 0;
    bool no_energy = false;
    struct npu_err e;
    int c, rc;
    optind = 1;
    opterr = 0;
    while ((c = command_opt("report", report_help, argc, argv, COMMON_SHORTOPTS "o:", longopts, &o, &rc)) != -1) {
        if (c == OPT_EXIT)
            return rc;
        switch (c) {
        case 'o': out = optarg; break;
        case O_SVG_DIR: svg_dir = optarg; break;
        case O_PG: pg = optarg; break;
        case O_NO_ENERGY: no_energy = true; break;
        case O_SWEEP: sweep = optarg; break;
        case O_RUN: run = optarg; break;
        case O_SLO:
            if (parse_f64_strict(optarg, &slo) || !(slo > 0))
                return usage_error("report", "--slo-tpot-ms \"%s\": expected milliseconds above 0", optarg);
            break;
        default: return bad_option("report", argv[optind - 1], longopts);
        }
    }
    if (!out)
        return usage_error("report", "expected -o REPORT.html");
    if (optind < argc && (sweep || o.model))
        return usage_error("report", "\"%s\": PATHs read runs back; they go without %s", argv[optind],
                           sweep ? "--sweep" : "-m");
    if (run && optind == argc)
        return usage_error("report", "--run: expected PATHs to choose runs from");
    /* What reads results back takes no configuration of a run to simulate:
     * report PATH --tp 2 drew the runs as they were, silently. */
    if (sweep && (o.sh.nsets || o.chip || o.system || o.batch))
        return usage_error("report", "--sweep reads a summary back: -c, -s, --batch, --set, --tp, --dp, --pp, --ep "
                                     "and --seqlen configure the run report -m simulates");
    if (optind < argc && degrees_given(&o))
        return usage_error("report", "PATHs read runs back: --tp, --dp, --pp, --ep and --seqlen configure the run "
                                     "report -m simulates");
    if (sweep)
        return sweep_report(sweep, slo, out, svg_dir);
    if (optind + 1 == argc && serving_dir_is(argv[optind]) && !run)
        return serving_report(argv[optind], out, svg_dir);
    if (optind < argc)
        return files_report((const char *const *)argv + optind, argc - optind, run, &o, slo, out, svg_dir);
    struct loaded_config cfg;
    const struct family *fam;
    if (load_common("report", &o, true, &cfg, &fam))
        return EXIT_USAGE;
    struct report_run sim;
    report_run_init(&sim);
    rc = 0;
    if (report_run_simulate(fam, &cfg, o.sh.prof, !no_energy, pg, o.sh.configs, &sim, &e) ||
        write_report(&sim.in, out, svg_dir, &e))
        rc = report_error("report", &e);
    else
        printf("npusim report: wrote %s%s%s\n", out, svg_dir ? " and the figures in " : "", svg_dir ? svg_dir : "");
    report_run_free(&sim);
    config_free(&cfg);
    return rc;
}
