/* cmd_calibrate.c — `npusim calibrate`: a chip's kernel efficiencies fitted
 * to measured operators (calib/calibrate.h), written as a chip config
 * usable wherever a chip is, with a report of what changed. No data
 * structure of its own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "calib/calibrate.h"
#include "calib/runs_fit.h"
#include "study/run/run.h"
#include "traces/precision.h"
#include "base/lists.h"
#include "base/strbuf.h"
#include "base/textfile.h"
#include "base/version.h"

static const char calibrate_help[] =
    "usage: npusim calibrate -c CHIP MEASUREMENTS... -o CALIBRATED.json [--report F.md]\n"
    "                        [--set KEY=VALUE]... [--configs DIR]\n"
    "       npusim calibrate --runs RUNS [RUNS...] [-o DIR] [--report F.md] [--json F]\n"
    "                        [--prior-weight W] [--set KEY=VALUE]... [--configs DIR]\n"
    "\n"
    "Fits the chip's efficiency per kernel class (gemm, gemv, attention, elementwise,\n"
    "activation, reduction, softmax, collective) and number format to the measured operators of the\n"
    "MEASUREMENTS files (npusim validate's format): t = t0 + t_roofline / e_format, one\n"
    "t0 per class, fitted jointly on relative residuals with GSL's robust regression;\n"
    "where it fits better, the saturating curve e n / (n + n_half) (n: the kernel's\n"
    "size) by GSL's nonlinear least squares; with few rows (fewer than formats + 2),\n"
    "e alone. Writes the chip with kernel_efficiency.<class>.<format>, .t0_ns and\n"
    ".n_half set as a chip config, and prints per group: rows, e, t0, n_half, the\n"
    "model, and the MAPE on those rows before and after; then\n"
    "the held-out MAPE per operator type of a seeded 5-fold cross-validation (each row\n"
    "predicted by the fit of the other folds), against the roofline's.\n"
    "Physical profile only (the reference's has no kernel efficiencies).\n"
    "\n"
    "With --runs, the files are measured end-to-end LLM inference runs (npusim validate\n"
    "--runs's format) and the fit is of what a roofline misses end to end: per group of\n"
    "chips sharing a die (h100 and h200), the GEMM efficiency per number format of the\n"
    "rows, one memory-bound efficiency (gemv, elementwise, activation, reduction,\n"
    "softmax), the attention efficiency, the collectives' bandwidth fraction\n"
    "(kernel_efficiency.collective.e_max), one collective step's latency over the\n"
    "links (ici_latency_ns) and the host time a sequence costs a pass\n"
    "(request_overhead_ns); over every chip, step_overhead_ns, layer_overhead_ns and\n"
    "kernel_launch_ns. GSL's nonlinear least squares on relative errors, every row\n"
    "predicted as validate --runs predicts it, each efficiency pulled to its prior\n"
    "from published kernel benchmarks (the chip's own where one was measured, else\n"
    "GEMM 0.75, memory-bound 0.85, attention 0.6, collective 0.75; docs/validation.md).\n"
    "Prints the parameters, the MAPE per metric before and after, a seeded 5-fold\n"
    "cross-validation and leave-one-source-out (each source predicted by the fit of\n"
    "the others); -o DIR writes DIR/CHIP.json, one calibrated chip config per chip of\n"
    "the rows.\n"
    "\n"
    "options:\n"
    "  -c, --chip NAME|PATH    chip config to start from (default tpuv5p)\n"
    "  -o, --out FILE          the calibrated chip config (JSON): npusim run -c FILE ...\n"
    "                          (--runs: a folder, one CHIP.json per chip)\n"
    "      --runs FILE         the files are runs files (repeatable)\n"
    "      --report FILE       the same table as markdown, with the sources\n"
    "      --json FILE         --runs: the parameters, figures and rows as JSON\n"
    "      --prior-weight W    --runs: the priors' weight, 0 to 10 (default 0.1: one prior\n"
    "                          standard deviation costs as much as a row 10%% off; 0: none)\n"
    "      --set KEY=VALUE     override one chip field first (repeatable)\n"
    "      --configs DIR       where to look for configs first\n"
    "      --profile NAME      physical (the default and the only one with kernel efficiencies)\n"
    "  -h, --help              this help\n";

enum { O_REPORT = 1, O_RUNS, O_JSON, O_PRIOR };

static void table(struct strbuf *b, const struct calib_fit *f, int n, bool md)
{
    strbuf_printf(b, md ? "| class | format | rows | e | t0 us | n_half | fit | MAPE before %% | MAPE after %% |\n"
                          "|---|---|---|---|---|---|---|---|---|\n"
                        : "%-14s %-9s %5s %7s %9s %9s %-10s %13s %12s\n",
                  "class", "format", "rows", "e", "t0 us", "n_half", "fit", "MAPE before %", "MAPE after %");
    for (int i = 0; i < n; i++) {
        const char *kc = kernel_class_name((enum kernel_class)f[i].kernel_class);
        const char *fmt = precision_info((enum precision)f[i].prec)->name;
        const char *how = f[i].clamped ? "clamped" : calib_model_name(f[i].model);
        strbuf_printf(b, md ? "| %s | %s | %d | %.4f | %.3f | %.3g | %s | %.2f | %.2f |\n"
                            : "%-14s %-9s %5d %7.4f %9.3f %9.3g %-10s %13.2f %12.2f\n",
                      kc, fmt, f[i].n, f[i].e, f[i].t0_ns / 1e3, f[i].n_half, how, f[i].mape_before, f[i].mape_after);
    }
}

/* The held-out errors: per operator type, then overall. */
static void cv_table(struct strbuf *b, const struct calib_cv *cv, bool md)
{
    if (!cv->folds) {
        strbuf_puts(b, md ? "\nToo few rows to cross-validate.\n" : "too few rows to cross-validate\n");
        return;
    }
    strbuf_printf(b, md ? "\n## Held out (%d x %d-fold cross-validation, seed %lu)\n\nEach row predicted by the fit "
                          "of the other folds, over %d shuffles.\n\n| op | rows | MAPE roofline %% | MAPE calibrated %% |\n"
                          "|---|---|---|---|\n"
                        : "held out (%d x %d-fold cross-validation, seed %lu, %d shuffles): MAPE roofline -> calibrated\n",
                  CALIB_CV_REPEATS, cv->folds, CALIB_CV_SEED, CALIB_CV_REPEATS);
    const char *row = md ? "| %s | %d | %.2f | %.2f |\n" : "  %-22s %5d rows %9.2f%% -> %.2f%%\n";
    for (int i = 0; i < cv->n_op; i++)
        strbuf_printf(b, row, cv->by_op[i].name, cv->by_op[i].n, cv->by_op[i].mape_before, cv->by_op[i].mape_after);
    /* an operator type measured in several formats: its rows together */
    for (int i = 0; i < cv->n_op; i++) {
        size_t len = strcspn(cv->by_op[i].name, " ");
        int n = 0, groups = 0;
        double before = 0, after = 0;
        bool first = true;
        for (int j = 0; j < cv->n_op; j++) {
            if (strncmp(cv->by_op[j].name, cv->by_op[i].name, len) || cv->by_op[j].name[len] != ' ')
                continue;
            first &= j >= i;
            groups++, n += cv->by_op[j].n;
            before += cv->by_op[j].mape_before * cv->by_op[j].n, after += cv->by_op[j].mape_after * cv->by_op[j].n;
        }
        if (first && groups > 1) {
            char name[48];
            snprintf(name, sizeof name, "%.*s (all formats)", (int)len, cv->by_op[i].name);
            strbuf_printf(b, row, name, n, before / n, after / n);
        }
    }
    strbuf_printf(b, row, "overall", cv->n, cv->mape_before, cv->mape_after);
}

