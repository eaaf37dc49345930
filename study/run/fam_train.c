/* fam_train.c — the llama training entry of the family table: one training
 * step's trace (forward, backward, weight update) as a single CSV and the
 * reference's training statistics JSON (opsgen.md §6, §12.3, §13).
 *
 * Files: `npusim run` writes <dir>/<model>_<chip>.csv and .json; the sweep
 * writes <pstr>/training-v<V>.csv and .json as the reference does. */
#include <string.h>

#include "study/run/outputs.h"
#include "study/run/pyjson.h"
#include "study/run/pipeline.h"
#include "study/run/family.h"
#include "study/run/fit_hint.h"
#include "opsgen/opsgen.h"
#include "opsgen/train.h"
#include "study/run/train_stats.h"
#include "power/invariants.h"
#include "base/atomic.h"

static bool train_matches(const struct model_config *m, const char *workload)
{
    return !strcmp(m->model_type, "llm") && strcmp(m->ffn_type, "deepseek_moe") != 0 &&
           !strcmp(workload, "training");
}

/* As for inference, map the degrees to torus axes when the config chose none.
 * The reference's sweep also forces flash attention off for training; here a
 * model that does not mention it gets the same, while an explicit true (model
 * file or --set) is left for the generator to reject by name. */
static void train_adjust(struct loaded_config *c)
{
    struct model_config *m = &c->model;
    if (m->num_data_parallel_axes == 0 && m->num_tensor_parallel_axes == 0 &&
        m->num_pipeline_parallel_axes == 0)
        sweep_map_axes_llm(c->chip.name, m);
    if (!cJSON_GetObjectItemCaseSensitive(c->merged, "use_flash_attention"))
        m->use_flash_attention = false;
}

/* The training step without a per-layer breakdown. */
static int train_gen(const struct model_config *m, const struct opsgen_links *l, const struct profile *prof,
                     struct trace *t, bool *ovf, struct npu_err *e)
{
    return opsgen_llm_training(m, l, prof, t, NULL, ovf, e);
}

static int stats_of(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                    struct train_stats *s, struct npu_err *e)
{
    struct trace_stats chip;
    if (trace_stats_compute(t, PHASE_NONE, &chip, e))
        return -1;
    if (chip.total_execution_time_chip_ns <= 0)
        return npu_errf(e, "%s: the trace has no timed ops (total execution time 0)", c->model_name);
    train_stats_compute(&chip, &c->model, prof, c->chip.hbm_size_GB, s);
    return 0;
}

static bool energy_done(const struct trace *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->ops[i].energy_done)
            return true;
    return false;
}

/* The reference's key order: §12.1 aggregates, pod values, DCN bound, total,
 * memory, OOM, then sim_config. */
static cJSON *stats_json(const struct train_stats *s, const struct trace *t, cJSON *sim,
                         const struct invariant_warnings *w)
{
    const struct trace_stats *c = &s->chip;
    cJSON *o = cJSON_CreateObject();
    json_add_trace_stats(o, c);
    json_add_i64(o, "total_execution_time_pod_ns", s->total_execution_time_pod_ns);
    json_add_i64(o, "compute_only_time_pod_ns", s->compute_only_time_pod_ns);
    json_add_i64(o, "memory_only_time_pod_ns", s->memory_only_time_pod_ns);
    json_add_i64(o, "ici_bound_time_pod_ns", s->ici_bound_time_pod_ns);
    cJSON_AddBoolToObject(o, "bounded_by_pp_dcn", s->bounded_by_pp_dcn);
    json_add_i64(o, "total_execution_time_ns", s->total_execution_time_ns);
    json_add_f64(o, "mem_footprint_GB", s->mem_footprint_GB);
    cJSON_AddBoolToObject(o, "out_of_memory", s->out_of_memory);
    /* Not in the reference (its sweep has no energy pass): one chip's step energy. */
    if (energy_done(t))
        json_add_f64(o, "total_energy_J", c->static_energy_J + c->dynamic_energy_J);
    if (w && w->n > 0) {
        cJSON *a = cJSON_AddArrayToObject(o, "warnings");
        for (int i = 0; i < w->n; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(w->msg[i]));
    }
    cJSON_AddItemToObject(o, "sim_config", sim);
    return o;
}

static int train_write(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                       const char *dir, const char *base, bool sweep, const struct output_sink *to,
                       struct npu_err *e)
{
    struct train_stats s;
    if (stats_of(c, prof, t, &s, e))
        return -1;
    cJSON *sim = config_dump(c, prof);
    if (sweep) {
        /* The reference's stats dump adds these to sim_config for every LLM run. */
        const struct model_config *m = &c->model;
        int64_t pods = m->data_parallel_degree_dcn * m->pipeline_parallel_degree_dcn;
        int64_t stages = m->pipeline_parallelism_degree * m->pipeline_parallel_degree_dcn;
        json_add_i64(sim, "num_pods", pods);
        json_add_i64(sim, "batch_size_per_pod", (m->global_batch_size + pods - 1) / pods);
        json_add_i64(sim, "layers_per_pp_stage", (m->num_layers + stages - 1) / stages);
    }
    /* Physical invariants (power/invariants.h); results trees keep the reference's bytes. */
    struct invariant_warnings w = { 0 };
    invariants_check(t, PHASE_NONE, &c->chip, prof, "training step", &w);
    cJSON *j = stats_json(&s, t, sim, sweep ? NULL : &w);
    return write_trace_and_stats(t, j, dir, base, to, e);
}

