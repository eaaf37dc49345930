/* layers.c — attention and FFN layer builders (see layers.h; opsgen.md §5.3–§5.4). */
#include "opsgen/layers.h"

#include <string.h>

#include "opsgen/linear_attn.h"
#include "opsgen/model.h"
#include "base/json_strict.h"
#include "base/strbuf.h"

#include <stdio.h>

#define BF16 "DT_BFLOAT16"
/* The activations' format (bf16 without formats). */
#define ACT (c->fmt ? c->fmt->act : BF16)

/* Builder results are NULL only for malformed equations or op names, which
 * the fixed strings below never produce; the check keeps that true. */
#define CHK(x) do { if (!(x)) return -1; } while (0)

static struct op *last(const struct layer_ctx *c) { return &c->t->ops[c->t->n - 1]; }

/* Local query heads, local K/V heads and the group size Hl / KVl. */
/* Local query heads, K/V heads, query heads per K/V head; and the K/V heads and
 * group the decode attention reads the cache over (KVl and R; Hl and 1 when the
 * kernel reads K/V once per query head: attn_args.decode_kv_per_head). */
struct heads { int64_t Hl, KVl, R, KVr, Rr, Hq, dv; };   /* Hq: the heads W_q projects (2 Hl with an output gate);
                                                           * dv: the value heads' width */

/* Descriptions and names: d = a b c, then the decimal id unless NO_ID
 * (cut to the buffer like snprintf; printf was a tenth of opsgen's time). */
#define NO_ID INT64_MIN
#define CAT(d, a, b, c, id) cat((d), sizeof(d), (a), (b), (c), (id))
static void cat(char *d, size_t n, const char *a, const char *b, const char *c, int64_t id)
{
    struct strbuf sb = strbuf_on(d, n);
    strbuf_puts(&sb, a);
    strbuf_puts(&sb, b);
    strbuf_puts(&sb, c);
    if (id != NO_ID)
        strbuf_puti(&sb, id);
}

#define WEIGHTS(op) fmt_weights(c->ovf, c->fmt, (op))
#define KV_CACHE(op) reads_kv_cache(fmt_store_rest(c->ovf, c->fmt, (op), c->fmt ? c->fmt->kv : BF16))

/* A decode step's einsum over the KV cache, stored in the cache's format:
 * chipsim prices it as decode attention. */
static struct op *reads_kv_cache(struct op *o)
{
    if (o)
        o->reads_kv_cache = true;
    return o;
}

int64_t layer_tp(const struct layer_ctx *c)
{
    int64_t p = 1;
    for (int i = 0; c->tp && i < c->tp->n; i++)
        p *= c->tp->deg[i];
    return p;
}

/* ---- self path (decode; prefill without flash) ---- */

/* The decode steps' suffix lengths: the reference costs every step at the
 * final length so (quirk opsgen Q8, one group). Step k (1..so) attends to k
 * generated tokens, so the exact sum is so(so+1)/2: one group at (so+1)/2
 * when so is odd, else two groups of n/2 steps at so/2 and so/2 + 1. */
struct kv_groups decode_suffix_groups(const struct profile *prof, int64_t n, int64_t so)
{
    if (prof->decode_kv_full_length)
        return (struct kv_groups){ 1, { so, 0 }, { n, 0 } };
    if (so % 2 || n % 2)
        return (struct kv_groups){ 1, { (so + 1) / 2, 0 }, { n, 0 } };
    return (struct kv_groups){ 2, { so / 2, so / 2 + 1 }, { n / 2, n / 2 } };
}

/* The self path's K/V projections at fid f: K and V (kv_mats 2), K alone when
 * V is K's projection (1), none when the layer reads an earlier layer's K/V
 * (0); a decode step's as one product unless V is of its own width
 * (MiMo-V2-Flash). 0, or -1 if a builder failed. */
