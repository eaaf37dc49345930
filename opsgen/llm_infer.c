/* llm_infer.c — LLM inference op sequence (opsgen.md §4.2, §5).
 *
 * One transformer layer per phase, each op counted once per layer (prefill)
 * or once per layer and decode step (decode): optional KV swap, pipeline
 * receive, input LayerNorm, attention, FFN, pipeline send. The fusion-id walk
 * follows the reference step by step, including the stale id of the send ops
 * (quirk Q5), because the ids are printed in the trace.
 *
 * Main data structure: struct gen, the per-run quantities of §4.2 (local
 * batch, layers per stage, TP axes with their link bandwidths) plus the
 * phase being generated. Quirks Q2 (no GQA in ops) and Q8 (decode at the final
 * KV length) have no corrected branch here: the reference shapes are built
 * unconditionally. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "opsgen/builders.h"
#include "opsgen/opsgen.h"
#include "opsgen/parallel.h"

#define BF16 "DT_BFLOAT16"

struct gen {
    const struct model_config *m;
    const struct opsgen_links *l;
    const struct profile *prof;
    struct trace *t;
    int64_t B, L, D_tp;
    struct coll_axes tp;   /* TP axes list (may be empty: quirk Q13) */
    int64_t t_prod;        /* product of the TP axes */
    bool decode;
    int64_t seq, count;    /* tokens per step and layer-op count of the phase */
};

static struct op *last(const struct gen *g) { return &g->t->ops[g->t->n - 1]; }

/* Builder results are NULL only for malformed equations or op names, which
 * the fixed strings below never produce; the check keeps that true. */
#define CHK(x) do { if (!(x)) return -1; } while (0)

/* ---- attention (§5.3) ---- */

