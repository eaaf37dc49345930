/* layers.h — transformer layer builders shared by every generator
 * (opsgen.md §5.3–§5.4): multi-head attention (self path, cross path with
 * flash or the normal QK/softmax/AV block) and the FFN (llama, default, or a
 * generator-supplied MoE body), with their tensor-parallel collectives.
 *
 * Main data structure: struct layer_ctx, what every op of a layer shares —
 * the trace and its overflow flag, local batch, op count, phase, TP axes
 * (with link bandwidths) and the caller's description prefix ("" for LLMs;
 * "SelfAttention<f>" etc. for GLIGEN; "FFN_routed_expert<i>-" for MoE
 * experts). Descriptions are spelled
 * exactly as the reference builds them: prefix + phase part + role. */
#ifndef NPUSIM_LAYERS_H
#define NPUSIM_LAYERS_H

#include <stdbool.h>
#include <stdint.h>

#include "opsgen/builders.h"
#include "opsgen/formats.h"
#include "traces/profile.h"

struct linear_attn;

struct layer_ctx {
    struct trace *t;
    bool *ovf;                   /* the trace's overflow flag (builders.h) */
    const struct profile *prof;
    int64_t B;                   /* local batch */
    int64_t count;               /* executions of each op (layers, or layers x decode steps) */
    bool decode;
    const struct coll_axes *tp;  /* tensor-parallel axes; n == 0: none */
    const char *prefix;          /* caller's description prefix */
    const struct tensor_formats *fmt;  /* the tensors' number formats; NULL: bf16 throughout */
    int64_t fold;                /* a gated body's activation and product run as one op over this
                                  * many of its copies (a fused MoE kernel's over all its experts:
                                  * count / fold executions of fold x B rows); 0 or 1: per copy */
};


/* Product of the TP axes (1 without TP). */
int64_t layer_tp(const struct layer_ctx *c);

/* Arguments of create_multi_head_attention. H and D are the full head count
 * and model width (divided by the TP degree inside, rounding up); the
 * optional q/kv lengths and widths follow the reference's `x or default`. */
struct attn_args {
    int64_t seq;                 /* prefill: input length; decode: decode width */
    int64_t s_in, s_out;         /* decode: prefix and suffix KV-cache lengths */
    int64_t H, D, dh;
    int64_t kv_heads;            /* K/V heads (GQA/MQA); 0: H */
    bool flash;                  /* flash attention (prefill only) */
    bool cross;                  /* "cross-attention" type (GLIGEN) */
    int64_t q_seq, kv_seq;       /* 0: seq */
    int64_t d_query;             /* 0: D / t; else d_query / t */
    int64_t d_key, d_value;      /* 0: D */
    bool causal;                 /* a causal (decoder) mask: prefill attends to (kv + 1) / 2
                                  * keys on average (quirk prefill_attention_unmasked) */
    bool decode_kv_per_head;     /* decode reads the K/V cache once per query head, not once
                                  * per group (model field decode_kv_shared false) */
    int64_t att_keys;            /* prefill: keys per query on average when set (a serving
                                  * engine's chunk that also attends to its cached prefix);
                                  * 0: kv, or (kv + 1) / 2 under the causal mask */
    int64_t kv_new;              /* prefill: tokens whose K/V this pass projects (a prefix
                                  * cache holds the others' K/V); 0: kv */
    bool parallel_ffn;           /* a parallel attention + FFN block (GPT-J, PaLM): no
                                  * reduce-scatter, LayerNorm or all-gather after W_o */
    bool output_gate;            /* W_q also projects a gate of the attention's output (Qwen3-Next,
                                  * Qwen3.5): twice the query heads' width */
    bool k_eq_v;                 /* V is K's projection, no W_v (Gemma 4's global layers) */
    int64_t dhv;                 /* the value heads' width when not dh (MiMo-V2-Flash: 128 beside 192); 0: dh */
    bool no_kv_proj;             /* no K/V projections: the layer reads an earlier layer's K/V
                                  * (kv_shared_layers, Gemma 4 E2B and E4B) */
    const struct linear_attn *linear;  /* set: a Gated DeltaNet layer in place of attention
                                        * (opsgen/linear_attn.h); NULL: attention */
};
/* Appends the attention ops at *fid and leaves *fid at the reference's next
 * value for the caller (the last op's fid for the self path, see §5.6).
 * Returns 0, or -1 if a builder rejected its arguments. */
int layer_attention(const struct layer_ctx *c, const struct attn_args *a, int64_t *fid);

/* The decode steps' KV-suffix lengths for n executions over so
 * generated tokens: the reference's one group at so (quirk opsgen Q8), else the exact
 * mean — one group at (so+1)/2 when so or n is odd, else two groups
 * of n/2 at so/2 and so/2 + 1 (their mean is (so+1)/2, as the sum over
 * the steps k = 1..so of k is so(so+1)/2). */
