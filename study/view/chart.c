/* chart.c — the SVG charts and their axes (see chart.h). No data structure of
 * its own beyond the palette. */
#include "study/view/chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A bar's slot is SLOT_MAX wide (bar and gap) until the bars would pass
 * PLOT_W_MAX, then narrower; the legend gets LEGEND_W to the right. */
enum { HEIGHT = 420, LEFT = 80, TOP = 40, PLOT_H = 320, SLOT_MAX = 150, SLOT_MIN = 40, PLOT_W_MAX = 620,
       LEGEND_W = 200 };

static const char *const palette[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#aec7e8", "#ffbb78",
};
#define NCOLOURS (sizeof palette / sizeof palette[0])

const char *chart_colour(size_t i) { return palette[i % NCOLOURS]; }

/* Points set apart (xy_series.hollow): grey, unlike every palette colour. */
#define UNFIT_GREY "#999999"

void strbuf_xml(struct strbuf *b, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': strbuf_puts(b, "&amp;"); break;
        case '<': strbuf_puts(b, "&lt;"); break;
        case '>': strbuf_puts(b, "&gt;"); break;
        case '"': strbuf_puts(b, "&quot;"); break;
        default: strbuf_putc(b, *s);
        }
}

/* The document's opening tag (w x h units) and its title line. */
static void svg_open(struct strbuf *b, int w, int h, const char *title)
{
    strbuf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                     "font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"10\" y=\"22\" font-size=\"15\">",
                  w, h, w, h);
    strbuf_xml(b, title);
    strbuf_puts(b, "</text>\n");
}

/* The nice mantissas, and v = m x 10^e written as m / 10^-e when e < 0 so
 * that 0.2 x 3 prints as 0.6 (10^-e is exact, m x 10^e need not be). */
static const double nice_m[] = { 1, 2, 2.5, 5, 10 };
static double times_pow10(double m, int e) { return e < 0 ? m / pow(10, -e) : m * pow(10, e); }

/* The smallest nice m x 10^e at or above v (v > 0): its mantissa and exponent. */
static void nice_parts(double v, double *m, int *e)
{
    *e = (int)floor(log10(v));
    for (size_t i = 0; i < sizeof nice_m / sizeof nice_m[0]; i++)
        if (v <= times_pow10(nice_m[i], *e) * (1 + 1e-12)) {
            *m = nice_m[i];
            return;
        }
    *m = 1, ++*e;   /* log10 rounded down a little too far */
}

double chart_nice_ceil(double v)
{
    if (!(v > 0) || !isfinite(v))
        return 1;
    double m;
    int e;
    nice_parts(v, &m, &e);
    return times_pow10(m, e);
}

struct nice_axis chart_nice_axis(double v, int max_steps)
{
    if (!(v > 0) || !isfinite(v))
        v = 1;
    double m;
    int e;
    nice_parts(v / (max_steps > 0 ? max_steps : 1), &m, &e);
    double step = times_pow10(m, e);
    int n = (int)ceil(v / step * (1 - 1e-12));
    n = n < 1 ? 1 : n;
    return (struct nice_axis){ step, times_pow10(m * n, e), n };
}

int chart_log_ticks(double lo, double hi, double *v, int max)
{
    int n = 0, last = (int)floor(hi + 1e-9);
    for (int d = (int)ceil(lo - 1e-9); d <= last && n < max; d++)
        v[n++] = pow(10, d);
    if (hi - last > 1e-9 && n < max)
        v[n++] = pow(10, hi);
    return n;
}

