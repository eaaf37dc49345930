/* chart.c — stacked bar charts as SVG (see chart.h). No data structure of
 * its own beyond the palette. */
#include "study/chart.h"

#include <math.h>
#include <stdio.h>

enum { WIDTH = 760, HEIGHT = 420, LEFT = 80, TOP = 40, PLOT_H = 320, BAR_W = 90, GAP = 60 };

static const char *const palette[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#aec7e8", "#ffbb78",
};
#define NCOLOURS (sizeof palette / sizeof palette[0])

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

/* A round top for the axis: 1, 2 or 5 times a power of ten at or above v. */
static double nice_top(double v)
{
    if (!(v > 0))
        return 1;
    double p = pow(10, floor(log10(v)));
    return v <= p ? p : v <= 2 * p ? 2 * p : v <= 5 * p ? 5 * p : 10 * p;
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
    top = nice_top(top);
    int plot_w = c->n_bars * (BAR_W + GAP) + GAP;
    struct strbuf b = STRBUF_GROWING;
    strbuf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                      "font-family=\"sans-serif\" font-size=\"12\">\n",
                  WIDTH, HEIGHT, WIDTH, HEIGHT);
    strbuf_puts(&b, "<text x=\"10\" y=\"22\" font-size=\"15\">");
    strbuf_xml(&b, c->title);
    strbuf_puts(&b, "</text>\n");
    /* the value axis: five steps */
    for (int k = 0; k <= 5; k++) {
        double v = top * k / 5, y = TOP + PLOT_H - PLOT_H * (double)k / 5;
        strbuf_printf(&b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT, y,
                      LEFT + plot_w, y);
        strbuf_printf(&b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n", LEFT - 6, y + 4, v);
    }
    strbuf_printf(&b, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">",
                  TOP + PLOT_H / 2, TOP + PLOT_H / 2);
    strbuf_xml(&b, c->unit);
    strbuf_puts(&b, "</text>\n");
    for (int i = 0; i < c->n_bars; i++) {
        double x = LEFT + GAP + i * (BAR_W + GAP), y = TOP + PLOT_H, total = 0;
        for (int j = 0; j < c->n_series; j++)
            total += c->value[i * c->n_series + j];
        for (int j = 0; j < c->n_series; j++) {
            double v = c->value[i * c->n_series + j], h = PLOT_H * v / top;
            if (!(v > 0))
                continue;
            y -= h;
            strbuf_printf(&b, "<rect class=\"bar\" x=\"%.1f\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\">"
                              "<title>",
                          x, y, BAR_W, h, palette[j % NCOLOURS]);
            strbuf_xml(&b, c->bars[i]);
            strbuf_puts(&b, ": ");
            strbuf_xml(&b, c->series[j]);
            strbuf_printf(&b, " %.6g %s (%.1f%%)</title></rect>\n", v, c->unit, total > 0 ? 100 * v / total : 0);
        }
        strbuf_printf(&b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x + BAR_W / 2.0, TOP + PLOT_H + 18);
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