/* ---- --runs: end-to-end runs (calib/runs_fit.h) ---- */

/* Who made the chips, from what: the files' names, the row ids (a range
 * when they do not fit) and the sources' first words. */
static void runs_source(char *out, size_t n, const struct runs_fit *f, const char *const *files, int nfiles)
{
    struct strbuf b = STRBUF_GROWING;
    strbuf_printf(&b, "npusim %s calibrate --runs of", NPUSIM_VERSION);
    for (int i = 0; i < nfiles; i++)
        strbuf_printf(&b, " %s", path_base(files[i]));
    size_t head = b.n;
    strbuf_printf(&b, ", %zu rows", f->n);
    for (size_t i = 0; i < f->n; i++)
        strbuf_printf(&b, "%s%s", i ? "," : " ", run_cell(f->rows[i].in, RC_ID));
    if (b.n > n / 2 && f->n) {
        b.n = head, b.s[head] = '\0';
        strbuf_printf(&b, ", %zu rows %s..%s", f->n, run_cell(f->rows[0].in, RC_ID),
                      run_cell(f->rows[f->n - 1].in, RC_ID));
    }
    /* the sources by name, or by their first words when the names do not fit */
    size_t ids = b.n;
    for (int words = 0; words < 2; words++) {
        b.n = ids, b.s[ids] = '\0';
        strbuf_puts(&b, "; sources");
        for (int s = 0; s < f->n_source; s++)
            strbuf_printf(&b, "%s %.*s", s ? "," : "", (int)(words ? strcspn(f->source[s].name, " ") : strlen(f->source[s].name)),
                          f->source[s].name);
        if (b.n < n)
            break;
    }
    snprintf(out, n, "%s", b.s ? b.s : "");
    free(b.s);
}

