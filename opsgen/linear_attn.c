/* linear_attn.c — a Gated DeltaNet, Mamba-2 or LFM2 short-convolution layer's shape, weights,
 * state and ops (see linear_attn.h). No data structure beyond struct linear_attn. */
#include "opsgen/linear_attn.h"

#include <stdio.h>
#include <string.h>

#include "opsgen/builders.h"
#include "opsgen/formats.h"
#include "traces/precision.h"

#define BF16 "DT_BFLOAT16"
#define ACT (c->fmt ? c->fmt->act : BF16)
#define CHK(x) do { if (!(x)) return -1; } while (0)

void linear_attn_of(const struct model_config *m, struct linear_attn *out)
{
    int p = precision_by_name(m->linear_state_dtype);
    bool mamba2 = !strcmp(m->linear_kind, "mamba2"), mamba1 = !strcmp(m->linear_kind, "mamba");
    *out = (struct linear_attn){ .Hk = m->linear_key_heads > 0 ? m->linear_key_heads : m->linear_value_heads,
                                 .Hv = m->linear_value_heads, .dk = m->linear_key_dim, .dv = m->linear_value_dim,
                                 .conv = m->linear_conv_kernel, .mamba2 = mamba2,
                                 .kda = !strcmp(m->linear_kind, "kda"), .gate_rank = m->linear_gate_rank,
                                 .lightning = !strcmp(m->linear_kind, "lightning"), .mamba1 = mamba1,
                                 .dt_rank = m->linear_dt_rank > 0 ? m->linear_dt_rank : cdiv64(m->d_model, 16),
                                 .short_conv = !strcmp(m->linear_kind, "short_conv"),
                                 .chunk = m->linear_chunk_size > 0 ? m->linear_chunk_size
                                          : mamba2 || mamba1        ? MAMBA2_CHUNK
                                                                    : LINEAR_ATTN_CHUNK,
                                 .state = p < 0 ? "DT_FLOAT" : precision_info((enum precision)p)->token };
}

/* The convolution's channels: queries, keys and values (a short
 * convolution's: its Hv x dv). */
static int64_t conv_channels(bool *ovf, const struct linear_attn *la, int64_t Hk, int64_t Hv)
{
    if (la->short_conv || la->mamba1)   /* Mamba-1 convolves x alone */
        return bmul(ovf, Hv, la->dv);
    return badd(ovf, bmul3(ovf, 2, Hk, la->dk), bmul(ovf, Hv, la->dv));
}

/* KDA's decay and output gate (Hkl x dk and Hvl x dv on a chip): their
 * width, projected from the input at full rank, else from the low rank. */
static int64_t kda_gates(bool *ovf, const struct linear_attn *la, int64_t Hkl, int64_t Hvl)
{
    return badd(ovf, bmul(ovf, Hkl, la->dk), bmul(ovf, Hvl, la->dv));
}

/* The input projection's width on a chip of Hkl key and Hvl value heads:
 * queries, keys, values, the output gate and one (Mamba-2's step) or two
 * (the decay and the strength) values per head; KDA's: queries, keys,
 * values, a strength a head, and at full rank its decay and gate. */
static int64_t in_width(bool *ovf, const struct linear_attn *la, int64_t Hkl, int64_t Hvl)
{
    if (la->short_conv)   /* B, C and x */
        return bmul3(ovf, 3, Hvl, la->dv);
    if (la->kda)
        return badd(ovf, badd(ovf, conv_channels(ovf, la, Hkl, Hvl), Hvl),
                    la->gate_rank > 0 ? 0 : kda_gates(ovf, la, Hkl, Hvl));
    if (la->mamba1)   /* x and z */
        return bmul3(ovf, 2, Hvl, la->dv);
    if (la->lightning)   /* q, k, v and the output gate */
        return badd(ovf, conv_channels(ovf, la, Hkl, Hvl), bmul(ovf, Hvl, la->dv));
    return badd(ovf, badd(ovf, conv_channels(ovf, la, Hkl, Hvl), bmul(ovf, Hvl, la->dv)), (la->mamba2 ? 1 : 2) * Hvl);
}