const char *chart_tick(double v, char *buf, size_t n)
{
    static const char *const big[] = { "", "k", "M", "G", "T", "P" }, *const small[] = { "", "m", "µ", "n", "p" };
    double a = fabs(v);
    size_t k = 0;
    if (a == 0 || !isfinite(a)) {
        snprintf(buf, n, "%g", a == 0 ? 0.0 : v);
        return buf;
    }
    if (a >= 999.5) {   /* 999.5 would print as 1e+03 at 3 digits: 1k */
        while (a >= 999.5 && k + 1 < sizeof big / sizeof big[0])
            a /= 1000, v /= 1000, k++;
        snprintf(buf, n, "%.3g%s", v, big[k]);
    } else if (a < 0.0009995) {   /* never m: 0.001 to 1 read as decimals */
        while (a < 0.9995 && k + 1 < sizeof small / sizeof small[0])
            a *= 1000, v *= 1000, k++;
        snprintf(buf, n, "%.3g%s", v, small[k]);
    } else
        snprintf(buf, n, "%.3g", v);
    return buf;
}

char *bar_chart_svg(const struct bar_chart *c)
{
    double top = 0;
    for (int i = 0; i < c->n_bars; i++) {
        double sum = 0;
        for (int j = 0; j < c->n_series; j++)
            sum += c->value[i * c->n_series + j];
        top = fmax(top, sum);
    }
    struct nice_axis ax = chart_nice_axis(top, 5);
    top = ax.top;
    int slot = c->n_bars > 0 ? PLOT_W_MAX / c->n_bars : SLOT_MAX;
    slot = slot > SLOT_MAX ? SLOT_MAX : slot < SLOT_MIN ? SLOT_MIN : slot;
    int bar_w = slot * 3 / 5, gap = slot - bar_w, plot_w = c->n_bars * slot + gap, width = LEFT + plot_w + LEGEND_W;
    struct strbuf b = STRBUF_GROWING;
    svg_open(&b, width, HEIGHT, c->title);
    /* the value axis: up to five steps */
    for (int k = 0; k <= ax.n; k++) {
        double y = TOP + PLOT_H - PLOT_H * (double)k / ax.n;
        char t[32];
        strbuf_printf(&b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT, y,
                      LEFT + plot_w, y);
        strbuf_printf(&b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", LEFT - 6, y + 4,
                      chart_tick(ax.step * k, t, sizeof t));
    }
    strbuf_printf(&b, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">",
                  TOP + PLOT_H / 2, TOP + PLOT_H / 2);
    strbuf_xml(&b, c->unit);
    strbuf_puts(&b, "</text>\n");
    for (int i = 0; i < c->n_bars; i++) {
        double x = LEFT + gap + i * slot, y = TOP + PLOT_H, total = 0;
        for (int j = 0; j < c->n_series; j++)
            total += c->value[i * c->n_series + j];
        for (int j = 0; j < c->n_series; j++) {
            double v = c->value[i * c->n_series + j], h = PLOT_H * v / top;
            if (!(v > 0))
                continue;
            y -= h;
            strbuf_printf(&b, "<rect class=\"bar\" x=\"%.1f\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\">"
                              "<title>",
                          x, y, bar_w, h, palette[j % NCOLOURS]);
            strbuf_xml(&b, c->bars[i]);
            strbuf_puts(&b, ": ");
            strbuf_xml(&b, c->series[j]);
            strbuf_printf(&b, " %.6g %s (%.1f%%)</title></rect>\n", v, c->unit, total > 0 ? 100 * v / total : 0);
        }
        strbuf_printf(&b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x + bar_w / 2.0, TOP + PLOT_H + 18);
        strbuf_xml(&b, c->bars[i]);
        strbuf_puts(&b, "</text>\n");
    }
    /* the legend, top of the stack first */
    int lx = LEFT + plot_w + 20;
    for (int j = c->n_series - 1, row = 0; j >= 0; j--, row++) {
        int ly = TOP + row * 18;
        strbuf_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
                      lx, ly, palette[j % NCOLOURS], lx + 18, ly + 10);
        strbuf_xml(&b, c->series[j]);
        strbuf_puts(&b, "</text>\n");
    }
    strbuf_puts(&b, "</svg>\n");
    return b.s;
}

