/* validate_html.c — a validation run as one self-contained HTML page
 * (`npusim validate --html`): the overall figures, the error tables per
 * operator type, number format and bound with every MAPE coloured (green
 * within 10%, amber within 25%, red beyond), predicted against measured,
 * the roofline, and every row. No data structure of its own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/validate.h"
#include "study/view/view.h"
#include "traces/precision.h"
#include "base/strbuf.h"

static const char style[] =
    "body{font-family:sans-serif;margin:2em auto;max-width:1100px;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
    "th:first-child,td:first-child{text-align:left}"
    ".good{background:#c8e6c9}.fair{background:#ffe0b2}.poor{background:#ffcdd2}"
    "footer{margin-top:3em;color:#777;font-size:.9em}";

/* The colour class of an absolute percentage error. */
static const char *grade(double ape) { return ape <= 10 ? "good" : ape <= 25 ? "fair" : "poor"; }

static void group_table(struct strbuf *b, const char *what, const struct error_group *g, int n)
{
    strbuf_printf(b, "<table class=\"errors\" data-group=\"%s\"><tr><th>%s</th><th>count</th><th>MAPE %%</th>"
                     "<th>bias %%</th><th>RMSE us</th><th>median APE %%</th><th>max APE %%</th></tr>\n",
                  what, what);
    for (int i = 0; i < n; i++) {
        const struct error_stats *s = &g[i].s;
        strbuf_puts(b, "<tr><td>");
        strbuf_xml(b, g[i].name);
        strbuf_printf(b, "</td><td>%lld</td><td class=\"%s\">%.2f</td><td>%+.2f</td><td>%.4g</td><td>%.2f</td>"
                         "<td>%.2f</td></tr>\n",
                      (long long)s->count, grade(s->mape_pct), s->mape_pct, s->bias_pct, s->rmse_us,
                      s->median_ape_pct, s->max_ape_pct);
    }
    strbuf_puts(b, "</table>\n");
}

char *validation_html(const struct validation *v, const char *roofline_svg)
{
    struct strbuf b = STRBUF_GROWING;
    double *meas = calloc(v->n + 1, sizeof *meas), *pred = calloc(v->n + 1, sizeof *pred);
    const char **group = calloc(v->n + 1, sizeof *group), **label = calloc(v->n + 1, sizeof *label);
    char (*lab)[96] = calloc(v->n + 1, sizeof *lab);
    if (!meas || !pred || !group || !label || !lab) {
        free(meas), free(pred), free(group), free(label), free(lab);
        return NULL;
    }
    for (size_t i = 0; i < v->n; i++) {
        const struct validation_row *r = &v->rows[i];
        meas[i] = r->in->r.measured_us, pred[i] = r->p.time_us, group[i] = r->in->r.op;
        snprintf(lab[i], sizeof lab[i], "%s line %d: %s %s", r->file, r->in->line, r->in->r.op,
                 precision_info((enum precision)r->in->r.prec)->name);
        label[i] = lab[i];
    }
    char title[200];
    snprintf(title, sizeof title, "Predicted against measured on %s", v->chip);
    struct scatter sc = { title, v->n, meas, pred, group, label, "us" };
    char *scatter = scatter_svg(&sc);
    strbuf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>npusim validate: ");
    strbuf_xml(&b, v->chip);
    strbuf_printf(&b, "</title><style>%s</style></head>\n<body>\n<h1>Validation on ", style);
    strbuf_xml(&b, v->chip);
    const struct error_stats *o = &v->overall;
    strbuf_printf(&b, "</h1>\n<p id=\"overall\" class=\"%s\">%lld operators: MAPE %.2f%%, bias %+.2f%%, RMSE %.4g us, "
                      "median APE %.2f%%, max %.2f%%.</p>\n<p>Cells: green within 10%%, amber within 25%%, red "
                      "beyond.</p>\n<h2>By operator type</h2>\n",
                  grade(o->mape_pct), (long long)o->count, o->mape_pct, o->bias_pct, o->rmse_us, o->median_ape_pct,
                  o->max_ape_pct);
    group_table(&b, "op", v->by_op, v->n_op);
    strbuf_puts(&b, "<h2>By number format</h2>\n");
    group_table(&b, "dtype", v->by_dtype, v->n_dtype);
    strbuf_puts(&b, "<h2>By bound</h2>\n");
    group_table(&b, "bound", v->by_bound, v->n_bound);
    strbuf_puts(&b, "<h2>Predicted against measured</h2>\n<figure>");
    strbuf_puts(&b, scatter ? scatter : "");
    strbuf_puts(&b, "</figure>\n");
    if (roofline_svg) {
        strbuf_puts(&b, "<h2>The roofline</h2>\n<figure>");
        strbuf_puts(&b, roofline_svg);
        strbuf_puts(&b, "</figure>\n");
    }
    strbuf_puts(&b, "<h2>Every row</h2>\n<table class=\"rows\"><tr><th>file:line</th><th>op</th><th>dtype</th>"
                    "<th>m</th><th>n</th><th>k</th><th>batch</th><th>measured us</th><th>predicted us</th>"
                    "<th>error %</th><th>bound</th></tr>\n");
    for (size_t i = 0; i < v->n; i++) {
        const struct validation_row *r = &v->rows[i];
        const struct op_request *q = &r->in->r;
        strbuf_puts(&b, "<tr><td>");
        strbuf_xml(&b, r->file);
        strbuf_printf(&b, ":%d</td><td>%s</td><td>%s</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td>"
                          "<td>%.4g</td><td>%.4g</td><td class=\"%s\">%+.1f</td><td>%s</td></tr>\n",
                      r->in->line, q->op, precision_info((enum precision)q->prec)->name, (long long)q->m,
                      (long long)q->n, (long long)q->k, (long long)q->batch, q->measured_us, r->p.time_us,
                      grade(fabs(r->error_pct)), r->error_pct, r->p.bound);
    }
    strbuf_puts(&b, "</table>\n<footer>Written by npusim validate --html; the figures are inline SVG.</footer>\n"
                    "</body></html>\n");
    free(scatter), free(meas), free(pred), free(group), free(label), free(lab);
    return b.s;
}

/* The roofline of the rows: each predicted and measured (study/view/roofline.h). */
char *validation_roofline(const struct validation *v, const struct chip_config *chip, const char *chip_name)
{
    struct roofline_point *p = calloc(2 * v->n + 1, sizeof *p);
    if (!p)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < v->n; i++) {
        const struct validation_row *r = &v->rows[i];
        if (r->p.flops <= 0 || r->p.bytes <= 0)
            continue;
        p[k++] = (struct roofline_point){ r->p.intensity, r->p.tflops, r->in->r.op, false, r->in->r.op };
        p[k++] = (struct roofline_point){ r->p.intensity, (double)r->p.flops / r->in->r.measured_us / 1e6,
                                          r->in->r.op, true, r->in->r.op };
    }
    char *svg = roofline_svg(chip, chip_name, p, k);
    free(p);
    return svg;
}
