/* report_html.h — one run as a self-contained HTML page (`npusim report`):
 * no network at view time, every figure inline SVG, the style inline.
 *
 * Sections: the run's summary; time per operator type (a stacked bar per
 * phase, and its table); the operators on the chip's roofline (arithmetic
 * intensity against achieved TFLOP/s, coloured by what bounds them);
 * energy by component (a stacked bar per phase, and its table, when the
 * energy pass ran); energy per power-gating strategy (when given). Each
 * figure is also handed back as a standalone SVG.
 *
 * Main data structures: struct report_input (what the page shows) and
 * struct report_figures (the SVGs). */
#ifndef NPUSIM_REPORT_HTML_H
#define NPUSIM_REPORT_HTML_H

#include "chipsim/chip.h"
#include "traces/op.h"

#define REPORT_PG_MAX 16
struct report_input {
    const char *title;                 /* "llama3-8b on tpuv5p" */
    const char *summary;               /* the run's summary text (preformatted) */
    const struct trace *t;             /* timed; energies if the pass ran */
    const struct chip_config *chip;
    const char *chip_name;
    /* A trace of several chips' ops (op->group = chip, DLRM): n_chips of
     * them, and the chip whose times and roofline the page shows (the
     * straggler the summary reports); energies cover every chip. n_chips
     * 0 or 1: one chip's trace, every op shown. */
    int64_t n_chips;
    int32_t shown_chip;
    /* The chips of the configuration; when more than the trace holds (a
     * trace of one chip's share, LLMs), the page says its figures are one
     * chip's. 0: not known (runs read back). */
    int64_t config_chips;
    /* power gating: energy (J) per strategy and phase (0: prefill or the
     * only phase, 1: decode); n_pg 0: none */
    int n_pg;
    const char *pg_name[REPORT_PG_MAX];
    double pg_energy_J[REPORT_PG_MAX][2];
};

enum { FIG_TIME, FIG_ROOFLINE, FIG_ENERGY, FIG_PG, FIG_COUNT };
struct report_figures {
    char *svg[FIG_COUNT];              /* malloc'ed; NULL when the section is absent */
};
extern const char *const report_figure_name[FIG_COUNT];   /* "time_by_op_type", ... */

/* The style every report page carries inline. */
extern const char report_style[];

/* The operator type a report groups op under (its parsed type, else its
 * opcode, else "other"). */
const char *report_op_type(const struct op *op);

/* The page (malloc'ed) and the figures (free each); NULL when out of memory. */
char *report_html(const struct report_input *in, struct report_figures *figs);
void report_figures_free(struct report_figures *figs);

#endif
