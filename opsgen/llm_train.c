/* llm_train.c — LLM training ops, memory footprint, sweep validation and
 * statistics (see train.h; opsgen.md §3.12, §6, §11.2, §12.3, §13.3).
 *
 * One pipeline stage of one training step: forward (PP receive, input
 * LayerNorm, attention, FFN, PP send), then backward in reverse (PP receive,
 * FFN bwd, attention bwd, input-LayerNorm bwd, PP send), then the weight
 * update. Every layer op counts the stage's layers. The fusion ids follow the
 * reference step by step, including its extra skips (quirk opsgen Q36), the stale
 * fid of the forward sends (opsgen Q5) and the FFN-bwd all-reduce that sends the
 * attention bwd back to an earlier fid, because the ids are printed.
 *
 * Each reference quirk here has a profile switch (docs/profile.md): opsgen Q11
 * (DCN bandwidth always in the weight-update all-reduce), opsgen Q15/opsgen Q15b (training
 * memory), opsgen Q16 (LayerNorm-bwd counts and parameters from the backward
 * weights), opsgen Q17 (two FFN all-reduces), the optimizer traffic; only the fid
 * skips (opsgen Q36) stay, as they are labels. The corrected branches add ZeRO/FSDP
 * sharding (zero_stage), rematerialisation (remat), causal attention and the
 * FFN types.
 *
 * The phase skeleton (opsgen/phases.h) walks the forward and the backward
 * pass; this file gives it their data, their layers, the vocabulary's
 * gradients and the weight update.
 *
 * Main data structure: struct gen, the per-run quantities of §4.2 (struct
 * gen_run: local batch, layers per stage, TP axes; here also the sequence
 * length and the DP axes) and the parameter count of the weight update. */
#include "opsgen/train.h"
#include "opsgen/gen.h"
#include "opsgen/sweep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "opsgen/layers.h"
#include "opsgen/moe.h"
#include "opsgen/pattern.h"
#include "opsgen/parallel.h"
#include "opsgen/phases.h"

#define BF16 "DT_BFLOAT16"

/* Builder results are NULL only for malformed equations or op names, which
 * the fixed strings below never produce; the check keeps that true. */
#define CHK(x) do { if (!(x)) return -1; } while (0)

/* ---- backward builders ---- */

static void append_suffix(struct op *op, const char *suffix)
{
    char buf[SBUF * 2];
    snprintf(buf, sizeof buf, "%s%s", op->name, suffix);
    op_set(&op->name, buf);
}

struct op *b_einsum_bwd(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape a, struct shape b, const char *eq,
                        const char *placements, const char *dtype)
{
    struct op *x = b_einsum(t, ovf, fid, count, desc, name, a, b, eq, placements, dtype);
    if (!x)
        return NULL;
    append_suffix(x, "XGrad");
    struct op *y = b_einsum(t, ovf, fid + 1, count, desc, name, a, b, eq, placements, dtype);
    if (!y)
        return NULL;
    append_suffix(y, "YGrad");
    return y - 1;
}

int b_layernorm_bwd(struct trace *t, bool *ovf, int64_t fid, int64_t count, struct shape x)
{
    static const struct { const char *what, *eq, *name; } es[] = {
        { "dl/dy", "BLV;BLV->BV", "MatMul: dl/dy" },
        { "e1", "BLN;BLN->BL", "MatMul: e1" },
        { "e2", "BLN;BLN->BL", "MatMul: e2" },
    };
    CHK(b_unary(t, ovf, fid, count, "Softmax", "Softmax Backprop.", "Softmax", x, "1_1", BF16));
    for (size_t i = 0; i < sizeof es / sizeof es[0]; i++) {
        char d[64];
        snprintf(d, sizeof d, "softmax-bwd-%s-%lld", es[i].what, (long long)fid);
        CHK(b_einsum(t, ovf, fid, count, d, es[i].name, x, x, es[i].eq, "0_0_1", BF16));
    }
    return 0;
}

int b_weight_update(struct trace *t, bool *ovf, int64_t fid, int64_t param_count,
                    const struct coll_axes *dp, int64_t dp_dcn, double ici_bw_GBps,
                    double dcn_bw_GBps)
{
    struct coll_axes ax = *dp;
    int64_t p = 1;
    for (int i = 0; i < ax.n; i++)
        p *= ax.deg[i];
    if (p * dp_dcn > 1) {
        /* Summed left to right as Python's sum([ici] * n + [dcn]). */
        double bw = 0;
        for (int i = 0; i < dp->n; i++)
            bw += ici_bw_GBps;
        bw += dcn_bw_GBps;
        if (dp_dcn > 1) {
            if (ax.n == SHAPE_MAXD)
                return -1;
            ax.deg[ax.n++] = dp_dcn;
        }
        for (int i = 0; i < ax.n; i++)
            ax.bw_GBps[i] = ici_bw_GBps;
        struct op *op;
        CHK(op = b_all_reduce(t, ovf, fid, 1, "WeightUpdate", "AllReduce", SHP(1, param_count, 1), &ax));
        int64_t P = p * dp_dcn, lat = 2 * ax.latency_ns * (P - 1);
        int64_t ns = bld_xfer_ns(ovf, op->ici_in_bytes, bw);
        op->ici_ns = ns > lat ? ns : lat;
        fid++;
    }
    struct op *op;
    /* Optimizer states are assumed to take 4x the weights. */
    CHK(op = b_hbm_io(t, ovf, fid, 1, "WeightUpdateOptimizerStates: Load optimizer states from HBM",
                      "input", false, SHP(4 * param_count), BF16));
    op->type = OP_VPU;
    CHK(op = b_hbm_io(t, ovf, fid + 1, 1, "WeightUpdateWriteHBM", "output", true, SHP(param_count), BF16));
    op->type = OP_VPU;
    return 0;
}

