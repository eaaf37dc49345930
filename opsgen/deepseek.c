/* deepseek.c — DeepSeek inference op sequence, memory footprint and MoE sweep
 * helpers (see deepseek.h; opsgen.md §7, §11.3, §13).
 *
 * One layer per phase: optional KV swap, pipeline receive, input RMSNorm,
 * multi-head latent attention (MLA), the shared FFN wrapper with a MoE body
 * (gate, token all-to-all, routed experts, all-to-all back, shared expert,
 * combine), pipeline send. Every layer is MLA + MoE in the reference
 * (num_dense_layers read but unused); under physical the dense first layers
 * run a dense FFN (quirk mla_dense_layers_as_moe).
 *
 * The phase skeleton (opsgen/phases.h) walks each phase; this file gives it
 * the RMSNorm, the fid rule of the sends, and the layer (MLA and MoE FFN).
 *
 * Main data structure: struct dsgen, the per-run quantities (struct gen_run:
 * local batch, layers per stage, attention TP axes) with the expert TP axes
 * for the expert FFNs and the EP axes for the all-to-alls, plus the phase
 * being generated.
 *
 * The reference's quirks each have a profile switch (docs/profile.md): MLA
 * counts use all layers, not the stage's (opsgen Q3); the MLA TP all-gather takes the
 * full width (opsgen Q4); no softmax in MLA (opsgen Q19); cache einsums and the combine
 * einsum keep default "weights" (opsgen Q20); the all-to-all moves the global batch
 * (opsgen Q21); every routed expert sees every local token (opsgen Q22, corrected: top-k
 * routing, moe_load_of); both all-to-alls share one name (opsgen Q23); the memory
 * formula's MLA terms (opsgen Q24). Gate and combine names are the same in both
 * phases, which chipsim's by-name lookup turns into prefill shapes for decode
 * (opsgen Q30) — that part lives in chipsim (lookup_ops_by_name_first_wins). */
#include "opsgen/deepseek.h"
#include "opsgen/gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opsgen/builders.h"
#include "opsgen/formats.h"
#include "opsgen/layers.h"
#include "opsgen/linear_attn.h"
#include "opsgen/moe.h"
#include "opsgen/parallel.h"
#include "opsgen/pattern.h"
#include "opsgen/phases.h"
#include "traces/dtype.h"
#include "traces/precision.h"

#define BF16 "DT_BFLOAT16"
#define FP32 "DT_FLOAT32"
#define FP8 "DT_FLOAT8"

struct dsgen {
    struct gen_run r;              /* with the attention TP axes and the model's number formats: MLA's
                                    * and the experts' weights, the latent KV cache (the gate, norms
                                    * and rope stay as the reference's) */
    struct coll_axes etp, ep;      /* expert TP, expert parallel axes */
    struct tensor_formats efmt;    /* the MoE layers' FFN: expert_weight_dtype (physical), else r's */
    const struct gen_phase *ph;    /* the phase being generated */
};

static struct op *last(const struct dsgen *g) { return gen_last(&g->r); }

/* Builder results are NULL only for malformed equations or op names, which
 * the fixed strings below never produce; the check keeps that true. */
#define CHK(x) do { if (!(x)) return -1; } while (0)

static int64_t axes_prod(const struct coll_axes *a)
{
    int64_t p = 1;
    for (int i = 0; i < a->n; i++) p *= a->deg[i];
    return p;
}

/* An all-gather whose byte count uses dtype while its shape strings stay
 * BF16, as every reference collective prints (opsgen.md §2.2). */
static struct op *all_gather_dt(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                                struct shape x, int dim, const struct coll_axes *ax,
                                const char *dtype)
{
    return b_all_gather_dt(t, ovf, fid, count, desc, "AllGather", x, dim, ax, dtype_bytes(dtype));
}

/* ---- multi-head latent attention (§7.2) ---- */

/* The three KV-cache einsums (fids f, f+1, f+2) of one group of executions
 * attending to T positions, and (corrected) the softmax over the scores. */
static int mla_cache_group(const struct dsgen *g, int64_t f, int64_t n, const char *P, int64_t T)
{
    const struct model_config *m = g->r.m;
    struct trace *tr = g->r.t;
    bool *ovf = g->r.ovf;
    int64_t B = g->r.B, S = g->ph->seq, Hl = cdiv64(m->num_heads, axes_prod(&g->r.tp));
    int64_t kr = m->kv_lora_rank, rope = m->qk_rope_head_dim;
    char d[200];
    size_t o[3];   /* the einsums' indices: a later push may move the ops */
#define DESC(s) (snprintf(d, sizeof d, "%s%s", P, s), d)
    o[0] = tr->n;
    CHK(fmt_store_rest(ovf, &g->r.fmt, b_einsum(tr, ovf, f, n, DESC("q_nope_kv_cache_einsum"),
                 "q_nope_kv = torch.einsum('bshc,btc->bsht', q_nope, self.kv_cache[:bsz, :end_pos])",
                 SHP(B, S, Hl, kr), SHP(B, T, kr), "BSHC;BTC->BSHT", "0_0_0", BF16), g->r.fmt.kv));
    o[1] = tr->n;
    CHK(b_einsum(tr, ovf, f + 1, n, DESC("q_pe_pe_einsum"),
                 "q_pe_pe = torch.einsum('bshr,btr->bsht', q_pe, self.pe_cache[:bsz, :end_pos])",
                 SHP(B, S, Hl, rope), SHP(B, T, rope), "BSHR;BTR->BSHT", "0_0_0", BF16));
    if (!g->r.prof->mla_softmax_missing)
        CHK(b_unary(tr, ovf, f + 1, n, DESC("scores_softmax"), "scores = scores.softmax(dim=-1)", "Softmax",
                    SHP(B, S, Hl, T), "0_0", FP32));
    o[2] = tr->n;
    CHK(fmt_store_rest(ovf, &g->r.fmt, b_einsum(tr, ovf, f + 2, n, DESC("scores_kv_cache_einsum"),
                 "x = torch.einsum('bsht,btc->bshc', scores, self.kv_cache[:bsz, :end_pos])",
                 SHP(B, S, Hl, T), SHP(B, T, kr), "BSHT;BTC->BSHC", "0_0_0", BF16), g->r.fmt.kv));
#undef DESC
    /* The caches are activations, not parameters (quirk opsgen Q20 keeps them). */
    for (int i = 0; i < 3; i++) {
        if (!g->r.prof->mla_cache_einsums_weights)
            tr->ops[o[i]].weight_bytes = 0;
        tr->ops[o[i]].reads_kv_cache = g->ph->decode;   /* a decode step's: decode attention */
    }
    return 0;
}

