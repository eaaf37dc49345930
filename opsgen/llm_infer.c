/* llm_infer.c — LLM inference op sequence (opsgen.md §4.2, §5).
 *
 * One transformer layer per phase, each op counted once per layer (prefill)
 * or once per layer and decode step (decode): optional KV swap, pipeline
 * receive, input LayerNorm, attention, FFN, pipeline send. The fusion-id walk
 * follows the reference step by step, including the stale id of the send ops
 * (quirk opsgen Q5), because the ids are printed in the trace.
 *
 * Main data structure: struct gen, the per-run quantities of §4.2 (local
 * batch, layers per stage, TP axes with their link bandwidths) plus the
 * phase being generated. Quirks opsgen Q2 (no GQA in ops) and opsgen Q8 (decode at the final
 * KV length) are switched in the attention builder (opsgen/layers.c). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "opsgen/builders.h"
#include "opsgen/gen.h"
#include "opsgen/layers.h"
#include "opsgen/opsgen.h"
#include "opsgen/parallel.h"

#define BF16 "DT_BFLOAT16"

struct gen {
    const struct model_config *m;
    const struct opsgen_links *l;
    const struct profile *prof;
    struct trace *t;
    int64_t B, L, D_tp;
    struct coll_axes tp;   /* TP axes list (may be empty: quirk opsgen Q13) */
    bool decode;
    int64_t seq, count;    /* tokens per step and layer-op count of the phase */
    struct tensor_formats fmt;   /* the model's number formats */
};

static struct op *last(const struct gen *g) { return &g->t->ops[g->t->n - 1]; }

/* Builder results are NULL only for malformed equations or op names, which
 * the fixed strings below never produce; the check keeps that true. */
#define CHK(x) do { if (!(x)) return -1; } while (0)

/* What every layer op of the phase shares (opsgen/layers.h). */
static struct layer_ctx layer_ctx_of(const struct gen *g)
{
    return (struct layer_ctx){ g->t, g->prof, g->B, g->count, g->decode, &g->tp, "", &g->fmt };
}

/* The stage ends (KV swap, pipeline receives and sends) of this phase. */
static struct gen_stage stage_of(const struct gen *g)
{
    return (struct gen_stage){ g->t, g->m, g->l, g->prof, g->decode, g->L, SHP(g->B, g->seq, g->D_tp), opsgen_llm_inference_mem_bytes };
}

/* One phase; returns the fid of its last op through *last_fid. */
static int phase_ops(struct gen *g, int64_t fid, int64_t *last_fid)
{
    const struct model_config *m = g->m;
    struct gen_stage st = stage_of(g);
    int64_t steps = g->decode ? m->output_seqlen : 1, tp = m->tensor_parallelism_degree;
    if (gen_vocab_embed(g->t, m, g->prof, g->B, g->seq, steps, tp, &fid))
        return -1;
    gen_stage_receive(&st, &fid);
    CHK(b_unary(g->t, fid, g->count,
                g->decode ? "Attention-serving-decode-Input_layernorm"
                          : "Fwd-Attention-encoder-Input_layernorm",
                "X_norm = LayerNorm(X)", "LayerNorm", SHP(g->B, g->seq, g->D_tp), "0_0", BF16));
    fid++;
    struct layer_ctx lc = layer_ctx_of(g);
    struct attn_args at = { .seq = g->seq, .s_in = m->input_seqlen, .s_out = m->output_seqlen,
                            .H = m->num_heads, .D = m->d_model, .dh = m->d_head,
                            .kv_heads = m->num_kv_heads, .flash = m->use_flash_attention,
                            .causal = !m->bidirectional, .parallel_ffn = m->parallel_attn_ffn };
    if (layer_block(&lc, &at, m, &fid))
        return -1;
    /* The reference does not advance past the FFN, so the sends reuse the
     * FFN's first fid (quirk opsgen Q5). */
    if (!g->prof->pp_send_reuses_fid)
        fid = last(g)->fusion_id + 1;
    gen_stage_send(&st, &fid);
    /* Prefill produces one token per sequence: only the last position meets the LM head. */
    if (gen_vocab_head(g->t, m, g->prof, g->B, g->decode ? g->seq : 1, steps, tp, &fid))
        return -1;
    *last_fid = last(g)->fusion_id;
    return 0;
}