/* Decode, and prefill without flash attention. */
static int self_attention(struct gen *g, int64_t *fid)
{
    const struct model_config *m = g->m;
    int64_t B = g->B, seq = g->seq, n = g->count, t = g->t_prod, f = *fid;
    int64_t Hl = cdiv64(m->num_heads, t), dh = m->d_head, Dm = cdiv64(m->d_model, t);
    const char *pre = g->decode ? "Attention-serving-decode-" : "Fwd-Attention_encoder-";
    char d[160], nm[96];
    struct trace *tr = g->t;

    if (t > 1) {
        snprintf(d, sizeof d, "AllGatherMHA-%lld", (long long)f);
        CHK(b_all_gather(tr, f, n, d, "AllGather", SHP(B, seq, Dm), 2, &g->tp));
        Dm *= t;
        f++;
    }
    snprintf(d, sizeof d, "%sQ/K/V", pre);
    CHK(b_einsum(tr, f, n, d, "MatMul: Q (2) = x_norm_all_gathered (2) * W_q (1)",
                 SHP(B, seq, Dm), SHP(Dm, Hl, dh), "BLM;MND->BLND", "0_0_0", BF16));
    if (g->decode) {
        CHK(b_einsum(tr, f, n, d, "MatMul: KV (2) = x_norm (2) * W_kv (1)",
                     SHP(B, seq, Dm), SHP(2, Dm, Hl, dh), "BLM;TMND->BTLND", "0_0_0", BF16));
    } else {
        CHK(b_einsum(tr, f, n, d, "MatMul: K (2) = x_norm_all_gathered (2) * W_k (1)",
                     SHP(B, seq, Dm), SHP(Dm, Hl, dh), "BLM;MND->BLND", "0_0_0", BF16));
        CHK(b_einsum(tr, f, n, d, "MatMul: V (2) = x_norm_all_gathered (2) * W_v (1)",
                     SHP(B, seq, Dm), SHP(Dm, Hl, dh), "BLM;MND->BLND", "0_0_0", BF16));
    }
    f++;

    struct op *o;
    if (g->decode) {
        /* Every step attends to the final context (quirk Q8). */
        int64_t si = m->input_seqlen, so = m->output_seqlen;
        snprintf(d, sizeof d, "%sSoftmax(Q*K)*V", pre);
        CHK(o = b_einsum(tr, f, n, d, "MatMul: QK_prefix (2) = Q (2) * Kcache (2)",
                         SHP(B, seq, Hl, dh), SHP(B, si, Hl, dh), "BLND;BSND->BLSN", "0_0_0", BF16));
        o->weight_bytes = 0;
        CHK(o = b_einsum(tr, f, n, d, "MatMul: QK_suffix (2) = Q (2) * Ksuffix (2)",
                         SHP(B, seq, Hl, dh), SHP(B, so, Hl, dh), "BLND;BSND->BLSN", "0_0_0", BF16));
        o->weight_bytes = 0;
        CHK(b_unary(tr, f, n, d, "attnWeights = Softmax(attnWeights)", "Softmax",
                    SHP(B, seq, si + so, Hl), "0_0", BF16));
        CHK(o = b_einsum(tr, f, n, d, "MatMul: attn_avg_prefix (2) = QK_prefix (2) * Vcache (2)",
                         SHP(B, seq, si, Hl), SHP(B, si, Hl, dh), "BLSN;BSND->BLND", "0_0_0", BF16));
        o->weight_bytes = 0;
        CHK(o = b_einsum(tr, f, n, d, "MatMul: attn_avg_suffix (2) = QK_suffix (2) * Vsuffix (2)",
                         SHP(B, seq, so, Hl), SHP(B, so, Hl, dh), "BLSN;BSND->BLND", "0_0_0", BF16));
        o->weight_bytes = 0;
        CHK(b_binary(tr, f, n, d, "attn_avg = Add(([B/d]beamS[N/h]D + [B/d]beamS[N/h]D))", "Add",
                     SHP(B, seq, Hl, dh), "0_0_0", BF16, g->prof->binary_ops_list_one_input));
    } else {
        snprintf(d, sizeof d, "%sAttention_Softmax(Q*K)*V", pre);
        CHK(o = b_einsum(tr, f, n, d, "MatMul: attnWeights (2) = Q (2) * K_all_gathered (2)",
                         SHP(B, seq, Hl, dh), SHP(B, seq, Hl, dh), "BLND;BSND->BLSN", "0_0_1", BF16));
        o->weight_bytes = 0;
        CHK(b_unary(tr, f, n, d, "attnWeights = Softmax(attnWeights)", "Softmax",
                    SHP(B, seq, seq, Hl), "1_1", BF16));
        CHK(o = b_einsum(tr, f, n, d, "MatMul: attnAvg (2) = attnWeights (2) * V_all_gathered (2)",
                         SHP(B, seq, seq, Hl), SHP(B, seq, Hl, dh), "BLSN;BSND->BLND", "1_0_0", BF16));
        o->weight_bytes = 0;
        CHK(b_binary(tr, f, n, d, "attn_avg = Add(([B/d][L/l][M/mh] + [B/d][L/l][M/mh]))", "Add",
                     SHP(B, seq, Hl, dh), "0_0_0", BF16, g->prof->binary_ops_list_one_input));
    }
    f++;

    snprintf(d, sizeof d, "%sAttention_output", pre);
    CHK(b_einsum(tr, f, n, d, "MatMul: attnOutput (2) = attnAvg (2) * W_o (1)",
                 SHP(B, seq, Hl, dh), SHP(Hl, dh, Dm), "BLND;NDM->BLM", "0_0_0", BF16));
    f++;
    struct shape y = SHP(B, seq, Dm), ys = shape_scattered(y, 2, t);
    if (t > 1) {
        snprintf(nm, sizeof nm, "AllReduceMHA(ReduceScatter)-%lld", (long long)f);
        CHK(b_reduce_scatter(tr, f, n, "Reduce attention and scatter before LN", nm, y, 2, &g->tp));
        f++;
    }
    snprintf(d, sizeof d, "%sAttention_layernorm", pre);
    /* The reference normalises the unscattered width (quirk Q7). */
    CHK(b_unary(tr, f, n, d, "Y_norm = LayerNorm(y)", "LayerNorm",
                g->prof->self_attn_ln_unscattered ? y : ys, "0_0", BF16));
    f++;
    if (t > 1) {
        snprintf(d, sizeof d, "AllGatherMHA-%lld", (long long)f);
        CHK(b_all_gather(tr, f, n, d, "AllGather", ys, 2, &g->tp));
    }
    *fid = f;
    return 0;
}