/* ---- generator ---- */

struct gen {
    struct gen_run r;          /* with the TP axes and the model's number formats: activations
                                * (forward and backward ops) and weights; the update keeps bf16
                                * weights and fp32 states */
    int64_t S;                 /* the sequence length */
    struct coll_axes dp;       /* DP axes list (may be empty: quirk opsgen Q13) */
    int64_t param_count;       /* what the weight update used */
    /* a mixture of experts (ffn_type "moe"): the expert TP and EP axes, the
     * experts' formats and the stage's layers of each kind */
    struct coll_axes etp, ep;
    struct tensor_formats efmt;
    int64_t L_dense, L_moe;
};

static struct op *last(const struct gen *g) { return gen_last(&g->r); }

static int64_t tp_of(const struct gen *g)
{
    int64_t p = 1;
    for (int i = 0; i < g->r.tp.n; i++)
        p *= g->r.tp.deg[i];
    return p;
}

/* One layer's parameters on one chip: attention (Q and O over the heads,
 * K and V over the K/V heads) and the FFN's two or three matrices, sharded
 * over TP; a mixture's layers average its dense and MoE layers, a MoE
 * layer's experts over the ep x etp chips that hold them with its router.
 * (The reference's count is read back from the backward ops' weight bytes
 * instead, quirk opsgen Q16.) */
int64_t train_layer_params(bool *ovf, const struct model_config *m)
{
    return badd(ovf, train_layer_replicated_params(ovf, m), train_layer_expert_params(ovf, m));
}

int64_t train_layer_replicated_params(bool *ovf, const struct model_config *m)
{
    int64_t tp = m->tensor_parallelism_degree, D = m->d_model, dh = m->d_head;
    int64_t H = m->num_heads, kv = m->num_kv_heads > 0 ? m->num_kv_heads : H;
    const struct ffn_kind *k = ffn_kind_of(m->ffn_type);
    int64_t attn = bmul3(ovf, 2, D, bmul(ovf, H, dh)) + bmul3(ovf, 2, D, bmul(ovf, kv, dh));
    int64_t ffn = bmul3(ovf, k && !k->gated ? 2 : 3, D, m->d_ff);
    if (!pattern_is_moe(m))
        return cdiv64(badd(ovf, attn, ffn), tp);
    /* attention everywhere, the dense FFN on the dense layers, the router on the MoE layers */
    struct layer_groups lg;
    pattern_groups(m, &lg);
    int64_t L = m->num_layers > 0 ? m->num_layers : 1, moe = pattern_moe_of(&lg);
    int64_t sum = badd(ovf, bmul(ovf, badd(ovf, cdiv64(attn, tp), bmul(ovf, m->num_routed_experts, D)), moe),
                       bmul(ovf, cdiv64(badd(ovf, attn, ffn), tp), m->num_layers - moe));
    return cdiv64(sum, L);
}

int64_t train_layer_expert_params(bool *ovf, const struct model_config *m)
{
    if (!pattern_is_moe(m))
        return 0;
    struct layer_groups lg;
    pattern_groups(m, &lg);
    return cdiv64(bmul(ovf, moe_expert_params(ovf, m), pattern_moe_of(&lg)), m->num_layers > 0 ? m->num_layers : 1);
}

/* ZeRO-3 / FSDP: before a pass the layer's weights are all-gathered over the
 * data-parallel axes (count: the stage's layers). Nothing below stage 3, and
 * nothing of a mixture's experts (each chip holds its own: not replicated). */
static int fsdp_gather(struct gen *g, int64_t fid, const char *desc)
{
    if (g->r.m->zero_stage < 3 || g->dp.n == 0)
        return 0;
    int64_t dp = g->r.m->data_parallelism_degree;
    CHK(b_all_gather(g->r.t, g->r.ovf, fid, g->r.L, desc, "AllGather",
                     SHP(1, cdiv64(train_layer_replicated_params(g->r.ovf, g->r.m), dp), 1), 1, &g->dp));
    return 0;
}

/* The forward layers after the input LayerNorm: the FSDP gather, attention
 * and FFN; *fid: the FFN's first fid, which the sends reuse (quirk opsgen Q5). */
static int fwd_layers(struct gen *g, const struct gen_phase *ph, int64_t *fid)
{
    const struct model_config *m = g->r.m;
    if (fsdp_gather(g, *fid, "Fwd-FSDP-AllGatherWeights"))
        return -1;
    struct layer_ctx lc = { g->r.t, g->r.ovf, g->r.prof, g->r.B, g->r.L, false, &g->r.tp, "", &g->r.fmt, 0 };
    struct attn_args at = { .seq = g->S, .s_in = g->S, .s_out = m->output_seqlen,
                            .H = m->num_heads, .D = m->d_model, .dh = m->d_head,
                            .kv_heads = m->num_kv_heads, .flash = false, .causal = true,
                            .parallel_ffn = m->parallel_attn_ffn };
    if (m->sliding_window > 0)   /* local layers: the keys per query averaged over the layers */
        at.att_keys = pattern_mean_keys(g->r.ovf, m, g->S, g->r.prof->prefill_attention_unmasked ? g->S : (g->S + 1) / 2);
    if (!pattern_is_moe(m)) {
        if (layer_block(&lc, &at, m, fid))
            return -1;
    } else {   /* the dense layers, then the MoE layers (opsgen/moe.h) */
        if (g->L_dense > 0) {
            lc.count = g->L_dense;
            if (layer_block(&lc, &at, m, fid))
                return -1;
            *fid = last(g)->fusion_id + 1;
        }
        lc.count = g->L_moe;
        if (g->L_moe > 0 && moe_layer(&lc, &at, &g->r, &g->etp, &g->ep, &g->efmt, fid))
            return -1;
    }
    /* Full rematerialisation: the backward pass recomputes each layer's
     * forward, so every forward layer op from the input LayerNorm on runs
     * twice (the FSDP gather is already repeated by the backward pass). */
    if (!strcmp(m->remat, "full"))
        for (size_t i = ph->first_layer_op; i < g->r.t->n; i++)
            if (strcmp(g->r.t->ops[i].description, "Fwd-FSDP-AllGatherWeights"))
                g->r.t->ops[i].count = bmul(g->r.ovf, 2, g->r.t->ops[i].count);
    return 0;
}