int64_t linear_attn_params(bool *ovf, const struct linear_attn *la, int64_t D, int64_t tp)
{
    int64_t Hkl = cdiv64(la->Hk, tp), Hvl = cdiv64(la->Hv, tp), Vd = bmul(ovf, Hvl, la->dv);
    int64_t conv = conv_channels(ovf, la, Hkl, Hvl), in = bmul(ovf, D, in_width(ovf, la, Hkl, Hvl));
    if (la->short_conv)   /* W_in, the unbiased depthwise convolution, W_out */
        return badd(ovf, badd(ovf, in, bmul(ovf, conv, la->conv)), bmul(ovf, Vd, D));
    if (la->mamba1) {   /* W_in, the biased convolution, x_proj (R + 2N), dt_proj and its bias, A, D, W_out, the
                         * step's and B's and C's norms (Jamba's) */
        int64_t N = la->dk, R = la->dt_rank, xp = bmul(ovf, Vd, badd(ovf, R, 2 * N));
        int64_t small = badd(ovf, badd(ovf, bmul(ovf, Vd, N), 2 * Vd), badd(ovf, R, 2 * N));
        return badd(ovf, badd(ovf, badd(ovf, in, bmul(ovf, conv, la->conv + 1)), badd(ovf, xp, bmul(ovf, R, Vd))),
                    badd(ovf, bmul(ovf, Vd, D), small));
    }
    if (la->lightning)   /* W_in (q, k, v, the gate), the norm over the heads' outputs, W_out; no convolution */
        return badd(ovf, badd(ovf, in, Vd), bmul(ovf, Vd, D));
    if (la->kda) {   /* the unbiased convolution, the low-rank gates, A a head, a step bias a key channel, the norm */
        int64_t r = la->gate_rank, low = r > 0 ? badd(ovf, bmul3(ovf, 2, D, r), bmul(ovf, r, kda_gates(ovf, la, Hkl, Hvl))) : 0;
        int64_t small = badd(ovf, badd(ovf, Hvl, bmul(ovf, Hkl, la->dk)), la->dv);
        return badd(ovf, badd(ovf, badd(ovf, in, bmul(ovf, conv, la->conv)), low), badd(ovf, bmul(ovf, Vd, D), small));
    }
    /* Mamba-2: a biased convolution, A, D and the step's bias, a norm weight a channel */
    int64_t taps = la->mamba2 ? la->conv + 1 : la->conv, small = la->mamba2 ? badd(ovf, 3 * Hvl, Vd) : 2 * Hvl + la->dv;
    return badd(ovf, badd(ovf, in, bmul(ovf, conv, taps)), badd(ovf, bmul(ovf, Vd, D), small));
}

int64_t linear_attn_state_elems(bool *ovf, const struct linear_attn *la, int64_t tp)
{
    int64_t Hkl = cdiv64(la->Hk, tp), Hvl = cdiv64(la->Hv, tp);
    int64_t taps = la->lightning ? 0 : bmul(ovf, conv_channels(ovf, la, Hkl, Hvl), la->conv - 1);
    return la->short_conv ? taps : badd(ovf, bmul3(ovf, Hvl, la->dk, la->dv), taps);
}

/* The recurrence of a decode step (linear_attn.h) as its fused kernel
 * runs it: the state read once and written once, in the state's format,
 * on the vector units (per state element a few multiply-adds: S k, the
 * update, S q; no matrix to tile). */
static int decode_core(const struct layer_ctx *c, const struct linear_attn *la, int64_t seq, int64_t Hvl, int64_t f,
                       const char *pre)
{
    char d[200];
    snprintf(d, sizeof d, "%s%s_state", pre, la->mamba1 ? "Mamba1" : la->mamba2 ? "Mamba2" : "GatedDeltaNet");
    CHK(b_binary(c->t, c->ovf, f, bmul(c->ovf, c->count, seq), d,
                 la->mamba1 || la->mamba2 ? "S (2) = exp(dt A) S + dt B x^T; y = C^T S + D x"
                                          : "S (2) = a S + b k (v - S^T k)^T; o = S^T q",
                 "Add", SHP(c->B, Hvl, bmul(c->ovf, la->dk, la->dv)), "0_0_0", la->state, true));
    return 0;
}