/* The prefill or decode pass over one transformer layer (gen_prefill_decode). */
static int phase_cb(void *gp, bool decode, int64_t fid, int64_t *last_fid)
{
    struct gen *g = gp;
    g->decode = decode;
    g->seq = decode ? g->m->decode_width : g->m->input_seqlen;
    g->count = decode ? g->L * g->m->output_seqlen : g->L;
    return phase_ops(g, fid, last_fid);
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
    int64_t stages = m->pipeline_parallelism_degree * m->pipeline_parallel_degree_dcn;
    if (m->num_layers < stages)
        /* Named by the degree, which a user sets (--pp), not the model's layers. */
        return npu_errf(e, "model field \"pipeline_parallelism_degree\": expected pp*pp_dcn of at most "
                           "num_layers = %lld stages, got %lld", (long long)m->num_layers, (long long)stages);
    return 0;
}

static int validate(const struct model_config *m, const struct opsgen_links *l,
                    struct npu_err *e)
{
    if (strcmp(m->model_type, "llm"))
        return npu_errf(e, "model field \"model_type\": expected \"llm\" for LLM inference, got \"%s\"",
                        m->model_type);
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
    if (m->num_tensor_parallel_axes < 0 || m->num_tensor_parallel_axes > PAR_MAX_FACTORS)
        return npu_errf(e, "model field \"num_tensor_parallel_axes\": expected 0..%d, got %lld",
                        PAR_MAX_FACTORS, (long long)m->num_tensor_parallel_axes);
    int64_t dp = m->data_parallelism_degree, tp = m->tensor_parallelism_degree;
    int64_t pp = m->pipeline_parallelism_degree;
    if (m->num_chips < dp * tp * pp)
        return npu_errf(e, "model field \"num_chips\": expected at least dp*tp*pp = %lld, got %lld",
                        (long long)(dp * tp * pp), (long long)m->num_chips);
    if (m->tensor_parallel_degree_dcn != 1)
        return npu_errf(e, "model field \"tensor_parallel_degree_dcn\": expected 1, got %lld",
                        (long long)m->tensor_parallel_degree_dcn);
    if (!(l->ici_bw_GBps > 0) || !(l->pcie_bw_GBps > 0) || l->hbm_size_GB <= 0)
        return npu_errf(e, "chip fields \"ici_bw_GBps\", \"pcie_bw_GBps\", \"hbm_size_GB\": "
                           "expected positive values");
    if (m->pipeline_parallel_degree_dcn > 1 && !(l->dcn_bw_GBps > 0))
        return npu_errf(e, "chip field \"dcn_bw_GBps\": expected a positive value");
    return 0;
}

int opsgen_llm_inference(const struct model_config *m, const struct opsgen_links *l,
                         const struct profile *prof, struct trace *out, struct npu_err *e)
{
    if (validate(m, l, e))
        return -1;
    (void)opsgen_llm_inference_mem_bytes(m, PHASE_DECODE, prof);   /* a footprint past int64 flags the trace */
    struct gen g = { .m = m, .l = l, .prof = prof, .t = out };
    tensor_formats_of(m, &g.fmt);
    g.B = cdiv64(m->microbatch_size_ici, m->data_parallelism_degree);
    /* ceil(num_layers / pp / pp_dcn) on doubles, as the reference. */
    g.L = (int64_t)ceil((double)m->num_layers / (double)m->pipeline_parallelism_degree /
                        (double)m->pipeline_parallel_degree_dcn);
    g.D_tp = cdiv64(m->d_model, m->tensor_parallelism_degree);
    if (gen_axes(&g.tp, m->tensor_parallelism_degree, m->num_tensor_parallel_axes, prof,
                 l->ici_bw_GBps, l->ici_latency_ns, SHAPE_MAXD))
        return npu_errf(e, "model field \"num_tensor_parallel_axes\": at most %d axes supported",
                        SHAPE_MAXD);

    return gen_prefill_decode(out, phase_cb, &g, e);
}
