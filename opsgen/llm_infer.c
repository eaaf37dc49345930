/* llm_infer.c — LLM inference op sequence (opsgen.md §4.2, §5).
 *
 * One transformer layer per phase, each op counted once per layer (prefill)
 * or once per layer and decode step (decode): optional KV swap, pipeline
 * receive, input LayerNorm, attention, FFN, pipeline send. The fusion-id walk
 * follows the reference step by step, including the stale id of the send ops
 * (quirk opsgen Q5), because the ids are printed in the trace.
 *
 * The phase skeleton (opsgen/phases.h) walks the phase; this file gives it
 * the inference phase data and the layer (attention and FFN).
 *
 * Main data structure: struct gen_run (opsgen/phases.h), the per-run
 * quantities of §4.2 (local batch, layers per stage, TP axes with their link
 * bandwidths). Quirks opsgen Q2 (no GQA in ops) and opsgen Q8 (decode at the
 * final KV length) are switched in the attention builder (opsgen/layers.c). */
#include <stddef.h>
#include <string.h>

#include "opsgen/builders.h"
#include "opsgen/gen.h"
#include "opsgen/layers.h"
#include "opsgen/opsgen.h"
#include "opsgen/parallel.h"
#include "opsgen/phases.h"

/* The prefill or decode phase (gen_phases). */
static void phase_setup(void *g, int i, struct gen_phase *ph)
{
    gen_phase_inference(g, i == 1, ph);
}

/* One transformer layer after the input LayerNorm: attention and FFN. The
 * reference does not advance past the FFN, so the sends reuse the FFN's
 * first fid (quirk opsgen Q5, phase data). */
static int phase_layers(void *g, const struct gen_phase *ph, int64_t *fid)
{
    const struct gen_run *r = g;
    const struct model_config *m = r->m;
    struct layer_ctx lc = { r->t, r->ovf, r->prof, r->B, ph->count, ph->decode, &r->tp, "", &r->fmt };
    struct attn_args at = { .seq = ph->seq, .s_in = m->input_seqlen, .s_out = m->output_seqlen,
                            .H = m->num_heads, .D = m->d_model, .dh = m->d_head,
                            .kv_heads = m->num_kv_heads, .flash = m->use_flash_attention,
                            .causal = !m->bidirectional, .parallel_ffn = m->parallel_attn_ffn,
                            .decode_kv_per_head = !m->decode_kv_shared };
    return layer_block(&lc, &at, m, fid);
}

/* ---- validation ---- */

int opsgen_check_strict(const struct model_config *m, struct npu_err *e)
{
    static const struct { const char *what; size_t off; } dims[] = {
        { "num_heads", offsetof(struct model_config, num_heads) },
        { "d_model", offsetof(struct model_config, d_model) },
        { "d_ff", offsetof(struct model_config, d_ff) },
    };
    int64_t tp = m->tensor_parallelism_degree;
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        int64_t v = *(const int64_t *)((const char *)m + dims[i].off);
        if (tp > 0 && v % tp)
            return npu_errf(e, "model field \"tensor_parallelism_degree\": %lld does not divide %s %lld",
                            (long long)tp, dims[i].what, (long long)v);
    }
    return gen_require_stages(m, e);
}

static int validate(const struct model_config *m, const struct opsgen_links *l,
                    struct npu_err *e)
{
    if (gen_require_llm(m, "LLM inference", e))
        return -1;
    if (!ffn_kind_of(m->ffn_type))
        return ffn_type_error(m->ffn_type, e);
    static const char *const positive[] = {
        "num_chips", "data_parallelism_degree", "tensor_parallelism_degree",
        "pipeline_parallelism_degree", "data_parallel_degree_dcn", "tensor_parallel_degree_dcn",
        "pipeline_parallel_degree_dcn", "microbatch_size_ici", "input_seqlen", "output_seqlen",
        "d_model", "num_heads", "d_head", "d_ff", "num_layers", "decode_width",
        "max_swap_kv_cache_times_prefill", "max_swap_kv_cache_times_decode",
    };
    if (gen_require_positive(m, positive, sizeof positive / sizeof positive[0], e))
        return -1;
    if (gen_require_axes("num_tensor_parallel_axes", m->num_tensor_parallel_axes, PAR_MAX_FACTORS, e) ||
        gen_require_chips(m, e))
        return -1;
    return gen_require_links(l, true, m->pipeline_parallel_degree_dcn > 1, e);
}