/* DeepSeek Sparse Attention's indexer at fid f (model field index_topk):
 * its heads score each of the T cached tokens in fp8, summed over the
 * heads as one kernel does (DeepGEMM's MQA logits), and the top
 * index_topk are picked from the scores. In a decode step it streams the
 * index keys as attention streams the cache. */
static int dsa_indexer(const struct dsgen *g, int64_t f, int64_t n, const char *P, int64_t T)
{
    const struct model_config *m = g->r.m;
    struct trace *tr = g->r.t;
    bool *ovf = g->r.ovf;
    int64_t B = g->r.B, S = g->ph->seq;
    char d[200];
    struct op *o;
    snprintf(d, sizeof d, "%sindexer_scores_einsum", P);
    CHK(o = b_einsum(tr, ovf, f, n, d, "index_scores = sum_h w_h ReLU(q_index_h . k_index)",
                     SHP(B, S, m->index_heads, m->index_head_dim), SHP(B, T, m->index_head_dim), "BSHD;BTD->BST",
                     "0_0_0", FP8));
    o->weight_bytes = 0;
    o->reads_kv_cache = g->ph->decode;
    snprintf(d, sizeof d, "%sindexer_topk", P);
    CHK(b_unary(tr, ovf, f, n, d, "topk_indices = index_scores.topk(index_topk)", "Relu", SHP(B, S, T), "0_0",
                FP32));
    return 0;
}

/* The keys a query attends to on average over a chunk at positions a+1..b
 * under DeepSeek Sparse Attention (min(p, index_topk) each); at least 1. */
static int64_t dsa_keys(bool *ovf, const struct model_config *m, int64_t a, int64_t b)
{
    int64_t k = pattern_sliding_keys(ovf, m->index_topk, a, b) / (b - a);
    return k > 1 ? k : 1;
}

/* MLA's cache ops over T keys a query, preceded under DeepSeek Sparse
 * Attention by the indexer over all T and capped at index_topk (prefill:
 * capped queries over the prompt, the mean of min(p, index_topk)). */
static int mla_attend(const struct dsgen *g, int64_t f, int64_t n, const char *P, int64_t T, int64_t capped)
{
    if (g->r.m->index_topk > 0) {
        if (dsa_indexer(g, f, n, P, T))
            return -1;
        T = capped < T ? capped : T;
    }
    return mla_cache_group(g, f, n, P, T);
}

/* The KV-cache part of MLA at fid f: prefill attends to the prompt; a decode
 * step to the prompt and the tokens generated so far — the final context in
 * every step in the reference (no softmax there, quirk opsgen Q19), the exact mean
 * otherwise (decode_suffix_groups). Every group uses fids f..f+2. */
static int mla_cache_ops(const struct dsgen *g, int64_t f, int64_t n, const char *P)
{
    const struct model_config *m = g->r.m;
    int64_t S = m->input_seqlen, K = m->index_topk;
    if (!g->ph->decode)   /* causal: (S+1)/2 positions per query on average (the reference: S) */
        return mla_attend(g, f, n, P, g->r.prof->prefill_attention_unmasked ? S : (S + 1) / 2,
                          K > 0 ? dsa_keys(g->r.ovf, m, 0, S) : 0);
    struct kv_groups kg = decode_suffix_groups(g->r.prof, n, m->output_seqlen);
    for (int k = 0; k < kg.ng; k++)
        if (mla_attend(g, f, kg.cnt[k], P, badd(g->r.ovf, S, kg.len[k]), K))
            return -1;
    return 0;
}

/* The MLA description prefix of a phase (mla's ops and the serving step's). */
static void mla_prefix(bool decode, char *P, size_t n)
{
    snprintf(P, n, "%s%s", decode ? "Attention-serving-decode-" : "Fwd-Attention-encoder-",
             decode ? "Attention-serving-decode-" : "Attention-serving-prefill-");
}

/* Of a stage's `layers`, those that are linear attention in place of MLA
 * (linear_value_heads with full_attention_layers or _interval: Kimi
 * Linear's KDA layers, run as Gated DeltaNet ones, opsgen/linear_attn.h),
 * each group its share (opsgen/pattern.h); 0 without. */
static int64_t stage_linear_layers(const struct model_config *m, int64_t layers)
{
    if (!pattern_linear(m))
        return 0;
    struct layer_groups lg;
    pattern_stage_groups(m, layers, &lg);
    return pattern_local_of(&lg);
}

/* Kimi K3's gate on MLA's output at fid f: a projection of the input to the
 * Hl local heads' values, and its sigmoid times them. */