static int self_kv(const struct layer_ctx *c, int64_t f, const char *d, int64_t seq, int64_t Dm, int64_t KVl,
                   int64_t dh, int64_t dv, int kv_mats)
{
    int64_t B = c->B, n = c->count;
    if (c->decode && kv_mats > 0 && (kv_mats == 1 || dv == dh)) {
        CHK(WEIGHTS(b_einsum(c->t, c->ovf, f, n, d, "MatMul: KV (2) = x_norm (2) * W_kv (1)",
                             SHP(B, seq, Dm), SHP(kv_mats, Dm, KVl, dh), "BLM;TMND->BTLND", "0_0_0", ACT)));
        return 0;
    }
    if (kv_mats > 0)
        CHK(WEIGHTS(b_einsum(c->t, c->ovf, f, n, d, c->decode ? "MatMul: K (2) = x_norm (2) * W_k (1)"
                                                             : "MatMul: K (2) = x_norm_all_gathered (2) * W_k (1)",
                             SHP(B, seq, Dm), SHP(Dm, KVl, dh), "BLM;MND->BLND", "0_0_0", ACT)));
    if (kv_mats == 2)
        CHK(WEIGHTS(b_einsum(c->t, c->ovf, f, n, d, c->decode ? "MatMul: V (2) = x_norm (2) * W_v (1)"
                                                             : "MatMul: V (2) = x_norm_all_gathered (2) * W_v (1)",
                             SHP(B, seq, Dm), SHP(Dm, KVl, dv), "BLM;MND->BLND", "0_0_0", ACT)));
    return 0;
}

