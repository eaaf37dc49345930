/* chart.h — stacked bar charts as SVG, for the HTML report (`npusim
 * report`): one bar per category (a phase), stacked by series (operator
 * types, energy components), with a value axis, a legend and a tooltip per
 * segment. Written by hand like roofline.h, for the same reasons:
 * deterministic text and no drawing library. Also the XML text escaping the
 * report shares.
 *
 * Main data structure: struct bar_chart. */
#ifndef NPUSIM_CHART_H
#define NPUSIM_CHART_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

struct bar_chart {
    const char *title;               /* above the plot */
    const char *unit;                /* the value axis: "s", "J" */
    int n_bars, n_series;
    const char *const *bars;         /* n_bars category names */
    const char *const *series;       /* n_series names, bottom of the stack first */
    const double *value;             /* n_bars x n_series, row-major; >= 0 */
};

/* The SVG document (malloc'ed; NULL when out of memory). */
char *bar_chart_svg(const struct bar_chart *c);

/* Predicted against measured on log-log axes: a point per row coloured by
 * its group, the diagonal (a perfect prediction) and the +-10% and +-25%
 * bands. */
struct scatter {
    const char *title;
    size_t n;
    const double *measured, *predicted;   /* > 0; other rows are left out */
    const char *const *group;             /* the colour (operator type) */
    const char *const *label;             /* the tooltip */
    const char *unit;                     /* "us" */
};
char *scatter_svg(const struct scatter *s);

/* Points joined by lines, one colour per series, on a log x axis and a
 * linear y axis from 0 to just above the data (chart_nice_axis); a series marked `highlight` is drawn thick, the
 * others thin; x_mark > 0 draws a dashed vertical line there labelled
 * mark_label (an SLO). */
struct xy_series {
    const char *name;
    size_t n;
    const double *x, *y;             /* x > 0, ascending for a line */
    bool line, highlight;
    bool hollow;                     /* grey hollow circles, no line: points set apart
                                      * (configurations that do not fit in memory) */
};
struct line_chart {
    const char *title, *x_label, *y_label;
    size_t n_series;
    const struct xy_series *series;
    double x_mark;
    const char *mark_label;
    bool x_linear;                   /* a linear x axis from 0 (time), not a log one */
};
char *line_chart_svg(const struct line_chart *c);

/* Axes. Every chart and the roofline end their value axes with these and
 * label every tick with chart_tick, so axes read alike everywhere. */

/* The smallest of 1, 2, 2.5 and 5 x 10^k at or above v (1 when v <= 0). */
double chart_nice_ceil(double v);

/* A linear axis from 0 that ends just above v: the step is the smallest
 * nice number (chart_nice_ceil) that covers v in at most max_steps steps,
 * the top the first multiple of the step at or above v, n = top / step.
 * E.g. v 125.7, 5 steps: step 50, top 150 (3 steps). */
struct nice_axis {
    double step, top;
    int n;
};
struct nice_axis chart_nice_axis(double v, int max_steps);

/* The ticks of a log axis from 10^lo to 10^hi (lo a whole decade, hi
 * possibly not: log10 of a nice ceiling): each decade, then 10^hi when it
 * is not one. At most max values in v[]; returns how many. */
int chart_log_ticks(double lo, double hi, double *v, int max);

/* A tick label of v: at most 3 significant digits; plain decimals from
 * 0.001 to below 1000, then SI suffixes (k, M, G, T, P; below 0.001 µ, n,
 * p): 0, 0.25, 2.5, 150, 1k, 1.25k, 20M, 500µ. Returns buf. */
const char *chart_tick(double v, char *buf, size_t n);

/* The i-th colour of the charts' palette (wrapping), "#rrggbb". */
const char *chart_colour(size_t i);

/* s with & < > " escaped, for XML and HTML text and attributes. */
void strbuf_xml(struct strbuf *b, const char *s);

#endif