/* One calibrated chip config per chip of the rows: out[0..) from *n. */
static int runs_chips(const struct runs_fit *f, const struct common_opts *o, const char *dir, const char *const *files,
                      int nfiles, struct output *out, int *n, struct npu_err *e)
{
    for (int g = 0; g < f->ngroup; g++)
        for (int c = 0; c < f->group[g].nchips; c++) {
            char sets[96][128], path[1024], base[256];
            const char *ptr[96 + SHARED_MAX_SETS];
            int k = 0;
            for (int i = 0; i < o->sh.nsets; i++)
                ptr[k++] = o->sh.sets[i];
            int m = runs_fit_sets(f, g, sets, 96);
            for (int i = 0; i < m; i++)
                ptr[k++] = sets[i];
            run_config_name(f->group[g].table[c], f->group[g].chip[c], path, sizeof path);
            struct config_request q = { o->sh.configs, NULL, path, NULL, ptr, k, false };
            struct loaded_config cfg;
            if (config_load(&q, &cfg, e))
                return -1;
            runs_source(cfg.chip.calibration_source, sizeof cfg.chip.calibration_source, f, files, nfiles);
            cJSON *j = cJSON_CreateObject();
            fields_to_json(&chip_fields, &cfg.chip, j, true);
            char *text = cJSON_Print(j);
            cJSON_Delete(j);
            snprintf(base, sizeof base, "%s", path_base(f->group[g].chip[c]));
            size_t len = strlen(base);
            if (len > 5 && !strcmp(base + len - 5, ".json"))
                base[len - 5] = '\0';
            snprintf(out[*n].path, sizeof out[*n].path, "%s/%s.json", dir, base);
            out[(*n)++].text = text ? strdup(text) : NULL;
            cJSON_free(text);
            config_free(&cfg);
        }
    return 0;
}