static int mla_output_gate(const struct dsgen *g, int64_t f, int64_t n, const char *P, int64_t Hl)
{
    const struct model_config *m = g->r.m;
    int64_t B = g->r.B, S = g->ph->seq, D = m->d_model, v = m->v_head_dim;
    char d[200];
    snprintf(d, sizeof d, "%sg_proj_linear", P);
    CHK(fmt_weights(g->r.ovf, &g->r.fmt, b_einsum(g->r.t, g->r.ovf, f, n, d, "g = self.g_proj(x)", SHP(B, S, D),
                                                  SHP(D, Hl * v), "BSM;MD->BSD", "0_0_0", g->r.fmt.act)));
    snprintf(d, sizeof d, "%soutput_gate", P);
    CHK(b_binary(g->r.t, g->r.ovf, f, n, d, "x = x * sigmoid(g)", "Mul", SHP(B, S, Hl, v), "0_0_0", g->r.fmt.act,
                 g->r.prof->binary_ops_list_one_input));
    return 0;
}

static int mla(struct dsgen *g, int64_t *fid)
{
    const struct model_config *m = g->r.m;
    struct trace *tr = g->r.t;
    bool *ovf = g->r.ovf;
    int64_t B = g->r.B, S = g->ph->seq, f = *fid, t = axes_prod(&g->r.tp);
    /* All layers, not the stage's (quirk opsgen Q3); the linear ones run their own layer */
    int64_t layers = g->r.prof->mla_counts_all_layers ? m->num_layers : g->r.L;
    layers -= stage_linear_layers(m, layers);
    int64_t n = g->ph->decode ? layers * m->output_seqlen : layers;
    int64_t Hl = cdiv64(m->num_heads, t), D = m->d_model, Dw = D;
    int64_t qr = m->q_lora_rank, kr = m->kv_lora_rank, rope = m->qk_rope_head_dim;
    int64_t nope = m->qk_nope_head_dim, v = m->v_head_dim, qk = rope + nope;
    bool one = g->r.prof->binary_ops_list_one_input;
    char P[96], d[200], nm[64];
    mla_prefix(g->ph->decode, P, sizeof P);
#define DESC(s) (snprintf(d, sizeof d, "%s%s", P, s), d)
    if (t > 1) {
        snprintf(d, sizeof d, "AllGatherMHA-%lld", (long long)f);
        if (g->r.prof->mla_allgather_full_width) {
            /* Gathers the full width to D*t (quirk opsgen Q4). */
            CHK(b_all_gather(tr, ovf, f, n, d, "AllGather", SHP(B, S, D), 2, &g->r.tp));
            Dw = D * t;
        } else {
            CHK(b_all_gather(tr, ovf, f, n, d, "AllGather", SHP(B, S, g->r.D_tp), 2, &g->r.tp));
        }
        f++;
    }
    if (qr > 0) {   /* the query's low-rank compression (DeepSeek-V2, -V3) */
        CHK(fmt_weights(ovf, &g->r.fmt, b_einsum(tr, ovf, f++, n, DESC("q_wq_a_linear"), "wqax = self.wq_a(x)",
                     SHP(B, S, D), SHP(D, qr), "BSM;MD->BSD", "0_0_0", g->r.fmt.act)));
        CHK(b_unary(tr, ovf, f++, n, DESC("q_norm"), "q_norm_wqax = self.q_norm(wqax)", "RMSNorm",
                    SHP(B, S, qr), "0_0", FP32));
        CHK(fmt_weights(ovf, &g->r.fmt, b_einsum(tr, ovf, f++, n, DESC("q_wq_b_linear"), "q = self.wq_b(q_norm_wqax)",
                     SHP(B, S, qr), SHP(qr, qk * Hl), "BSR;RD->BSD", "0_0_0", g->r.fmt.act)));
    } else {        /* none (DeepSeek-V2-Lite): one projection, the ids kept */
        CHK(fmt_weights(ovf, &g->r.fmt, b_einsum(tr, ovf, f, n, DESC("q_wq_linear"), "q = self.wq(x)",
                     SHP(B, S, D), SHP(D, qk * Hl), "BSM;MD->BSD", "0_0_0", g->r.fmt.act)));
        f += 3;
    }
    CHK(b_binary(tr, ovf, f++, n, DESC("apply_rotary_emb"), "q_pe = apply_rotary_emb(q_pe, freqs_cis)",
                 "Mul", SHP(B, S, Hl, rope), "0_0_0", FP32, one));
    if (m->index_topk > 0) {   /* DeepSeek Sparse Attention's indexer: its queries, key and head weights */
        int64_t Hi = m->index_heads, di = m->index_head_dim, qin = qr > 0 ? qr : D;
        CHK(fmt_weights(ovf, &g->r.fmt, b_einsum(tr, ovf, f, n, DESC("indexer_wq_b_linear"), "q_index = self.wq_b(qr)",
                     SHP(B, S, qin), SHP(qin, Hi * di), "BSR;RD->BSD", "0_0_0", g->r.fmt.act)));
        CHK(fmt_weights(ovf, &g->r.fmt, b_einsum(tr, ovf, f, n, DESC("indexer_wk_linear"), "k_index = self.wk(x)",
                     SHP(B, S, D), SHP(D, di), "BSM;MD->BSD", "0_0_0", g->r.fmt.act)));
        CHK(fmt_weights(ovf, &g->r.fmt, b_einsum(tr, ovf, f, n, DESC("indexer_weights_linear"),
                     "w_index = self.weights_proj(x)", SHP(B, S, D), SHP(D, Hi), "BSM;MH->BSH", "0_0_0",
                     g->r.fmt.act)));
    }
    CHK(fmt_weights(ovf, &g->r.fmt, b_einsum(tr, ovf, f++, n, DESC("kv_k_pe_linear"),
                 "kv = self.wkv_a(x); kv, k_pe = torch.split(kv, [self.kv_lora_rank, "
                 "self.qk_rope_head_dim], dim=-1)",
                 SHP(B, S, D), SHP(D, kr + rope), "BSM;MK->BSK", "0_0_0", g->r.fmt.act)));
    CHK(b_binary(tr, ovf, f++, n, DESC("apply_rotary_emb"),
                 "k_pe = apply_rotary_emb(k_pe.unsqueeze(2), freqs_cis)", "Mul", SHP(B, S, rope),
                 "0_0_0", FP32, one));
    if (t > 1) {
        /* Sequence parallelism over the TP axes: gather the new cache rows
         * (FP8 latent, FP32 rope keys) along the sequence. */
        snprintf(nm, sizeof nm, "AllGatherKV-%lld", (long long)f);
        CHK(all_gather_dt(tr, ovf, f++, n, nm, SHP(B, S, kr), 1, &g->r.tp, FP8));
        snprintf(nm, sizeof nm, "AllGatherK_PE-%lld", (long long)f);
        CHK(all_gather_dt(tr, ovf, f++, n, nm, SHP(B, S, rope), 1, &g->r.tp, FP32));
    }
    CHK(fmt_weights(ovf, &g->r.fmt, b_einsum(tr, ovf, f++, n, DESC("q_nope_wkv_b_linear"),
                 "wkv_b = wkv_b.view(self.n_local_heads, -1, self.kv_lora_rank); q_nope = "
                 "torch.einsum('bshd,hdc->bshc', q_nope, wkv_b[:, :self.qk_nope_head_dim])",
                 SHP(B, S, Hl, nope), SHP(Hl, nope, kr), "BSHD;HDC->BSHC", "0_0_0", g->r.fmt.act)));
    CHK(b_unary(tr, ovf, f++, n, DESC("kv_norm"), "kv_norm = self.kv_norm(kv)", "RMSNorm", SHP(B, S, kr),
                "0_0", FP32));
    if (mla_cache_ops(g, f, n, DESC("")))
        return -1;
    f += 3;
    CHK(fmt_weights(ovf, &g->r.fmt, b_einsum(tr, ovf, f++, n, DESC("x_wkv_b_linear"),
                 "x = torch.einsum('bshc,hdc->bshd', x, wkv_b[:, -self.v_head_dim:])",
                 SHP(B, S, Hl, kr), SHP(Hl, v, kr), "BSHC;HDC->BSHD", "0_0_0", g->r.fmt.act)));
    if (m->attention_output_gate && mla_output_gate(g, f, n, P, Hl))
        return -1;
    CHK(fmt_weights(ovf, &g->r.fmt, b_einsum(tr, ovf, f++, n, DESC("x_wo_linear"), "x = self.wo(x.flatten(2))",
                 SHP(B, S, Hl * v), SHP(Hl * v, D), "BSD;DM->BSM", "0_0_0", g->r.fmt.act)));
    struct shape y = SHP(B, S, Dw);
    if (t > 1) {
        snprintf(nm, sizeof nm, "ReduceScatterMHA-%lld", (long long)f);
        CHK(b_reduce_scatter(tr, ovf, f++, n, "Reduce attention and scatter before RMSNorm", nm, y, 2,
                             &g->r.tp));
    }
    CHK(b_unary(tr, ovf, f++, n, DESC("Attention_RMSNorm"), "Y_norm = RMSNorm(y)", "RMSNorm", y, "0_0",
                BF16));
    if (t > 1) {
        snprintf(d, sizeof d, "AllGatherMHA-%lld", (long long)f);
        CHK(b_all_gather(tr, ovf, f++, n, d, "AllGather", shape_scattered(y, 2, t), 2, &g->r.tp));
    }
#undef DESC
    *fid = f;
    return 0;
}