/* Prefill with flash attention: the reference's cross-attention path with
 * q = kv = the input sequence and the full d_model for K and V. */
static int flash_attention(struct gen *g, int64_t *fid)
{
    const struct model_config *m = g->m;
    int64_t B = g->B, S = g->seq, n = g->count, t = g->t_prod, f = *fid;
    int64_t Hl = cdiv64(m->num_heads, t), dh = m->d_head, D = m->d_model;
    int64_t dq = cdiv64(D, t);
    char d[160], nm[96];
    struct trace *tr = g->t;

    if (t > 1) {
        snprintf(nm, sizeof nm, "AllGatherMHA-%lld", (long long)f);
        CHK(b_all_gather(tr, f, n, "Concatenate dims before attn", nm, SHP(B, S, dq), 2, &g->tp));
        dq *= t;
        f++;
    }
    snprintf(d, sizeof d, "-Q-%lld", (long long)f);
    CHK(b_einsum(tr, f, n, d, "MatMul: Q", SHP(B, S, dq), SHP(dq, Hl, dh),
                 "BLM;MND->BLND", "0_0_0", BF16));
    snprintf(d, sizeof d, "-K-%lld", (long long)f);
    CHK(b_einsum(tr, f, n, d, "MatMul: K", SHP(B, S, D), SHP(D, Hl, dh),
                 "BLM;MND->BLND", "0_0_0", BF16));
    snprintf(d, sizeof d, "-V-%lld", (long long)f);
    CHK(b_einsum(tr, f, n, d, "MatMul: V", SHP(B, S, D), SHP(D, Hl, dh),
                 "BLM;MND->BLND", "0_0_0", BF16));
    f++;
    snprintf(d, sizeof d, "-FlashAttention-%lld", (long long)f);
    struct shape qkv = SHP(B, S, Hl, dh);
    CHK(b_flash_attention(tr, f, n, d, "FlashAttention", qkv, qkv, qkv, BF16,
                          g->prof->fa_uses_heads_as_dhead));
    f = last(g)->fusion_id + 1;
    snprintf(d, sizeof d, "-Attention_output-%lld", (long long)f);
    CHK(b_einsum(tr, f, n, d, "MatMul: attnOutput = attnAvg * W_o", qkv, SHP(Hl, dh, dq),
                 "BLND;NDM->BLM", "0_0_0", BF16));
    f++;
    struct shape y = SHP(B, S, dq);
    if (t > 1) {
        snprintf(nm, sizeof nm, "AllReduce(ReduceScatter)-%lld", (long long)f);
        CHK(b_reduce_scatter(tr, f, n, "Reduce and split attention results", nm, y, 2, &g->tp));
        y = shape_scattered(y, 2, t);
        f++;
    }
    /* LayerNorm and the gather after it share one fid (quirk Q37). */
    snprintf(d, sizeof d, "-Attention_layernorm-%lld", (long long)f);
    CHK(b_unary(tr, f, n, d, "Y_norm = LayerNorm(y)", "LayerNorm", y, "0_0", BF16));
    if (t > 1) {
        snprintf(nm, sizeof nm, "AllReduce(AllGather)-%lld", (long long)f);
        CHK(b_all_gather(tr, f, n, "Gather results after Layernorm", nm, y, 2, &g->tp));
    }
    *fid = f;
    return 0;
}

/* ---- FFN (§5.4) ---- */

