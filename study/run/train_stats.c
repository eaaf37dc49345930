/* train_stats.c — LLM training statistics (see train_stats.h). */
#include "study/run/train_stats.h"

#include <string.h>

#include "opsgen/train.h"

void train_stats_compute(const struct trace_stats *chip, const struct model_config *m,
                         const struct profile *prof, int64_t hbm_size_GB, struct train_stats *s)
{
    memset(s, 0, sizeof *s);
    s->chip = *chip;
    /* One microbatch per pipeline stage: the pod runs pp chip-steps. */
    int64_t pp = m->pipeline_parallelism_degree, ppd = m->pipeline_parallel_degree_dcn;
    s->total_execution_time_pod_ns = chip->total_execution_time_chip_ns * pp;
    s->compute_only_time_pod_ns = chip->compute_only_time_chip_ns * pp;
    s->memory_only_time_pod_ns = chip->memory_only_time_chip_ns * pp;
    s->ici_bound_time_pod_ns = chip->ici_bound_time_chip_ns * pp;
    s->bounded_by_pp_dcn = chip->total_pp_dcn_time_ns > s->total_execution_time_pod_ns;
    s->total_execution_time_ns =
        (s->bounded_by_pp_dcn ? chip->total_pp_dcn_time_ns : s->total_execution_time_pod_ns) * ppd;
    s->mem_footprint_GB = (double)opsgen_llm_training_mem_bytes(m, prof) / 1024 / 1024 / 1024;
    /* Per-chip footprint against the whole pod's HBM (quirk opsgen Q15b). */
    int64_t chips = prof->oom_vs_pod_hbm ? m->num_chips : 1;
    s->out_of_memory = (double)(chips * hbm_size_GB) < s->mem_footprint_GB;
}
