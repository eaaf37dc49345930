/* roofline.c — the roofline SVG (see roofline.h). */
#include "study/view/roofline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/precision.h"
#include "study/view/chart.h"
#include "base/strbuf.h"

/* Plot area in SVG units. */
enum { WIDTH = 900, HEIGHT = 560, LEFT = 80, TOP = 50, PLOT_W = 600, PLOT_H = 440 };

/* A ceiling: its throughput and label ("matrix bf16, fp16"), drawn as a line
 * at once and labelled once all are known (labels are placed together). */
struct ceiling {
    double peak;
    char name[160];
};
enum { CEILINGS_MAX = 2 * PREC_COUNT + 2 };

struct axes {
    double lx0, lx1, ly0, ly1;   /* log10 of the ends: x whole decades, y up to a nice ceiling */
};

static double px(const struct axes *a, double x) { return LEFT + (log10(x) - a->lx0) / (a->lx1 - a->lx0) * PLOT_W; }
static double py(const struct axes *a, double y) { return TOP + PLOT_H - (log10(y) - a->ly0) / (a->ly1 - a->ly0) * PLOT_H; }


/* A ceiling at peak from where the memory slope meets it to the right edge;
 * its label joins cl[] (or the label of an equal ceiling already there). */
static void ceiling(struct strbuf *b, const struct axes *a, double peak, double bw_TBps, const char *name,
                    const char *style, struct ceiling *cl, size_t *ncl)
{
    double ridge = peak / bw_TBps, x1 = pow(10, a->lx1);
    if (ridge >= x1 || !(peak > 0))
        return;
    if (ridge < pow(10, a->lx0))
        ridge = pow(10, a->lx0);
    strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n", px(a, ridge), py(a, peak),
                  px(a, x1), py(a, peak), style);
    for (size_t i = 0; i < *ncl; i++)
        if (cl[i].peak == peak) {   /* one label for equal ceilings: "matrix fp64, vector fp32" */
            size_t l = strlen(cl[i].name);
            snprintf(cl[i].name + l, sizeof cl[i].name - l, ", %s", name);
            return;
        }
    if (*ncl < CEILINGS_MAX) {
        cl[*ncl].peak = peak;
        snprintf(cl[(*ncl)++].name, sizeof cl[0].name, "%s", name);
    }
}

static int by_peak_down(const void *x, const void *y)
{
    double a = ((const struct ceiling *)x)->peak, b = ((const struct ceiling *)y)->peak;
    return a > b ? -1 : a < b;
}

/* The labels "NAME: PEAK TFLOP/s", right-aligned at the plot's right edge,
 * from the highest ceiling down: each just above its line, or just below it
 * when the label above would cover the previous one (or leave the plot),
 * else pushed down under the previous one. So no two labels overlap, however
 * close the ceilings (H100: matrix fp64 67 and vector fp32 66.9). */
static void ceiling_labels(struct strbuf *b, const struct axes *a, struct ceiling *cl, size_t n)
{
    qsort(cl, n, sizeof *cl, by_peak_down);
    double free_y = TOP;   /* the lowest label's bottom so far */
    for (size_t i = 0; i < n; i++) {
        double line_y = py(a, cl[i].peak), base = line_y - ROOFLINE_LABEL_GAP;
        if (base - ROOFLINE_LABEL_ASCENT < free_y)
            base = line_y + ROOFLINE_LABEL_GAP + ROOFLINE_LABEL_ASCENT;
        if (base - ROOFLINE_LABEL_ASCENT < free_y)
            base = free_y + ROOFLINE_LABEL_ASCENT;
        /* printed to 0.1 px: rounded up, never into the label above */
        base = ceil(base * 10 - 1e-9) / 10;
        free_y = base + ROOFLINE_LABEL_DESCENT + ROOFLINE_LABEL_LEAD;
        strbuf_printf(b, "<text x=\"%d\" y=\"%.1f\" class=\"ceiling\">", LEFT + PLOT_W - 4, base);
        strbuf_xml(b, cl[i].name);
        strbuf_printf(b, ": %.4g TFLOP/s</text>\n", cl[i].peak);
    }
}

/* x: whole decades; y: from a decade to just above the highest ceiling or
 * point (chart_nice_ceil), not a decade further. */
