/* linear_attn.h — a Gated DeltaNet layer (Qwen3-Next, Qwen3.5) or a
 * Mamba-2 layer (Granite 4.0-H, Bamba): linear attention whose state per
 * sequence replaces the KV cache.
 *
 * A layer projects its input to queries and keys (Hk heads of dk), values
 * and an output gate (Hv heads of dv) and one decay and one write strength
 * per value head; a short causal convolution (conv taps) runs over the
 * queries, keys and values; each value head keeps a dk x dv state S, which
 * every token decays and corrects by the delta rule
 *     S <- a S + b k (v - S^T k)^T,   o = S^T q,
 * then a gated norm and the output projection. Query and key heads are
 * shared by Hv / Hk value heads each, as grouped-query attention shares
 * K/V heads.
 *
 * The ops, per layer (opsgen/layers.h layer_ctx; TP splits the heads):
 *  - decode (one token a step): one op as the fused recurrent kernel runs
 *    it, the state read once and written once in linear_state_dtype, an
 *    elementwise op of the vector units (a few multiply-adds a state
 *    element: S k, the update, S q; a memory-bound stream per sequence);
 *  - prefill: the chunked algorithm of the Gated DeltaNet paper (Yang et
 *    al., 2024) and its kernels (flash-linear-attention), chunks of C = 64
 *    tokens: within a chunk K K^T and Q K^T (2 x 2 C dk FLOPs a token and
 *    value head), their products with K and V (2 C (dk + 2 dv)); against
 *    the state q, w and k (3 x 2 dk dv, matmuls in the activations'
 *    format); and the chunk states, written by one kernel and read by the
 *    next (2 states a chunk, in the activations' format as the kernels
 *    keep them).
 * The projections, convolution and gated norm scale with the tokens, as
 * the other layers' do.
 *
 * A Mamba-2 layer (Dao and Gu, 2024) has the same parts under other names,
 * and npusim keeps the Gated DeltaNet's: B and C, shared by groups of
 * heads, are the keys and queries (Hk groups of dk = d_state), x and the
 * gate z the values and gate (Hv heads of dv = head_dim); one step size
 * per head where the delta rule has a decay and a strength; each head
 * keeps a dk x dv state S <- exp(dt A) S + dt B x^T, y = C^T S + D x. Its
 * convolution has a bias, the skip D a weight per head, and the gated norm
 * a weight per channel. Decode is the same one op a step; prefill follows
 * the state-space-duality kernels in chunks of C tokens (256 by default):
 * within a chunk C B^T (2 C dk a token and group) and its product with x
 * (2 C dv a token and head); against the states B^T x and C^T S (2 x 2 dk
 * dv); the chunk states stored and reloaded.
 *
 * Kimi Delta Attention (KDA; Kimi Linear, Kimi K3) runs Gated DeltaNet's
 * recurrence and state with a decay per key channel instead of per head:
 * its input projection has queries, keys, values and one strength a head,
 * and the decay (Hk x dk) and the output gate (Hv x dv) are projected from
 * the input at full rank or through a low rank r (d_model to r, r to the
 * heads: Kimi Linear's r = dk); per-channel step biases (Hk dk), one A a
 * head. The chunked kernels are counted as Gated DeltaNet's.
 *
 * A Mamba-1 layer (Jamba) projects x and the gate z (E channels each),
 * convolves x (a biased convolution), projects the step's rank R and B
 * and C (N each) from x, and the step from R back to E; each channel keeps
 * an N-wide state S <- exp(dt A) S + dt B x, y = C S + D x; y times SiLU(z),
 * W_out. Decode is the state op of Mamba-2; a prefill runs the selective
 * scan over the sequence in on-chip memory (E x N work a token on the
 * vector units, its inputs and outputs the only traffic).
 *
 * MiniMax's lightning attention (MiniMax-Text-01, MiniMax-M1) is linear
 * attention without the delta rule: Q, K and V (SiLU) from one projection,
 * a fixed decay a head (no projection), no convolution, S <- l S + k v^T,
 * o = S^T q, in blocks of 256 tokens (intra-block Q K^T V, inter-block
 * Q S, the block's K^T V); a norm over the heads' outputs, a sigmoid gate
 * projected from the input, and W_out. Its ops are counted as Gated
 * DeltaNet's (the delta rule's extra products included: an upper bound).
 *
 * Main data structure: struct linear_attn, the layer's shape. */
