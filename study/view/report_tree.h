/* report_tree.h — many runs read back from files (report_files.h) as one
 * self-contained HTML page (`npusim report PATH...` when PATH holds more
 * than one run): a table of every run with what its statistics say; the
 * time per operator type of each run (one stacked bar per run, the first
 * REPORT_TREE_BARS); for the LLM runs, throughput against batch and chips
 * and the latency/throughput Pareto front with the SLO line (the sweep
 * report's section); and, where the energy stage wrote a trace per
 * power-gating strategy, each run's energy per strategy and its saving
 * against NoPG. No data structure of its own. */
#ifndef NPUSIM_REPORT_TREE_H
#define NPUSIM_REPORT_TREE_H

#include "chipsim/chip.h"
#include "study/view/report_files.h"
#include "study/view/report_sweep.h"
#include "base/err.h"

#define REPORT_TREE_BARS 40

/* time_by_run, then the sweep section's (report_sweep.h) */
enum { TREE_FIG_TIME, TREE_FIG_SWEEP, TREE_FIG_COUNT = TREE_FIG_SWEEP + SWEEP_FIG_COUNT };
extern const char *const report_tree_figure_name[TREE_FIG_COUNT];

/* The page (malloc'ed) and its figures (fig[k] malloc'ed or NULL); NULL
 * with e naming the file of a run that cannot be read. chip: -c for every
 * run (NULL: each run's own sim_config). */
char *report_tree_html(const char *title, const struct found_runs *runs, const struct chip_config *chip,
                       const char *chip_name, double slo_tpot_ms, char *fig[TREE_FIG_COUNT], struct npu_err *e);

#endif