static int self_path(const struct layer_ctx *c, int64_t seq, int64_t att, const struct heads *hd,
                     int64_t Dm, int64_t dh, int64_t si, int64_t so, bool epilogue, int kv_mats, int64_t *fid)
{
    int64_t B = c->B, n = c->count, t = layer_tp(c), f = *fid;
    int64_t Hl = hd->Hl, KVl = hd->KVl, qs = seq * hd->R;   /* GQA: the group folds into the rows */
    bool one = c->prof->binary_ops_list_one_input;
    char pre[160], d[200], nm[96];
    struct trace *tr = c->t;
    struct op *o;
    CAT(pre, c->prefix, c->decode ? "Attention-serving-decode-" : "Fwd-Attention_encoder-", "", NO_ID);

    if (t > 1) {
        CAT(d, "AllGatherMHA-", "", "", f);
        CHK(b_all_gather(tr, c->ovf, f, n, d, "AllGather", SHP(B, seq, Dm), 2, c->tp));
        Dm *= t;
        f++;
    }
    CAT(d, pre, "Q/K/V", "", NO_ID);
    CHK(WEIGHTS(b_einsum(tr, c->ovf, f, n, d, "MatMul: Q (2) = x_norm_all_gathered (2) * W_q (1)",
                 SHP(B, seq, Dm), SHP(Dm, hd->Hq, dh), "BLM;MND->BLND", "0_0_0", ACT)));
    if (self_kv(c, f, d, seq, Dm, KVl, dh, hd->dv, kv_mats))
        return -1;
    f++;

    if (c->decode) {
        struct kv_groups g = decode_suffix_groups(c->prof, c->count, so);
        int64_t KVr = hd->KVr, qr = seq * hd->Rr;   /* the heads the cache is read over */
        CAT(d, pre, "Softmax(Q*K)*V", "", NO_ID);
        CHK(o = KV_CACHE(b_einsum(tr, c->ovf, f, n, d, "MatMul: QK_prefix (2) = Q (2) * Kcache (2)",
                         SHP(B, qr, KVr, dh), SHP(B, si, KVr, dh), "BLND;BSND->BLSN", "0_0_0", ACT)));
        o->weight_bytes = 0;
        for (int k = 0; k < g.ng; k++) {
            CHK(o = KV_CACHE(b_einsum(tr, c->ovf, f, g.cnt[k], d, "MatMul: QK_suffix (2) = Q (2) * Ksuffix (2)",
                             SHP(B, qr, KVr, dh), SHP(B, g.len[k], KVr, dh), "BLND;BSND->BLSN", "0_0_0", ACT)));
            o->weight_bytes = 0;
        }
        for (int k = 0; k < g.ng; k++)
            CHK(b_unary(tr, c->ovf, f, g.cnt[k], d, "attnWeights = Softmax(attnWeights)", "Softmax",
                        SHP(B, seq, si + g.len[k], Hl), "0_0", ACT));
        CHK(o = KV_CACHE(b_einsum(tr, c->ovf, f, n, d, "MatMul: attn_avg_prefix (2) = QK_prefix (2) * Vcache (2)",
                         SHP(B, qr, si, KVr), SHP(B, si, KVr, hd->dv), "BLSN;BSND->BLND", "0_0_0", ACT)));
        o->weight_bytes = 0;
        for (int k = 0; k < g.ng; k++) {
            CHK(o = KV_CACHE(b_einsum(tr, c->ovf, f, g.cnt[k], d, "MatMul: attn_avg_suffix (2) = QK_suffix (2) * Vsuffix (2)",
                             SHP(B, qr, g.len[k], KVr), SHP(B, g.len[k], KVr, hd->dv), "BLSN;BSND->BLND", "0_0_0",
                             ACT)));
            o->weight_bytes = 0;
        }
        CHK(b_binary(tr, c->ovf, f, n, d, "attn_avg = Add(([B/d]beamS[N/h]D + [B/d]beamS[N/h]D))", "Add",
                     SHP(B, seq, Hl, hd->dv), "0_0_0", ACT, one));
    } else {
        CAT(d, pre, "Attention_Softmax(Q*K)*V", "", NO_ID);
        /* att keys per query: seq, or (seq+1)/2 on average under a causal mask */
        CHK(o = b_einsum(tr, c->ovf, f, n, d, "MatMul: attnWeights (2) = Q (2) * K_all_gathered (2)",
                         SHP(B, qs, KVl, dh), SHP(B, att, KVl, dh), "BLND;BSND->BLSN", "0_0_1", ACT));
        o->weight_bytes = 0;
        CHK(b_unary(tr, c->ovf, f, n, d, "attnWeights = Softmax(attnWeights)", "Softmax",
                    SHP(B, seq, att, Hl), "1_1", ACT));
        CHK(o = b_einsum(tr, c->ovf, f, n, d, "MatMul: attnAvg (2) = attnWeights (2) * V_all_gathered (2)",
                         SHP(B, qs, att, KVl), SHP(B, att, KVl, hd->dv), "BLSN;BSND->BLND", "1_0_0", ACT));
        o->weight_bytes = 0;
        CHK(b_binary(tr, c->ovf, f, n, d, "attn_avg = Add(([B/d][L/l][M/mh] + [B/d][L/l][M/mh]))", "Add",
                     SHP(B, seq, Hl, hd->dv), "0_0_0", ACT, one));
    }
    f++;

    CAT(d, pre, "Attention_output", "", NO_ID);
    CHK(WEIGHTS(b_einsum(tr, c->ovf, f, n, d, "MatMul: attnOutput (2) = attnAvg (2) * W_o (1)",
                 SHP(B, seq, Hl, hd->dv), SHP(Hl, hd->dv, Dm), "BLND;NDM->BLM", "0_0_0", ACT)));
    f++;
    if (!epilogue) {   /* a parallel block: the FFN's reduce-scatter sums both */
        *fid = f - 1;
        return 0;
    }
    struct shape y = SHP(B, seq, Dm), ys = shape_scattered(y, 2, t);
    if (t > 1) {
        CAT(nm, "AllReduceMHA(ReduceScatter)-", "", "", f);
        CHK(b_reduce_scatter(tr, c->ovf, f, n, "Reduce attention and scatter before LN", nm, y, 2, c->tp));
        f++;
    }
    CAT(d, pre, "Attention_layernorm", "", NO_ID);
    /* The reference normalises the unscattered width (quirk opsgen Q7). */
    CHK(b_unary(tr, c->ovf, f, n, d, "Y_norm = LayerNorm(y)", "LayerNorm",
                c->prof->self_attn_ln_unscattered ? y : ys, "0_0", ACT));
    f++;
    if (t > 1) {
        CAT(d, "AllGatherMHA-", "", "", f);
        CHK(b_all_gather(tr, c->ovf, f, n, d, "AllGather", ys, 2, c->tp));
    }
    *fid = f;
    return 0;
}

/* ---- cross path (prefill with flash attention; GLIGEN cross attention) ---- */

