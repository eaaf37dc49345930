/* stats.h — end-to-end aggregation of a timed trace (opsgen.md §12.1).
 *
 * Sums Execution time x Count over the ops of one phase, separating pipeline
 * transfers (Description contains "Pipeline"; "ICI"/"DCN" pick the level)
 * from everything else, and splits non-pipeline time into overlapped,
 * compute-only, memory-only and ICI-bound parts. The per-chip total is
 * max(non-PP, PP-ICI). All values are integer nanoseconds. */
#ifndef NPUSIM_STUDY_STATS_H
#define NPUSIM_STUDY_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "traces/op.h"

struct trace_stats {
    int64_t total_pp_time_ns, total_pp_ici_time_ns, total_pp_dcn_time_ns;
    int64_t total_execution_time_non_pp_ns, overlapped_compute_time_non_pp_ns;
    int64_t compute_only_time_non_pp_ns, memory_only_time_non_pp_ns, ici_bound_time_non_pp_ns;
    int64_t total_execution_time_chip_ns, overlapped_compute_time_chip_ns;
    int64_t compute_only_time_chip_ns, memory_only_time_chip_ns, ici_bound_time_chip_ns;
    bool bounded_by_pp_chip;
    int64_t power_capped_time_ns;   /* time of ops the power cap throttled (BOUND_POWER) */
    /* energy (J), count-weighted, over the same ops (0 without the energy pass) */
    double static_energy_J, dynamic_energy_J;
};

/* Aggregates the ops of phase `ph` (PHASE_NONE: every op). -1 with e set
 * when a time sum leaves int64 ns. */
int trace_stats_compute(const struct trace *t, enum phase ph, struct trace_stats *s, struct npu_err *e);

#endif