int opsgen_llm_inference(const struct model_config *m, const struct opsgen_links *l,
                         const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e)
{
    if (validate(m, l, e))
        return -1;
    /* A footprint past int64 fails the trace. */
    (void)opsgen_llm_inference_mem_checked(ovf, m, PHASE_DECODE, prof);
    struct gen_run g;
    gen_run_init(&g, m, l, prof, out, ovf);
    if (gen_axes(&g.tp, m->tensor_parallelism_degree, m->num_tensor_parallel_axes, prof, l, SHAPE_MAXD))
        return npu_errf(e, "model field \"num_tensor_parallel_axes\": at most %d axes supported",
                        SHAPE_MAXD);

    static const struct gen_phase_hooks hooks = { .setup = phase_setup, .layers = phase_layers,
                                                  .mem_bytes = opsgen_llm_inference_mem_checked };
    return gen_phases(&g, &hooks, &g, e);
}

/* ---- one serving step's attention ---- */

bool opsgen_op_is_attention_core(const struct op *op)
{
    /* llama's scores, softmax and weighted sum, or flash attention; MLA's
     * three cache einsums and softmax (opsgen/deepseek.c), which follow its
     * "Attention-serving-" prefix (the MoE gate has a scores_softmax too) */
    static const char *const mla[] = { "q_nope_kv_cache_einsum", "q_pe_pe_einsum", "scores_softmax",
                                       "scores_kv_cache_einsum" };
    const char *d = op->description, *p = strstr(d, "Attention-serving-");
    if (strstr(d, "Softmax(Q*K)*V") || strstr(d, "-FlashAttention-"))
        return true;
    for (size_t i = 0; p && i < sizeof mla / sizeof mla[0]; i++) {
        const char *x = strstr(p, mla[i]);
        if (x && x[strlen(mla[i])] == '\0')
            return true;
    }
    return false;
}

bool opsgen_op_is_lm_head(const struct op *op)
{
    return !strcmp(op->description, "LMHead");
}

int opsgen_llm_step_attention(const struct model_config *m, const struct opsgen_links *l,
                              const struct profile *prof, const struct opsgen_step_attn *a,
                              struct trace *out, bool *ovf, struct npu_err *e)
{
    struct trace scratch;
    trace_init(&scratch);
    struct gen_run g;
    gen_run_init(&g, m, l, prof, &scratch, ovf);
    if (gen_axes(&g.tp, m->tensor_parallelism_degree, m->num_tensor_parallel_axes, prof, l, SHAPE_MAXD))
        return npu_errf(e, "model field \"num_tensor_parallel_axes\": at most %d axes supported", SHAPE_MAXD);
    struct layer_ctx lc = { &scratch, ovf, prof, a->batch, g.L, a->decode, &g.tp, "", &g.fmt };
    /* Decode: one suffix group of length s needs an odd step count 2s - 1
     * (decode_suffix_groups), counted here once per layer. */
    struct attn_args at = { .seq = a->decode ? m->decode_width : a->q, .s_in = a->prefix,
                            .s_out = 2 * a->suffix - 1, .H = m->num_heads, .D = m->d_model, .dh = m->d_head,
                            .kv_heads = m->num_kv_heads, .flash = m->use_flash_attention,
                            .causal = !m->bidirectional, .parallel_ffn = m->parallel_attn_ffn,
                            .decode_kv_per_head = !m->decode_kv_shared,
                            .q_seq = a->decode ? 0 : a->q, .kv_seq = a->decode ? 0 : a->kv,
                            .att_keys = a->decode ? 0 : a->att };
    int64_t fid = 2;
    int rc = layer_attention(&lc, &at, &fid);
    for (size_t i = 0; i < scratch.n; i++) {
        struct op *op = &scratch.ops[i];
        if (!rc && opsgen_op_is_attention_core(op)) {
            *trace_push(out) = *op;   /* moved: the strings go with it */
            op_init(op);
        }
    }
    trace_free(&scratch);
    return rc ? npu_errf(e, "internal: malformed op builder arguments") : 0;
}