/* The vocabulary's backward (corrected profile): at the start the LM head's
 * XGrad/YGrad pair and the softmax cross-entropy gradient over [B, S, V/tp];
 * at the end (embed) the scatter-add of the input gradients into the
 * embedding rows. */
static int vocab_bwd(void *gp, int64_t *fid, bool embed)
{
    struct gen *g = gp;
    const struct model_config *m = g->r.m;
    if (g->r.prof->vocab_ops_missing || m->vocab_size <= 0)
        return 0;
    int64_t B = g->r.B, S = g->S, Vl = cdiv64(m->vocab_size, m->tensor_parallelism_degree);
    if (embed) {
        CHK(b_binary(g->r.t, g->r.ovf, (*fid)++, 1, "Bwd-TokenEmbedding", "dW_embed[tokens] += dx", "Add",
                     SHP(B, S, g->r.D_tp), "0_0_0", g->r.fmt.act, false));
        return 0;
    }
    CHK(b_unary(g->r.t, g->r.ovf, *fid, 1, "Bwd-LMHead", "dlogits = probs - onehot", "Pointwise Mul.", SHP(B, S, Vl), "0_0",
                g->r.fmt.act));
    CHK(b_einsum_bwd(g->r.t, g->r.ovf, *fid, 1, "Bwd-LMHead", "einsum", SHP(B, S, m->d_model), SHP(m->d_model, Vl),
                     "BLM;MV->BLV", "0_0_0", g->r.fmt.act));
    *fid += 2;
    return 0;
}

/* The LayerNorm backward runs once per layer; the reference counts it once
 * per stage (quirk opsgen Q16, switch layernorm_bwd_counted_once). */
static int64_t ln_bwd_count(const struct gen *g) { return g->r.prof->layernorm_bwd_counted_once ? 1 : g->r.L; }

/* create_ffn_bwd: for a gated FFN (the reference's llama body) the down
 * pair and the gate*up Mul at f, gate and up pairs at f+1; for a plain MLP
 * the down pair at f and the up pair at f+1. Corrected, the activation's
 * backward (an elementwise op over the hidden width) at f. Then (TP) an
 * all-reduce of count 1 at f+1 inside the body and one of count L at f
 * outside it (quirk opsgen Q17). */
static int ffn_bwd(struct gen *g, int64_t f, int64_t L)
{
    const struct model_config *m = g->r.m;
    const struct ffn_kind *k = ffn_kind_dense(m->ffn_type);
    if (!k)
        return -1;
    int64_t B = g->r.B, S = g->S, D = m->d_model, t = tp_of(g), Fl = cdiv64(m->d_ff, t);
    struct trace *tr = g->r.t;
    bool *ovf = g->r.ovf;
    const char *pre = "Bwd-FFN-encoder-";
    char d[96];
    snprintf(d, sizeof d, "%sFFdown", pre);
    CHK(b_einsum_bwd(tr, ovf, f, L, d, "einsum", SHP(B, S, Fl), SHP(Fl, D), "BLH;HM->BLM", "0_0_0", g->r.fmt.act));
    if (!g->r.prof->ffn_activation_missing) {
        snprintf(d, sizeof d, "%sFFact", pre);
        CHK(b_unary(tr, ovf, f, L, d, "dh = dy * act'(h)", k->act, SHP(B, S, Fl), "0_0", g->r.fmt.act));
    }
    if (k->gated) {
        snprintf(d, sizeof d, "%sFFgate_up", pre);
        CHK(b_binary(tr, ovf, f, L, d, "h_gate_up (2) = h_gate (2) * h_up (1)", "Mul", SHP(B, S, Fl),
                     "0_0_0", g->r.fmt.act, g->r.prof->binary_ops_list_one_input));
        snprintf(d, sizeof d, "%sFFgate", pre);
        CHK(b_einsum_bwd(tr, ovf, f + 1, L, d, "einsum", SHP(B, S, D), SHP(D, Fl), "BLM;MH->BLH", "0_0_0", g->r.fmt.act));
    }
    snprintf(d, sizeof d, "%sFFup", pre);
    CHK(b_einsum_bwd(tr, ovf, f + 1, L, d, "einsum", SHP(B, S, D), SHP(D, Fl), "BLM;MH->BLH", "0_0_0", g->r.fmt.act));
    if (t > 1 && g->r.prof->ffn_bwd_two_all_reduces)
        CHK(b_all_reduce(tr, ovf, f + 1, 1, pre, "AllReduce", SHP(B, S, D), &g->r.tp));
    if (t > 1) {
        char nm[64];
        snprintf(nm, sizeof nm, "AllReduce-MLP-%lld", (long long)f);
        CHK(b_all_reduce(tr, ovf, f, L, "All reduce results of MLP gradient calculation", nm,
                         SHP(B, S, D), &g->r.tp));
    }
    return 0;
}

/* One expert matmul's backward (its input and weight gradients) over b x
 * tokens rows of K by a K x N weight, n times; over fold experts (fold > 1)
 * the forward's grouped GEMMs (layers.c, body_matmul), n / fold times. down:
 * the h x W_down product's. */