/* The chunked recurrence of a prefill of seq tokens (linear_attn.h). */
static int prefill_core(const struct layer_ctx *c, const struct linear_attn *la, int64_t seq, int64_t Hvl,
                        int64_t f, const char *pre)
{
    int64_t B = c->B, n = c->count, C = seq < la->chunk ? seq : la->chunk;
    int64_t dk = la->dk, dv = la->dv;
    char d[200];
    struct op *o;
    if (la->mamba1) {   /* the selective scan: E x N state updates a token on the vector units, the state on chip;
                         * its traffic is x, dt, B and C in and y out */
        int64_t E = bmul(c->ovf, Hvl, dv), io = badd(c->ovf, bmul(c->ovf, 3, E), 2 * dk);
        snprintf(d, sizeof d, "%sMamba1_scan", pre);
        CHK(o = b_binary(c->t, c->ovf, f, n, d, "S (2) = exp(dt A) S + dt B x; y = C S + D x (selective scan)", "Add",
                         SHP(B, seq, bmul(c->ovf, E, dk)), "0_0_0", ACT, true));
        o->bytes = bld_tensor_bytes(c->ovf, bmul3(c->ovf, B, seq, io), ACT);
        return 0;
    }
    if (la->mamba2) {   /* state-space duality: C B^T within a chunk, per group */
        int64_t Gl = cdiv64(la->Hk, layer_tp(c));   /* this chip's groups */
        snprintf(d, sizeof d, "%sMamba2_chunk", pre);
        CHK(o = b_einsum(c->t, c->ovf, f, n, d, "MatMul: C B^T (2) = C (2) * B_chunk (2)",
                         SHP(B, seq, Gl, dk), SHP(B, C, Gl, dk),
                         "BLGK;BSGK->BLSG", "0_0_1", ACT));
        o->weight_bytes = 0;
        CHK(o = b_einsum(c->t, c->ovf, f, n, d, "MatMul: y_intra (2) = (C B^T * decay) (2) * x_chunk (2)",
                         SHP(B, seq, C, Hvl), SHP(B, C, Hvl, dv), "BLSN;BSNV->BLNV", "1_0_0", ACT));
        o->weight_bytes = 0;
        snprintf(d, sizeof d, "%sMamba2_state", pre);
        CHK(o = b_einsum(c->t, c->ovf, f, n, d, "MatMul: [B^T x, C^T S] (2) = [B, C] (2) * S (2)",
                         SHP(B, 2 * seq, Hvl, dk), SHP(B, Hvl, dk, dv), "BLNK;BNKV->BLNV", "0_0_0", ACT));
        o->weight_bytes = 0;
    } else {
        snprintf(d, sizeof d, "%sGatedDeltaNet_chunk", pre);
        CHK(o = b_einsum(c->t, c->ovf, f, n, d, "MatMul: [KK^T, QK^T] (2) = [k, q] (2) * k_chunk (2)",
                         SHP(B, seq, Hvl, dk), SHP(B, 2 * C, Hvl, dk), "BLNK;BSNK->BLSN", "0_0_1", ACT));
        o->weight_bytes = 0;
        CHK(o = b_einsum(c->t, c->ovf, f, n, d, "MatMul: [w, u, o_intra] (2) = A (2) * [k, v, v_new]_chunk (2)",
                         SHP(B, seq, C, Hvl), SHP(B, C, Hvl, badd(c->ovf, dk, 2 * dv)), "BLSN;BSNV->BLNV", "1_0_0",
                         ACT));
        o->weight_bytes = 0;
        snprintf(d, sizeof d, "%sGatedDeltaNet_state", pre);
        CHK(o = b_einsum(c->t, c->ovf, f, n, d, "MatMul: [o_inter, w S, k^T v_new] (2) = [q, w, k] (2) * S (2)",
                         SHP(B, 3 * seq, Hvl, dk), SHP(B, Hvl, dk, dv), "BLNK;BNKV->BLNV", "0_0_0", ACT));
        o->weight_bytes = 0;
    }
    /* each chunk's starting state, stored by one kernel and read by the next
     * (the kernels keep them in the inputs' format) */
    CHK(b_binary(c->t, c->ovf, f, n, d,
                 la->mamba2 ? "S_chunk (2) = decay S_chunk + B^T x (per chunk)"
                            : "S_chunk (2) = decay S_chunk + k^T v_new (per chunk)", "Add",
                 SHP(B, cdiv64(seq, C), Hvl, bmul(c->ovf, dk, dv)), "0_0_0", ACT, true));
    return 0;
}