static int ffn(struct gen *g, int64_t *fid)
{
    const struct model_config *m = g->m;
    int64_t B = g->B, seq = g->seq, n = g->count, t = g->t_prod, f = *fid;
    int64_t D = m->d_model, Fl = cdiv64(m->d_ff, t);
    bool dec = g->decode, one = g->prof->binary_ops_list_one_input;
    char d[160], nm[96];
    struct trace *tr = g->t;

    if (t > 1) {
        snprintf(nm, sizeof nm, "AllGatherMLP-%lld", (long long)f);
        /* The reference gathers a 2-D [B, D] to [B, D*t] (quirk Q6). */
        if (g->prof->ffn_allgather_2d)
            CHK(b_all_gather(tr, f, n, "All gather input of MLP before ffn", nm,
                             SHP(B, D), 1, &g->tp));
        else
            CHK(b_all_gather(tr, f, n, "All gather input of MLP before ffn", nm,
                             SHP(B, seq, cdiv64(D, t)), 2, &g->tp));
        f++;
    }
    struct shape x = SHP(B, seq, D), h = SHP(B, seq, Fl);
    if (!strcmp(m->ffn_type, "llama")) {
        const char *pre = dec ? "Fwd-FFN-serving-decoder-" : "Fwd-FFN-encoder-";
        snprintf(d, sizeof d, "%sFFgate", pre);
        CHK(b_einsum(tr, f, n, d, "MatMul: h_gate (2) = y_norm (2) * W_FFgate (1)", x,
                     SHP(D, Fl), "BLM;MH->BLH", "0_0_0", BF16));
        snprintf(d, sizeof d, "%sFFup", pre);
        CHK(b_einsum(tr, f + 1, n, d, "MatMul: h_up (2) = y_norm (2) * W_FFup (1)", x,
                     SHP(D, Fl), "BLM;MH->BLH", "0_0_0", BF16));
        snprintf(d, sizeof d, "%sFFgate_up", pre);
        CHK(b_binary(tr, f + 2, n, d, "h_gate_up (2) = h_gate (2) * h_up (1)", "Mul", h,
                     "0_0_0", BF16, one));
        snprintf(d, sizeof d, "%sFFoutput", pre);
        CHK(b_einsum(tr, f + 3, n, d, "MatMul: ff_down (2) = h_gate_up (2) * W_FFdown (1)", h,
                     SHP(Fl, D), "BLH;HM->BLM", "0_0_0", BF16));
    } else {  /* "default"; validated by the caller */
        /* Both matmuls end in "FFinput" in the reference (quirk Q18). */
        snprintf(d, sizeof d, "%sFFinput", dec ? "Fwd-FFN-serving-decoder-" : "Fwd-FFN_encoder-");
        CHK(b_einsum(tr, f, n, d, "MatMul: h (2) = y_norm (2) * W_FFi (1)", x, SHP(D, Fl),
                     "BLM;MH->BLH", "0_0_0", BF16));
        CHK(b_einsum(tr, f + 1, n, d, "MatMul: ffn (2) = h (2) * W_FFo (1)", h, SHP(Fl, D),
                     "BLH;HM->BLM", "0_0_0", BF16));
    }
    f = last(g)->fusion_id + 1;
    struct shape r = x;
    if (t > 1) {
        snprintf(nm, sizeof nm, "ReduceScatterMLP-%lld", (long long)f);
        CHK(b_reduce_scatter(tr, f, n, "Reduce and scatter results of MLP before residual", nm,
                             x, 2, &g->tp));
        r = shape_scattered(x, 2, t);
        f++;
    }
    snprintf(d, sizeof d, "%sAttnPlusFFn", dec ? "FFN-serving-decoder-" : "Fwd-FFN-encoder-");
    CHK(b_binary(tr, f, n, d,
                 dec ? "attnPlusFFn = Add(([B/d]beamS[M/mh] + [B/d]beamS[M/mh]))"
                     : "attnPlusFFn = Add(([B/d][L/l][M/mh] + [B/d][L/l][M/mh]))",
                 "Add", r, "0_0_0", BF16, one));
    *fid = f;
    return 0;
}

/* ---- pipeline transfers and KV swap (§5.1, §5.5) ---- */

