/* train_stats.h — statistics of a timed LLM training step (opsgen.md §12.3):
 * chip aggregates, pod and multi-pod step time, memory footprint, OOM.
 *
 * Main data structure: struct train_stats. */
#ifndef NPUSIM_STUDY_TRAIN_STATS_H
#define NPUSIM_STUDY_TRAIN_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "opsgen/model.h"
#include "study/run/stats.h"
#include "traces/profile.h"

struct train_stats {
    struct trace_stats chip;                 /* §12.1 over every op */
    int64_t total_execution_time_pod_ns;     /* chip x pp */
    int64_t compute_only_time_pod_ns, memory_only_time_pod_ns, ici_bound_time_pod_ns;
    bool bounded_by_pp_dcn;                  /* PP-DCN total exceeds the pod total */
    int64_t total_execution_time_ns;         /* max(pod, PP-DCN) x pp_dcn */
    double mem_footprint_GB;                 /* GiB, §11.2 */
    bool out_of_memory;                      /* vs one chip's HBM (the reference: num_chips x HBM, opsgen Q15b) */
};

/* From the chip aggregates of a timed training trace. */
void train_stats_compute(const struct trace_stats *chip, const struct model_config *m,
                         const struct profile *prof, int64_t hbm_size_GB, struct train_stats *s);

#endif