/* The layer's description prefix: the caller's, then the phase's. */
static void prefix_of(const struct layer_ctx *c, char *pre, size_t n)
{
    snprintf(pre, n, "%s%s", c->prefix, c->decode ? "LinearAttention-serving-decode-" : "Fwd-LinearAttention-");
}

/* A short convolution's per-sequence part (LFM2): C times the convolution's
 * output, elementwise over the step's or the chunk's tokens (the taps it
 * reads are in the state). */
static int short_conv_core(const struct layer_ctx *c, const struct linear_attn *la, int64_t seq, int64_t Hvl,
                           int64_t f, const char *pre)
{
    char d[200];
    snprintf(d, sizeof d, "%sShortConv_gate", pre);
    CHK(b_binary(c->t, c->ovf, f, c->count, d, "y (2) = C (2) * conv_out (2)", "Mul",
                 SHP(c->B, seq, bmul(c->ovf, Hvl, la->dv)), "0_0_0", ACT, c->prof->binary_ops_list_one_input));
    return 0;
}

int layer_linear_core(const struct layer_ctx *c, const struct linear_attn *la, int64_t seq, int64_t fid)
{
    char pre[160];
    prefix_of(c, pre, sizeof pre);
    return (la->short_conv ? short_conv_core : c->decode ? decode_core : prefill_core)(c, la, seq,
                                                                                     cdiv64(la->Hv, layer_tp(c)),
                                                                                     fid, pre);
}