/* The prefill or decode phase (gen_phases): the inference data with the
 * input RMSNorm; prefill advances past the FFN, decode does not, so its sends
 * reuse the FFN's first fid (quirk opsgen Q5). */
static void phase_setup(void *gp, int i, struct gen_phase *ph)
{
    struct dsgen *g = gp;
    gen_phase_inference(&g->r, i == 1, ph);
    ph->norm_desc = ph->decode ? "Attention-serving-decode-Input_rmsnorm" : "Fwd-Attention-encoder-Input_rmsnorm";
    ph->norm_eq = "X_norm = RMSNorm(X)";
    ph->norm_op = "RMSNorm";
    ph->send_reuses_fid = ph->decode && g->r.prof->pp_send_reuses_fid;
}

/* The stage's dense first layers (num_dense_layers, its share of them as
 * opsgen/pattern.h cuts groups), 0 under quirk mla_dense_layers_as_moe. */
static int64_t stage_dense_layers(const struct model_config *m, const struct profile *prof, int64_t stage_layers)
{
    int64_t L = m->num_layers, d = m->num_dense_layers < L ? m->num_dense_layers : L;
    if (prof->mla_dense_layers_as_moe || d <= 0)
        return 0;
    struct layer_groups lg = { 2, { { false, false, d, false, false }, { false, true, L - d, false, false } } };
    pattern_share(&lg, L, stage_layers);
    return lg.g[0].layers;
}

/* One layer after the input RMSNorm: MLA, then the FFN wrapper with the MoE
 * body; the dense first layers' FFN is the gated SiLU FFN of d_ff on the
 * attention's TP axes, whose input MLA gathered. */