static int expert_matmul_bwd(struct gen *g, int64_t f, int64_t n, int64_t fold, const char *d, int64_t b,
                             int64_t tokens, int64_t K, int64_t N, bool down)
{
    bool *ovf = g->r.ovf;
    struct op *o;
    if (fold == 1)
        return b_einsum_bwd(g->r.t, ovf, f, n, d, "einsum", SHP(b, tokens, K), SHP(K, N),
                            down ? "BLH;HM->BLM" : "BLM;MH->BLH", "0_0_0", g->r.fmt.act) ? 0 : -1;
    CHK(o = b_einsum_bwd(g->r.t, ovf, f, n / fold, d, "einsum", SHP(fold, bmul(ovf, b, tokens), K), SHP(fold, K, N),
                         down ? "ELH;EHM->ELM" : "ELM;EMH->ELH", "0_0_0", g->r.fmt.act));
    o[0].grouped = o[1].grouped = true;   /* b_einsum_bwd: the input's gradient, then the weight's */
    return 0;
}

/* A gated expert body's backward (the forward's gate, up, act(gate) * up and
 * down, each matmul's input and weight gradients) over b x tokens rows of
 * width Fl, n times, its descriptions prefixed by pre (in the activations'
 * format, as the dense FFN's backward). The elementwise pair runs once over
 * fold copies (n / fold ops of fold x b rows), as the forward's fused MoE
 * kernel runs it over every woken expert (layers.h, layer_ctx.fold), and the
 * matmuls as its grouped GEMMs. */
static int expert_bwd(struct gen *g, int64_t f, int64_t n, int64_t b, int64_t tokens, int64_t Fl, const char *pre,
                      int64_t fold)
{
    struct trace *tr = g->r.t;
    bool *ovf = g->r.ovf;
    int64_t D = g->r.m->d_model;
    const char *act = g->r.fmt.act;
    char d[96];
    fold = layer_fold(fold, n);
    struct shape h = SHP(bmul(ovf, b, fold), tokens, Fl);
    snprintf(d, sizeof d, "%sFFdown", pre);
    if (expert_matmul_bwd(g, f, n, fold, d, b, tokens, Fl, D, true))
        return -1;
    snprintf(d, sizeof d, "%sFFact", pre);
    if (!g->r.prof->ffn_activation_missing)
        CHK(b_unary(tr, ovf, f, n / fold, d, "dh = dy * act'(h)", "Silu", h, "0_0", act));
    snprintf(d, sizeof d, "%sFFgate_up", pre);
    CHK(b_binary(tr, ovf, f, n / fold, d, "h_gate_up (2) = h_gate (2) * h_up (1)", "Mul", h, "0_0_0", act,
                 g->r.prof->binary_ops_list_one_input));
    for (int i = 0; i < 2; i++) {
        snprintf(d, sizeof d, "%s%s", pre, i ? "FFup" : "FFgate");
        if (expert_matmul_bwd(g, f + 1, n, fold, d, b, tokens, D, Fl, false))
            return -1;
    }
    return 0;
}

/* The MoE layers' FFN backward (ffn_type "moe"), L of them: the combine's
 * all-to-all back, the routed experts' (the forward's load: top-k routing,
 * moe_load_of) and shared experts' gradients, the dispatch's all-to-all,
 * the router's gradient and (expert TP) the all-reduce of the input
 * gradient over the expert TP axes. */
static int moe_bwd(struct gen *g, int64_t f, int64_t L)
{
    const struct model_config *m = g->r.m;
    int64_t B = g->r.B, S = g->S, D = m->d_model, e = 1;
    for (int i = 0; i < g->ep.n; i++) e *= g->ep.deg[i];
    struct moe_ctx mx = moe_ctx_std(&g->r, &g->ep);
    struct layer_ctx c = { g->r.t, g->r.ovf, g->r.prof, B, L, false, &g->etp, "Bwd-", &g->r.fmt, 0 };
    int64_t t = layer_tp(&c), Fm = cdiv64(m->moe_d_ff, t);
    bool a2a = e > 1 && !moe_tokens_replicated(&g->r);   /* moe.h: tokens on every chip, no all-to-all */
    if (a2a && moe_all_to_all(&c, &mx, S, f++, true))
        return -1;
    struct moe_load ld = moe_load_of(g->r.ovf, m, bmul(g->r.ovf, B, S));
    if (expert_bwd(g, f, bmul(g->r.ovf, L, ld.experts), 1, ld.tokens, Fm, "Bwd-FFN_routed_experts-", ld.experts))
        return -1;
    f = last(g)->fusion_id + 1;
    if (m->num_shared_experts > 0) {
        if (expert_bwd(g, f, L, B, S, Fm * m->num_shared_experts, "Bwd-FFN_shared_expert-", 1))
            return -1;
        f = last(g)->fusion_id + 1;
    }
    if (a2a && moe_all_to_all(&c, &mx, S, f++, false))
        return -1;
    if (e > 1 && !a2a)   /* the input gradient, each chip's over its own experts, summed */
        CHK(b_reduce_scatter(g->r.t, g->r.ovf, f++, L,
                             "Reduce and scatter the experts' input gradients over the EP chips", "ReduceScatterMoE",
                             SHP(B, S, D), 2, &g->ep));
    CHK(b_einsum_bwd(g->r.t, g->r.ovf, f, L, "Bwd-FFN_MoE_gate-scores", "einsum", SHP(B, S, D),
                     SHP(D, m->num_routed_experts), "BLM;MR->BLR", "0_0_0", g->r.fmt.act));
    if (t > 1)
        CHK(b_all_reduce(g->r.t, g->r.ovf, f, L, "All reduce results of the experts' gradient calculation",
                         "AllReduce-MoE", SHP(B, S, D), &g->etp));
    return 0;
}