/* QK einsum, softmax, AV einsum and the Add, all at fid f. */
static int normal_block(const struct layer_ctx *c, int64_t q, int64_t kv, const struct heads *hd,
                        int64_t dh, int64_t f)
{
    int64_t B = c->B, n = c->count, Hl = hd->Hl, KVl = hd->KVl, qs = q * hd->R;
    char d[200];
    struct op *o;
    CAT(d, c->prefix, "-Attention_Softmax(Q*K)*V-", "", f);
    CHK(o = b_einsum(c->t, c->ovf, f, n, d, "MatMul: attnWeights = Q*K", SHP(B, qs, KVl, dh),
                     SHP(B, kv, KVl, dh), "BLND;BSND->BLSN", "0_0_1", ACT));
    o->weight_bytes = 0;
    CHK(b_unary(c->t, c->ovf, f, n, d, "attnWeights = Softmax(attnWeights)", "Softmax", SHP(B, q, kv, Hl),
                "1_1", ACT));
    CHK(o = b_einsum(c->t, c->ovf, f, n, d, "MatMul: attnAvg = attnWeights * V", SHP(B, qs, kv, KVl),
                     SHP(B, kv, KVl, hd->dv), "BLSN;BSND->BLND", "1_0_0", ACT));
    o->weight_bytes = 0;
    CHK(b_binary(c->t, c->ovf, f, n, d, "attn_avg = Add(([B/d][L/l][M/mh] + [B/d][L/l][M/mh]))", "Add",
                 SHP(B, q, Hl, hd->dv), "0_0_0", ACT, c->prof->binary_ops_list_one_input));
    return 0;
}

/* Q of q tokens, K and V projected from kvp tokens, the attention of q queries
 * over att keys each (flash or the normal block), W_o and the epilogue. */
static int cross_path(const struct layer_ctx *c, int64_t q, int64_t kvp, int64_t att,
                      const struct heads *hd, int64_t dq, int64_t dk, int64_t dv, int64_t dh, bool flash,
                      bool epilogue, int kv_mats, int64_t *fid)
{
    int64_t B = c->B, n = c->count, t = layer_tp(c), f = *fid, Hl = hd->Hl, KVl = hd->KVl;
    char d[200], nm[96];
    struct trace *tr = c->t;

    if (t > 1) {
        CAT(nm, "AllGatherMHA-", "", "", f);
        CHK(b_all_gather(tr, c->ovf, f, n, "Concatenate dims before attn", nm, SHP(B, q, dq), 2, c->tp));
        dq *= t;
        f++;
    }
    CAT(d, c->prefix, "-Q-", "", f);
    CHK(WEIGHTS(b_einsum(tr, c->ovf, f, n, d, "MatMul: Q", SHP(B, q, dq), SHP(dq, hd->Hq, dh), "BLM;MND->BLND", "0_0_0", ACT)));
    CAT(d, c->prefix, "-K-", "", f);
    if (kv_mats > 0)
        CHK(WEIGHTS(b_einsum(tr, c->ovf, f, n, d, "MatMul: K", SHP(B, kvp, dk), SHP(dk, KVl, dh), "BLM;MND->BLND", "0_0_0",
                             ACT)));
    CAT(d, c->prefix, "-V-", "", f);
    if (kv_mats == 2)
        CHK(WEIGHTS(b_einsum(tr, c->ovf, f, n, d, "MatMul: V", SHP(B, kvp, dv), SHP(dv, KVl, hd->dv), "BLM;MND->BLND", "0_0_0",
                             ACT)));
    f++;
    if (flash) {
        CAT(d, c->prefix, "-FlashAttention-", "", f);
        CHK(b_flash_attention(tr, c->ovf, f, n, d, "FlashAttention", SHP(B, q * hd->R, KVl, dh), SHP(B, att, KVl, dh),
                              SHP(B, att, KVl, hd->dv), ACT, c->prof->fa_uses_heads_as_dhead));
    } else if (normal_block(c, q, att, hd, dh, f))
        return -1;
    f = last(c)->fusion_id + 1;
    CAT(d, c->prefix, "-Attention_output-", "", f);
    CHK(WEIGHTS(b_einsum(tr, c->ovf, f, n, d, "MatMul: attnOutput = attnAvg * W_o", SHP(B, q, Hl, hd->dv),
                 SHP(Hl, hd->dv, dq), "BLND;NDM->BLM", "0_0_0", ACT)));
    f++;
    if (!epilogue) {   /* a parallel block: the FFN's reduce-scatter sums both */
        *fid = f - 1;
        return 0;
    }
    struct shape y = SHP(B, q, dq);
    if (t > 1) {
        CAT(nm, "AllReduce(ReduceScatter)-", "", "", f);
        CHK(b_reduce_scatter(tr, c->ovf, f, n, "Reduce and split attention results", nm, y, 2, c->tp));
        y = shape_scattered(y, 2, t);
        f++;
    }
    /* LayerNorm and the gather after it share one fid (quirk opsgen Q37). */
    CAT(d, c->prefix, "-Attention_layernorm-", "", f);
    CHK(b_unary(tr, c->ovf, f, n, d, "Y_norm = LayerNorm(y)", "LayerNorm", y, "0_0", ACT));
    if (t > 1) {
        CAT(nm, "AllReduce(AllGather)-", "", "", f);
        CHK(b_all_gather(tr, c->ovf, f, n, "Gather results after Layernorm", nm, y, 2, c->tp));
    }
    *fid = f;
    return 0;
}

