/* dit.c — DiT inference (opsgen.md §8), plus what DiT and GLIGEN share: the
 * statistics of §12.5 and the sweep enumeration and axes of §13.2/§13.4.
 *
 * The Diffusion Transformer is run as an LLM prefill over the image's
 * patches: the LLM generator builds one layer's prefill ops on a derived
 * config, the decode ops it also builds are dropped, and each count is
 * multiplied by the number of diffusion steps (so the trace stays 10 ops
 * however many steps). Tensor parallelism only reaches the ops through TP
 * axes, which the sweep never maps for DiT (quirk opsgen Q13). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opsgen/builders.h"
#include "opsgen/diffusion.h"

void dit_llm_config(const struct model_config *m, struct model_config *llm)
{
    *llm = *m;
    snprintf(llm->model_type, sizeof llm->model_type, "llm");
    /* Tokens from the pixel width, not the 8x smaller latent (quirk opsgen Q25). */
    llm->input_seqlen = cdiv64(m->image_width * m->image_width, m->patch_size * m->patch_size);
    llm->output_seqlen = 1;
    /* Image patches attend to each other both ways, and there is no vocabulary. */
    llm->bidirectional = true;
    llm->vocab_size = 0;
}

/* Config checks (0, or -1 with e). */
static int dit_validate(const struct model_config *m, struct npu_err *e)
{
    if (strcmp(m->model_type, "dit"))
        return npu_errf(e, "model field \"model_type\": expected \"dit\", got \"%s\"", m->model_type);
    if (m->image_width <= 0 || m->patch_size <= 0 || m->num_diffusion_steps <= 0)
        return npu_errf(e, "model field \"%s\": expected a positive integer",
                        m->image_width <= 0 ? "image_width"
                        : m->patch_size <= 0 ? "patch_size" : "num_diffusion_steps");
    /* A partial patch has no meaning; the reference would round the token
     * count up silently. */
    if (m->image_width % m->patch_size)
        return npu_errf(e, "model field \"patch_size\": expected a divisor of image_width %lld, got %lld",
                        (long long)m->image_width, (long long)m->patch_size);
    if (m->image_width > 1000000)
        return npu_errf(e, "model field \"image_width\": expected at most 1000000, got %lld",
                        (long long)m->image_width);
    static const char *const dcn[] = { "data_parallel_degree_dcn", "tensor_parallel_degree_dcn",
                                       "pipeline_parallel_degree_dcn" };
    const int64_t v[] = { m->data_parallel_degree_dcn, m->tensor_parallel_degree_dcn,
                          m->pipeline_parallel_degree_dcn };
    for (int i = 0; i < 3; i++)
        if (v[i] != 1)
            return npu_errf(e, "model field \"%s\": DiT runs on one pod, expected 1, got %lld",
                            dcn[i], (long long)v[i]);
    return 0;
}

int opsgen_dit(const struct model_config *m, const struct opsgen_links *l,
               const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e)
{
    if (dit_validate(m, e))
        return -1;
    struct model_config llm;
    dit_llm_config(m, &llm);
    size_t first = out->n;
    if (opsgen_llm_inference(&llm, l, prof, out, ovf, e))
        return -1;
    size_t keep = first;
    for (size_t i = first; i < out->n; i++) {
        struct op *op = &out->ops[i];
        if (op->phase == PHASE_DECODE) {
            op_free(op);
            continue;
        }
        op->count *= m->num_diffusion_steps;
        op->phase = PHASE_NONE;
        if (keep != i)
            out->ops[keep] = *op;   /* moves the strings */
        keep++;
    }
    out->n = keep;
    return 0;
}

int64_t opsgen_dit_mem_bytes(const struct model_config *m, const struct profile *prof)
{
    struct model_config llm;
    dit_llm_config(m, &llm);
    return opsgen_llm_inference_mem_bytes(&llm, PHASE_PREFILL, prof);
}

int64_t opsgen_gligen_mem_bytes(int64_t hbm_size_GB)
{
    return hbm_size_GB * ((int64_t)1 << 30) - 1024;
}

int64_t opsgen_gligen_mem_bytes_of(const struct trace *t, int64_t hbm_size_GB, const struct profile *prof)
{
    if (prof->dlrm_gligen_placeholder_footprint)
        return opsgen_gligen_mem_bytes(hbm_size_GB);
    bool ovf = false;   /* the footprint alone: there is no trace to fail */
    int64_t w = 0, live = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        w = badd(&ovf, w, bmul(&ovf, op->weight_bytes, op->count));
        int64_t a = op->bytes - op->weight_bytes;
        if (a > live)
            live = a;
    }
    return badd(&ovf, w, live);
}

/* ---- sweep helpers ---- */

void sweep_map_axes_diffusion(const char *v, struct model_config *m)
{
    m->num_data_parallel_axes = (!strcmp(v, "2") || !strcmp(v, "3")) ? 2 : 3;
    m->num_tensor_parallel_axes = 0;
    m->num_pipeline_parallel_axes = 0;
}