#ifndef NPUSIM_LINEAR_ATTN_H
#define NPUSIM_LINEAR_ATTN_H

#include <stdbool.h>
#include <stdint.h>

#include "opsgen/layers.h"
#include "opsgen/model.h"

/* The chunk of the prefill kernels: flash-linear-attention's, Mamba-2's
 * default chunk_size. */
#define LINEAR_ATTN_CHUNK 64
#define MAMBA2_CHUNK 256

struct linear_attn {
    int64_t Hk, Hv;          /* query/key heads (Mamba-2: B/C groups), value heads */
    int64_t dk, dv;          /* their widths (Mamba-2: d_state, head_dim) */
    int64_t conv;            /* causal convolution taps */
    int64_t chunk;           /* prefill chunk, tokens */
    bool mamba2;             /* a Mamba-2 layer (linear_kind mamba2), else Gated DeltaNet */
    bool mamba1;             /* Mamba-1 (linear_kind mamba, Jamba): Hv channels of dv (1), a state of dk
                              * each, B, C (dk) and the step (dt_rank) projected from the channels */
    int64_t dt_rank;         /* mamba1: the step's rank */
    bool lightning;          /* MiniMax's lightning attention (linear_kind lightning): no delta rule, a
                              * fixed decay a head, no convolution, a sigmoid output gate */
    bool kda;                /* Kimi Delta Attention (linear_kind kda): Gated DeltaNet's recurrence,
                              * a decay per key channel projected like the output gate */
    int64_t gate_rank;       /* kda: the decay's and gate's low rank (linear_gate_rank); 0: full */
    bool short_conv;         /* LFM2's gated short convolution (linear_kind short_conv): Hv x dv
                              * channels, no recurrent state (Hk and dk unused) */
    const char *state;       /* the state's trace token (DT_FLOAT) */
};

/* m's linear-attention layer (linear_key_heads 0: as many as the value heads). */
void linear_attn_of(const struct model_config *m, struct linear_attn *out);

/* The layer's weights on each of tp chips (1: unsharded), the heads split
 * over them: the input projection D x (2 Hk dk + 2 Hv dv + 2 Hv), the
 * convolution's (2 Hk dk + Hv dv) x conv taps, the decays' 2 Hv, the gated
 * norm's dv and the output projection Hv dv x D. Mamba-2: the input
 * projection D x (2 Hk dk + 2 Hv dv + Hv), the convolution's (2 Hk dk + Hv
 * dv) x (conv taps + a bias), A, D and the step's bias 3 Hv, the gated
 * norm's Hv dv and the output projection. Checked (*ovf, builders.h). */
int64_t linear_attn_params(bool *ovf, const struct linear_attn *la, int64_t D, int64_t tp);

/* The state elements one sequence keeps per layer on each of tp chips:
 * its value heads' dk x dv, and the convolution's last conv - 1 inputs. */
int64_t linear_attn_state_elems(bool *ovf, const struct linear_attn *la, int64_t tp);

/* The core alone (the recurrence above, decode or prefill as c says) over
 * seq tokens a sequence at fid: the ops whose cost follows each sequence
 * (a serving pass prices them per chunk; their descriptions hold
 * "GatedDeltaNet_" or "Mamba2_", opsgen_op_is_attention_core). */
int layer_linear_core(const struct layer_ctx *c, const struct linear_attn *la, int64_t seq, int64_t fid);

/* Appends one layer's ops over seq tokens a sequence (a decode step's
 * decode width, or a prefill's tokens) at *fid: the TP all-gather, the
 * input projection, the convolution, the core above, the gated norm, the
 * output projection and, with epilogue, the reduce-scatter, LayerNorm and
 * all-gather, as layer_attention's. *fid: out, the last op's. 0, or -1 if a
 * builder rejected its arguments. */
int layer_linear_attention(const struct layer_ctx *c, const struct linear_attn *la, int64_t seq, int64_t D,
                           bool epilogue, int64_t *fid);

#endif