/* Local query and K/V heads. With grouped-query attention each TP shard keeps
 * ceil(kv / t) K/V heads, or one (replicated) when kv < t; the R query heads
 * of a group fold into the query rows, so the QK and AV FLOPs stay those of
 * all query heads while K/V projections, reads and bytes follow the K/V heads.
 * The reference ignores num_kv_heads (quirk opsgen Q2): KVl = Hl, R = 1. */
static struct heads heads_of(const struct layer_ctx *c, const struct attn_args *a)
{
    int64_t t = layer_tp(c), Hl = cdiv64(a->H, t);
    int64_t kv = a->kv_heads > 0 && !c->prof->kv_heads_ignored ? a->kv_heads : a->H;
    int64_t KVl = kv >= t ? cdiv64(kv, t) : 1;
    if (KVl > Hl)
        KVl = Hl;
    int64_t Hq = a->output_gate ? 2 * Hl : Hl, dv = a->dhv > 0 ? a->dhv : a->dh;
    if (c->decode && a->decode_kv_per_head)
        return (struct heads){ Hl, KVl, cdiv64(Hl, KVl), Hl, 1, Hq, dv };
    return (struct heads){ Hl, KVl, cdiv64(Hl, KVl), KVl, cdiv64(Hl, KVl), Hq, dv };
}

int layer_attention(const struct layer_ctx *c, const struct attn_args *a, int64_t *fid)
{
    if (a->linear)
        return layer_linear_attention(c, a->linear, a->seq, a->D, !a->parallel_ffn, fid);
    int64_t t = layer_tp(c);
    struct heads hd = heads_of(c, a);
    int64_t Dl = cdiv64(a->D, t);
    int64_t dq = a->d_query ? cdiv64(a->d_query, t) : Dl;
    int64_t q = a->q_seq ? a->q_seq : a->seq, kv = a->kv_seq ? a->kv_seq : a->seq;
    int64_t dk = a->d_key ? a->d_key : a->D, dv = a->d_value ? a->d_value : a->D;
    bool ep = !a->parallel_ffn;
    /* Under a causal mask query i attends to i + 1 keys: (kv + 1) / 2 on
     * average, and masked kernels skip the rest (the reference: all kv). */
    bool causal = a->causal && !c->decode && !c->prof->prefill_attention_unmasked;
    int64_t att = a->att_keys > 0 ? a->att_keys : causal ? (kv + 1) / 2 : kv;
    int64_t kvp = a->kv_new > 0 ? a->kv_new : kv;   /* the K/V this pass projects */
    int kv_mats = a->no_kv_proj ? 0 : a->k_eq_v ? 1 : 2;
    if (!c->decode && a->flash)
        return cross_path(c, q, kvp, att, &hd, dq, dk, dv, a->dh, true, ep, kv_mats, fid);
    if (!a->cross)
        return self_path(c, a->seq, a->att_keys > 0 ? a->att_keys : causal ? (a->seq + 1) / 2 : a->seq, &hd, Dl,
                         a->dh, a->s_in, a->s_out, ep, kv_mats, fid);
    return cross_path(c, q, kvp, att, &hd, dq, dk, dv, a->dh, a->flash, ep, kv_mats, fid);
}

