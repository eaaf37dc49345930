/* fam_dit.c — the DiT inference entry of the family table (opsgen.md §8,
 * §12.5, §13), and the output/summary code it shares with fam_gligen.c:
 * one CSV of the whole trace plus one statistics JSON,
 *   sweep: <dir>/inference-v<V>.csv / .json     run: <dir>/<model>_<chip>.csv / .json
 * with the reference's keys (trace aggregates, throughputs, latencies,
 * memory, OOM flag, sim_config) and, after the energy pass of `npusim run`,
 * the trace's energy. */
#include <stdio.h>
#include <string.h>

#include "study/run/outputs.h"
#include "study/run/pipeline.h"
#include "study/run/family.h"
#include "study/run/fit_hint.h"
#include "study/run/pyjson.h"
#include "opsgen/diffusion.h"
#include "study/run/diffusion_stats.h"
#include "base/atomic.h"

#include "study/run/fam_diffusion.h"

/* The shipped model files leave every axis count at 0; map them as the
 * sweep does, (m, 0, 0), unless the config chose axes itself. */
bool diffusion_prepare(struct loaded_config *c, const struct profile *prof, char *why, size_t whylen)
{
    (void)prof, (void)why, (void)whylen;   /* diffusion points are always valid */
    sweep_map_axes_diffusion(c->chip.name, &c->model);
    return true;
}

void diffusion_auto_axes(struct loaded_config *c)
{
    struct model_config *m = &c->model;
    if (m->num_data_parallel_axes == 0 && m->num_tensor_parallel_axes == 0 &&
        m->num_pipeline_parallel_axes == 0)
        sweep_map_axes_diffusion(c->chip.name, m);
}

/* Takes ownership of sim (the sim_config block). */
int diffusion_write(const struct loaded_config *c, const struct profile *prof, const struct trace *t, int64_t mem_bytes,
                    cJSON *sim, const char *dir, const char *base, const struct output_sink *to,
                    struct npu_err *e)
{
    struct diffusion_report r;
    if (diffusion_report_compute(&c->model, c->chip.hbm_size_GB, mem_bytes, prof->oom_vs_pod_hbm, t, &r, e)) {
        cJSON_Delete(sim);
        return -1;
    }
    cJSON *j = cJSON_CreateObject();
    json_add_trace_stats(j, &r.s);
    json_add_f64(j, "throughput_requests_per_sec", r.throughput_requests_per_sec);
    json_add_f64(j, "throughput_step_per_sec_per_request", r.throughput_step_per_sec_per_request);
    json_add_f64(j, "latency_sec", r.latency_sec);
    json_add_f64(j, "latency_step_sec", r.latency_step_sec);
    json_add_f64(j, "mem_footprint_GB", r.mem_footprint_GB);
    cJSON_AddBoolToObject(j, "out_of_memory", r.out_of_memory);
    if (r.energy_done) {
        json_add_f64(j, "total_energy_J", r.energy_J);
        json_add_f64(j, "energy_per_request_J", r.energy_per_request_J);
    }
    cJSON_AddItemToObject(j, "sim_config", sim);
    return write_trace_and_stats(t, j, dir, base, to, e);
}

void diffusion_summary(const struct loaded_config *c, const struct profile *prof, const struct trace *t, int64_t mem_bytes,
                       FILE *out)
{
    const struct model_config *m = &c->model;
    struct diffusion_report r;
    struct npu_err e;
    fprintf(out, "%s on %s (%lld chip%s%s: dp %lld, tp %lld, pp %lld; batch %lld; %lld diffusion step%s per trace)\n",
            c->model_name, c->chip_name, (long long)m->num_chips, m->num_chips == 1 ? "" : "s", config_chips_note(c),
            (long long)m->data_parallelism_degree, (long long)m->tensor_parallelism_degree,
            (long long)m->pipeline_parallelism_degree, (long long)m->global_batch_size,
            (long long)m->num_diffusion_steps, m->num_diffusion_steps == 1 ? "" : "s");
    if (diffusion_report_compute(m, c->chip.hbm_size_GB, mem_bytes, prof->oom_vs_pod_hbm, t, &r, &e)) {
        fprintf(out, "  (no statistics: %s)\n", e.msg);
        return;
    }
    /* The JSON keeps the reference's latency_step_sec (quirk opsgen Q31); the
     * summary shows the time one step takes. */
    fprintf(out, "  latency       %.6f s per request, %.6f s per diffusion step\n", r.latency_sec,
            r.step_sec);
    fprintf(out, "  throughput    %.6g requests/s, %.6g steps/s per request\n",
            r.throughput_requests_per_sec, r.throughput_step_per_sec_per_request);
    /* The trace is one chip's work (the JSON's energies are its); a request
     * costs every chip's. */
    if (r.energy_done && m->num_chips > 1)
        fprintf(out, "  energy        %.6g J per request over all %lld chips (%.6g J per trace per chip)\n",
                r.energy_per_request_J * (double)m->num_chips, (long long)m->num_chips, r.energy_J);
    else if (r.energy_done)
        fprintf(out, "  energy        %.6g J per trace, %.6g J per request\n", r.energy_J,
                r.energy_per_request_J);
    /* The footprint is one chip's; the verdict compares it with one chip's
     * HBM (the reference's with the pod's: said as N x). */
    fprintf(out, "  memory        %.2f GiB per chip of ", r.mem_footprint_GB);
    if (prof->oom_vs_pod_hbm)
        fprintf(out, "%lld x ", (long long)m->num_chips);
    fprintf(out, "%lld GiB HBM%s\n", (long long)c->chip.hbm_size_GB, r.out_of_memory ? " (out of memory)" : "");
}