/* create_multi_head_self_attention_bwd on the sharded widths (no gathers). */
static int attention_bwd(struct gen *g, int64_t f)
{
    const struct model_config *m = g->r.m;
    int64_t t = tp_of(g), B = g->r.B, S = g->S, L = g->r.L, dh = m->d_head;
    int64_t Hl = cdiv64(m->num_heads, t), Dl = cdiv64(m->d_model, t);
    /* Causal: (S+1)/2 keys per query on average (the reference: S). */
    int64_t A = g->r.prof->prefill_attention_unmasked ? S : (S + 1) / 2;
    A = pattern_mean_keys(g->r.ovf, m, S, A);   /* local layers: their windows' keys, averaged */
    /* K/V projections over the K/V heads (the reference: all heads, quirk opsgen Q2). */
    int64_t kv = m->num_kv_heads > 0 && !g->r.prof->kv_heads_ignored ? m->num_kv_heads : m->num_heads;
    int64_t KVl = kv >= t ? cdiv64(kv, t) : 1;
    if (KVl > Hl) KVl = Hl;
    struct trace *tr = g->r.t;
    bool *ovf = g->r.ovf;
    const char *pre = "Bwd-Attention_encoder-";
    char d[96];
    struct op *x;
    if (b_layernorm_bwd(tr, ovf, f, ln_bwd_count(g), SHP(B, S, Dl)))
        return -1;
    f++;
    snprintf(d, sizeof d, "%sAttention_output", pre);
    CHK(b_einsum_bwd(tr, ovf, f, L, d, "MatMul: attnOutput (2) = attnAvg (2) * W_o (1)",
                     SHP(B, S, Hl, dh), SHP(Hl, dh, Dl), "BLND;NDM->BLM", "0_0_0", g->r.fmt.act));
    f += 2;
    snprintf(d, sizeof d, "%sAttention_Softmax(Q*K)*V", pre);
    CHK(x = b_einsum_bwd(tr, ovf, f, L, d, "MatMul: attnAvg (2) = attnWeights (2) * V_all_gathered (2)",
                         SHP(B, S, A, Hl), SHP(B, A, Hl, dh), "BLSN;BSND->BLND", "1_0_0", g->r.fmt.act));
    x[0].weight_bytes = x[1].weight_bytes = 0;
    CHK(b_unary(tr, ovf, f, L, d, "Softmax Backprop", "Pointwise Mul.", SHP(B, S, A, Hl), "1_1", g->r.fmt.act));
    CHK(x = b_einsum_bwd(tr, ovf, f, L, d, "MatMul: attnWeights (2) = Q (2) * K_all_gathered (2)",
                         SHP(B, S, Hl, dh), SHP(B, A, Hl, dh), "BLND;BSND->BLSN", "0_0_1", g->r.fmt.act));
    x[0].weight_bytes = x[1].weight_bytes = 0;
    static const char *const qkv[] = {
        "MatMul: Q (2) = x_norm_all_gathered (2) * W_q (1)",
        "MatMul: K (2) = x_norm_all_gathered (2) * W_k (1)",
        "MatMul: V (2) = x_norm_all_gathered (2) * W_v (1)",
    };
    snprintf(d, sizeof d, "%sQ/K/V", pre);
    for (int i = 0; i < 3; i++) {
        int64_t h = i == 0 ? Hl : KVl;
        CHK(x = b_einsum_bwd(tr, ovf, f, L, d, qkv[i], SHP(B, S, Dl), SHP(Dl, h, dh), "BLM;MND->BLND",
                             "0_0_0", g->r.fmt.act));
        x[0].weight_bytes = x[1].weight_bytes = 2 * h * Dl * dh;
    }
    if (t > 1)
        CHK(b_all_reduce(tr, ovf, f + 2, 1, pre, "AllReduce", SHP(B, S, Dl), &g->r.tp));
    return 0;
}

/* The corrected weight update of P local parameters with mixed-precision
 * Adam: the gradients are summed over the data-parallel replicas (stage 0:
 * one all-reduce; stages 1-2: a reduce-scatter, the update of the chip's
 * shard, an all-gather of the new weights; stage 3: done per layer in the
 * backward pass), then the update reads the BF16 gradient and the FP32
 * master weight, momentum and variance (14 B per parameter) and writes the
 * three FP32 states and the BF16 weight (14 B) of the chip's shard: P / dp
 * parameters from stage 1 on. DCN replicas add an all-reduce at the DCN
 * bandwidth. */