static int phase_layers(void *gp, const struct gen_phase *ph, int64_t *fid)
{
    struct dsgen *g = gp;
    const struct model_config *m = g->r.m;
    g->ph = ph;
    if (mla(g, fid))
        return -1;
    *fid = last(g)->fusion_id + 1;
    int64_t lin = stage_linear_layers(m, g->r.L);
    if (lin > 0) {   /* the linear layers (Kimi Linear's KDA) in MLA's layout: gathered in, scattered out */
        struct linear_attn la;
        linear_attn_of(m, &la);
        struct layer_ctx ll = { g->r.t, g->r.ovf, g->r.prof, g->r.B, bmul(g->r.ovf, lin, ph->steps), ph->decode,
                                &g->r.tp, "", &g->r.fmt, 0 };
        if (layer_linear_attention(&ll, &la, ph->seq, m->d_model, true, fid))
            return -1;
        *fid = last(g)->fusion_id + 1;
    }
    int64_t dense = stage_dense_layers(m, g->r.prof, g->r.L), f = *fid;
    int64_t moe = dense ? bmul(g->r.ovf, g->r.L - dense, ph->steps) : ph->count;
    struct layer_ctx lc = { g->r.t, g->r.ovf, g->r.prof, g->r.B, moe, ph->decode, &g->etp, "", &g->efmt, 0 };
    /* DeepSeek's tokens go to at most num_limited_groups devices, in FP8 */
    struct moe_ctx mx = { &g->r, &g->ep, m->num_limited_groups, FP8, false };
    struct ffn_args fa = { .seq = ph->seq, .D = m->d_model, .F = m->d_ff, .ffn_type = m->ffn_type,
                           .body = moe_ffn_body, .body_arg = &mx };
    if (moe > 0 && layer_ffn(&lc, &fa, &f))
        return -1;
    if (dense == 0)
        return 0;
    f = last(g)->fusion_id + 1;
    lc.count = bmul(g->r.ovf, dense, ph->steps);
    lc.tp = &g->r.tp;
    lc.fmt = &g->r.fmt;   /* a dense layer's FFN in the model's format, not the experts' */
    struct ffn_args da = { .seq = ph->seq, .D = m->d_model, .F = m->d_ff, .ffn_type = "llama", .input_gathered = true };
    return layer_ffn(&lc, &da, &f);
}

/* ---- validation ---- */

static int validate(const struct model_config *m, const struct opsgen_links *l, struct npu_err *e)
{
    /* the LLM family's layer fields DeepSeek does not build; its linear layers (Kimi Linear's) it does,
     * under the LLM family's rules for them */
    struct model_config mla_only = *m;
    mla_only.linear_value_heads = 0;
    mla_only.attention_output_gate = false;   /* built here: a gate on MLA's output (Kimi K3) */
    mla_only.moe_latent_size = 0;             /* built by the MoE body (moe.c): LatentMoE (Kimi K3) */
    if (gen_require_llm(m, "DeepSeek inference", e) || gen_require_prompt_cache(m, "DeepSeek inference", e) ||
        gen_require_linear(&mla_only, "DeepSeek inference", e) || gen_require_linear(m, NULL, e))
        return -1;
    if (strcmp(m->ffn_type, "deepseek_moe"))
        return npu_errf(e, "model field \"ffn_type\": expected \"deepseek_moe\", got \"%s\"", m->ffn_type);
    if (m->use_flash_attention)
        return npu_errf(e, "model field \"use_flash_attention\": expected false (multi-head latent "
                           "attention has no flash variant)");
    static const char *const positive[] = {
        "num_chips", "data_parallelism_degree", "tensor_parallelism_degree",
        "pipeline_parallelism_degree", "expert_parallelism_degree", "data_parallel_degree_dcn",
        "pipeline_parallel_degree_dcn", "microbatch_size_ici", "global_batch_size", "input_seqlen",
        "output_seqlen", "decode_width", "d_model", "num_heads", "num_layers", "moe_d_ff",
        "num_routed_experts", "num_activated_routed_experts_per_token", "num_limited_groups",
        "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
        "max_swap_kv_cache_times_prefill", "max_swap_kv_cache_times_decode",
    };
    if (gen_require_positive(m, positive, sizeof positive / sizeof positive[0], e))
        return -1;
    const struct { const char *k; int64_t v; } ax[] = {
        { "num_data_parallel_axes", m->num_data_parallel_axes },
        { "num_tensor_parallel_axes", m->num_tensor_parallel_axes },
    };
    for (size_t i = 0; i < sizeof ax / sizeof ax[0]; i++)
        if (gen_require_axes(ax[i].k, ax[i].v, SHAPE_MAXD, e))
            return -1;
    if (gen_require_chips(m, e) || moe_validate(m, e))
        return -1;
    if (gen_require_stages(m, e))
        return -1;
    return gen_require_links(l, true, false, e);
}

static int64_t deepseek_mem(bool *ovf, const struct model_config *m, enum phase ph, const struct profile *prof);

int opsgen_deepseek_inference(const struct model_config *m, const struct opsgen_links *l,
                              const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e)
{
    if (validate(m, l, e))
        return -1;
    (void)deepseek_mem(ovf, m, PHASE_DECODE, prof);   /* a footprint past int64 fails the trace */
    struct dsgen g = { 0 };
    gen_run_init(&g.r, m, l, prof, out, ovf);
    tensor_formats_experts(m, &g.efmt);
    if (gen_axes(&g.r.tp, m->tensor_parallelism_degree, m->num_tensor_parallel_axes, prof, l, SHAPE_MAXD) ||
        moe_axes(m, l, prof, &g.etp, &g.ep))
        return npu_errf(e, "model: parallelism degrees split over more than %d torus axes", SHAPE_MAXD);

    static const struct gen_phase_hooks hooks = { .setup = phase_setup, .layers = phase_layers,
                                                  .mem_bytes = deepseek_mem };
    return gen_phases(&g.r, &hooks, &g, e);
}

/* ---- one serving pass (serving/) ---- */