static void pipe_xfer(struct gen *g, int64_t fid, bool output, bool dcn)
{
    const struct opsgen_links *l = g->l;
    struct shape x = SHP(g->B, g->seq, g->D_tp);
    int64_t steps = g->decode ? g->m->output_seqlen : 1;
    char d[64], nm[96];
    snprintf(d, sizeof d, "%s%s%s", g->decode ? "Decode" : "Prefill",
             output ? "SendOutputToPipeline" : "ReceiveInputFromPipeline", dcn ? "DCN" : "ICI");
    snprintf(nm, sizeof nm, "%s_%sTransfer[%lld]",
             output ? (g->decode ? "sendOutput" : "SendOutput") : "receiveInput",
             dcn ? "DCNT" : "ICI", (long long)shape_prod(x));
    /* DCN stages are timed on the ICI link by the reference (quirk Q9). */
    bool ici = !dcn || g->prof->dcn_transfers_use_ici;
    b_pipe_xfer(g->t, fid, steps, d, nm, output, x, ici ? l->ici_bw_GBps : l->dcn_bw_GBps,
                ici ? l->ici_latency_ns : l->dcn_latency_ns);
}

static void kv_swap(struct gen *g, int64_t *fid)
{
    const struct model_config *m = g->m;
    const struct opsgen_links *l = g->l;
    int64_t total = opsgen_llm_inference_mem_bytes(m, g->decode ? PHASE_DECODE : PHASE_PREFILL,
                                                   g->prof);
    int64_t cap = l->hbm_size_GB * ((int64_t)1 << 30);
    if (total <= cap)
        return;
    int64_t times = g->decode ? m->max_swap_kv_cache_times_decode
                              : m->max_swap_kv_cache_times_prefill;
    if (times > g->L) times = g->L;
    int64_t swap = cdiv64(total - cap, times);
    int64_t steps = g->decode ? m->output_seqlen : 1;
    bool dbl = g->prof->kv_swap_bytes_doubled;
    b_kv_swap(g->t, (*fid)++, steps, "PCIeMemSwapIn", "PCIeMemSwapIn", false, swap, dbl,
              l->pcie_bw_GBps, l->pcie_latency_ns, l->ici_latency_ns);
    b_kv_swap(g->t, (*fid)++, steps, "PCIeMemSwapOut", "PCIeMemSwapOut", true, swap, dbl,
              l->pcie_bw_GBps, l->pcie_latency_ns, l->ici_latency_ns);
}

/* One phase; returns the fid of its last op through *last_fid. */
static int phase_ops(struct gen *g, int64_t fid, int64_t *last_fid)
{
    const struct model_config *m = g->m;
    int64_t pp = m->pipeline_parallelism_degree, ppd = m->pipeline_parallel_degree_dcn;
    if (m->enable_swap_kv_cache)
        kv_swap(g, &fid);
    if (ppd > 1) pipe_xfer(g, fid++, false, true);
    if (pp > 1) pipe_xfer(g, fid++, false, false);
    CHK(b_unary(g->t, fid, g->count,
                g->decode ? "Attention-serving-decode-Input_layernorm"
                          : "Fwd-Attention-encoder-Input_layernorm",
                "X_norm = LayerNorm(X)", "LayerNorm", SHP(g->B, g->seq, g->D_tp), "0_0", BF16));
    fid++;
    int64_t f = fid;
    if (!g->decode && m->use_flash_attention) {
        if (flash_attention(g, &f)) return -1;
    } else if (self_attention(g, &f)) {
        return -1;
    }
    fid = last(g)->fusion_id + 1;
    f = fid;
    if (ffn(g, &f)) return -1;
    /* The reference does not advance past the FFN, so the sends reuse the
     * FFN's first fid (quirk Q5). */
    if (!g->prof->pp_send_reuses_fid)
        fid = last(g)->fusion_id + 1;
    if (pp > 1) pipe_xfer(g, fid++, true, false);
    if (ppd > 1) pipe_xfer(g, fid++, true, true);
    *last_fid = last(g)->fusion_id;
    return 0;
}

/* ---- validation ---- */

static int check_divides(const char *field, int64_t deg, const char *what, int64_t v,
                         struct npu_err *e)
{
    if (v % deg)
        return npu_errf(e, "model field \"%s\": %lld does not divide %s %lld", field,
                        (long long)deg, what, (long long)v);
    return 0;
}