static int weight_update_zero(struct gen *g, int64_t fid, int64_t P_all, int64_t P_exp)
{
    const struct model_config *m = g->r.m;
    bool *ovf = g->r.ovf;
    int64_t dp = m->data_parallelism_degree, z = m->zero_stage;
    /* a mixture's experts live on one chip each: no replica to sum their
     * gradients with, nothing to shard over the replicas */
    int64_t P = P_all - P_exp;
    struct op *op;
    if (g->dp.n > 0 && dp > 1 && z == 0)
        CHK(b_all_reduce(g->r.t, ovf, fid++, 1, "WeightUpdate", "AllReduce", SHP(1, P, 1), &g->dp));
    if (g->dp.n > 0 && dp > 1 && (z == 1 || z == 2))
        CHK(b_reduce_scatter(g->r.t, ovf, fid++, 1, "WeightUpdate-ReduceScatterGradients", "ReduceScatter",
                             SHP(1, P, 1), 1, &g->dp));
    int64_t Pl = z >= 1 ? cdiv64(P, dp) : P;
    if (m->data_parallel_degree_dcn > 1) {
        struct coll_axes ax = coll_axes_ring(m->data_parallel_degree_dcn, g->r.l->dcn_bw_GBps, g->r.l->dcn_latency_ns,
                                             g->r.l->collective_base_ns, COLL_RING, g->r.prof);
        CHK(b_all_reduce(g->r.t, ovf, fid++, 1, "WeightUpdate-DCN", "AllReduce", SHP(1, Pl, 1), &ax));
    }
    int64_t Pu = badd(ovf, Pl, P_exp);   /* the parameters this chip updates */
    CHK(op = b_hbm_io(g->r.t, ovf, fid, 1, "WeightUpdateOptimizerStates: Load gradients and FP32 states",
                      "input", false, SHP(bmul(ovf, 7, Pu)), BF16));
    op->type = OP_VPU;
    CHK(op = b_hbm_io(g->r.t, ovf, fid + 1, 1, "WeightUpdateWriteHBM", "output", true, SHP(bmul(ovf, 7, Pu)), BF16));
    op->type = OP_VPU;
    if (g->dp.n > 0 && dp > 1 && (z == 1 || z == 2))
        CHK(b_all_gather(g->r.t, ovf, fid + 2, 1, "WeightUpdate-AllGatherWeights", "AllGather",
                         SHP(1, Pl, 1), 1, &g->dp));
    return 0;
}

/* The backward layers: the FSDP gather, FFN bwd, attention bwd and the
 * input-LayerNorm bwd (the sends follow it). */
static int bwd_layers(struct gen *g, int64_t *fid)
{
    int64_t f = *fid;
    if (fsdp_gather(g, f, "Bwd-FSDP-AllGatherWeights"))
        return -1;
    if (!pattern_is_moe(g->r.m)) {
        if (ffn_bwd(g, f, g->r.L))
            return -1;
    } else {   /* the MoE layers' experts, then the dense layers' FFNs */
        if (g->L_moe > 0 && moe_bwd(g, f, g->L_moe))
            return -1;
        if (g->L_dense > 0 && ffn_bwd(g, g->L_moe > 0 ? last(g)->fusion_id + 1 : f, g->L_dense))
            return -1;
    }
    f = last(g)->fusion_id + 1;
    if (attention_bwd(g, f))
        return -1;
    f = last(g)->fusion_id + 1;
    if (b_layernorm_bwd(g->r.t, g->r.ovf, f, ln_bwd_count(g), SHP(g->r.B, g->S, g->r.D_tp)))
        return -1;
    *fid = f + 1;
    return 0;
}

/* The layers of the forward or backward pass (gen_phases). */
static int train_layers(void *gp, const struct gen_phase *ph, int64_t *fid)
{
    return ph->bwd ? bwd_layers(gp, fid) : fwd_layers(gp, ph, fid);
}

/* After the backward pass: the parameter count and the weight update at fid. */
static int train_end(void *gp, const struct gen_phase *ph, int64_t fid)
{
    struct gen *g = gp;
    const struct model_config *m = g->r.m;
    bool *ovf = g->r.ovf;
    if (!ph->bwd)
        return 0;
    /* BF16 weights: parameters = weight bytes / 2, over the backward ops
     * only, LayerNorm-bwd activations included (quirk opsgen Q16). */
    int64_t wbytes = 0;
    for (size_t i = ph->first_op; i < g->r.t->n; i++)
        wbytes += g->r.t->ops[i].weight_bytes * g->r.t->ops[i].count;
    g->param_count = wbytes / 2;
    if (!g->r.prof->train_params_from_bwd_weights)   /* the layers, and the embedding and LM head */
        g->param_count = badd(ovf, bmul(ovf, train_layer_params(ovf, m), g->r.L),
                              gen_vocab_params(ovf, m, m->tensor_parallelism_degree, g->r.prof));
    if (m->zero_stage >= 3 && g->dp.n > 0)
        /* the gradients of each layer are reduce-scattered as they are made */
        CHK(b_reduce_scatter(g->r.t, ovf, fid, g->r.L, "Bwd-FSDP-ReduceScatterGradients", "ReduceScatter",
                             SHP(1, train_layer_replicated_params(ovf, m), 1), 1, &g->dp));
    /* The reference adds the DCN bandwidth even without DCN pods (quirk opsgen Q11). */
    bool dcn = g->r.prof->weight_update_always_adds_dcn || m->data_parallel_degree_dcn > 1;
    if (g->r.prof->optimizer_states_4x_weights)
        return b_weight_update(g->r.t, ovf, fid, g->param_count, &g->dp, m->data_parallel_degree_dcn,
                               g->r.l->ici_bw_GBps, dcn ? g->r.l->dcn_bw_GBps : 0.0);
    return weight_update_zero(g, fid, g->param_count, bmul(ovf, train_layer_expert_params(ovf, m), g->r.L));
}

/* The forward (phase 0) or backward (phase 1) pass of one stage, untagged:
 * the token embedding and LM head forward (corrected profile; the reference
 * has none), their gradients backward; one id skipped before the layers
 * (quirk opsgen Q36: before the input LayerNorm forward, the slot of a
 * commented-out HBM load backward); every layer op counts the stage's layers
 * and every transfer once; the forward sends carry no description prefix and
 * reuse the FFN's first fid under the profile's pp_send_reuses_fid (quirk
 * opsgen Q5). */
