/* cmd_validate.c — `npusim validate`: measured operators against npusim's
 * predictions on a chip, per operator type, number format and bound (the
 * work is calib/validate.h; this file reads flags, prints the summary and
 * writes the reports all together). No data structure of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "study/run/run.h"
#include "calib/runs.h"
#include "calib/validate.h"
#include "base/lists.h"
#include "base/strbuf.h"
#include "base/textfile.h"

static const char validate_help[] =
    "usage: npusim validate -c CHIP MEASUREMENTS... [--md F] [--csv F] [--json F] [--html F]\n"
    "                       [--roofline F.svg]\n"
    "                       [--max-mape P]\n"
    "                       [--set KEY=VALUE]... [--configs DIR] [--profile NAME]\n"
    "       npusim validate --runs RUNS [RUNS...] [--md F] [--csv F] [--json F] [--max-mape P]\n"
    "                       [--set KEY=VALUE]... [--configs DIR] [--profile NAME]\n"
    "\n"
    "Predicts every measured operator of the MEASUREMENTS files (CSV: a header naming op,\n"
    "dtype and time_us, and any of m, n, k, batch, heads, weight_dtype; other columns\n"
    "are carried; npusim op --help says what the sizes mean) on CHIP and prints the\n"
    "error per operator type: count, MAPE (mean absolute percentage error), bias (mean\n"
    "signed error: positive predicts slower), RMSE, and the worst operator; then the\n"
    "overall figures. The reports add the same per number format and per bound\n"
    "(compute, memory, vmem, interconnect), the median and max errors, the best\n"
    "operators and every row; they are written all together or not at all.\n"
    "\n"
    "With --runs, the files are measured end-to-end LLM inference runs instead (CSV: a\n"
    "header naming id, source, metric, measured, chip, model, batch, input_len and\n"
    "output_len, and any of tp, pp, ep, dp, weight_dtype, activation_dtype,\n"
    "kv_cache_dtype, sets, conditions; other columns are carried; docs/validation.md,\n"
    "\"End-to-end runs\"). Each row names its chip and model and is predicted as npusim\n"
    "run predicts it on one instance of tp x pp chips (no energy pass): metric ttft_ms,\n"
    "tpot_ms, decode_step_ms, e2e_latency_ms or throughput_tokens_per_s from its TTFT and\n"
    "TPOT. It prints every row (id, source, chip, model, metric, measured, predicted,\n"
    "error %), then the MAPE, median APE, max APE and bias per metric, per source, per\n"
    "chip and overall. A row that cannot be predicted (not an LLM inference model, a run\n"
    "that fails, out of memory) shows \"error: REASON\", is counted and left out of the\n"
    "figures.\n"
    "\n"
    "options:\n"
    "  -c, --chip NAME|PATH    chip config (default tpuv5p; not with --runs)\n"
    "      --runs FILE         the files are runs files (repeatable; the MEASUREMENTS\n"
    "                          given are runs files too)\n"
    "      --md FILE           markdown report\n"
    "      --html FILE         the same as one self-contained HTML page: each MAPE coloured\n"
    "                          (green within 10%, amber within 25%, red beyond), predicted\n"
    "                          against measured and the roofline as inline SVG\n"
    "      --csv FILE          the merged table: every input column, then predicted_us,\n"
    "                          error_pct, bound, ran_as, kernel_class, efficiency (with\n"
    "                          --runs: predicted, error_pct, error)\n"
    "      --json FILE         overall, by_op, by_dtype, by_bound (count, mape_pct,\n"
    "                          rmse_us, ...) and rows (with --runs: overall, by_metric,\n"
    "                          by_source, by_chip and rows)\n"
    "      --roofline FILE     the roofline with every row predicted and measured (SVG;\n"
    "                          npusim roofline --help), linked from the markdown report\n"
    "      --max-mape P        exit 1 when the overall MAPE is above P percent (a CI gate;\n"
    "                          with --runs also when no row could be predicted)\n"
    "      --set KEY=VALUE     override one chip field (repeatable; with --runs, a model or\n"
    "                          chip field of every row, after the row's own)\n"
    "      --configs DIR       where to look for configs first\n"
    "      --profile NAME      physical (default) or neusim\n"
    "  -h, --help              this help\n";

enum { O_MD = 1, O_CSV, O_JSON, O_MAX_MAPE, O_ROOFLINE, O_HTML, O_RUNS };


/* The markdown with a link to the roofline: its name alone when both sit in
 * one folder, else its path as given. */
