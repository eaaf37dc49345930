/* diffusion_stats.c — DiT/GLIGEN statistics (see diffusion_stats.h). */
#include "study/run/diffusion_stats.h"

#include <string.h>

int diffusion_report_compute(const struct model_config *m, int64_t hbm_size_GB, int64_t mem_bytes, bool oom_vs_pod,
                             const struct trace *t, struct diffusion_report *r, struct npu_err *e)
{
    *r = (struct diffusion_report){ 0 };
    if (trace_stats_compute(t, PHASE_NONE, &r->s, e))
        return -1;
    double T = (double)r->s.total_execution_time_chip_ns;
    if (!(T > 0))
        return npu_errf(e, "%s: the trace has no timed ops (total execution time 0)", m->model_name);
    /* A GLIGEN request runs total_num_diffusion_steps UNet passes; the DiT
     * trace already counts all of its steps. */
    double total_steps = strcmp(m->model_type, "gligen") ? 1.0 : (double)m->total_num_diffusion_steps;
    double steps = (double)m->num_diffusion_steps, gbs = (double)m->global_batch_size;
    /* Same operation order as the reference, for bit-equal doubles. */
    r->throughput_requests_per_sec = gbs / (T / 1e9 * total_steps);
    r->throughput_step_per_sec_per_request = steps / (T / 1e9);
    r->latency_sec = T / 1e9 * total_steps;
    r->latency_step_sec = T / steps / 1e9 / total_steps;   /* quirk opsgen Q31 */
    r->step_sec = T / steps / 1e9;
    r->mem_footprint_GB = (double)mem_bytes / 1024 / 1024 / 1024;
    /* the reference compares a per-chip footprint with the pod's HBM (quirk opsgen Q15b) */
    r->out_of_memory = (double)((oom_vs_pod ? m->num_chips : 1) * hbm_size_GB) < r->mem_footprint_GB;
    for (size_t i = 0; i < t->n && !r->energy_done; i++)
        r->energy_done = t->ops[i].energy_done;
    r->energy_J = r->s.static_energy_J + r->s.dynamic_energy_J;
    r->energy_per_request_J = r->energy_J * total_steps / gbs;
    return 0;
}
