/* report_sweep.h — a sweep's summary CSV (npusim sweep --summary) as one
 * self-contained HTML page (`npusim report --sweep`): output throughput per
 * chip against batch, a line per model, chip and chip count (the best
 * parallel layout at each batch); output throughput against chips, a line
 * per model, batch and chip; every configuration's time per output
 * token against its throughput per chip, with the Pareto front (no other
 * configuration both faster per token and higher in throughput) drawn and
 * tabled, and an SLO line on time per token when given. Configurations
 * that do not fit in memory (out_of_memory True) are drawn as grey hollow
 * points and left off every line, the front and its table.
 *
 * Main data structure: struct sweep_report_row, one configuration that ran. */
#ifndef NPUSIM_REPORT_SWEEP_H
#define NPUSIM_REPORT_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/strbuf.h"

/* One configuration that ran: what the figures need. */
struct sweep_report_row {
    char model[64], chip[32];
    int64_t chips, batch, dp, tp, pp, ep;   /* ep: 0 or 1 none (shown only when > 1) */
    double tpot_ms, tput_per_chip;     /* output tokens/s per chip */
    double mem_GiB;                    /* footprint per chip (0: not given) */
    bool oom;                          /* does not fit: drawn hollow, never on a front */
};

enum { SWEEP_FIG_BATCH, SWEEP_FIG_CHIPS, SWEEP_FIG_PARETO, SWEEP_FIG_COUNT };
/* "throughput_vs_batch", "throughput_vs_chips", "pareto" */
extern const char *const sweep_figure_name[SWEEP_FIG_COUNT];

/* The page (malloc'ed) and its figures (fig[k]: free each); NULL with e
 * naming the file and line of a bad summary. */
char *sweep_report_html(const char *name, const char *csv, size_t len, double slo_tpot_ms,
                        char *fig[SWEEP_FIG_COUNT], struct npu_err *e);

/* The figures of rows and the Pareto front's table, as HTML sections
 * appended to b (rows are sorted in place by TPOT); the figures also in
 * fig[] (free each). A results tree's page (report_tree.h) shows its runs
 * with them. */
void sweep_report_section(struct strbuf *b, struct sweep_report_row *rows, size_t n, double slo_tpot_ms,
                          char *fig[SWEEP_FIG_COUNT]);

#endif
