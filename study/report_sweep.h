/* report_sweep.h — a sweep's summary CSV (npusim sweep --summary) as one
 * self-contained HTML page (`npusim report --sweep`): output throughput per
 * chip against batch, a line per model, chip and chip count (the best
 * parallel layout at each batch); every configuration's time per output
 * token against its throughput per chip, with the Pareto front (no other
 * configuration both faster per token and higher in throughput) drawn and
 * tabled, and an SLO line on time per token when given.
 *
 * No data structure of its own beyond the rows read. */
#ifndef NPUSIM_REPORT_SWEEP_H
#define NPUSIM_REPORT_SWEEP_H

#include <stddef.h>

#include "traces/err.h"

/* The page (malloc'ed) and its two figures (*fig_tput, *fig_pareto; free
 * each); NULL with e naming the file and line of a bad summary. */
char *sweep_report_html(const char *name, const char *csv, size_t len, double slo_tpot_ms, char **fig_tput,
                        char **fig_pareto, struct npu_err *e);

#endif
