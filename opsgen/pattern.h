/* pattern.h — a model's layer pattern: which layers attend locally (a
 * sliding window, or chunks) and which run a mixture of experts, and how a
 * pipeline stage's layers fall into groups alike.
 *
 * The generators emit one layer's ops counted once per layer; a model whose
 * layers differ emits one such layer per group, counted by the group's
 * layers. A stage of a pipeline gets each group's share of its layers
 * (largest remainders; exact without a pipeline).
 *
 * Main data structure: struct layer_groups, at most six groups of (local
 * attention?, mixture of experts?, no FFN?) in the order the model first
 * meets them.
 *
 * Local attention (model fields sliding_window, full_attention_interval
 * from first_full_attention_layer, or full_attention_layers spread evenly;
 * local_attention; or, with
 * linear_value_heads, linear attention): the query at position p (1-based) sees min(p, W) keys
 * under a sliding window of W, ((p - 1) mod W) + 1 under chunks of W; a
 * local layer's KV cache holds at most W tokens. */
#ifndef NPUSIM_PATTERN_H
#define NPUSIM_PATTERN_H

#include <stdbool.h>
#include <stdint.h>

#include "opsgen/model.h"

/* kv_shared: the group's layers read an earlier layer's K/V (kv_shared_layers) */
struct layer_group { bool local, moe; int64_t layers; bool no_ffn, kv_shared; };
struct layer_groups { int n; struct layer_group g[12]; };

/* linear_value_heads > 0: the local layers are linear attention (Gated
 * DeltaNet, opsgen/linear_attn.h), not a window. */
bool pattern_linear(const struct model_config *m);
/* ffn_type "moe": a mixture of experts over standard attention. */
bool pattern_is_moe(const struct model_config *m);
/* Layer i (0-based) of the model attends locally / runs the experts / has
 * an FFN (ffn_layers of them spread evenly; -1: every layer). */
bool pattern_layer_local(const struct model_config *m, int64_t i);
bool pattern_layer_moe(const struct model_config *m, int64_t i);
bool pattern_layer_ffn(const struct model_config *m, int64_t i);
/* Layer i is one of the last kv_shared_layers, which read earlier layers' K/V. */
bool pattern_layer_kv_shared(const struct model_config *m, int64_t i);
/* The model's layers, counted per group. */
void pattern_groups(const struct model_config *m, struct layer_groups *out);
/* The same groups with stage_layers layers in all, each its share. */
void pattern_stage_groups(const struct model_config *m, int64_t stage_layers, struct layer_groups *out);
/* Groups g of L layers in all cut to stage_layers: each its floor share, then
 * the largest remainders (ties: the earlier group). */
void pattern_share(struct layer_groups *g, int64_t L, int64_t stage_layers);

/* The keys the queries at positions a+1 .. b (0 <= a <= b) see in all in a
 * local layer (causal; positions 1-based), checked (*ovf, builders.h). */
int64_t pattern_local_keys(bool *ovf, const struct model_config *m, int64_t a, int64_t b);
/* The same for any cap of W keys a query (min(p, W) at position p):
 * a sliding window's, or DeepSeek Sparse Attention's top-W keys. */
int64_t pattern_sliding_keys(bool *ovf, int64_t W, int64_t a, int64_t b);
/* The tokens a local layer's KV cache holds for a context of n tokens: at
 * most the window (the worst moment for chunks). */
int64_t pattern_local_cache(const struct model_config *m, int64_t n);
/* The keys a query sees on average over the model's layers for a causal
 * pass over S tokens (training's forward and backward): global layers
 * `global_keys` (the caller's causal or unmasked count), local ones the
 * window's, weighted by the layers of each (attention's FLOPs and bytes
 * are linear in the keys). global_keys without local layers. */
int64_t pattern_mean_keys(bool *ovf, const struct model_config *m, int64_t S, int64_t global_keys);
/* The attention shape of m's global layers (global: attending to the whole
 * context; every layer of a model without local ones) or of its local
 * ones: head width, K/V heads (-1: as many as the query heads) and whether
 * V is K's projection (no W_v). Only the global layers have their own
 * (global_d_head, global_num_kv_heads, global_k_eq_v: Gemma 4's). */
struct attn_shape { int64_t dh, kv_heads; bool k_eq_v; int64_t dv; };   /* dv: the values' width */
struct attn_shape pattern_attn_shape(const struct model_config *m, bool global);
/* The weights of an attention layer of shape s over H query heads and kv
 * K/V heads (a chip's share, or the whole model's): W_q (with m's output
 * gate, twice), W_o, and *w_kv, its W_k and W_v (no W_v when V is K's
 * projection). */
int64_t pattern_attn_weights(bool *ovf, const struct model_config *m, const struct attn_shape *s, int64_t H, int64_t kv,
                             int64_t *w_kv);

/* The layers of groups g that attend locally, that run the experts, or that
 * have no FFN. */
int64_t pattern_local_of(const struct layer_groups *g);
int64_t pattern_moe_of(const struct layer_groups *g);
int64_t pattern_no_ffn_of(const struct layer_groups *g);
/* A dense layer's FFN width: kv_shared_d_ff in the layers that read earlier
 * layers' K/V (Gemma 4 E2B's double-wide MLP) when set, else d_ff. */
int64_t pattern_d_ff(const struct model_config *m, bool kv_shared);
/* Rows of the per-layer input table (per_layer_vocab_size; 0: vocab_size). */
int64_t pattern_per_layer_rows(const struct model_config *m);
/* The layers of the model that attend locally (pattern_local_of its groups). */
int64_t pattern_local_layers(const struct model_config *m);

#endif