int opsgen_deepseek_step_attention(const struct model_config *m, const struct opsgen_links *l,
                                   const struct profile *prof, const struct opsgen_step_attn *a,
                                   struct trace *out, bool *ovf, struct npu_err *e)
{
    struct dsgen g = { 0 };
    gen_run_init(&g.r, m, l, prof, out, ovf);
    if (gen_axes(&g.r.tp, m->tensor_parallelism_degree, m->num_tensor_parallel_axes, prof, l, SHAPE_MAXD))
        return npu_errf(e, "model: parallelism degrees split over more than %d torus axes", SHAPE_MAXD);
    g.r.B = a->batch;
    /* A decode reads its whole context (the prompt and the tokens so far); a
     * chunk's queries see att keys on average under the causal mask. */
    struct gen_phase ph = { .decode = a->decode, .seq = a->decode ? m->decode_width : a->q };
    g.ph = &ph;
    char P[96];
    mla_prefix(a->decode, P, sizeof P);
    int64_t T = a->decode ? badd(ovf, a->prefix, a->suffix) : a->att;
    int64_t capped = a->decode ? m->index_topk : m->index_topk > 0 ? dsa_keys(ovf, m, a->kv - a->q, a->kv) : 0;
    int64_t lin = stage_linear_layers(m, g.r.L);
    if (g.r.L - lin > 0 && mla_attend(&g, 2, g.r.L - lin, P, T, capped))
        return npu_errf(e, "internal: malformed op builder arguments");
    if (lin > 0) {   /* the linear layers' recurrence over the chunk or step (opsgen/linear_attn.h) */
        struct linear_attn la;
        linear_attn_of(m, &la);
        struct layer_ctx lc = { out, ovf, prof, a->batch, lin, a->decode, &g.r.tp, "", &g.r.fmt, 0 };
        if (layer_linear_core(&lc, &la, a->decode ? m->decode_width : a->q, 2))
            return npu_errf(e, "internal: malformed op builder arguments");
    }
    return 0;
}

int64_t dsa_indexer_params(bool *ovf, const struct model_config *m)
{
    if (m->index_topk <= 0)
        return 0;
    int64_t Hi = m->index_heads, di = m->index_head_dim, D = m->d_model;
    int64_t qin = m->q_lora_rank > 0 ? m->q_lora_rank : D;
    return badd(ovf, bmul3(ovf, qin, Hi, di), bmul(ovf, D, badd(ovf, di, Hi)));
}

int64_t dsa_index_key_bytes(const struct model_config *m)
{
    return m->index_topk > 0 ? m->index_head_dim + 4 : 0;   /* fp8 with an fp32 scale */
}

void opsgen_deepseek_mem_parts(bool *ovf, const struct model_config *m, const struct profile *prof,
                               struct opsgen_llm_mem_parts *p)
{
    /* The corrected terms of deepseek_mem, per chip of one data-parallel
     * replica's stage, in bytes: BF16 attention weights, FP8 experts and
     * gate, BF16 vocabulary; per token the FP8 latent and FP32 rope cache
     * rows sharded over TP, and one layer's live queries and expert
     * activations. */
    int64_t tp = m->tensor_parallelism_degree * m->tensor_parallel_degree_dcn;
    int64_t ep = m->expert_parallelism_degree * m->expert_parallel_degree_dcn;
    int64_t etp = cdiv64(m->data_parallelism_degree * m->tensor_parallelism_degree, ep);
    int64_t L = cdiv64(m->num_layers, m->pipeline_parallelism_degree * m->pipeline_parallel_degree_dcn);
    int64_t D = m->d_model, H = m->num_heads, qr = m->q_lora_rank, kr = m->kv_lora_rank;
    int64_t rope = m->qk_rope_head_dim, nope = m->qk_nope_head_dim, v = m->v_head_dim;
    int64_t R = m->num_routed_experts, experts = badd(ovf, R, m->num_shared_experts);
    /* without the query's compression (q_lora_rank 0) W_q is D x H(rope + nope), over TP */
    int64_t wq = qr > 0 ? badd(ovf, bmul(ovf, D, qr), cdiv64(bmul3(ovf, qr, H, rope + nope), tp))
                        : cdiv64(bmul3(ovf, D, H, rope + nope), tp);
    int64_t attn = badd(ovf, wq,
                        badd(ovf, bmul(ovf, D, kr + rope),
                             cdiv64(badd(ovf, bmul3(ovf, kr, H, nope + v), bmul3(ovf, H, v, D)), tp)));
    if (m->attention_output_gate)   /* the output gate's D x H v (Kimi K3) */
        attn = badd(ovf, attn, cdiv64(bmul3(ovf, D, H, v), tp));
    attn = badd(ovf, attn, dsa_indexer_params(ovf, m));   /* replicated on every chip */
    /* the experts (routed at LatentMoE's width: Kimi K3), and LatentMoE's projections whole on every chip */
    int64_t routed = bmul(ovf, bmul3(ovf, moe_token_width(m), m->moe_d_ff, 3), R);
    int64_t ffn = cdiv64(cdiv64(badd(ovf, routed, bmul(ovf, bmul3(ovf, D, m->moe_d_ff, 3), experts - R)), etp), ep);
    int64_t latent = moe_latent_params(ovf, m);
    /* the dense first layers hold the FFN of d_ff over TP (FP8) in place of the experts and gate */
    int64_t Ld = stage_dense_layers(m, prof, L), dense = cdiv64(bmul3(ovf, D, m->d_ff, 3), tp);
    /* every weight in the model's weight format, the experts' in theirs
     * (expert_weight_dtype), as the ops read them (the reference's
     * footprint, deepseek_mem under neusim, has FP8 experts) */
    struct tensor_formats f, ef;
    tensor_formats_of(m, &f);
    tensor_formats_experts(m, &ef);
    /* the linear layers (Kimi Linear's) hold their own weights and a state a sequence, no latent rows */
    int64_t Ll = stage_linear_layers(m, L);
    struct linear_attn la;
    linear_attn_of(m, &la);
    attn = bmul(ovf, attn, L - Ll);
    if (Ll > 0)
        attn = badd(ovf, attn, bmul(ovf, linear_attn_params(ovf, &la, D, tp), Ll));
    int64_t w = badd(ovf, attn, badd(ovf, bmul3(ovf, R, D, L - Ld), gen_vocab_params(ovf, m, tp, prof)));
    w = badd(ovf, w, bmul(ovf, latent, L - Ld));
    p->weight_bytes = badd(ovf, fmt_stored_bytes(ovf, badd(ovf, w, bmul(ovf, dense, Ld)), &f),
                           fmt_stored_bytes(ovf, bmul(ovf, ffn, L - Ld), &ef));
    /* the latent in the KV cache's format, the rope keys in FP32 */
    int64_t row = badd(ovf, badd(ovf, bld_tensor_bytes(ovf, kr, f.kv), 4 * rope), dsa_index_key_bytes(m));
    p->kv_elems_per_token = cdiv64(bmul(ovf, row, L - Ll), tp);
    p->live_elems_per_token = badd(ovf, cdiv64(bmul(ovf, H, 5 * rope + nope), tp),
                                   cdiv64(bmul(ovf, m->moe_d_ff, 4), etp));
    p->kv_local_elems_per_token = p->kv_window = 0;
    p->state_elems_per_seq = Ll > 0 ? bld_tensor_bytes(ovf, bmul(ovf, linear_attn_state_elems(ovf, &la, tp), Ll),
                                                       la.state) : 0;
    p->kv_dtype = p->act_dtype = p->state_dtype = "DT_INT8";   /* byte counts: the parts mix formats */
}