static void train_setup(void *gp, int i, struct gen_phase *ph)
{
    struct gen *g = gp;
    bool bwd = i == 1;
    ph->tag = PHASE_NONE;
    ph->bwd = bwd;
    ph->seq = ph->head_seq = g->S;   /* the LM head over every position (each has a loss) */
    ph->count = g->r.L;
    ph->steps = 1;
    ph->skip_fid = true;
    if (!bwd) {
        ph->norm_desc = "Fwd-Attention-encoder-Input_layernorm";
        ph->norm_eq = "X_norm = LayerNorm(X)";
        ph->norm_op = "LayerNorm";
        ph->norm_dtype = g->r.fmt.act;
    }
    ph->send_reuses_fid = !bwd && g->r.prof->pp_send_reuses_fid;
    ph->recv_desc = bwd ? "Bwd-" : "Fwd-";
    ph->send_desc = bwd ? "Bwd-" : "";
    ph->send_name = "SendOutput";
}

/* ---- validation ---- */

static int validate(const struct model_config *m, const struct opsgen_links *l, struct npu_err *e)
{
    if (gen_require_llm(m, "LLM training", e) || gen_require_prompt_cache(m, "LLM training", e) ||
        gen_require_linear(m, "LLM training", e))
        return -1;
    if (!ffn_kind_of(m->ffn_type) && !pattern_is_moe(m))
        return ffn_type_error(m->ffn_type, e);
    if (m->use_flash_attention)
        return npu_errf(e, "model field \"use_flash_attention\": training does not support flash "
                           "attention; expected false");
    static const char *const positive[] = {
        "num_chips", "data_parallelism_degree", "tensor_parallelism_degree",
        "pipeline_parallelism_degree", "data_parallel_degree_dcn", "tensor_parallel_degree_dcn",
        "pipeline_parallel_degree_dcn", "microbatch_size_ici", "global_batch_size", "input_seqlen",
        "d_model", "num_heads", "d_head", "d_ff", "num_layers",
    };
    if (gen_require_positive(m, positive, sizeof positive / sizeof positive[0], e))
        return -1;
    if (gen_require_axes("num_tensor_parallel_axes", m->num_tensor_parallel_axes, SHAPE_MAXD, e) ||
        gen_require_axes("num_data_parallel_axes", m->num_data_parallel_axes, SHAPE_MAXD - 1, e) ||
        gen_require_chips(m, e) || (pattern_is_moe(m) && moe_validate(m, e)) ||
        gen_require_links(l, false, m->pipeline_parallel_degree_dcn > 1 || m->data_parallel_degree_dcn > 1, e))
        return -1;
    if (!(l->dcn_bw_GBps >= 0))
        return npu_errf(e, "chip field \"dcn_bw_GBps\": expected a non-negative value");
    return 0;
}

int opsgen_llm_training(const struct model_config *m, const struct opsgen_links *l,
                        const struct profile *prof, struct trace *out, int64_t *param_count,
                        bool *ovf, struct npu_err *e)
{
    if (validate(m, l, e))
        return -1;
    (void)opsgen_llm_training_mem_checked(ovf, m, prof);   /* a footprint past int64 fails the trace */
    struct gen g = { .S = m->input_seqlen };
    gen_run_init(&g.r, m, l, prof, out, ovf);
    /* One axis slot stays free for the weight update's DCN degree. */
    if (gen_axes(&g.r.tp, m->tensor_parallelism_degree, m->num_tensor_parallel_axes, prof, l, SHAPE_MAXD - 1) ||
        gen_axes(&g.dp, m->data_parallelism_degree, m->num_data_parallel_axes, prof, l, SHAPE_MAXD - 1))
        return npu_errf(e, "model fields \"num_*_parallel_axes\": at most %d axes supported",
                        SHAPE_MAXD - 1);
    if (pattern_is_moe(m)) {   /* the stage's dense and MoE layers, the expert axes and formats */
        struct layer_groups lg;
        pattern_stage_groups(m, g.r.L, &lg);
        g.L_moe = pattern_moe_of(&lg);
        g.L_dense = g.r.L - g.L_moe;
        if (moe_axes(m, l, prof, &g.etp, &g.ep))
            return npu_errf(e, "model: parallelism degrees split over more than %d torus axes", SHAPE_MAXD);
        tensor_formats_experts(m, &g.efmt);
    }
    static const struct gen_phase_hooks hooks = { .setup = train_setup, .layers = train_layers,
                                                  .vocab_bwd = vocab_bwd, .end = train_end };
    if (gen_phases(&g.r, &hooks, &g, e))
        return -1;
    if (param_count)
        *param_count = g.param_count;
    return 0;
}

/* ---- memory (§11.2) ---- */

