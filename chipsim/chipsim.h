/* chipsim.h — per-operator roofline timing on a chip (spec chipsim.md §3–§7).
 *
 * chipsim_run() annotates every op of a trace in list order: compute time
 * (MXU/VPU models by op kind), HBM traffic (tile searches for einsum, flash
 * attention and conv), vmem time, execution time, Bounded-by and the
 * utilisation columns. Ops are matched to cached pseudo-instructions by name
 * (quirk chipsim Q1 under profile->lookup_ops_by_name_first_wins), so the whole list
 * (prefill then decode) must be timed in one call. The energy pass that the
 * reference applies afterwards lives in power/energy.h. */
#ifndef NPUSIM_CHIPSIM_H
#define NPUSIM_CHIPSIM_H

#include "chipsim/chip.h"
#include "base/err.h"
#include "traces/op.h"
#include "traces/profile.h"

int chipsim_run(struct trace *t, const struct chip_config *chip, const struct profile *prof,
                struct npu_err *e);

/* chipsim_run(ts[j], chips[j], prof, &errs[j]) for j < k, returned in
 * rcs[j], with the same results, for k copies of one untimed trace (equal
 * ops, e.g. trace_append'ed from one generated trace):
 * each op's pseudo-instruction is built once and timed on every chip. A
 * sweep over chip fields the generators never read (study/sweep/sweep_points.h)
 * times one trace this way. */
void chipsim_run_many(struct trace *const *ts, const struct chip_config *const *chips, int k,
                      const struct profile *prof, struct npu_err *errs, int *rcs);

#endif
