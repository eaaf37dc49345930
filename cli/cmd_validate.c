/* cmd_validate.c — `npusim validate`: measured operators against npusim's
 * predictions on a chip, per operator type, number format and bound (the
 * work is calib/validate.h; this file reads flags, prints the summary and
 * writes the reports all together). No data structure of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "study/run/run.h"
#include "calib/validate.h"
#include "base/lists.h"
#include "base/strbuf.h"
#include "base/textfile.h"

static const char validate_help[] =
    "usage: npusim validate -c CHIP MEASUREMENTS... [--md F] [--csv F] [--json F] [--html F]\n"
    "                       [--roofline F.svg]\n"
    "                       [--max-mape P]\n"
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
    "options:\n"
    "  -c, --chip NAME|PATH    chip config (default tpuv5p)\n"
    "      --md FILE           markdown report\n"
    "      --html FILE         the same as one self-contained HTML page: each MAPE coloured\n"
    "                          (green within 10%, amber within 25%, red beyond), predicted\n"
    "                          against measured and the roofline as inline SVG\n"
    "      --csv FILE          the merged table: every input column, then predicted_us,\n"
    "                          error_pct, bound, ran_as, kernel_class, efficiency\n"
    "      --json FILE         overall, by_op, by_dtype, by_bound (count, mape_pct,\n"
    "                          rmse_us, ...) and rows\n"
    "      --roofline FILE     the roofline with every row predicted and measured (SVG;\n"
    "                          npusim roofline --help), linked from the markdown report\n"
    "      --max-mape P        exit 1 when the overall MAPE is above P percent (a CI gate)\n"
    "      --set KEY=VALUE     override one chip field (repeatable)\n"
    "      --configs DIR       where to look for configs first\n"
    "      --profile NAME      physical (default) or neusim\n"
    "  -h, --help              this help\n";

enum { O_MD = 1, O_CSV, O_JSON, O_MAX_MAPE, O_ROOFLINE, O_HTML };


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

int cmd_validate(int argc, char **argv)
{
    static const struct option longopts[] = {
        COMMON_LONGOPTS,
        { "md", required_argument, 0, O_MD }, { "csv", required_argument, 0, O_CSV },
        { "json", required_argument, 0, O_JSON }, { "max-mape", required_argument, 0, O_MAX_MAPE },
        { "roofline", required_argument, 0, O_ROOFLINE }, { "html", required_argument, 0, O_HTML },
        { 0, 0, 0, 0 },
    };
    struct common_opts o;
    common_opts_init(&o);
    const char *paths[5] = { NULL };   /* md, csv, json, roofline, html */
    double max_mape = -1;
    struct npu_err e;
    int c, rc;
    optind = 1;
    opterr = 0;
    while ((c = command_opt("validate", validate_help, argc, argv, COMMON_SHORTOPTS, longopts, &o, &rc)) != -1) {
        if (c == OPT_EXIT)
            return rc;
        switch (c) {
        case O_MD: case O_CSV: case O_JSON: case O_ROOFLINE: case O_HTML:
            paths[c == O_HTML ? 4 : c == O_ROOFLINE ? 3 : c - O_MD] = optarg;
            break;
        case O_MAX_MAPE:
            if (parse_f64_strict(optarg, &max_mape) || max_mape < 0)
                return usage_error("validate", "--max-mape \"%s\": expected a percentage of 0 or more", optarg);
            break;
        default: return bad_option("validate", argv[optind - 1], longopts);
        }
    }
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
        rc = stdout_flushed("validate");
        if (!rc && n && write_outputs(out, n, &e))
            rc = report_error("validate", &e);
        else if (!rc && n)
            cli_print_wrote("validate", out, n);
        else if (rc)
            for (int i = 0; i < n; i++)
                free(out[i].text);
        if (!rc && max_mape >= 0 && v.overall.mape_pct > max_mape) {
            fprintf(stderr, "npusim validate: MAPE %.2f%% is above --max-mape %g%%\n", v.overall.mape_pct, max_mape);
            rc = 1;
        }
    }
    validation_free(&v);
    op_tables_free(tables, nfiles);
    config_free(&cfg);
    return rc;
}
