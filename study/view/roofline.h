/* roofline.h — a chip's roofline drawn as SVG (`npusim roofline`).
 *
 * Log-log axes: arithmetic intensity (FLOPs per HBM byte) against
 * throughput (TFLOP/s). The memory slope (HBM bandwidth), one compute
 * ceiling per number format the matrix units run and the vector units'
 * ceiling, and a dashed line per kernel efficiency below 1 on the gemm
 * class, each labelled with its throughput (equal ceilings share one label;
 * labels never overlap); the y axis ends just above the highest ceiling or
 * point (chart.h's nice numbers and tick labels); operators as circles (predicted) and triangles (measured),
 * coloured by operator type, with a legend.
 *
 * Written as text, by hand: an SVG of lines, polygons and text needs no
 * drawing library (cairo or PLplot would add a dependency and fonts for
 * what is a few dozen elements), and text output is byte-for-byte
 * deterministic, which tests can read. Main data structure: struct
 * roofline_point. */
#ifndef NPUSIM_ROOFLINE_H
#define NPUSIM_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "chipsim/chip.h"

struct roofline_point {
    double intensity;         /* FLOP per byte, > 0 */
    double tflops;            /* > 0 */
    const char *op;           /* operator type: the colour */
    bool measured;            /* triangle; else circle (predicted) */
    const char *label;        /* the tooltip */
};

/* The ceilings' labels (font-size 11, right-aligned at the plot's right
 * edge) take ASCENT units above their baseline and DESCENT below; a label
 * sits GAP above its line, or GAP below it when that would overlap the label
 * above. CHAR_W is a generous mean glyph width, for tests that measure boxes. */
#define ROOFLINE_LABEL_ASCENT 10.0
#define ROOFLINE_LABEL_DESCENT 3.0
#define ROOFLINE_LABEL_GAP 4.0
#define ROOFLINE_LABEL_LEAD 1.0   /* between two stacked labels: never touching */
#define ROOFLINE_LABEL_CHAR_W 6.5

/* The SVG document (malloc'ed; NULL when out of memory). */
char *roofline_svg(const struct chip_config *chip, const char *chip_name, const struct roofline_point *pts,
                   size_t n);

#endif