int layer_linear_attention(const struct layer_ctx *c, const struct linear_attn *la, int64_t seq, int64_t D,
                           bool epilogue, int64_t *fid)
{
    int64_t B = c->B, n = c->count, t = layer_tp(c), f = *fid, Dl = cdiv64(D, t);
    int64_t Hkl = cdiv64(la->Hk, t), Hvl = cdiv64(la->Hv, t);
    int64_t conv = conv_channels(c->ovf, la, Hkl, Hvl), Vd = bmul(c->ovf, Hvl, la->dv);
    char pre[160], d[200];
    struct trace *tr = c->t;
    prefix_of(c, pre, sizeof pre);
    if (t > 1) {
        snprintf(d, sizeof d, "AllGatherMHA-%lld", (long long)f);
        CHK(b_all_gather(tr, c->ovf, f, n, d, "AllGather", SHP(B, seq, Dl), 2, c->tp));
        f++;
    }
    snprintf(d, sizeof d, "%sin_proj", pre);
    CHK(fmt_weights(c->ovf, c->fmt, b_einsum(tr, c->ovf, f, n, d,
                                             la->short_conv ? "MatMul: [B, C, x] (2) = x_norm (2) * W_in (1)"
                                             : la->mamba2   ? "MatMul: [z, x, B, C, dt] (2) = x_norm (2) * W_in (1)"
                                             : la->kda && la->gate_rank > 0
                                                 ? "MatMul: [q, k, v, b] (2) = x_norm (2) * W_in (1)"
                                             : la->kda ? "MatMul: [q, k, v, g, f, b] (2) = x_norm (2) * W_in (1)"
                                             : la->lightning ? "MatMul: [q, k, v, g] (2) = x_norm (2) * W_in (1)"
                                             : la->mamba1 ? "MatMul: [x, z] (2) = x_norm (2) * W_in (1)"
                                                       : "MatMul: [q, k, v, z, b, a] (2) = x_norm (2) * W_in (1)",
                                             SHP(B, seq, D), SHP(D, in_width(c->ovf, la, Hkl, Hvl)), "BLM;MN->BLN",
                                             "0_0_0", ACT)));
    if (la->kda && la->gate_rank > 0) {   /* the decay and the gate through their low rank (whole on every chip) */
        int64_t r = la->gate_rank;
        snprintf(d, sizeof d, "%sgate_a_proj", pre);
        CHK(fmt_weights(c->ovf, c->fmt, b_einsum(tr, c->ovf, f, n, d, "MatMul: [f_a, g_a] (2) = x_norm (2) * W_a (1)",
                                                 SHP(B, seq, D), SHP(D, 2 * r), "BLM;MR->BLR", "0_0_0", ACT)));
        snprintf(d, sizeof d, "%sgate_b_proj", pre);
        CHK(fmt_weights(c->ovf, c->fmt, b_einsum(tr, c->ovf, f, n, d, "MatMul: [f, g] (2) = [f_a, g_a] (2) * W_b (1)",
                                                 SHP(B, seq, r), SHP(r, kda_gates(c->ovf, la, Hkl, Hvl)), "BLR;RN->BLN",
                                                 "0_0_0", ACT)));
    }
    f++;
    snprintf(d, sizeof d, "%sconv", pre);
    if (la->short_conv)   /* B x, then its depthwise convolution */
        CHK(b_binary(tr, c->ovf, f, n, d, "Bx (2) = causal_conv1d(B (2) * x (2))", "Mul", SHP(B, seq, conv), "0_0_0", ACT,
                     c->prof->binary_ops_list_one_input));
    else
        CHK(b_unary(tr, c->ovf, f, n, d,
                    la->mamba1      ? "x (2) = SiLU(causal_conv1d(x))"
                    : la->mamba2    ? "[x, B, C] (2) = SiLU(causal_conv1d([x, B, C]))"
                    : la->lightning ? "[q, k, v] (2) = SiLU([q, k, v])"
                                    : "[q, k, v] (2) = SiLU(causal_conv1d([q, k, v]))",
                    "Silu", SHP(B, seq, conv), "0_0", ACT));
    if (la->mamba1) {   /* the step's rank and B and C from x, then the step from its rank */
        int64_t R = la->dt_rank;
        snprintf(d, sizeof d, "%sx_proj", pre);
        CHK(fmt_weights(c->ovf, c->fmt, b_einsum(tr, c->ovf, f, n, d, "MatMul: [dt_r, B, C] (2) = x (2) * W_x (1)",
                                                 SHP(B, seq, Vd), SHP(Vd, badd(c->ovf, R, 2 * la->dk)), "BLE;EN->BLN",
                                                 "0_0_0", ACT)));
        snprintf(d, sizeof d, "%sdt_proj", pre);
        CHK(fmt_weights(c->ovf, c->fmt, b_einsum(tr, c->ovf, f, n, d, "MatMul: dt (2) = dt_r (2) * W_dt (1)",
                                                 SHP(B, seq, R), SHP(R, Vd), "BLR;RE->BLE", "0_0_0", ACT)));
    }
    f++;
    if (layer_linear_core(c, la, seq, f))
        return -1;
    f++;
    snprintf(d, sizeof d, "%snorm_gate", pre);
    if (!la->short_conv)   /* the short convolution's output gate is its core (C times the convolution) */
        CHK(b_binary(tr, c->ovf, f, n, d, "o (2) = RMSNorm(o) * SiLU(z)", "Mul", SHP(B, seq, Vd), "0_0_0", ACT,
                     c->prof->binary_ops_list_one_input));
    snprintf(d, sizeof d, "%sout_proj", pre);
    CHK(fmt_weights(c->ovf, c->fmt, b_einsum(tr, c->ovf, f + 1, n, d, "MatMul: out (2) = o (2) * W_out (1)",
                                             SHP(B, seq, Hvl, la->dv), SHP(Hvl, la->dv, D), "BLND;NDM->BLM", "0_0_0",
                                             ACT)));
    f += 2;
    if (!epilogue) {
        *fid = f - 1;
        return 0;
    }
    struct shape y = SHP(B, seq, D), ys = shape_scattered(y, 2, t);
    if (t > 1) {
        snprintf(d, sizeof d, "AllReduceMHA(ReduceScatter)-%lld", (long long)f);
        CHK(b_reduce_scatter(tr, c->ovf, f, n, "Reduce attention and scatter before LN", d, y, 2, c->tp));
        f++;
    }
    snprintf(d, sizeof d, "%sAttention_layernorm", pre);
    CHK(b_unary(tr, c->ovf, f, n, d, "Y_norm = LayerNorm(y)", "LayerNorm", ys, "0_0", ACT));
    if (t > 1) {   /* at the LayerNorm's fid, as the attention's epilogue */
        snprintf(d, sizeof d, "AllGatherMHA-%lld", (long long)f);
        CHK(b_all_gather(tr, c->ovf, f, n, d, "AllGather", ys, 2, c->tp));
    }
    *fid = f;
    return 0;
}