/* ---- memory footprint (§11.3) ---- */

int64_t opsgen_deepseek_mem_bytes(const struct model_config *m, enum phase ph,
                                  const struct profile *prof)
{
    bool ovf = false;   /* the footprint alone: there is no trace to fail */
    return deepseek_mem(&ovf, m, ph, prof);
}

/* The footprint (opsgen_deepseek_mem_bytes); one past int64 sets *ovf. */
static int64_t deepseek_mem(bool *ovf, const struct model_config *m, enum phase ph, const struct profile *prof)
{
    /* Every term is evaluated in the reference's order on doubles (Python
     * int / int is a float), so the rounded total matches to the byte. */
    /* ep > dp*tp leaves no expert TP (etp 0): the reference divides by
     * zero; callers validate first, and an unbounded footprint fails every
     * capacity check if one does not. */
    if (m->expert_parallelism_degree <= 0 ||
        m->data_parallelism_degree * m->tensor_parallelism_degree < m->expert_parallelism_degree)
        return INT64_MAX;
    int64_t s = m->input_seqlen + (ph == PHASE_DECODE ? m->output_seqlen : 0);
    double tp = (double)(m->tensor_parallelism_degree * m->tensor_parallel_degree_dcn);
    double ep = (double)(m->expert_parallelism_degree * m->expert_parallel_degree_dcn);
    double etp = (double)(m->data_parallelism_degree * m->tensor_parallelism_degree /
                          m->expert_parallelism_degree);
    int64_t b = cdiv64(m->microbatch_size_ici, m->data_parallelism_degree);
    int64_t L = (int64_t)ceil((double)m->num_layers / (double)m->pipeline_parallelism_degree /
                              (double)m->pipeline_parallel_degree_dcn);
    int64_t D = m->d_model, H = m->num_heads, qr = m->q_lora_rank, kr = m->kv_lora_rank;
    int64_t rope = m->qk_rope_head_dim, nope = m->qk_nope_head_dim, v = m->v_head_dim;
    int64_t mff = m->moe_d_ff, R = m->num_routed_experts;

    /* MLA weights, BF16; wkv_a multiplies kr by rope and wkv_b uses rope+v
     * (quirk opsgen Q24). */
    double wq_a = (double)bmul(ovf, D, qr), wq_b = (double)bmul3(ovf, qr, H, rope + nope) / tp;
    if (qr == 0)   /* no query compression (q_lora_rank 0): W_q is D x H(rope + nope) */
        wq_b = (double)bmul3(ovf, D, H, rope + nope) / tp;
    double wkv_a = (double)bmul3(ovf, D, kr, rope), wkv_b = (double)bmul3(ovf, kr, H, rope + v) / tp;
    bool ref = prof->mla_memory_reference_terms;
    if (!ref) {   /* W_kv_a: D -> latent + rope key; W_kv_b: latent -> per-head nope key + value */
        wkv_a = (double)bmul(ovf, D, kr + rope);
        wkv_b = (double)bmul3(ovf, kr, H, nope + v) / tp;
    }
    double wo = (double)bmul3(ovf, H, v, D) / tp;
    if (m->attention_output_gate)   /* the output gate's D x H v (Kimi K3), as W_o */
        wo *= 2;
    /* bytes a weight and a latent element: the reference's BF16 attention and
     * vocabulary, FP8 experts and latent; physical: the model's formats */
    struct tensor_formats f, ef;
    tensor_formats_of(m, &f);
    tensor_formats_experts(m, &ef);
    double wb = fmt_bytes_per_weight(&f), ab = ref ? 2 : wb, eb = ref ? 1 : fmt_bytes_per_weight(&ef);
    double gb = ref ? 1 : wb;   /* the router and the dense first layers: FP8 (reference), else the model's */
    double lb = ref ? 1 : dtype_bits(f.kv) / 8.0;
    double total = 0;
    /* the linear layers (Kimi Linear's): their weights, and a state a sequence, in place of MLA's */
    int64_t Ll = stage_linear_layers(m, L);
    struct linear_attn la;
    linear_attn_of(m, &la);
    total += (wq_a + wq_b + wkv_a + wkv_b + wo) * (double)(L - Ll) * ab;
    if (Ll > 0)
        total += (double)linear_attn_params(ovf, &la, D, (int64_t)tp) * (double)Ll * wb +
                 (double)bld_tensor_bytes(ovf, bmul3(ovf, linear_attn_state_elems(ovf, &la, (int64_t)tp), Ll, b), la.state);
    /* q_nope (FP8) and q_pe (FP32 intermediate + FP8 result). */
    total += (double)bmul4(ovf, b, s, H, rope * 5 + nope) / tp;
    /* Expert weights, FP8: all experts over ep, each sharded over etp, plus the
     * gate; the dense first layers' FFN (physical) over tp, FP8 alike. */
    int64_t Ld = stage_dense_layers(m, prof, L);
    double ffn = (double)bmul3(ovf, D, mff, 3) / etp * (double)(m->num_shared_experts + R) / ep * (double)(L - Ld);
    if (m->moe_latent_size > 0)   /* LatentMoE (Kimi K3): routed experts at its width, its projections whole */
        ffn = ((double)bmul3(ovf, moe_token_width(m), mff, 3) * (double)R + (double)bmul3(ovf, D, mff, 3) *
               (double)m->num_shared_experts) / etp / ep * (double)(L - Ld);
    total += ffn * eb + (double)bmul3(ovf, R, D, L - Ld) * gb +
             (double)moe_latent_params(ovf, m) * (double)(L - Ld) * wb;
    if (Ld > 0)
        total += (double)bmul3(ovf, D, m->d_ff, 3) / tp * (double)Ld * gb;
    /* Intermediate expert activations, BF16, worst-case routing. */
    /* (Corrected: one layer's, live while that layer runs.) */
    total += (double)bmul4(ovf, b, s, mff, 2) / etp * 2 * (ref ? (double)L : 1.0);
    /* FP8 latent cache plus FP32 rope cache, sequence-sharded over TP. */
    total += ((double)kr * lb + rope * 4) * (double)bmul3(ovf, L - Ll, b, s) / tp;
    if (m->index_topk > 0)   /* the sparse-attention indexer's BF16 weights and index keys (npusim's own) */
        total += (double)dsa_indexer_params(ovf, m) * (double)L * wb +
                 (double)bmul4(ovf, dsa_index_key_bytes(m), L, b, s) / tp;
    /* token embedding and LM head, BF16, sharded over TP */
    total += ab * (double)gen_vocab_params(ovf, m, (int64_t)tp, prof);
    if (!(total < 9.2e18)) {   /* the double sum itself past int64 */
        *ovf = true;
        return INT64_MAX;
    }
    return (int64_t)nearbyint(total);   /* round half to even, as Python's round() */
}