/* ---- FFN ---- */

/* The FFN types: gated (gate and up projections, act(gate) * up, down) or
 * plain (up, act, down), and the activation. The reference knows "llama"
 * and "default" and emits no activation op (quirk ffn_activation_missing). */
static const struct ffn_kind ffn_kinds[] = {
    { "llama", true, "Silu" },   { "swiglu", true, "Silu" }, { "geglu", true, "Gelu" },
    { "default", false, "Gelu" }, { "gelu", false, "Gelu" }, { "relu", false, "Relu" },
};

const struct ffn_kind *ffn_kind_of(const char *ffn_type)
{
    for (size_t i = 0; i < sizeof ffn_kinds / sizeof ffn_kinds[0]; i++)
        if (!strcmp(ffn_type, ffn_kinds[i].name))
            return &ffn_kinds[i];
    return NULL;
}

/* The dense layers of a mixture of experts (GLM-4.5's and ERNIE 4.5's first
 * layers, Llama 4 Maverick's every other) run the FFN their experts run:
 * gated, SiLU (moe.c builds every expert so). */
const struct ffn_kind *ffn_kind_dense(const char *ffn_type)
{
    const struct ffn_kind *k = ffn_kind_of(ffn_type);
    return k || strcmp(ffn_type, "moe") ? k : &ffn_kinds[0];
}

int64_t layer_fold(int64_t fold, int64_t n) { return fold > 1 && n % fold == 0 ? fold : 1; }

int ffn_type_error(const char *v, struct npu_err *e)
{
    const char *names[sizeof ffn_kinds / sizeof ffn_kinds[0]];
    char hint[300];
    for (size_t i = 0; i < sizeof ffn_kinds / sizeof ffn_kinds[0]; i++)
        names[i] = ffn_kinds[i].name;
    suggest_hint(hint, sizeof hint, v, names, sizeof names / sizeof names[0]);
    return npu_errf(e, "model field \"ffn_type\": expected " FFN_TYPE_NAMES ", got \"%s\"%s", v, hint);
}

/* One of a body's matmuls, B x seq rows of width K times a K x N weight, n
 * times; over fold copies (layer_ctx.fold: a fused MoE kernel's experts) one
 * grouped GEMM n / fold times, the fold weights and their rows in one launch
 * and one set of waves, as vLLM's fused_moe and TensorRT-LLM's and
 * Megatron's grouped GEMMs run the woken experts: the same FLOPs and bytes,
 * one kernel's latency where per-expert kernels would pay fold. down: the
 * h x W_down product ("BLH;HM->BLM"), else y x W ("BLM;MH->BLH"). */
static struct op *body_matmul(const struct layer_ctx *c, int64_t fid, const char *d, const char *name, int64_t seq,
                              int64_t K, int64_t N, bool down)
{
    int64_t fold = layer_fold(c->fold, c->count);
    if (fold == 1)
        return WEIGHTS(b_einsum(c->t, c->ovf, fid, c->count, d, name, SHP(c->B, seq, K), SHP(K, N),
                                down ? "BLH;HM->BLM" : "BLM;MH->BLH", "0_0_0", ACT));
    struct op *o = WEIGHTS(b_einsum(c->t, c->ovf, fid, c->count / fold, d, name, SHP(fold, bmul(c->ovf, c->B, seq), K),
                                    SHP(fold, K, N), down ? "ELH;EHM->ELM" : "ELM;EMH->ELH", "0_0_0", ACT));
    if (o)
        o->grouped = true;
    return o;
}

struct op *layer_linear(const struct layer_ctx *c, int64_t fid, const char *desc, const char *name, int64_t seq,
                        int64_t K, int64_t N)
{
    struct layer_ctx one = *c;
    one.fold = 0;
    return body_matmul(&one, fid, desc, name, seq, K, N, false);
}