struct kv_groups { int ng; int64_t len[2], cnt[2]; };
struct kv_groups decode_suffix_groups(const struct profile *prof, int64_t n, int64_t so);

/* A generator-supplied FFN body (DeepSeek MoE): appends its ops starting at
 * fid; the FFN wrapper continues after the last one. */
typedef int (*ffn_body_fn)(const struct layer_ctx *c, int64_t seq, int64_t fid, void *arg);

struct ffn_args {
    int64_t seq, D, F;           /* F: full d_ff (divided by the TP degree inside) */
    const char *ffn_type;        /* a name of ffn_kind_of, or anything with body set */
    ffn_body_fn body;            /* when set, used instead of the ffn_type's body */
    void *body_arg;
    bool input_gathered;         /* the attention before ended with the all-gather of its
                                  * normalised output (or a parallel block shares its input) */
};

/* An FFN type: "llama"/"swiglu" (gated, SiLU), "geglu" (gated, GeLU),
 * "default"/"gelu" (plain MLP, GeLU), "relu" (plain, ReLU). Gated: gate and
 * up projections D x F, act(gate) * up, down F x D; plain: up D x F, act,
 * down F x D. act is the elementwise op's name (Silu, Gelu, Relu). */
struct ffn_kind { const char *name; bool gated; const char *act; };
/* The type of that name, or NULL. */
const struct ffn_kind *ffn_kind_of(const char *ffn_type);
/* The FFN of a model's dense layers: its ffn_type's, or for a mixture of
 * experts ("moe"), whose experts are SiLU-gated, the same gated SiLU FFN of
 * d_ff; NULL for an unknown type. */
const struct ffn_kind *ffn_kind_dense(const char *ffn_type);
/* The copies of n executions a fused elementwise op runs at once (layer_ctx
 * fold): fold when it divides n, else 1 (per copy). */
int64_t layer_fold(int64_t fold, int64_t n);
/* The accepted names, for messages. */
#define FFN_TYPE_NAMES "\"llama\", \"swiglu\", \"geglu\", \"default\", \"gelu\" or \"relu\""
/* -1 with e: `model field "ffn_type": expected ..., got "V"`, and the closest name. */
int ffn_type_error(const char *v, struct npu_err *e);
/* create_ffn: optional TP all-gather, body, optional reduce-scatter, residual
 * Add. *fid: in = first fid, out = the Add's fid (not advanced, §5.6). */
int layer_ffn(const struct layer_ctx *c, const struct ffn_args *a, int64_t *fid);
struct model_config;
/* A decoder layer: attention from *fid, then the FFN over `seq` tokens
 * (m's width, type; its input gathered) from one past attention's last op.
 * *fid: the FFN's first fusion id (the reference's sends reuse it). */
int layer_block(const struct layer_ctx *c, const struct attn_args *a, const struct model_config *m,
                int64_t *fid);
/* The same with an FFN F wide (Gemma 4 E2B's KV-sharing layers' double-wide MLP). */
int layer_block_ff(const struct layer_ctx *c, const struct attn_args *a, const struct model_config *m, int64_t F,
                   int64_t *fid);
/* A layer's per-layer input (Gemma 4 E2B and E4B, per_layer_input_dim P): the
 * output y projected to P (gate), a GELU, times the token's slice of the
 * per-layer table, projected back to D and added, and a norm, from *fid; the
 * projections whole on every chip. *fid: its last fusion id. */
int layer_per_layer_input(const struct layer_ctx *c, int64_t seq, int64_t D, int64_t P, int64_t *fid);
/* The llama body alone (gate, up, gate*up, down at fid..fid+3) with the FFN
 * width Fl already divided; description prefix = c->prefix + phase part. */
int layer_ffn_llama_body(const struct layer_ctx *c, int64_t seq, int64_t D, int64_t Fl, int64_t fid);
/* One projection y = x W of c's B x seq rows of K elements by a K x N
 * weight in c's formats, at fid, counted c->count times (never grouped):
 * e.g. LatentMoE's projections to and from the experts' width. */
struct op *layer_linear(const struct layer_ctx *c, int64_t fid, const char *desc, const char *name, int64_t seq,
                        int64_t K, int64_t N);

/* An expert's FFN body: the gated SiLU one above, or (relu2) an ungated up
 * and down with a squared ReLU (Nemotron-H's experts, model field
 * expert_ffn), over c's fold copies as one grouped GEMM a matmul. */
int layer_ffn_expert_body(const struct layer_ctx *c, int64_t seq, int64_t D, int64_t Fl, int64_t fid, bool relu2);

#endif