int diffusion_capacity(const struct loaded_config *c, const struct profile *prof, const struct trace *t, int64_t mem_bytes,
                       struct family_capacity *cap, struct npu_err *e)
{
    struct diffusion_report r;
    if (diffusion_report_compute(&c->model, c->chip.hbm_size_GB, mem_bytes, prof->oom_vs_pod_hbm, t, &r, e))
        return -1;
    cap->unit = "requests";
    cap->units_per_sec = r.throughput_requests_per_sec;
    /* The trace is one chip's work; every chip runs its own. */
    cap->active_power_W = r.energy_J / ((double)r.s.total_execution_time_chip_ns / 1e9) *
                          (double)c->model.num_chips;
    cap->has_mem = true, cap->mem_GiB = r.mem_footprint_GB, cap->oom = r.out_of_memory;
    return 0;
}

/* ---- the DiT entry ---- */

static bool dit_matches(const struct model_config *m, const char *workload)
{
    return !strcmp(m->model_type, "dit") && !strcmp(workload, "inference");
}

static int dit_write(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                     const char *dir, const char *base, bool sweep, const struct output_sink *to,
                     struct npu_err *e)
{
    (void)sweep;   /* the run and the sweep write the same two files */
    return diffusion_write(c, prof, t, opsgen_dit_mem_bytes(&c->model, prof), config_dump(c, prof), dir, base, to, e);
}

static void dit_summary(const struct loaded_config *c, const struct profile *prof,
                        const struct trace *t, FILE *out)
{
    summary_warnings(c, prof, t);
    int64_t mem = opsgen_dit_mem_bytes(&c->model, prof);
    diffusion_summary(c, prof, t, mem, out);
    /* Out of memory (diffusion_report_compute's test): what fits. */
    if ((double)mem / 1073741824.0 > (double)((prof->oom_vs_pod_hbm ? c->model.num_chips : 1) * c->chip.hbm_size_GB))
        fit_hint(c, prof, fit_mem_one, &(struct fit_bytes){ opsgen_dit_mem_bytes }, false, out);
}

static int dit_enumerate(int64_t num_chips, struct parallel_cfg **out, size_t *n, struct npu_err *e)
{
    return sweep_diffusion_configs(num_chips, false, out, n, e);
}

/* The reference validates nothing for DiT and maps (m, 0, 0) axes, so TP
 * never reaches the attention or FFN ops (opsgen Q13); uneven shards and deep
 * pipelines are simulated with rounded-up sizes, as the reference does. */
static int dit_capacity(const struct loaded_config *c, const struct profile *prof,
                        const struct trace *t, struct family_capacity *cap, struct npu_err *e)
{
    return diffusion_capacity(c, prof, t, opsgen_dit_mem_bytes(&c->model, prof), cap, e);
}

const struct family fam_dit = {
    .name = "dit inference",
    .example = "npusim run -m dit-xl -c tpuv5p",
    .matches = dit_matches,
    .adjust = diffusion_auto_axes,
    .gen = opsgen_dit,
    .strict_fields = true,
    .write = dit_write,
    .summary = dit_summary,
    .enumerate = dit_enumerate,
    .pstr = sweep_pstr_llm,
    .prepare = diffusion_prepare,
    .capacity = dit_capacity,
};