enum { SC_SIZE = 460, SC_LEFT = 70, SC_TOP = 40 };

static double sc_px(double v, double lo, double hi) { return SC_LEFT + (log10(v) - lo) / (hi - lo) * SC_SIZE; }
static double sc_py(double v, double lo, double hi) { return SC_TOP + SC_SIZE - (log10(v) - lo) / (hi - lo) * SC_SIZE; }

/* Whether row i has a place on the log-log scatter: both values positive and finite. */
static bool scatter_point(const struct scatter *s, size_t i)
{
    return s->measured[i] > 0 && s->predicted[i] > 0 && isfinite(s->measured[i]) && isfinite(s->predicted[i]);
}

char *scatter_svg(const struct scatter *s)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < s->n; i++)
        if (scatter_point(s, i)) {
            lo = fmin(lo, fmin(log10(s->measured[i]), log10(s->predicted[i])));
            hi = fmax(hi, fmax(log10(s->measured[i]), log10(s->predicted[i])));
        }
    if (!(lo <= hi))
        lo = 0, hi = 1;
    /* from a decade to just above the data (a nice ceiling, not the next decade) */
    lo = floor(lo), hi = log10(chart_nice_ceil(pow(10, hi)));
    hi = hi > lo ? hi : lo + 1;
    struct strbuf b = STRBUF_GROWING;
    svg_open(&b, SC_LEFT + SC_SIZE + 200, SC_TOP + SC_SIZE + 50, s->title);
    double tick[64];
    for (int k = 0, nt = chart_log_ticks(lo, hi, tick, 64); k < nt; k++) {
        double x = sc_px(tick[k], lo, hi), y = sc_py(tick[k], lo, hi);
        strbuf_printf(&b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
                      x, SC_TOP, x, SC_TOP + SC_SIZE, SC_LEFT, y, SC_LEFT + SC_SIZE, y);
        char t[32];
        chart_tick(tick[k], t, sizeof t);
        strbuf_printf(&b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>"
                          "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                      x, SC_TOP + SC_SIZE + 16, t, SC_LEFT - 6, y + 4, t);
    }
    /* the diagonal and the bands: predicted = measured x f */
    static const struct { double f; const char *style; } lines[] = {
        { 1.0, "stroke=\"#333\"" },
        { 1.1, "stroke=\"#2ca02c\" stroke-dasharray=\"4 3\"" }, { 1 / 1.1, "stroke=\"#2ca02c\" stroke-dasharray=\"4 3\"" },
        { 1.25, "stroke=\"#ff7f0e\" stroke-dasharray=\"2 3\"" }, { 1 / 1.25, "stroke=\"#ff7f0e\" stroke-dasharray=\"2 3\"" },
    };
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
        double x0 = pow(10, lo), x1 = pow(10, hi), f = lines[k].f;
        double a = fmax(x0, x0 / f), z = fmin(x1, x1 / f);
        strbuf_printf(&b, "<line class=\"band\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n",
                      sc_px(a, lo, hi), sc_py(a * f, lo, hi), sc_px(z, lo, hi), sc_py(z * f, lo, hi), lines[k].style);
    }
    const char *groups[NCOLOURS];
    size_t ng = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!scatter_point(s, i))
            continue;
        size_t g = 0;
        while (g < ng && strcmp(groups[g], s->group[i]))
            g++;
        if (g == ng && ng < NCOLOURS)
            groups[ng++] = s->group[i];
        g = g < NCOLOURS ? g : NCOLOURS - 1;
        strbuf_printf(&b, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"%s\"><title>",
                      sc_px(s->measured[i], lo, hi), sc_py(s->predicted[i], lo, hi), palette[g]);
        strbuf_xml(&b, s->label[i]);
        strbuf_printf(&b, ": measured %.4g %s, predicted %.4g %s (%+.1f%%)</title></circle>\n", s->measured[i], s->unit,
                      s->predicted[i], s->unit, 100 * (s->predicted[i] - s->measured[i]) / s->measured[i]);
    }
    strbuf_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">measured (%s)</text>\n", SC_LEFT + SC_SIZE / 2,
                  SC_TOP + SC_SIZE + 36, s->unit);
    strbuf_printf(&b, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">predicted (%s)</text>\n",
                  SC_TOP + SC_SIZE / 2, SC_TOP + SC_SIZE / 2, s->unit);
    int lx = SC_LEFT + SC_SIZE + 20;
    for (size_t g = 0; g < ng; g++) {
        strbuf_printf(&b, "<circle cx=\"%d\" cy=\"%zu\" r=\"4\" fill=\"none\" stroke=\"%s\"/><text x=\"%d\" y=\"%zu\">",
                      lx + 6, SC_TOP + 6 + 18 * g, palette[g], lx + 18, SC_TOP + 10 + 18 * g);
        strbuf_xml(&b, groups[g]);
        strbuf_puts(&b, "</text>\n");
    }
    strbuf_printf(&b, "<text x=\"%d\" y=\"%zu\" fill=\"#2ca02c\">- - within 10%%</text>"
                      "<text x=\"%d\" y=\"%zu\" fill=\"#ff7f0e\">. . within 25%%</text>\n",
                  lx, SC_TOP + 30 + 18 * ng, lx, SC_TOP + 48 + 18 * ng);
    strbuf_puts(&b, "</svg>\n");
    return b.s;
}

