/* cmd_roofline.c — `npusim roofline`: the chip's roofline as SVG, with the
 * operators of measurement files predicted (circles) and measured
 * (triangles). The drawing is study/view/roofline.h. No data structure of its
 * own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "calib/op_table.h"
#include "study/run/run.h"
#include "study/view/view.h"

static const char roofline_help[] =
    "usage: npusim roofline -c CHIP [MEASUREMENTS...] -o roofline.svg [--set KEY=VALUE]...\n"
    "\n"
    "Draws the chip's roofline on log-log axes (arithmetic intensity in FLOP per HBM\n"
    "byte against TFLOP/s): the HBM slope, a ceiling per number format its matrix units\n"
    "run, the vector units' fp32 ceiling and a dashed line per gemm efficiency below 1.\n"
    "With MEASUREMENTS (npusim validate's format), every operator is drawn twice,\n"
    "coloured by type: a circle where npusim predicts it, a triangle where it was\n"
    "measured (its FLOPs over its time_us; rows without one have the circle only).\n"
    "Operators without FLOPs or HBM traffic (collectives) are left out and counted.\n"
    "\n"
    "options:\n"
    "  -c, --chip NAME|PATH    chip config (default tpuv5p)\n"
    "  -o, --out FILE          the SVG\n"
    "      --set KEY=VALUE     override one chip field (repeatable)\n"
    "      --configs DIR       where to look for configs first\n"
    "      --profile NAME      physical (default) or neusim\n"
    "  -h, --help              this help\n";

/* The points of every row: predicted, and measured when timed. */
static int collect(const struct op_table *t, int n, const char *const *files, const struct loaded_config *c,
                   const struct profile *prof, struct roofline_point *p, char (*labels)[96], size_t *np,
                   int *skipped, struct npu_err *e)
{
    for (int i = 0; i < n; i++)
        for (size_t j = 0; j < t[i].n; j++) {
            const struct op_row *row = &t[i].rows[j];
            struct op_prediction pr;
            struct npu_err pe;
            if (op_predict(&row->r, &c->chip, prof, &pr, &pe))
                return npu_errf(e, "%s: line %d: %s", files[i], row->line, pe.msg);
            if (pr.flops <= 0 || pr.bytes <= 0) {
                (*skipped)++;
                continue;
            }
            size_t k = *np;
            snprintf(labels[k], 96, "%s line %d: %s", files[i], row->line, row->r.op);
            p[k] = (struct roofline_point){ pr.intensity, pr.tflops, row->r.op, false, labels[k] };
            *np = ++k;
            if (row->r.measured_us > 0) {
                snprintf(labels[k], 96, "%s line %d: %s, measured", files[i], row->line, row->r.op);
                p[k] = (struct roofline_point){ pr.intensity, (double)pr.flops / row->r.measured_us / 1e6,
                                                row->r.op, true, labels[k] };
                *np = k + 1;
            }
        }
    return 0;
}

int cmd_roofline(int argc, char **argv)
{
    static const struct option longopts[] = { COMMON_LONGOPTS, { "out", required_argument, 0, 'o' }, { 0, 0, 0, 0 } };
    struct common_opts o;
    common_opts_init(&o);
    const char *out_path = NULL;
    struct npu_err e;
    int c, rc;
    optind = 1;
    opterr = 0;
    while ((c = command_opt("roofline", roofline_help, argc, argv, COMMON_SHORTOPTS "o:", longopts, &o, &rc)) != -1) {
        if (c == OPT_EXIT)
            return rc;
        if (c != 'o')
            return bad_option("roofline", argv[optind - 1], longopts);
        out_path = optarg;
    }
    if (common_refuse("roofline", &o, "msbw", "the operators and their sizes come from the measurement files"))
        return EXIT_USAGE;
    if (!out_path)
        return usage_error("roofline", "expected -o roofline.svg");
    int nfiles = argc - optind;
    const char **files = (const char **)(argv + optind);
    struct loaded_config cfg;
    if (load_common("roofline", &o, false, &cfg, NULL))
        return EXIT_USAGE;
    struct op_table *tables = NULL;
    rc = op_tables_read(files, nfiles, &tables, &e) ? report_error("roofline", &e) : 0;
    size_t rows = 0;
    for (int i = 0; !rc && i < nfiles; i++)
        rows += tables[i].n;
    struct roofline_point *pts = calloc(2 * rows + 1, sizeof *pts);
    char (*labels)[96] = calloc(2 * rows + 1, sizeof *labels);
    size_t np = 0;
    int skipped = 0;
    if (!rc && (!pts || !labels))
        rc = report_error("roofline", &(struct npu_err){ "roofline: out of memory" });
    if (!rc && collect(tables, nfiles, files, &cfg, o.sh.prof, pts, labels, &np, &skipped, &e))
        rc = report_error("roofline", &e);
    if (!rc) {
        struct output out;
        output_clear(&out, 1);
        snprintf(out.path, sizeof out.path, "%s", out_path);
        out.text = roofline_svg(&cfg.chip, cfg.chip_name, pts, np);
        if (write_outputs(&out, 1, &e))
            rc = report_error("roofline", &e);
        else {
            cli_print_wrote("roofline", &out, 1);
            if (skipped)
                fprintf(stderr, "npusim roofline: %d operators without FLOPs or HBM traffic left out\n", skipped);
        }
    }
    free(labels);
    free(pts);
    op_tables_free(tables, nfiles);
    config_free(&cfg);
    return rc;
}