static char *with_roofline(char *md, const char *md_path, const char *svg_path)
{
    if (!md)
        return NULL;
    const char *ms = strrchr(md_path, '/'), *ss = strrchr(svg_path, '/');
    size_t md_dir = ms ? (size_t)(ms - md_path) : 0, svg_dir = ss ? (size_t)(ss - svg_path) : 0;
    const char *link = md_dir == svg_dir && !strncmp(md_path, svg_path, md_dir) ? (ss ? ss + 1 : svg_path) : svg_path;
    struct strbuf b = STRBUF_GROWING;
    const char *nl = strstr(md, "\n\n");
    size_t head = nl ? (size_t)(nl - md) + 1 : strlen(md);
    strbuf_putn(&b, md, head);
    strbuf_printf(&b, "\n![roofline](%s)\n", link);
    strbuf_puts(&b, md + head);
    free(md);
    return b.s;
}

static void print_summary(const struct validation *v)
{
    printf("%-16s %6s %9s %9s %11s  %s\n", "op", "count", "MAPE %", "bias %", "RMSE us", "worst");
    for (int i = 0; i < v->n_op; i++) {
        const struct error_stats *s = &v->by_op[i].s;
        const struct validation_row *w = &v->rows[s->worst];
        printf("%-16s %6lld %9.2f %+9.2f %11.4g  line %d of %s (%+.1f%%)\n", v->by_op[i].name, (long long)s->count,
               s->mape_pct, s->bias_pct, s->rmse_us, w->in->line, w->file, w->error_pct);
    }
    const struct error_stats *o = &v->overall;
    printf("%-16s %6lld %9.2f %+9.2f %11.4g  (median APE %.2f%%, max %.2f%%)\n", "overall", (long long)o->count,
           o->mape_pct, o->bias_pct, o->rmse_us, o->median_ape_pct, o->max_ape_pct);
}

/* The reports asked for, in paths' order (md, csv, json, roofline, html):
 * their count, each out[i] holding its text. */
/* The JSON report's provenance: who made it, on which chip, from which
 * measurement files (names, never paths). */
static cJSON *validate_provenance(const struct profile *prof, const struct loaded_config *cfg,
                                  const char *const *files, int nfiles)
{
    cJSON *p = config_provenance(prof, NULL);
    if (!p)
        return NULL;
    cJSON_AddStringToObject(p, "chip", cfg->chip_name);
    cJSON *m = cJSON_AddArrayToObject(p, "measurements");
    for (int i = 0; i < nfiles; i++)
        cJSON_AddItemToArray(m, cJSON_CreateString(path_base(files[i])));
    return p;
}

static int report_outputs(const struct validation *v, const struct op_table *tables, const char *const *files,
                          int nfiles, const struct loaded_config *cfg, const struct profile *prof,
                          const char *const *paths, struct output *out)
{
    output_clear(out, 5);
    int n = 0;
    for (int i = 0; i < 5; i++) {
        if (!paths[i])
            continue;
        snprintf(out[n].path, sizeof out[n].path, "%s", paths[i]);
        if (i == 0)
            out[n].text = paths[3] ? with_roofline(validation_markdown(v, tables, nfiles), paths[0], paths[3])
                                   : validation_markdown(v, tables, nfiles);
        else if (i == 1)
            out[n].text = validation_csv(v, tables, nfiles);
        else if (i == 2) {
            cJSON *j = validation_json(v), *prov = validate_provenance(prof, cfg, files, nfiles);
            if (prov)
                cJSON_AddItemToObject(j, "provenance", prov);
            char *s = cJSON_Print(j);
            out[n].text = s ? strdup(s) : NULL;
            cJSON_free(s);
            cJSON_Delete(j);
        } else {
            char *svg = validation_roofline(v, &cfg->chip, cfg->chip_name);
            out[n].text = i == 3 ? svg : validation_html(v, svg);
            if (i == 4)
                free(svg);
        }
        n++;
    }
    return n;
}

/* ---- --runs: measured end-to-end runs (calib/runs.h) ---- */

static int run_width(const struct run_validation *v, enum run_col c, const char *title)
{
    size_t w = strlen(title);
    for (size_t i = 0; i < v->n; i++)
        if (strlen(run_cell(v->rows[i].in, c)) > w)
            w = strlen(run_cell(v->rows[i].in, c));
    return w > 40 ? 40 : (int)w;
}

static void print_run_group(const struct run_group *g, int w)
{
    const struct error_stats *s = &g->s;
    if (s->count)
        printf("%-*s %6lld %6lld %9.2f %13.2f %10.2f %+9.2f\n", w, g->name, (long long)s->count, (long long)g->errors,
               s->mape_pct, s->median_ape_pct, s->max_ape_pct, s->bias_pct);
    else
        printf("%-*s %6d %6lld %9s %13s %10s %9s\n", w, g->name, 0, (long long)g->errors, "-", "-", "-", "-");
}

/* One table of groups, its first column as wide as its longest name (a
 * source's name can be long); returns that width. */