static int gated_body(const struct layer_ctx *c, int64_t seq, int64_t D, int64_t Fl, int64_t f,
                      const char *act)
{
    int64_t B = c->B, n = c->count;
    char pre[160], d[200];
    struct trace *tr = c->t;
    /* the elementwise ops over fold copies at once: the same bytes, one op's latency */
    int64_t fold = layer_fold(c->fold, n), ne = n / fold;
    struct shape hf = SHP(bmul(c->ovf, B, fold), seq, Fl);
    CAT(pre, c->prefix, c->decode ? "Fwd-FFN-serving-decoder-" : "Fwd-FFN-encoder-", "", NO_ID);
    CAT(d, pre, "FFgate", "", NO_ID);
    CHK(body_matmul(c, f, d, "MatMul: h_gate (2) = y_norm (2) * W_FFgate (1)", seq, D, Fl, false));
    CAT(d, pre, "FFup", "", NO_ID);
    CHK(body_matmul(c, f + 1, d, "MatMul: h_up (2) = y_norm (2) * W_FFup (1)", seq, D, Fl, false));
    if (!c->prof->ffn_activation_missing) {
        CAT(d, pre, "FFgate_act", "", NO_ID);
        CHK(b_unary(tr, c->ovf, f + 2, ne, d, "h_gate (2) = act(h_gate (2))", act, hf, "0_0", ACT));
    }
    CAT(d, pre, "FFgate_up", "", NO_ID);
    CHK(b_binary(tr, c->ovf, f + 2, ne, d, "h_gate_up (2) = h_gate (2) * h_up (1)", "Mul", hf, "0_0_0", ACT,
                 c->prof->binary_ops_list_one_input));
    CAT(d, pre, "FFoutput", "", NO_ID);
    CHK(body_matmul(c, f + 3, d, "MatMul: ff_down (2) = h_gate_up (2) * W_FFdown (1)", seq, Fl, D, true));
    return 0;
}

int layer_ffn_llama_body(const struct layer_ctx *c, int64_t seq, int64_t D, int64_t Fl, int64_t f)
{
    return gated_body(c, seq, D, Fl, f, "Silu");
}

static int plain_body(const struct layer_ctx *c, int64_t seq, int64_t D, int64_t Fl, int64_t f,
                      const char *act)
{
    char d[200];
    /* over fold copies (a fused MoE kernel's experts) the activation runs once, as gated_body's */
    int64_t fold = layer_fold(c->fold, c->count);
    /* Both matmuls end in "FFinput" in the reference (quirk opsgen Q18). */
    CAT(d, c->prefix, c->decode ? "Fwd-FFN-serving-decoder-" : "Fwd-FFN_encoder-", "FFinput", NO_ID);
    CHK(body_matmul(c, f, d, "MatMul: h (2) = y_norm (2) * W_FFi (1)", seq, D, Fl, false));
    if (!c->prof->ffn_activation_missing)
        CHK(b_unary(c->t, c->ovf, f, c->count / fold, d, "h (2) = act(h (2))", act,
                    SHP(bmul(c->ovf, c->B, fold), seq, Fl), "0_0", ACT));
    CHK(body_matmul(c, f + 1, d, "MatMul: ffn (2) = h (2) * W_FFo (1)", seq, Fl, D, true));
    return 0;
}

int layer_ffn_expert_body(const struct layer_ctx *c, int64_t seq, int64_t D, int64_t Fl, int64_t f, bool relu2)
{
    return relu2 ? plain_body(c, seq, D, Fl, f, "Relu") : gated_body(c, seq, D, Fl, f, "Silu");
}