/* The corrected footprint (see train.h). */
static int64_t training_mem_physical(bool *ovf, const struct model_config *m, const struct profile *prof)
{
    int64_t tp = m->tensor_parallelism_degree, pp = m->pipeline_parallelism_degree;
    int64_t dp = m->data_parallelism_degree, z = m->zero_stage, D = m->d_model;
    int64_t Lc = cdiv64(m->num_layers, pp * m->pipeline_parallel_degree_dcn);
    /* replicated over the data-parallel replicas (ZeRO shards them), and a
     * mixture's experts (each on its own chip: nothing to shard) */
    int64_t P = bmul(ovf, train_layer_replicated_params(ovf, m), Lc);
    P = badd(ovf, P, gen_vocab_params(ovf, m, tp, prof));
    int64_t Pe = bmul(ovf, train_layer_expert_params(ovf, m), Lc);
    int64_t w = bmul(ovf, 2, P), gr = bmul(ovf, 2, P), opt = bmul(ovf, 12, P);
    if (z >= 1) opt = cdiv64(opt, dp);
    if (z >= 2) gr = cdiv64(gr, dp);
    if (z >= 3) w = badd(ovf, cdiv64(w, dp), bmul(ovf, 2, train_layer_replicated_params(ovf, m)));   /* + one gathered layer */
    w = badd(ovf, w, bmul(ovf, 2, Pe));
    gr = badd(ovf, gr, bmul(ovf, 2, Pe));
    opt = badd(ovf, opt, bmul(ovf, 12, Pe));
    /* Stored activations, 34 s b D / tp bytes a layer (Korthikanti et al.
     * 2022, sequence parallelism with selective recomputation), for the pp
     * microbatches a 1F1B stage holds in flight. */
    int64_t b = cdiv64(m->microbatch_size_ici, dp);
    int64_t layer_act = cdiv64(bmul3(ovf, 34, bmul(ovf, b, m->input_seqlen), D), tp);
    if (pattern_is_moe(m)) {   /* a MoE layer also keeps its experts' gate and up outputs: the top-k
                                * of the replicas' tokens, spread over the ep chips */
        struct layer_groups lg;
        pattern_stage_groups(m, Lc, &lg);
        int64_t ep = m->expert_parallelism_degree > 0 ? m->expert_parallelism_degree : 1;
        int64_t pairs = cdiv64(bmul3(ovf, bmul(ovf, b, m->input_seqlen), dp, m->num_activated_routed_experts_per_token), ep);
        int64_t h = cdiv64(bmul3(ovf, pairs, m->moe_d_ff, 4), moe_etp(m));
        layer_act = badd(ovf, layer_act, cdiv64(bmul(ovf, h, pattern_moe_of(&lg)), Lc > 0 ? Lc : 1));
    }
    int64_t act = bmul(ovf, layer_act, bmul(ovf, Lc, pp));
    if (!strcmp(m->remat, "full"))   /* each layer's BF16 input, plus one layer's working set */
        act = badd(ovf, bmul(ovf, cdiv64(bmul3(ovf, 2, bmul(ovf, b, m->input_seqlen), D), tp), bmul(ovf, Lc, pp)),
                   layer_act);
    return badd(ovf, badd(ovf, badd(ovf, w, gr), opt), act);
}

int64_t opsgen_llm_training_mem_bytes(const struct model_config *m, const struct profile *prof)
{
    bool ovf = false;   /* the footprint alone: there is no trace to fail */
    return opsgen_llm_training_mem_checked(&ovf, m, prof);
}

int64_t opsgen_llm_training_mem_checked(bool *ovf, const struct model_config *m, const struct profile *prof)
{
    if (!prof->train_memory_reference)
        return training_mem_physical(ovf, m, prof);
    int64_t dp = m->data_parallelism_degree, tp = m->tensor_parallelism_degree;
    int64_t b = cdiv64(m->global_batch_size, dp), s = m->input_seqlen;
    int64_t D = m->d_model, dh = m->d_head;
    int64_t Hl = cdiv64(m->num_heads, tp), Fl = cdiv64(m->d_ff, tp);
    /* ICI pipeline stages only; attention is counted once (quirk opsgen Q15). */
    int64_t Lc = cdiv64(m->num_layers, m->pipeline_parallelism_degree);
    /* Checked (bmul, badd: builders.h), term for term as the reference sums. */
    int64_t bs = bmul(ovf, b, s), bsD = bmul(ovf, bs, D);
#define MAX(x, y) ((x) > (y) ? (x) : (y))
    /* LayerNorms (input and output) count 2bsD as "weights" and activations. */
    int64_t w_a = badd(ovf, badd(ovf, badd(ovf, bmul(ovf, 2, bsD), bmul4(ovf, 3, D, Hl, dh)), bmul3(ovf, Hl, dh, D)),
                       bmul(ovf, 2, bsD));
    int64_t a_a = badd(ovf, badd(ovf, badd(ovf, badd(ovf, badd(ovf, badd(ovf, bmul(ovf, bs, cdiv64(D, tp)),
                                                                          bmul(ovf, 2, bsD)),
                                                             MAX(bmul4(ovf, 3, D, Hl, dh), bmul4(ovf, 3, bs, Hl, dh))),
                                                bmul4(ovf, 2, bs, s, Hl)),
                                   bmul3(ovf, bs, Hl, dh)),
                      MAX(bmul3(ovf, Hl, dh, D), bsD)),
                       bmul(ovf, 2, bsD));
    int64_t w_f = bmul3(ovf, 3, D, Fl);
    int64_t a_f = badd(ovf, badd(ovf, MAX(bmul3(ovf, 2, D, Fl), bmul3(ovf, 2, bs, Fl)), bmul(ovf, bs, Fl)),
                       MAX(bmul(ovf, Fl, D), bsD));
#undef MAX
    int64_t w = badd(ovf, w_a, bmul(ovf, w_f, Lc)), a = badd(ovf, a_a, bmul(ovf, a_f, Lc));
    /* FP32 master weights, momentum and variance. */
    int64_t opt = bmul(ovf, 3, w);
    return badd(ovf, badd(ovf, bmul(ovf, 2, w), bmul(ovf, 2, a)), bmul(ovf, 4, opt));
}

/* ---- sweep validation (§13.3) ---- */

bool train_validate_sweep(const struct model_config *m, const struct opsgen_links *l,
                          const struct profile *prof, double oom_factor, char *why, size_t whylen)
{
    if (!sweep_validate_structure(m, l->chip_name, why, whylen))
        return false;
    double gib = (double)opsgen_llm_training_mem_bytes(m, prof) / 1024 / 1024 / 1024;
    if (gib > (double)l->hbm_size_GB * oom_factor) {
        if (why && whylen)
            snprintf(why, whylen, "training footprint %.4f GiB exceeds %lld GB x %g", gib,
                     (long long)l->hbm_size_GB, oom_factor);
        return false;
    }
    if (why && whylen) why[0] = '\0';
    return true;
}
