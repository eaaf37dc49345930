/* opsgen.h — operator generators: a model config in, an ordered trace out.
 *
 * Generators emit shapes, FLOPs and bytes; they never time compute. The only
 * times they set are the reference's creation-time communication times
 * (collectives, pipeline transfers, KV swap: opsgen.md §3.8–§3.10), for which
 * they need the link parameters below. The CLI fills struct opsgen_links from
 * the chip config, so opsgen does not depend on chipsim. */
#ifndef NPUSIM_OPSGEN_H
#define NPUSIM_OPSGEN_H

#include <stdbool.h>
#include <stdint.h>

#include "opsgen/model.h"
#include "base/err.h"
#include "traces/op.h"
#include "traces/profile.h"

/* How a collective pays its latency steps (chip field collective_algorithm;
 * physical profile): a ring, p - 1 steps a phase; direct, one step a phase
 * (every peer one hop away: NVSwitch, a full mesh; inside the link domain
 * only); a tree, ceil(log2 p) steps a phase (NCCL's trees). */
enum coll_algorithm { COLL_RING, COLL_DIRECT, COLL_TREE };
/* "ring", "direct" or "tree" (anything else: the ring). */
enum coll_algorithm coll_algorithm_of(const char *name);

struct opsgen_links {
    char chip_name[FIELD_STR_MAX];
    double ici_bw_GBps;           /* per axis; GB = 1e9 B (quirk chipsim Q11) */
    double dcn_bw_GBps;
    double pcie_bw_GBps;          /* GB = 2^30 B */
    int64_t ici_latency_ns;
    int64_t dcn_latency_ns;
    int64_t pcie_latency_ns;
    int64_t hbm_size_GB;          /* KV-swap trigger and OOM flags */
    int64_t link_domain_chips;    /* chips one ICI/NVLink domain joins; a collective group larger
                                   * runs on the scale-out network (dcn_*); 0: no bound known */
    char ICI_topology[FIELD_STR_MAX];
    enum coll_algorithm collective_algorithm;   /* the chip's (physical profile) */
    int64_t collective_base_ns;   /* paid once a phase, whatever p (physical profile) */
    int64_t collective_direct_max_bytes;   /* inside the domain, collectives of at most this whole
                                            * tensor take one step a phase (physical); 0: none */
};

/* LLM inference (opsgen.md §5): prefill ops (phase PREFILL) followed by decode
 * ops (phase DECODE), appended to out. Validates the config first (model_type,
 * divisibility, num_chips >= dp*tp*pp, tp_dcn == 1, ...).
 *
 * Every generator (this one, opsgen_llm_training, opsgen_deepseek_inference,
 * opsgen_dit, opsgen_gligen, opsgen_dlrm_inference) returns 0 with *ovf set
 * (never cleared) when a size, FLOP count or time of the trace, or the
 * footprint it checks, left int64 (builders.h): those values are 0 and the
 * caller refuses the trace (family_generate says why). */
int opsgen_llm_inference(const struct model_config *m, const struct opsgen_links *l,
                         const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e);

/* What one forward pass of a serving engine (serving/) attends over, for one
 * group of sequences alike: decode (each of `batch` sequences adds one token
 * and reads `prefix` prompt and `suffix` generated tokens of cache, suffix at
 * least 1) or a prefill chunk (each of `batch` sequences adds `q` tokens that
 * see `kv` keys in all and `att` keys on average under the causal mask). */
struct opsgen_step_attn {
    bool decode;
    int64_t batch;
    int64_t q, kv, att;          /* prefill chunk (tokens) */
    int64_t prefix, suffix;      /* decode (tokens) */
};
/* Appends to out the attention core of one such pass, one layer's ops
 * counted once per layer of a pipeline stage, as opsgen_llm_inference's
 * phases build them (the ops opsgen_op_is_attention_core names; no
 * projections, norms or collectives: those scale with the tokens alone).
 * The ops carry no phase: the caller sets it. */
int opsgen_llm_step_attention(const struct model_config *m, const struct opsgen_links *l,
                              const struct profile *prof, const struct opsgen_step_attn *a,
                              struct trace *out, bool *ovf, struct npu_err *e);
/* The ops of an inference trace whose cost follows each sequence's context
 * (the attention scores, softmax and weighted sum, or flash attention; a
 * Gated DeltaNet layer's recurrence, which follows its chunk), and
 * the LM head's (which follows the positions that emit a token). */
bool opsgen_op_is_attention_core(const struct op *op);
bool opsgen_op_is_lm_head(const struct op *op);

/* A user-given LLM-like config (LLM, training, DiT) must shard evenly: TP
 * divides num_heads, d_model and d_ff, and there are at least as many layers
 * as pipeline stages. The generators themselves round shards and layers per
 * stage up, as the reference does for the points its sweeps enumerate. */
int opsgen_check_strict(const struct model_config *m, struct npu_err *e);

/* Memory footprint of LLM inference for a phase, in bytes (opsgen.md §11.1);
 * terms past int64 count 0. _checked: the same, and such a term sets *ovf
 * (builders.h), as the generator's trace does. */
int64_t opsgen_llm_inference_mem_bytes(const struct model_config *m, enum phase phase,
                                       const struct profile *prof);
int64_t opsgen_llm_inference_mem_checked(bool *ovf, const struct model_config *m, enum phase phase,
                                         const struct profile *prof);

/* The model's parameters: every weight (total) and those one token uses
 * (active: a mixture of experts' shared and top-k routed experts, its
 * gate, every other weight; its layers by opsgen/pattern.h); the embedding and LM head once each, or once
 * when tie_word_embeddings. DeepSeek's first num_dense_layers layers count
 * a dense FFN of d_ff (the published counts do), though the generator runs
 * every layer as MoE (the reference's). Biases are not counted. -1 past
 * int64. */
void opsgen_model_params(const struct model_config *m, int64_t *total, int64_t *active);

/* The parts of the physical profile's footprint (per chip of a pipeline
 * stage): the weights with their scales, and per token the KV-cache and
 * live-activation elements, in the model's KV and activation formats
 * (bld_tensor_bytes gives their bytes). *ovf as above. */
struct opsgen_llm_mem_parts {
    int64_t weight_bytes;
    int64_t kv_elems_per_token, live_elems_per_token;
    /* local layers (opsgen/pattern.h): per token of at most kv_window
     * tokens; kv_elems_per_token is the global layers' (0 and 0 without) */
    int64_t kv_local_elems_per_token, kv_window;
    /* linear-attention layers (opsgen/linear_attn.h): the state elements a
     * sequence keeps whatever its length, in state_dtype (0 without) */
    int64_t state_elems_per_seq;
    const char *kv_dtype, *act_dtype, *state_dtype;
};
/* The KV elements a sequence of `tokens` tokens holds on a chip. */
int64_t opsgen_kv_elems(bool *ovf, const struct opsgen_llm_mem_parts *p, int64_t tokens);
void opsgen_llm_mem_parts(bool *ovf, const struct model_config *m, const struct profile *prof,
                          struct opsgen_llm_mem_parts *p);

#endif