int layer_ffn(const struct layer_ctx *c, const struct ffn_args *a, int64_t *fid)
{
    int64_t B = c->B, seq = a->seq, n = c->count, t = layer_tp(c), f = *fid, D = a->D;
    int64_t Fl = cdiv64(a->F, t);
    char d[200], nm[96];
    struct trace *tr = c->t;

    /* The attention before it ends with an all-gather of the normalised
     * input, which the reference gathers again here (quirk
     * ffn_input_gathered_twice); a parallel block uses the attention's. */
    bool gathered = a->input_gathered && !c->prof->ffn_input_gathered_twice;
    if (t > 1 && !gathered) {
        CAT(nm, "AllGatherMLP-", "", "", f);
        /* The reference gathers a 2-D [B, D] to [B, D*t] (quirk opsgen Q6). */
        if (c->prof->ffn_allgather_2d)
            CHK(b_all_gather(tr, c->ovf, f, n, "All gather input of MLP before ffn", nm, SHP(B, D), 1, c->tp));
        else
            CHK(b_all_gather(tr, c->ovf, f, n, "All gather input of MLP before ffn", nm,
                             SHP(B, seq, cdiv64(D, t)), 2, c->tp));
        f++;
    }
    const struct ffn_kind *k = ffn_kind_of(a->ffn_type);
    int rc;
    if (a->body)
        rc = a->body(c, seq, f, a->body_arg);
    else if (k)
        rc = k->gated ? gated_body(c, seq, D, Fl, f, k->act) : plain_body(c, seq, D, Fl, f, k->act);
    else
        rc = -1;
    if (rc)
        return -1;
    f = last(c)->fusion_id + 1;
    struct shape x = SHP(B, seq, D), r = x;
    if (t > 1) {
        CAT(nm, "ReduceScatterMLP-", "", "", f);
        CHK(b_reduce_scatter(tr, c->ovf, f, n, "Reduce and scatter results of MLP before residual", nm, x, 2,
                             c->tp));
        r = shape_scattered(x, 2, t);
        f++;
    }
    CAT(d, c->prefix, c->decode ? "FFN-serving-decoder-" : "Fwd-FFN-encoder-", "AttnPlusFFn", NO_ID);
    CHK(b_binary(tr, c->ovf, f, n, d,
                 c->decode ? "attnPlusFFn = Add(([B/d]beamS[M/mh] + [B/d]beamS[M/mh]))"
                           : "attnPlusFFn = Add(([B/d][L/l][M/mh] + [B/d][L/l][M/mh]))",
                 "Add", r, "0_0_0", ACT, c->prof->binary_ops_list_one_input));
    *fid = f;
    return 0;
}

int layer_block(const struct layer_ctx *c, const struct attn_args *a, const struct model_config *m,
                int64_t *fid)
{
    return layer_block_ff(c, a, m, m->d_ff, fid);
}

int layer_block_ff(const struct layer_ctx *c, const struct attn_args *a, const struct model_config *m, int64_t F,
                   int64_t *fid)
{
    int64_t f = *fid;
    if (layer_attention(c, a, &f))
        return -1;
    *fid = f = c->t->ops[c->t->n - 1].fusion_id + 1;
    const struct ffn_kind *k = ffn_kind_dense(m->ffn_type);
    struct ffn_args fa = { .seq = a->seq, .D = m->d_model, .F = F, .ffn_type = k ? k->name : m->ffn_type,
                           .input_gathered = true };
    return layer_ffn(c, &fa, &f);
}

int layer_per_layer_input(const struct layer_ctx *c, int64_t seq, int64_t D, int64_t P, int64_t *fid)
{
    int64_t f = *fid, B = c->B, n = c->count;
    char d[200];
    CAT(d, c->prefix, c->decode ? "PerLayerInput-serving-decode" : "PerLayerInput", "", NO_ID);
    CHK(layer_linear(c, f, d, "MatMul: g (2) = y (2) * W_gate (1)", seq, D, P));
    CHK(b_unary(c->t, c->ovf, f + 1, n, d, "g (2) = act(g (2))", "Gelu", SHP(B, seq, P), "0_0", ACT));
    CHK(b_binary(c->t, c->ovf, f + 1, n, d, "g (2) = g (2) * per_layer_input (2)", "Mul", SHP(B, seq, P), "0_0_0", ACT,
                 c->prof->binary_ops_list_one_input));
    CHK(layer_linear(c, f + 2, d, "MatMul: y (2) = y (2) + g (2) * W_proj (1)", seq, P, D));
    CHK(b_unary(c->t, c->ovf, f + 3, n, d, "y (2) = RMSNorm(y (2))", "LayerNorm", SHP(B, seq, D), "0_0", ACT));
    *fid = f + 3;
    return 0;
}