static int calibrate_runs(const struct common_opts *o, const char *const *files, int nfiles, const char *dir,
                          const char *report, const char *json, double prior_weight)
{
    struct run_table *tables = calloc((size_t)nfiles, sizeof *tables);
    struct npu_err e;
    int rc = tables ? 0 : usage_error("calibrate", "out of memory"), nread = 0;
    while (!rc && nread < nfiles && !(rc = run_table_read(files[nread], &tables[nread], &e) ? report_error("calibrate", &e) : 0))
        nread++;
    struct runs_fit f;
    memset(&f, 0, sizeof f);
    struct runs_fit_opts fo = { { o->sh.configs, o->sh.sets, o->sh.nsets, o->sh.prof }, true, prior_weight };
    if (!rc && runs_fit_run(tables, nfiles, &fo, &f, &e))
        rc = report_error("calibrate", &e);
    struct output out[RUNS_FIT_GROUPS_MAX * RUNS_FIT_GROUP_CHIPS + 2];
    output_clear(out, (int)(sizeof out / sizeof out[0]));
    int n = 0;
    if (!rc && dir && runs_chips(&f, o, dir, files, nfiles, out, &n, &e))
        rc = report_error("calibrate", &e);
    if (!rc && report) {
        snprintf(out[n].path, sizeof out[n].path, "%s", report);
        out[n++].text = runs_fit_text(&f, true);
    }
    if (!rc && json) {
        cJSON *j = runs_fit_json(&f);
        char *t = cJSON_Print(j);
        snprintf(out[n].path, sizeof out[n].path, "%s", json);
        out[n++].text = t ? strdup(t) : NULL;
        cJSON_free(t);
        cJSON_Delete(j);
    }
    if (!rc) {
        char *t = runs_fit_text(&f, false);
        fputs(t ? t : "", stdout);
        free(t);
        rc = stdout_flushed("calibrate");
    }
    if (!rc && dir && mkdir(dir, 0777) && errno != EEXIST)
        rc = usage_error("calibrate", "%s: cannot make the folder: %s", dir, strerror(errno));
    if (!rc && n && write_outputs(out, n, &e))
        rc = report_error("calibrate", &e);
    else if (!rc && n)
        cli_print_wrote("calibrate", out, n);
    else
        for (int i = 0; i < n; i++)
            free(out[i].text);
    runs_fit_free(&f);
    for (int i = 0; i < nread; i++)
        run_table_free(&tables[i]);
    free(tables);
    return rc;
}

/* --runs: its options checked. */
static int calibrate_runs_args(const struct common_opts *o, const char *const *runs, int nruns, const char *dir,
                               const char *report, const char *json, double prior_weight)
{
    if (common_refuse("calibrate", o, "msbw", "each row of a runs file names its model, batch and lengths"))
        return EXIT_USAGE;
    if (o->chip)
        return usage_error("calibrate", "-c/--chip does not apply to --runs (each row of a runs file names its chip)");
    if (o->sh.prof->chip_precisions_ignored)
        return usage_error("calibrate", "--profile %s has no kernel efficiencies or host times to fit (use physical)",
                           o->sh.prof->name);
    return calibrate_runs(o, runs, nruns, dir, report, json, prior_weight);
}

/* The operators' calibration (the files are measurement files). */
static int calibrate_ops(struct common_opts *op, const char *out_path, const char *report, int argc, char **argv)
{
    struct common_opts o = *op;
    struct npu_err e;
    int rc;
    if (common_refuse("calibrate", &o, "msbw", "the operators and their sizes come from the measurement files"))
        return EXIT_USAGE;
    if (o.sh.prof->chip_precisions_ignored)
        return usage_error("calibrate", "--profile %s has no kernel efficiencies to fit (use physical)", o.sh.prof->name);
    if (!out_path)
        return usage_error("calibrate", "expected -o CALIBRATED.json");
    int nfiles = argc - optind;
    if (nfiles < 1)
        return usage_error("calibrate", "expected at least one MEASUREMENTS file");
    struct loaded_config cfg;
    if (load_common("calibrate", &o, false, &cfg, NULL))
        return EXIT_USAGE;
    const char **files = (const char **)(argv + optind);
    struct op_table *tables = NULL;
    rc = op_tables_read(files, nfiles, &tables, &e) ? report_error("calibrate", &e) : 0;
    struct calib_fit fits[CALIB_FITS_MAX];
    int nfits = 0;
    struct chip_config cal;
    struct calib_cv cv;
    if (!rc && calibrate_run(tables, files, nfiles, &cfg.chip, o.sh.prof, 0, &cal, fits, &nfits, &cv, &e))
        rc = report_error("calibrate", &e);
    if (!rc) {
        struct strbuf src = STRBUF_GROWING;
        /* Who made it, from what: names, never paths (provenance). */
        strbuf_printf(&src, "npusim %s calibrate (profile %s) of %s on", NPUSIM_VERSION, o.sh.prof->name, cfg.chip_name);
        for (int i = 0; i < nfiles && src.n < 200; i++)
            strbuf_printf(&src, " %s", path_base(files[i]));
        snprintf(cal.calibration_source, sizeof cal.calibration_source, "%s", src.s);
        free(src.s);
        cJSON *j = cJSON_CreateObject();
        fields_to_json(&chip_fields, &cal, j, true);
        char *text = cJSON_Print(j);
        cJSON_Delete(j);
        struct output out[2];
        output_clear(out, 2);
        snprintf(out[0].path, sizeof out[0].path, "%s", out_path);
        out[0].text = text ? strdup(text) : NULL;
        cJSON_free(text);
        int n = 1;
        struct strbuf b = STRBUF_GROWING;
        table(&b, fits, nfits, false);
        cv_table(&b, &cv, false);
        if (report) {
            struct strbuf m = STRBUF_GROWING;
            strbuf_printf(&m, "# Calibration of %s\n\nFrom:", cfg.chip_name);
            for (int i = 0; i < nfiles; i++)
                strbuf_printf(&m, " %s", files[i]);
            strbuf_puts(&m, "\n\nModel per kernel class: t = t0 + t_roofline / e_format (GSL robust regression on "
                            "relative residuals), or the saturating curve t0 + t_roofline / e_format (1 + n_half / n) "
                            "where it fits better (GSL nonlinear least squares); few rows: e alone. MAPE on the "
                            "rows fitted (in-sample).\n\n");
            table(&m, fits, nfits, true);
            cv_table(&m, &cv, true);
            snprintf(out[1].path, sizeof out[1].path, "%s", report);
            out[1].text = m.s;
            n = 2;
        }
        fputs(b.s ? b.s : "", stdout);
        free(b.s);
        rc = stdout_flushed("calibrate");
        if (!rc && write_outputs(out, n, &e))
            rc = report_error("calibrate", &e);
        else if (!rc) {
            cli_print_wrote("calibrate", out, n);
            /* what the file is for: a chip config wherever a chip is named */
            if (strcmp(out_path, "-"))
                printf("use it with: npusim run -c %s ... (or npusim validate -c %s, npusim op -c %s)\n",
                       out_path, out_path, out_path);
        } else
            for (int i = 0; i < n; i++)
                free(out[i].text);
    }
    op_tables_free(tables, nfiles);
    config_free(&cfg);
    return rc;
}

