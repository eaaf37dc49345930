/* fam_llm.c — the llama-family inference entry of the family table:
 * prefill + decode traces, the reference's per-phase CSVs and statistics
 * JSON (opsgen.md §5, §12.2, §13). */
#include <string.h>

#include "study/run/outputs.h"
#include "study/run/pipeline.h"
#include "study/run/family.h"
#include "opsgen/deepseek.h"
#include "opsgen/opsgen.h"
#include "opsgen/pattern.h"

static bool llm_matches(const struct model_config *m, const char *workload)
{
    return !strcmp(m->model_type, "llm") && strcmp(m->ffn_type, "deepseek_moe") != 0 &&
           !strcmp(workload, "inference");
}

/* The shipped model files leave every axis count at 0, under which the
 * reference ignores tensor parallelism (opsgen Q13); map the degrees to torus
 * axes as the sweep does unless the config chose axes itself. */
void llm_auto_axes(struct loaded_config *c)
{
    struct model_config *m = &c->model;
    if (m->num_data_parallel_axes == 0 && m->num_tensor_parallel_axes == 0 &&
        m->num_pipeline_parallel_axes == 0)
        sweep_map_axes_llm(c->chip.name, m);
}

static int llm_write(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                     const char *dir, const char *base, bool sweep, const struct output_sink *to,
                     struct npu_err *e)
{
    return write_llm_family_outputs(c, prof, t, dir, base, sweep, NULL, to, e);
}

static void llm_summary(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                        FILE *out)
{
    llm_family_summary(c, prof, t, NULL, false, out);
}

static int llm_enumerate(int64_t num_chips, struct parallel_cfg **out, size_t *n, struct npu_err *e)
{
    return sweep_llm_configs(num_chips, false, out, n, e);
}

static bool llm_prepare(struct loaded_config *c, const struct profile *prof, char *why, size_t whylen)
{
    struct opsgen_links l;
    config_links(&c->chip, &l);
    /* Skipped only when both phases fail (opsgen.md §13.3). */
    if (!sweep_validate_llm(&c->model, &l, prof, PHASE_PREFILL, 1.5, why, whylen) &&
        !sweep_validate_llm(&c->model, &l, prof, PHASE_DECODE, 1.5, why, whylen))
        return false;
    sweep_map_axes_llm(c->chip.name, &c->model);
    return true;
}

static int llm_capacity(const struct loaded_config *c, const struct profile *prof,
                        const struct trace *t, struct family_capacity *cap, struct npu_err *e)
{
    return llm_family_capacity(c, prof, t, NULL, cap, e);
}

static int llm_stats(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                     struct llm_report *r, struct npu_err *e)
{
    return llm_report_compute_mem(&c->model, &c->chip, prof, t, NULL, r, e);
}

const struct family fam_llm_inference = {
    .name = "llama inference",
    .example = "npusim run -m llama3-8b -c tpuv5p",
    .matches = llm_matches,
    .adjust = llm_auto_axes,
    .gen = opsgen_llm_inference,
    .strict_fields = true,
    .write = llm_write,
    .summary = llm_summary,
    .enumerate = llm_enumerate,
    .pstr = sweep_pstr_llm,
    .prepare = llm_prepare,
    .llm_stats = llm_stats,
    .capacity = llm_capacity,
    .step_attention = opsgen_llm_step_attention,
    .mem_parts = opsgen_llm_mem_parts,
};
