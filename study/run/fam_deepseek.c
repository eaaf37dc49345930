/* fam_deepseek.c — the DeepSeek inference entry of the family table: MLA +
 * MoE prefill and decode traces, the same per-phase CSVs and statistics JSON
 * as LLM inference but with the DeepSeek memory footprint, and the MoE sweep
 * (expert parallelism in the enumeration, the validation and the run names;
 * opsgen.md §7, §11.3, §12.2, §13). */
#include <string.h>

#include "study/run/outputs.h"
#include "study/run/pipeline.h"
#include "study/run/family.h"
#include "opsgen/deepseek.h"

/* DeepSeek experts are small: the reference sweep caps expert TP at 8. */
#define MAX_ETP 8

static bool ds_matches(const struct model_config *m, const char *workload)
{
    return !strcmp(m->model_type, "llm") && !strcmp(m->ffn_type, "deepseek_moe") &&
           !strcmp(workload, "inference");
}

/* The shipped model files leave every axis count at 0; map the degrees to
 * torus axes as the sweep does unless the config chose axes itself. A layout
 * the mapping cannot express is left to the generator's validation. */
static void ds_auto_axes(struct loaded_config *c)
{
    struct model_config *m = &c->model;
    if (m->num_data_parallel_axes == 0 && m->num_tensor_parallel_axes == 0 &&
        m->num_pipeline_parallel_axes == 0 && m->num_expert_parallel_axes == 0)
        (void)sweep_map_axes_moe(c->chip.name, m);
}

static int ds_write(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                     const char *dir, const char *base, bool sweep, const struct output_sink *to,
                    struct npu_err *e)
{
    return write_llm_family_outputs(c, prof, t, dir, base, sweep, opsgen_deepseek_mem_bytes, to, e);
}

static void ds_summary(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                       FILE *out)
{
    llm_family_summary(c, prof, t, opsgen_deepseek_mem_bytes, true, out);
}

static int ds_enumerate(int64_t num_chips, struct parallel_cfg **out, size_t *n, struct npu_err *e)
{
    return sweep_moe_configs(num_chips, MAX_ETP, out, n, e);
}

static bool ds_prepare(struct loaded_config *c, const struct profile *prof, char *why, size_t whylen)
{
    struct opsgen_links l;
    config_links(&c->chip, &l);
    /* Skipped only when both phases fail (opsgen.md §13.3). */
    if (!sweep_validate_moe(&c->model, &l, prof, PHASE_PREFILL, 1.5, why, whylen) &&
        !sweep_validate_moe(&c->model, &l, prof, PHASE_DECODE, 1.5, why, whylen))
        return false;
    if (!sweep_map_axes_moe(c->chip.name, &c->model)) {
        if (why && whylen)
            snprintf(why, whylen, "ep %lld cannot be laid out on the dp/tp torus axes",
                     (long long)c->model.expert_parallelism_degree);
        return false;
    }
    return true;
}

static int ds_capacity(const struct loaded_config *c, const struct profile *prof,
                       const struct trace *t, struct family_capacity *cap, struct npu_err *e)
{
    return llm_family_capacity(c, prof, t, opsgen_deepseek_mem_bytes, cap, e);
}

static int ds_stats(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                    struct llm_report *r, struct npu_err *e)
{
    return llm_report_compute_mem(&c->model, &c->chip, prof, t, opsgen_deepseek_mem_bytes, r, e);
}

const struct family fam_deepseek = {
    .name = "deepseek inference",
    .example = "npusim run -m deepseekv2-236b -c tpuv5p --set num_chips=16 "
               "--set tensor_parallelism_degree=4 --set expert_parallelism_degree=4 --batch 8",
    .matches = ds_matches,
    .adjust = ds_auto_axes,
    .gen = opsgen_deepseek_inference,
    .write = ds_write,
    .summary = ds_summary,
    .enumerate = ds_enumerate,
    .pstr = sweep_pstr_moe,
    .prepare = ds_prepare,
    .llm_stats = ds_stats,
    .capacity = ds_capacity,
    .step_attention = opsgen_deepseek_step_attention,
    .mem_parts = opsgen_deepseek_mem_parts,
};