/* ---- MoE sweep helpers (§13) ---- */

bool sweep_map_axes_moe(const char *v, struct model_config *m)
{
    sweep_map_axes_llm(v, m);
    int64_t dp = m->data_parallelism_degree, tp = m->tensor_parallelism_degree;
    int64_t ep = m->expert_parallelism_degree;
    int64_t E = m->num_data_parallel_axes + m->num_tensor_parallel_axes, ea = 0;
    bool ok = true;
    /* EP and expert TP share the dp+tp axes; expert TP, the more
     * bandwidth-hungry, keeps all but one unless there is no expert TP. */
    if (E == 0) {
        ok = ep == 1;
    } else if (E == 1) {
        ok = ep == 1 || ep == dp * tp;
        ea = ep > 1;
    } else if (ep < dp * tp) {
        ea = ep > 1;
    } else {
        ok = ep == dp * tp;
        ea = E;
    }
    m->num_expert_parallel_axes = ea;
    return ok;
}

bool sweep_validate_moe(const struct model_config *m, const struct opsgen_links *l,
                        const struct profile *prof, enum phase ph, double oom_factor,
                        char *why, size_t whylen)
{
    /* The LLM rules without their footprint (INFINITY disables it), then ours. */
    if (!sweep_validate_llm(m, l, prof, ph, INFINITY, why, whylen))
        return false;
    int64_t dp = m->data_parallelism_degree, tp = m->tensor_parallelism_degree;
    int64_t ep = m->expert_parallelism_degree;
#define FAIL(...) do { if (why && whylen) snprintf(why, whylen, __VA_ARGS__); return false; } while (0)
    if (ep > dp * tp)   /* before the footprint, which divides by dp*tp/ep */
        FAIL("ep %lld exceeds dp*tp %lld", (long long)ep, (long long)(dp * tp));
    double gib = (double)opsgen_deepseek_mem_bytes(m, ph, prof) / 1073741824.0;
    if (gib > (double)l->hbm_size_GB * oom_factor)
        FAIL("%s footprint %.4f GiB exceeds %lld GB x %g", phase_name(ph), gib,
             (long long)l->hbm_size_GB, oom_factor);
    if (m->expert_parallel_degree_dcn > 1)
        FAIL("expert_parallel_degree_dcn %lld > 1", (long long)m->expert_parallel_degree_dcn);
    struct model_config a = *m;
    sweep_map_axes_llm(l->chip_name, &a);
    if (a.num_data_parallel_axes + a.num_tensor_parallel_axes == 1 && ep != dp && ep != tp)
        FAIL("ep %lld must equal dp or tp with one torus axis for dp and tp", (long long)ep);
    if (m->num_routed_experts < ep)
        FAIL("num_routed_experts %lld < ep %lld", (long long)m->num_routed_experts, (long long)ep);
#undef FAIL
    if (why && whylen) why[0] = '\0';
    return true;
}

void sweep_pstr_moe(const struct parallel_cfg *p, int64_t gbs, char *buf, size_t n)
{
    snprintf(buf, n, "dp%lld-tp%lld-pp%lld-ep%lld-dpdcn%lld-tpdcn1-ppdcn%lld-epdcn1-bs%lld",
             (long long)p->dp, (long long)p->tp, (long long)p->pp, (long long)p->ep,
             (long long)p->dp_dcn, (long long)p->pp_dcn, (long long)gbs);
}