int cmd_calibrate(int argc, char **argv)
{
    static const struct option longopts[] = {
        COMMON_LONGOPTS, { "out", required_argument, 0, 'o' }, { "report", required_argument, 0, O_REPORT },
        { "runs", required_argument, 0, O_RUNS }, { "json", required_argument, 0, O_JSON },
        { "prior-weight", required_argument, 0, O_PRIOR }, { 0, 0, 0, 0 },
    };
    struct common_opts o;
    common_opts_init(&o);
    double prior_weight = RUNS_FIT_PRIOR_WEIGHT;
    const char *out_path = NULL, *report = NULL, *json = NULL;
    const char **runs = calloc((size_t)argc + 1, sizeof *runs);
    int nruns = 0;
    if (!runs)
        return usage_error("calibrate", "out of memory");
    int c, rc;
    optind = 1;
    opterr = 0;
    while ((c = command_opt("calibrate", calibrate_help, argc, argv, COMMON_SHORTOPTS "o:", longopts, &o, &rc)) != -1) {
        if (c == OPT_EXIT) {
            free(runs);
            return rc;
        }
        switch (c) {
        case 'o': out_path = optarg; break;
        case O_REPORT: report = optarg; break;
        case O_RUNS: runs[nruns++] = optarg; break;
        case O_JSON: json = optarg; break;
        case O_PRIOR:
            if (parse_f64_strict(optarg, &prior_weight) || !(prior_weight >= 0 && prior_weight <= 10)) {
                free(runs);
                return usage_error("calibrate", "--prior-weight: expected a number from 0 to 10, got \"%s\"", optarg);
            }
            break;
        default: free(runs); return bad_option("calibrate", argv[optind - 1], longopts);
        }
    }
    if (nruns) {
        for (int i = optind; i < argc; i++)
            runs[nruns++] = argv[i];
        rc = calibrate_runs_args(&o, runs, nruns, out_path, report, json, prior_weight);
        free(runs);
        return rc;
    }
    free(runs);
    if (json || prior_weight != RUNS_FIT_PRIOR_WEIGHT)
        return usage_error("calibrate", "%s goes with --runs", json ? "--json" : "--prior-weight");
    return calibrate_ops(&o, out_path, report, argc, argv);
}