static int print_run_groups(const char *title, const struct run_group *g, int n)
{
    int w = 24;
    for (int i = 0; i < n; i++)
        if ((int)strlen(g[i].name) > w)
            w = (int)strlen(g[i].name);
    printf("\n%-*s %6s %6s %9s %13s %10s %9s\n", w, title, "count", "errors", "MAPE %", "median APE %", "max APE %",
           "bias %");
    for (int i = 0; i < n; i++)
        print_run_group(&g[i], w);
    return w;
}

static void print_runs_summary(const struct run_validation *v)
{
    static const enum run_col cols[] = { RC_ID, RC_SOURCE, RC_CHIP, RC_MODEL, RC_METRIC };
    int w[5];
    for (int c = 0; c < 5; c++) {
        w[c] = run_width(v, cols[c], run_col_name[cols[c]]);
        printf("%-*s  ", w[c], run_col_name[cols[c]]);
    }
    printf("%12s %12s %9s\n", "measured", "predicted", "error %");
    for (size_t i = 0; i < v->n; i++) {
        const struct run_result *r = &v->rows[i];
        for (int c = 0; c < 5; c++)
            printf("%-*s  ", w[c], run_cell(r->in, cols[c]));
        if (r->ok)
            printf("%12.6g %12.6g %+9.2f\n", r->in->measured, r->predicted, r->error_pct);
        else
            printf("%12.6g   error: %s\n", r->in->measured, r->why);
    }
    print_run_groups("metric", v->by_metric, v->n_metric);
    print_run_groups("source", v->by_source, v->n_source);
    print_run_group(&v->overall, print_run_groups("chip", v->by_chip, v->n_chip));
}

/* The reports asked for (md, csv, json): their count, each out[i] its text. */
static int runs_outputs(const struct run_validation *v, const struct run_table *tables, const char *const *files,
                        int nfiles, const struct profile *prof, const char *const *paths, struct output *out)
{
    output_clear(out, 3);
    int n = 0;
    for (int i = 0; i < 3; i++) {
        if (!paths[i])
            continue;
        snprintf(out[n].path, sizeof out[n].path, "%s", paths[i]);
        if (i == 0)
            out[n].text = run_validation_markdown(v);
        else if (i == 1)
            out[n].text = run_validation_csv(v, tables, nfiles);
        else {
            cJSON *j = run_validation_json(v), *prov = config_provenance(prof, NULL);
            if (prov) {
                cJSON *m = cJSON_AddArrayToObject(prov, "runs");
                for (int f = 0; f < nfiles; f++)
                    cJSON_AddItemToArray(m, cJSON_CreateString(path_base(files[f])));
                cJSON_AddItemToObject(j, "provenance", prov);
            }
            char *s = cJSON_Print(j);
            out[n].text = s ? strdup(s) : NULL;
            cJSON_free(s);
            cJSON_Delete(j);
        }
        n++;
    }
    return n;
}

/* After the summary on stdout: the reports written (or freed when stdout
 * failed) and named; the exit status. */
static int write_reports(struct output *out, int n)
{
    struct npu_err e;
    int rc = stdout_flushed("validate");
    if (!rc && n && write_outputs(out, n, &e))
        rc = report_error("validate", &e);
    else if (!rc && n)
        cli_print_wrote("validate", out, n);
    else if (rc)
        for (int i = 0; i < n; i++)
            free(out[i].text);
    return rc;
}

/* --max-mape exceeded: says so; the exit status 1. */
static int mape_above(double mape_pct, double max_mape)
{
    fprintf(stderr, "npusim validate: MAPE %.2f%% is above --max-mape %g%%\n", mape_pct, max_mape);
    return 1;
}

/* Reads every runs file (nothing predicted when one is bad), predicts,
 * prints, then writes the reports all together. */
static int validate_runs(const struct common_opts *o, const char *const *files, int nfiles, const char *const *paths,
                         double max_mape)
{
    struct run_table *tables = calloc((size_t)nfiles, sizeof *tables);
    struct npu_err e;
    int rc = 0, nread = 0;
    if (!tables)
        rc = usage_error("validate", "out of memory");
    while (!rc && nread < nfiles && !(rc = run_table_read(files[nread], &tables[nread], &e) ? report_error("validate", &e) : 0))
        nread++;
    struct run_predict_opts po = { o->sh.configs, o->sh.sets, o->sh.nsets, o->sh.prof };
    struct run_validation v;
    memset(&v, 0, sizeof v);
    if (!rc && runs_validate(tables, nfiles, &po, &v, &e))
        rc = report_error("validate", &e);
    if (!rc) {
        struct output out[3];
        int n = runs_outputs(&v, tables, files, nfiles, o->sh.prof, paths, out);
        print_runs_summary(&v);
        rc = write_reports(out, n);
        if (!rc && max_mape >= 0 && (!v.overall.s.count || v.overall.s.mape_pct > max_mape)) {
            if (v.overall.s.count)
                mape_above(v.overall.s.mape_pct, max_mape);
            else
                fprintf(stderr, "npusim validate: no row could be predicted (--max-mape %g%%)\n", max_mape);
            rc = 1;
        }
    }
    run_validation_free(&v);
    for (int i = 0; i < nread; i++)
        run_table_free(&tables[i]);
    free(tables);
    return rc;
}