enum { LC_W = 520, LC_H = 340, LC_LEFT = 70, LC_TOP = 40 };

/* Whether point i of se has a place on c: finite, and x > 0 on a log axis
 * (a read file can hold 0, a negative or an infinity: such a point is left
 * out of the axes and the drawing, never cast to a coordinate). */
static bool chart_point_drawn(const struct line_chart *c, const struct xy_series *se, size_t i)
{
    return isfinite(se->x[i]) && isfinite(se->y[i]) && (c->x_linear || se->x[i] > 0);
}

char *line_chart_svg(const struct line_chart *c)
{
    double xlo = INFINITY, xhi = -INFINITY, yhi = 0;
    bool lin = c->x_linear;
    for (size_t s = 0; s < c->n_series; s++)
        for (size_t i = 0; i < c->series[s].n; i++) {
            if (!chart_point_drawn(c, &c->series[s], i))
                continue;
            double x = lin ? c->series[s].x[i] : log10(c->series[s].x[i]);
            xlo = fmin(xlo, x), xhi = fmax(xhi, x);
            yhi = fmax(yhi, c->series[s].y[i]);
        }
    if (c->x_mark > 0 && isfinite(c->x_mark))
        xlo = fmin(xlo, log10(c->x_mark)), xhi = fmax(xhi, log10(c->x_mark));
    if (!(xlo <= xhi))
        xlo = 0, xhi = 1;
    struct nice_axis xa = chart_nice_axis(xhi, 6);
    if (lin)   /* from 0 to a nice end, a tick a step */
        xlo = 0, xhi = xa.top;
    else
        xlo = floor(xlo), xhi = ceil(xhi) > xlo ? ceil(xhi) : xlo + 1;
    struct nice_axis ya = chart_nice_axis(yhi, 5);
    yhi = ya.top;
#define LX(v) (LC_LEFT + ((lin ? (v) : log10(v)) - xlo) / (xhi - xlo) * LC_W)
#define LY(v) (LC_TOP + LC_H - (v) / yhi * LC_H)
    struct strbuf b = STRBUF_GROWING;
    svg_open(&b, LC_LEFT + LC_W + 230, LC_TOP + LC_H + 50, c->title);
    char t[32];
    for (int k = 0; k <= (lin ? xa.n : (int)(xhi - xlo + 1e-9)); k++) {
        double v = lin ? xa.step * k : pow(10, xlo + k);
        strbuf_printf(&b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/><text x=\"%.1f\" "
                          "y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                      LX(v), LC_TOP, LX(v), LC_TOP + LC_H, LX(v), LC_TOP + LC_H + 16, chart_tick(v, t, sizeof t));
    }
    for (int k = 0; k <= ya.n; k++)
        strbuf_printf(&b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%d\" "
                          "y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                      LC_LEFT, LY(ya.step * k), LC_LEFT + LC_W, LY(ya.step * k), LC_LEFT - 6, LY(ya.step * k) + 4,
                      chart_tick(ya.step * k, t, sizeof t));
    strbuf_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", LC_LEFT + LC_W / 2, LC_TOP + LC_H + 36);
    strbuf_xml(&b, c->x_label);
    strbuf_printf(&b, "</text><text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">",
                  LC_TOP + LC_H / 2, LC_TOP + LC_H / 2);
    strbuf_xml(&b, c->y_label);
    strbuf_puts(&b, "</text>\n");
    if (c->x_mark > 0 && isfinite(c->x_mark)) {
        strbuf_printf(&b, "<line class=\"slo\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d62728\" "
                          "stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%d\" fill=\"#d62728\">",
                      LX(c->x_mark), LC_TOP, LX(c->x_mark), LC_TOP + LC_H, LX(c->x_mark) + 4, LC_TOP + 12);
        strbuf_xml(&b, c->mark_label ? c->mark_label : "");
        strbuf_puts(&b, "</text>\n");
    }
    for (size_t s = 0; s < c->n_series; s++) {
        const struct xy_series *se = &c->series[s];
        const char *col = se->hollow ? UNFIT_GREY : palette[s % NCOLOURS];
        /* a filled dot, or a ring (hollow series: the legend says why they are apart) */
        char fill[64];
        snprintf(fill, sizeof fill, se->hollow ? "fill=\"none\" stroke=\"%s\"" : "fill=\"%s\"", col);
        if (se->line && !se->hollow && se->n > 1) {
            strbuf_printf(&b, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"%d\" points=\"",
                          col, se->highlight ? 3 : 1);
            for (size_t i = 0, k = 0; i < se->n; i++)
                if (chart_point_drawn(c, se, i))
                    strbuf_printf(&b, "%s%.1f,%.1f", k++ ? " " : "", LX(se->x[i]), LY(se->y[i]));
            strbuf_puts(&b, "\"/>\n");
        }
        for (size_t i = 0; i < se->n; i++) {
            if (!chart_point_drawn(c, se, i))
                continue;
            strbuf_printf(&b, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" %s><title>",
                          se->hollow ? "point unfit" : "point", LX(se->x[i]), LY(se->y[i]),
                          se->highlight || se->hollow ? 4 : 2, fill);
            strbuf_xml(&b, se->name);
            strbuf_printf(&b, ": %.4g, %.4g</title></circle>\n", se->x[i], se->y[i]);
        }
        if (se->hollow)
            strbuf_printf(&b, "<circle cx=\"%d\" cy=\"%zu\" r=\"5\" %s/><text x=\"%d\" y=\"%zu\">",
                          LC_LEFT + LC_W + 26, LC_TOP + 6 + 18 * s, fill, LC_LEFT + LC_W + 38, LC_TOP + 10 + 18 * s);
        else
            strbuf_printf(&b, "<rect x=\"%d\" y=\"%zu\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" "
                              "y=\"%zu\">",
                          LC_LEFT + LC_W + 20, LC_TOP + 18 * s, col, LC_LEFT + LC_W + 38, LC_TOP + 10 + 18 * s);
        strbuf_xml(&b, se->name);
        strbuf_puts(&b, "</text>\n");
    }
#undef LX
#undef LY
    strbuf_puts(&b, "</svg>\n");
    return b.s;
}
