/* diffusion_stats.h — end-to-end statistics of a timed DiT or GLIGEN trace
 * (opsgen.md §12.5): throughput, latency per request and per step, memory,
 * energy.
 *
 * Main data structure: struct diffusion_report. */
#ifndef NPUSIM_STUDY_DIFFUSION_STATS_H
#define NPUSIM_STUDY_DIFFUSION_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "opsgen/model.h"
#include "study/run/stats.h"
#include "base/err.h"
#include "traces/op.h"

struct diffusion_report {
    struct trace_stats s;                  /* §12.1 over every op */
    double throughput_requests_per_sec;
    double throughput_step_per_sec_per_request;
    double latency_sec;                    /* one request: all diffusion steps */
    double latency_step_sec;               /* divides by total steps twice (quirk opsgen Q31) */
    double step_sec;                       /* one diffusion step: trace time / steps in it */
    double mem_footprint_GB;               /* GiB */
    bool out_of_memory;                    /* num_chips x HBM < footprint (quirk opsgen Q15b) */
    bool energy_done;
    double energy_J;                       /* count-weighted energy of the trace */
    double energy_per_request_J;
};

/* §12.5. The trace covers num_diffusion_steps steps; a request runs
 * total_num_diffusion_steps (GLIGEN) or 1 (DiT: the trace already holds
 * every step) such traces. mem_bytes from the family's footprint function.
 * Returns -1 (with e) when the trace has no timed ops. */
int diffusion_report_compute(const struct model_config *m, int64_t hbm_size_GB, int64_t mem_bytes, bool oom_vs_pod,
                             const struct trace *t, struct diffusion_report *r, struct npu_err *e);

#endif
