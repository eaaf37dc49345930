/* gen.h — skeleton helpers every generator shares: positive-field checks by
 * name and the other checks the LLM-like generators share, a parallelism
 * degree laid out on torus axes, and the vocabulary's parameter count. The
 * phase skeleton of LLM inference, DeepSeek and training is opsgen/phases.h.
 *
 * Main data structure: none of its own; helpers work on the model config,
 * struct coll_axes (builders.h) and the trace. */
#ifndef NPUSIM_GEN_H
#define NPUSIM_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opsgen/builders.h"
#include "opsgen/model.h"
#include "opsgen/opsgen.h"
#include "base/err.h"
#include "traces/profile.h"

/* Each named integer field of m must be > 0; else `model field "K": expected a
 * positive integer, got V`. Names are model field-table keys. */
int gen_require_positive(const struct model_config *m, const char *const *keys, size_t n,
                         struct npu_err *e);

/* Degree `deg` over `n_axes` torus axes (opsgen.md §4.1), one ICI link each
 * (l->ici_bw_GBps, l->ici_latency_ns); with 0 axes the reference drops the
 * degree (quirk opsgen Q13) unless the profile keeps it on one axis. A group
 * of more chips than one link domain joins (l->link_domain_chips, e.g. 8 GPUs
 * on NVLink) runs its collectives on the scale-out network instead, at the
 * chip's dcn_bw_GBps and dcn_latency_ns: its ring crosses the network (the
 * profile switch collectives_ignore_link_domain keeps the reference's ICI).
 * Returns -1 if more than max_axes result. */
int gen_axes(struct coll_axes *ax, int64_t deg, int64_t n_axes, const struct profile *prof,
             const struct opsgen_links *l, int max_axes);
/* Whether a collective group of deg chips leaves the link domain. */
bool gen_spans_domain(int64_t deg, const struct opsgen_links *l, const struct profile *prof);


/* The token-embedding and LM-head parameters on one chip, 2 x ceil(V / tp) x D
 * (once, not twice, when the model ties them: tie_word_embeddings), and the
 * per-layer inputs' table and projection, (rows + D) x num_layers x
 * per_layer_input_dim, whole (0 under prof->vocab_ops_missing), checked
 * (*ovf, builders.h): the memory footprints and the weight update count them. */
int64_t gen_vocab_params(bool *ovf, const struct model_config *m, int64_t tp, const struct profile *prof);

/* ---- the checks the LLM-like generators share, in the order they run ---- */

/* model_type must be "llm"; else `... expected "llm" for <what>, got "..."`. */
int gen_require_llm(const struct model_config *m, const char *what, struct npu_err *e);
/* cached_prompt_tokens: below input_seqlen (a positive one: prefill computes at
 * least one token); with what (a generator without a prefix cache, e.g. "LLM
 * training"), 0. */
int gen_require_prompt_cache(const struct model_config *m, const char *what, struct npu_err *e);
/* Linear-attention layers (linear_value_heads > 0), the attention's output
 * gate, the layer-pattern and expert fields of Nemotron-H (ffn_layers,
 * expert_ffn relu2, moe_latent_size) and Gemma 4's (global_*, kv_shared_layers,
 * per_layer_input_dim) are LLM inference's: what (another generator) refuses them;
 * without what, the fields must agree (no sliding_window with linear
 * layers, key heads dividing value heads). */
int gen_require_linear(const struct model_config *m, const char *what, struct npu_err *e);
/* An axes count of key within 0..max. */
int gen_require_axes(const char *key, int64_t v, int max, struct npu_err *e);
/* num_chips >= dp*tp*pp and tensor_parallel_degree_dcn == 1. */
int gen_require_chips(const struct model_config *m, struct npu_err *e);
/* At most num_layers pipeline stages (pp * pp_dcn). */
int gen_require_stages(const struct model_config *m, struct npu_err *e);
/* Positive ICI bandwidth, PCIe bandwidth (when pcie) and HBM size; a
 * positive DCN bandwidth when dcn (a DCN level is used). */
int gen_require_links(const struct opsgen_links *l, bool pcie, bool dcn, struct npu_err *e);

#endif