static void axes_of(const struct chip_config *chip, const struct roofline_point *p, size_t n, double top_peak,
                    double bw_TBps, struct axes *a)
{
    double xmin = 0.1, xmax = 10 * top_peak / bw_TBps, ymin = top_peak / 1e4, ymax = top_peak;
    (void)chip;
    for (size_t i = 0; i < n; i++) {
        xmin = fmin(xmin, p[i].intensity), xmax = fmax(xmax, p[i].intensity);
        ymin = fmin(ymin, p[i].tflops), ymax = fmax(ymax, p[i].tflops);
    }
    a->lx0 = floor(log10(xmin)), a->lx1 = ceil(log10(xmax));
    a->ly0 = floor(log10(ymin)), a->ly1 = log10(chart_nice_ceil(ymax));
    if (a->lx1 <= a->lx0)
        a->lx1 = a->lx0 + 1;
    if (a->ly1 <= a->ly0)
        a->ly1 = a->ly0 + 1;
}

static void frame(struct strbuf *b, const struct axes *a, const char *chip_name)
{
    strbuf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>\n", LEFT, TOP, PLOT_W, PLOT_H);
    char t[32];
    for (int d = (int)a->lx0; d <= (int)a->lx1; d++) {
        double x = px(a, pow(10, d));
        strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>\n"
                         "<text x=\"%.1f\" y=\"%d\" class=\"tick\" text-anchor=\"middle\">%s</text>\n",
                      x, TOP, x, TOP + PLOT_H, x, TOP + PLOT_H + 18, chart_tick(pow(10, d), t, sizeof t));
    }
    double tick[64];   /* y: the decades, then the top when it is not one (2k: 0.3 decade or more above) */
    for (int k = 0, nt = chart_log_ticks(a->ly0, a->ly1, tick, 64); k < nt; k++) {
        double y = py(a, tick[k]);
        strbuf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>\n"
                         "<text x=\"%d\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>\n",
                      LEFT, y, LEFT + PLOT_W, y, LEFT - 6, y + 4, chart_tick(tick[k], t, sizeof t));
    }
    strbuf_printf(b, "<text x=\"%d\" y=\"%d\" class=\"label\" text-anchor=\"middle\">arithmetic intensity "
                     "(FLOP per HBM byte)</text>\n", LEFT + PLOT_W / 2, TOP + PLOT_H + 42);
    strbuf_printf(b, "<text x=\"20\" y=\"%d\" class=\"label\" text-anchor=\"middle\" transform=\"rotate(-90 20 %d)\">"
                     "throughput (TFLOP/s)</text>\n", TOP + PLOT_H / 2, TOP + PLOT_H / 2);
    strbuf_printf(b, "<text x=\"%d\" y=\"28\" class=\"title\" text-anchor=\"middle\">Roofline of ", LEFT + PLOT_W / 2);
    strbuf_xml(b, chip_name);
    strbuf_puts(b, "</text>\n");
}

/* The colour index of an operator type, in first-seen order (types[] grows). */
static size_t colour_of(const char **types, size_t *ntypes, const char *op)
{
    for (size_t i = 0; i < *ntypes; i++)
        if (!strcmp(types[i], op))
            return i;
    if (*ntypes < 64)
        types[(*ntypes)++] = op;
    return *ntypes - 1;
}

static void points(struct strbuf *b, const struct axes *a, const struct roofline_point *p, size_t n,
                   const char **types, size_t *ntypes)
{
    for (size_t i = 0; i < n; i++) {
        if (!(p[i].intensity > 0 && p[i].tflops > 0))
            continue;
        const char *c = chart_colour(colour_of(types, ntypes, p[i].op));
        double x = px(a, p[i].intensity), y = py(a, p[i].tflops);
        if (p[i].measured)
            strbuf_printf(b, "<polygon class=\"measured\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\">",
                          x, y - 5, x - 5, y + 4, x + 5, y + 4, c);
        else
            strbuf_printf(b, "<circle class=\"predicted\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"%s\">",
                          x, y, c);
        strbuf_puts(b, "<title>");
        strbuf_xml(b, p[i].label ? p[i].label : p[i].op);
        strbuf_puts(b, p[i].measured ? "</title></polygon>\n" : "</title></circle>\n");
    }
}

/* The markers in use (a run's operators are all predicted), then the types. */
static void legend(struct strbuf *b, const struct roofline_point *p, size_t n, const char **types, size_t ntypes)
{
    bool used[2] = { false, false };
    for (size_t i = 0; i < n; i++)
        used[p[i].measured] = true;
    int x = LEFT + PLOT_W + 30, y = TOP - 10;
    strbuf_puts(b, "<g class=\"legend\">\n");
    if (used[0]) {
        y += 20;
        strbuf_printf(b, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"none\" stroke=\"#333\"/>"
                         "<text x=\"%d\" y=\"%d\">predicted</text>\n", x, y, x + 12, y + 4);
    }
    if (used[1]) {
        y += 20;
        strbuf_printf(b, "<polygon points=\"%d,%d %d,%d %d,%d\" fill=\"#333\"/><text x=\"%d\" y=\"%d\">measured</text>\n",
                      x, y - 5, x - 5, y + 4, x + 5, y + 4, x + 12, y + 4);
    }
    for (size_t i = 0; i < ntypes; i++) {
        y += 20;
        strbuf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
                      x - 5, y - 6, chart_colour(i), x + 12, y + 4);
        strbuf_xml(b, types[i]);
        strbuf_puts(b, "</text>\n");
    }
    strbuf_puts(b, "</g>\n");
}