static int validate(const struct model_config *m, const struct opsgen_links *l,
                    struct npu_err *e)
{
    if (strcmp(m->model_type, "llm"))
        return npu_errf(e, "model field \"model_type\": expected \"llm\" for LLM inference, got \"%s\"",
                        m->model_type);
    if (strcmp(m->ffn_type, "llama") && strcmp(m->ffn_type, "default"))
        return npu_errf(e, "model field \"ffn_type\": expected \"llama\" or \"default\", got \"%s\"",
                        m->ffn_type);
    static const struct { const char *k; size_t off; } pos[] = {
#define F(x) { #x, offsetof(struct model_config, x) }
        F(num_chips), F(data_parallelism_degree), F(tensor_parallelism_degree),
        F(pipeline_parallelism_degree), F(data_parallel_degree_dcn),
        F(tensor_parallel_degree_dcn), F(pipeline_parallel_degree_dcn), F(microbatch_size_ici),
        F(input_seqlen), F(output_seqlen), F(d_model), F(num_heads), F(d_head), F(d_ff),
        F(num_layers), F(decode_width), F(max_swap_kv_cache_times_prefill),
        F(max_swap_kv_cache_times_decode),
#undef F
    };
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        int64_t v = *(const int64_t *)((const char *)m + pos[i].off);
        if (v <= 0)
            return npu_errf(e, "model field \"%s\": expected a positive integer, got %lld",
                            pos[i].k, (long long)v);
    }
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
    const char *tpk = "tensor_parallelism_degree";
    if (check_divides(tpk, tp, "num_heads", m->num_heads, e) ||
        check_divides(tpk, tp, "d_model", m->d_model, e) ||
        check_divides(tpk, tp, "d_ff", m->d_ff, e))
        return -1;
    int64_t stages = pp * m->pipeline_parallel_degree_dcn;
    if (m->num_layers < stages)
        return npu_errf(e, "model field \"num_layers\": expected at least pp*pp_dcn = %lld, got %lld",
                        (long long)stages, (long long)m->num_layers);
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
    struct gen g = { .m = m, .l = l, .prof = prof, .t = out };
    g.B = cdiv64(m->microbatch_size_ici, m->data_parallelism_degree);
    /* ceil(num_layers / pp / pp_dcn) on doubles, as the reference. */
    g.L = (int64_t)ceil((double)m->num_layers / (double)m->pipeline_parallelism_degree /
                        (double)m->pipeline_parallel_degree_dcn);
    g.D_tp = cdiv64(m->d_model, m->tensor_parallelism_degree);
    int64_t axes[PAR_MAX_FACTORS];
    int na = 0;
    if (m->num_tensor_parallel_axes > 0)
        na = split_parallelism_degree(m->tensor_parallelism_degree,
                                      (int)m->num_tensor_parallel_axes,
                                      prof->split_axes_drops_missing, axes);
    else if (!prof->zero_tp_axes_ignore_tp && m->tensor_parallelism_degree > 1)
        axes[na++] = m->tensor_parallelism_degree;   /* corrected Q13 */
    if (na > SHAPE_MAXD)
        return npu_errf(e, "model field \"num_tensor_parallel_axes\": at most %d axes supported",
                        SHAPE_MAXD);
    g.tp.n = na;
    g.tp.latency_ns = l->ici_latency_ns;
    g.t_prod = 1;
    for (int i = 0; i < na; i++) {
        g.tp.deg[i] = axes[i];
        g.tp.bw_GBps[i] = l->ici_bw_GBps;
        g.t_prod *= axes[i];
    }

    size_t first = out->n;
    int64_t last_fid;
    g.decode = false;
    g.seq = m->input_seqlen;
    g.count = g.L;
    if (phase_ops(&g, 2, &last_fid))
        goto bad;
    for (size_t i = first; i < out->n; i++)
        out->ops[i].phase = PHASE_PREFILL;
    size_t mid = out->n;
    g.decode = true;
    g.seq = m->decode_width;
    g.count = g.L * m->output_seqlen;
    if (phase_ops(&g, last_fid + 1, &last_fid))
        goto bad;
    for (size_t i = mid; i < out->n; i++)
        out->ops[i].phase = PHASE_DECODE;
    return 0;
bad:
    while (out->n > first)
        op_free(&out->ops[--out->n]);
    return npu_errf(e, "internal: malformed op builder arguments");
}
