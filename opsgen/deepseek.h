/* deepseek.h — DeepSeek (MLA attention + mixture-of-experts FFN) inference
 * (opsgen.md §7, §11.3, §13.2–§13.5): the op generator, its memory
 * footprint, and the MoE sweep helpers (enumeration with expert parallelism,
 * validation, axis mapping, run names).
 *
 * The generator follows the LLM skeleton (KV swap, pipeline transfers, the
 * fusion-id walk) with RMSNorm inputs, multi-head latent attention and a MoE
 * body inside the shared FFN wrapper (opsgen/layers.h). Expert parallelism
 * (ep) shares the dp x tp chips with expert tensor parallelism
 * etp = (dp*tp) / ep, which shards every expert's FFN width. */
#ifndef NPUSIM_DEEPSEEK_H
#define NPUSIM_DEEPSEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opsgen/moe.h"
#include "opsgen/opsgen.h"
#include "opsgen/sweep.h"

/* Prefill ops (phase PREFILL) then decode ops (phase DECODE), appended to
 * out. Validates first: model_type "llm", ffn_type "deepseek_moe", no flash
 * attention, 1 <= ep <= dp*tp, ep <= num_routed_experts, no DCN TP/EP.
 * *ovf as opsgen_llm_inference (opsgen.h). */
int opsgen_deepseek_inference(const struct model_config *m, const struct opsgen_links *l,
                              const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e);

/* The serving engine's parts (serving/): the attention core of one pass
 * (the MLA cache einsums and softmax, as opsgen_llm_step_attention) and the
 * footprint's parts (opsgen_llm_mem_parts; their elements are bytes, DT_INT8,
 * as the parts mix formats). Experts are spread over the replica's chips:
 * ep x etp = dp x tp. */
int opsgen_deepseek_step_attention(const struct model_config *m, const struct opsgen_links *l,
                                   const struct profile *prof, const struct opsgen_step_attn *a,
                                   struct trace *out, bool *ovf, struct npu_err *e);
void opsgen_deepseek_mem_parts(bool *ovf, const struct model_config *m, const struct profile *prof,
                               struct opsgen_llm_mem_parts *p);

/* Per-chip footprint of one phase in bytes (§11.3): FP8 experts and KV
 * cache, BF16 attention weights, FP32 rope cache; real-valued terms rounded
 * half-to-even at the end as Python's round(). INT64_MAX when ep > dp*tp
 * (no expert tensor parallelism is left; the reference divides by zero). */
int64_t opsgen_deepseek_mem_bytes(const struct model_config *m, enum phase ph,
                                  const struct profile *prof);

/* The routed-expert load (moe_load_of) is in opsgen/moe.h. */

/* §13.4 for MoE: the LLM mapping, then the expert axes (4th value). Returns
 * false (axes still set, expert axes best effort) when ep cannot be laid out
 * on the dp/tp axes — the reference asserts there. */
bool sweep_map_axes_moe(const char *chip_version, struct model_config *m);
/* §13.3 with the DeepSeek footprint and the MoE extras (ep_dcn, ep <= dp*tp,
 * ep on a single dp/tp axis, enough routed experts). */
bool sweep_validate_moe(const struct model_config *m, const struct opsgen_links *l,
                        const struct profile *prof, enum phase ph, double oom_factor,
                        char *why, size_t whylen);
/* DeepSeek Sparse Attention (index_topk > 0; 0 without): the indexer's
 * weights a layer (its query projection from the query latent, or from the
 * input without one, its key projection and head weights), and the bytes
 * of a token's index key a layer (fp8 with an fp32 scale). */
int64_t dsa_indexer_params(bool *ovf, const struct model_config *m);
int64_t dsa_index_key_bytes(const struct model_config *m);
/* "dp1-tp4-pp1-ep4-dpdcn1-tpdcn1-ppdcn1-epdcn1-bs8" */
void sweep_pstr_moe(const struct parallel_cfg *p, int64_t gbs, char *buf, size_t n);

#endif
