/* moe.h — the mixture-of-experts FFN body every MoE generator shares
 * (opsgen.md §7.3): the router's scores and softmax, the token all-to-all
 * to the expert-parallel chips, the routed experts (top-k; the reference's
 * every-expert-every-token under its quirk), the all-to-all back, the shared
 * experts and the weighted combine (under LatentMoE, moe_latent_size, a
 * projection to the routed experts' width before the all-to-all and one
 * back after the combine) (physical, tokens on every chip: no
 * all-to-all, a reduce-scatter over the EP axes after the combine). DeepSeek (latent attention) and the LLM
 * generator's ffn_type "moe" (Mixtral, Qwen-MoE, gpt-oss) call it inside
 * the FFN wrapper (layer_ffn's body).
 *
 * Experts shard the dp x tp chips: expert parallelism ep spreads the experts,
 * expert tensor parallelism etp = dp x tp / ep splits each expert's width.
 *
 * Main data structure: struct moe_ctx, what the body needs beyond the layer
 * context: the run, the EP axes and the all-to-all's form. */
#ifndef NPUSIM_MOE_H
#define NPUSIM_MOE_H

#include <stdbool.h>
#include <stdint.h>

#include "opsgen/layers.h"
#include "opsgen/phases.h"

struct moe_ctx {
    const struct gen_run *r;
    const struct coll_axes *ep;  /* expert-parallel axes (the all-to-all's group) */
    int64_t fanout;              /* chips a token's experts reach at most: the all-to-all's copies */
    const char *a2a_dtype;       /* the tokens' format on the wire */
    bool skip_empty_shared;      /* no shared-expert ops without shared experts (the reference's
                                  * DeepSeek emits them, of width 0) */
};

/* The context of ffn_type "moe" (over standard attention): a token's
 * experts reach at most top-k of the ep chips, in the activations' format;
 * no shared-expert ops without shared experts. */
struct moe_ctx moe_ctx_std(const struct gen_run *r, const struct coll_axes *ep);

/* The body (ffn_body_fn, layers.h): arg is a struct moe_ctx. */
int moe_ffn_body(const struct layer_ctx *c, int64_t seq, int64_t f, void *arg);

/* A MoE decoder layer over standard attention (ffn_type "moe"): the
 * attention of c from *fid, then the FFN wrapper over the expert TP axes
 * with the experts' formats and the body; *fid: the FFN's first fid (as
 * layer_block). A token's experts reach at most top-k expert-parallel chips,
 * in the activations' format. */
int moe_layer(const struct layer_ctx *c, const struct attn_args *a, const struct gen_run *r,
              const struct coll_axes *etp, const struct coll_axes *ep, const struct tensor_formats *efmt,
              int64_t *fid);

/* Every expert-parallel chip holds every token (physical; no data
 * parallelism): no token all-to-all, a reduce-scatter over the EP axes. */
bool moe_tokens_replicated(const struct gen_run *r);

/* The token all-to-all of the body (dispatch; combine: the way back) at
 * fid, counted as c's ops. */
int moe_all_to_all(const struct layer_ctx *c, const struct moe_ctx *x, int64_t seq, int64_t fid, bool combine);

/* The expert TP and EP axes of m (etp = dp x tp / ep over the dp and tp
 * axes the EP axes leave); -1 past max_axes torus axes. */
int moe_axes(const struct model_config *m, const struct opsgen_links *l, const struct profile *prof,
             struct coll_axes *etp, struct coll_axes *ep);

/* Expert tensor parallelism, ceil(dp x tp / ep) (ep 0 counts 1; at least 1). */
int64_t moe_etp(const struct model_config *m);
/* An expert's weight matrices of d_model x moe_d_ff: 3 gated (gate, up,
 * down), 2 under expert_ffn "relu2" (up, down; Nemotron-H). */
int64_t moe_expert_mats(const struct model_config *m);
/* The width a routed expert's tokens have: moe_latent_size under LatentMoE
 * (Nemotron 3 Super and Ultra), else d_model. The all-to-all carries it. */
int64_t moe_token_width(const struct model_config *m);
/* LatentMoE's two projections of a MoE layer, d_model x moe_latent_size
 * each, whole on every chip (0 without it). Checked (*ovf, builders.h). */
int64_t moe_latent_params(bool *ovf, const struct model_config *m);
/* One MoE layer's expert weights on a chip: every expert, routed
 * (moe_expert_mats x moe_token_width x moe_d_ff) and shared (at d_model),
 * over the ep x etp chips that hold them; the router and the latent
 * projections not included. Checked (*ovf, builders.h). */
int64_t moe_expert_params(bool *ovf, const struct model_config *m);

/* The MoE fields' checks: positive expert counts and width, 0 or more
 * shared experts, 1 <= ep <= dp x tp and ep <= the routed experts, top-k at
 * most the routed experts, no EP over DCN. */
int moe_validate(const struct model_config *m, struct npu_err *e);

/* The routed-expert load of one device under top-k routing (physical
 * profile): T = local_tokens x data_parallelism_degree tokens are routed,
 * each to A of the R experts; a device holds ceil(R / ep) experts. An expert
 * receives at least one token with probability p = 1 - (1 - A/R)^T, so
 * `experts` = ceil(ceil(R/ep) x p) of them run, each on `tokens` =
 * ceil(moe_imbalance_factor x T x A / (R x p)) tokens (at most T): the
 * busiest device's load. Both at least 1. T past int64 sets *ovf (builders.h). */
struct moe_load { int64_t experts, tokens; };
struct moe_load moe_load_of(bool *ovf, const struct model_config *m, int64_t local_tokens);

#endif