char *roofline_svg(const struct chip_config *chip, const char *chip_name, const struct roofline_point *pts,
                   size_t n)
{
    double bw_TBps = chip->hbm_bw_GBps / 1e3, top = 0;
    for (int p = 0; p < PREC_COUNT; p++)
        top = fmax(top, chip_unit_peak_tflops(chip, UNIT_MATRIX, (enum precision)p));
    struct axes a;
    axes_of(chip, pts, n, top, bw_TBps, &a);
    struct strbuf b = STRBUF_GROWING;
    strbuf_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
                      "<style>.frame{fill:none;stroke:#333}.grid{stroke:#ddd}.tick{fill:#555}.label{fill:#222}"
                      ".title{font-size:16px;fill:#111}.ceiling{text-anchor:end;font-size:11px;fill:#333}</style>\n",
                  WIDTH, HEIGHT, WIDTH, HEIGHT);
    frame(&b, &a, chip_name);
    /* the memory slope: bandwidth x intensity, up to the highest ceiling */
    double x0 = pow(10, a.lx0), xr = top / bw_TBps;
    strbuf_printf(&b, "<line class=\"memory\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
                      "stroke-width=\"2\"><title>HBM %.4g GB/s</title></line>\n",
                  px(&a, x0), py(&a, bw_TBps * x0), px(&a, xr), py(&a, top), chip->hbm_bw_GBps);
    /* One ceiling per peak the matrix units run at, naming its formats
     * (bf16 and fp16 share one on most chips). */
    bool drawn[PREC_COUNT] = { false };
    struct ceiling cl[CEILINGS_MAX];
    size_t ncl = 0;
    for (int p = 0; p < PREC_COUNT; p++) {
        if (drawn[p] || chip_unit_precision(chip, UNIT_MATRIX, (enum precision)p) != (enum precision)p)
            continue;
        double peak = chip_unit_peak_tflops(chip, UNIT_MATRIX, (enum precision)p);
        struct strbuf names = STRBUF_GROWING;
        for (int q = p; q < PREC_COUNT; q++)
            if (!drawn[q] && chip_unit_precision(chip, UNIT_MATRIX, (enum precision)q) == (enum precision)q &&
                chip_unit_peak_tflops(chip, UNIT_MATRIX, (enum precision)q) == peak) {
                strbuf_printf(&names, "%s%s", names.n ? ", " : "", precision_info((enum precision)q)->name);
                drawn[q] = true;
            }
        char label[160];
        snprintf(label, sizeof label, "matrix %s", names.s);
        free(names.s);
        ceiling(&b, &a, peak, bw_TBps, label, "class=\"ceiling-line\" stroke=\"#000\" stroke-width=\"1.5\"", cl,
                &ncl);
        double e = chip->kernel_eff[KC_gemm].by_prec[p] > 0 ? chip->kernel_eff[KC_gemm].by_prec[p]
                                                            : chip->kernel_eff[KC_gemm].e_max;
        if (e < 1.0) {
            snprintf(label, sizeof label, "gemm %s at e %.3g", precision_info((enum precision)p)->name, e);
            ceiling(&b, &a, e * peak, bw_TBps, label,
                    "class=\"efficiency\" stroke=\"#666\" stroke-dasharray=\"6 4\"", cl, &ncl);
        }
    }
    double vec = chip_unit_peak_tflops(chip, UNIT_VECTOR, PREC_FP32);
    if (vec > 0) {
        ceiling(&b, &a, vec, bw_TBps, "vector fp32",
                "class=\"ceiling-line\" stroke=\"#888\" stroke-dasharray=\"2 3\"", cl, &ncl);
    }
    ceiling_labels(&b, &a, cl, ncl);
    const char *types[64];
    size_t ntypes = 0;
    points(&b, &a, pts, n, types, &ntypes);
    legend(&b, pts, n, types, ntypes);
    strbuf_puts(&b, "</svg>\n");
    return b.s;
}