static void train_summary(const struct loaded_config *c, const struct profile *prof,
                          const struct trace *t, FILE *out)
{
    const struct model_config *m = &c->model;
    struct train_stats s;
    struct npu_err e;
    fprintf(out, "%s training on %s (%lld chip%s%s: dp %lld, tp %lld, pp %lld, dp_dcn %lld, pp_dcn %lld; "
                 "global batch %lld, microbatch %lld; seq %lld)\n",
            c->model_name, c->chip_name, (long long)m->num_chips, m->num_chips == 1 ? "" : "s", config_chips_note(c),
            (long long)m->data_parallelism_degree, (long long)m->tensor_parallelism_degree,
            (long long)m->pipeline_parallelism_degree, (long long)m->data_parallel_degree_dcn,
            (long long)m->pipeline_parallel_degree_dcn, (long long)m->global_batch_size,
            (long long)m->microbatch_size_ici, (long long)m->input_seqlen);
    struct invariant_warnings w = { 0 };
    invariants_check(t, PHASE_NONE, &c->chip, prof, "training step", &w);
    invariants_print(&w, "run", stderr);
    if (stats_of(c, prof, t, &s, &e)) {
        fprintf(out, "  (no statistics: %s)\n", e.msg);
        return;
    }
    fprintf(out, "  step time     %.6f s (chip %.6f s, pod %.6f s%s)\n",
            (double)s.total_execution_time_ns / 1e9,
            (double)s.chip.total_execution_time_chip_ns / 1e9,
            (double)s.total_execution_time_pod_ns / 1e9,
            s.bounded_by_pp_dcn ? "; bounded by pipeline DCN transfers" : "");
    fprintf(out, "  throughput    %.1f tokens/s (global batch x seq / step time)\n",
            (double)(m->global_batch_size * m->input_seqlen) * 1e9 / (double)s.total_execution_time_ns);
    double chip_J = s.chip.static_energy_J + s.chip.dynamic_energy_J;
    if (energy_done(t) && m->num_chips > 1)   /* a sweep's and the fleet's energy per iteration: all of them */
        fprintf(out, "  energy/step   %.6g J per chip, %.6g J all %lld chips\n", chip_J,
                chip_J * (double)m->num_chips, (long long)m->num_chips);
    else if (energy_done(t))
        fprintf(out, "  energy/step   %.6g J per chip\n", chip_J);
    fprintf(out, "  memory        %.4f GiB per chip of %lld GiB HBM%s\n", s.mem_footprint_GB,
            (long long)c->chip.hbm_size_GB,
            !prof->oom_vs_pod_hbm ? (s.out_of_memory ? " (out of memory)" : "")
            : s.out_of_memory ? " (out of memory even against the whole pod's HBM)"
            : s.mem_footprint_GB > (double)c->chip.hbm_size_GB
                ? " (exceeds one chip; the reference flags OOM only against the pod's HBM)" : "");
    if (s.mem_footprint_GB > (double)c->chip.hbm_size_GB)
        fit_hint(c, prof, fit_mem_one, &(struct fit_bytes){ opsgen_llm_training_mem_bytes }, true, out);
}

static int train_enumerate(int64_t num_chips, struct parallel_cfg **out, size_t *n, struct npu_err *e)
{
    return sweep_llm_configs(num_chips, true, out, n, e);
}

static bool train_prepare(struct loaded_config *c, const struct profile *prof, char *why, size_t whylen)
{
    struct opsgen_links l;
    config_links(&c->chip, &l);
    if (!train_validate_sweep(&c->model, &l, prof, 1.5, why, whylen))
        return false;
    sweep_map_axes_llm(c->chip.name, &c->model);
    /* run_sim: flash attention is not supported for training. */
    c->model.use_flash_attention = false;
    return true;
}

static int train_capacity(const struct loaded_config *c, const struct profile *prof,
                          const struct trace *t, struct family_capacity *cap, struct npu_err *e)
{
    (void)prof;
    struct train_stats s;
    if (stats_of(c, prof, t, &s, e))
        return -1;
    /* Each chip runs its own trace once a step (busy for its pipeline slot,
     * waiting for the other stages the rest of the step), so a step costs
     * every chip its trace's energy: the power at capacity is that over the
     * step, and the energy per iteration is the summary's all-chips energy
     * per step (before: the busy power over the whole step, pp times it). */
    double step_s = (double)s.total_execution_time_ns / 1e9;
    cap->unit = "iterations";
    cap->units_per_sec = 1e9 / (double)s.total_execution_time_ns;
    cap->active_power_W = (s.chip.static_energy_J + s.chip.dynamic_energy_J) / step_s *
                          (double)c->model.num_chips;
    cap->has_mem = true, cap->mem_GiB = s.mem_footprint_GB, cap->oom = s.out_of_memory;
    return 0;
}

const struct family fam_llm_training = {
    .name = "llama training",
    .example = "npusim run -m llama3-8b -c tpuv5p --workload training --batch 32 --set num_chips=64 "
               "--set data_parallelism_degree=8 --set tensor_parallelism_degree=8",
    .matches = train_matches,
    .adjust = train_adjust,
    .gen = train_gen,
    .strict_fields = true,
    .write = train_write,
    .summary = train_summary,
    .enumerate = train_enumerate,
    .pstr = sweep_pstr_llm,
    .prepare = train_prepare,
    .capacity = train_capacity,
};