/* --runs: its options checked, the other files added to the runs files. */
static int validate_runs_args(const struct common_opts *o, const char **runs, int nruns, int argc, char **argv,
                              const char *const *paths, double max_mape)
{
    if (common_refuse("validate", o, "msbw", "each row of a runs file names its model, batch and lengths"))
        return EXIT_USAGE;
    if (o->chip)
        return usage_error("validate", "-c/--chip does not apply to --runs (each row of a runs file names its chip)");
    if (paths[3] || paths[4])
        return usage_error("validate", "--%s does not apply to --runs (it draws operators)", paths[3] ? "roofline" : "html");
    for (int i = optind; i < argc; i++)
        runs[nruns++] = argv[i];
    return validate_runs(o, runs, nruns, paths, max_mape);
}

int cmd_validate(int argc, char **argv)
{
    static const struct option longopts[] = {
        COMMON_LONGOPTS,
        { "md", required_argument, 0, O_MD }, { "csv", required_argument, 0, O_CSV },
        { "json", required_argument, 0, O_JSON }, { "max-mape", required_argument, 0, O_MAX_MAPE },
        { "roofline", required_argument, 0, O_ROOFLINE }, { "html", required_argument, 0, O_HTML },
        { "runs", required_argument, 0, O_RUNS },
        { 0, 0, 0, 0 },
    };
    struct common_opts o;
    common_opts_init(&o);
    const char *paths[5] = { NULL };   /* md, csv, json, roofline, html */
    double max_mape = -1;
    const char **runs = calloc((size_t)argc + 1, sizeof *runs);   /* --runs files, then the others */
    int nruns = 0;
    struct npu_err e;
    if (!runs)
        return usage_error("validate", "out of memory");
    int c, rc;
    optind = 1;
    opterr = 0;
    while ((c = command_opt("validate", validate_help, argc, argv, COMMON_SHORTOPTS, longopts, &o, &rc)) != -1) {
        if (c == OPT_EXIT) {
            free(runs);
            return rc;
        }
        switch (c) {
        case O_RUNS:
            runs[nruns++] = optarg;
            break;
        case O_MD: case O_CSV: case O_JSON: case O_ROOFLINE: case O_HTML:
            paths[c == O_HTML ? 4 : c == O_ROOFLINE ? 3 : c - O_MD] = optarg;
            break;
        case O_MAX_MAPE:
            if (parse_f64_strict(optarg, &max_mape) || max_mape < 0) {
                free(runs);
                return usage_error("validate", "--max-mape \"%s\": expected a percentage of 0 or more", optarg);
            }
            break;
        default:
            free(runs);
            return bad_option("validate", argv[optind - 1], longopts);
        }
    }
    if (nruns) {
        rc = validate_runs_args(&o, runs, nruns, argc, argv, paths, max_mape);
        free(runs);
        return rc;
    }
    free(runs);
    if (common_refuse("validate", &o, "msbw", "the operators and their sizes come from the measurement files"))
        return EXIT_USAGE;
    int nfiles = argc - optind;
    if (nfiles < 1)
        return usage_error("validate", "expected at least one MEASUREMENTS file");
    struct loaded_config cfg;
    if (load_common("validate", &o, false, &cfg, NULL))
        return EXIT_USAGE;
    const char **files = (const char **)(argv + optind);
    struct op_table *tables = NULL;
    rc = op_tables_read(files, nfiles, &tables, &e) ? report_error("validate", &e) : 0;
    struct validation v;
    memset(&v, 0, sizeof v);
    if (!rc && validate_run(tables, files, nfiles, &cfg.chip, cfg.chip_name, o.sh.prof, &v, &e))
        rc = report_error("validate", &e);
    if (!rc) {
        struct output out[5];
        int n = report_outputs(&v, tables, files, nfiles, &cfg, o.sh.prof, paths, out);
        print_summary(&v);
        rc = write_reports(out, n);
        if (!rc && max_mape >= 0 && v.overall.mape_pct > max_mape)
            rc = mape_above(v.overall.mape_pct, max_mape);
    }
    validation_free(&v);
    op_tables_free(tables, nfiles);
    config_free(&cfg);
    return rc;
}
