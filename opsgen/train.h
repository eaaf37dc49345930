/* train.h — LLM training: one forward + backward pass of a pipeline stage and
 * the data-parallel weight update (opsgen.md §3.12, §6, §11.2, §12.3, §13).
 *
 * The forward pass reuses the inference layer builders (prefill, self-path
 * attention, llama FFN). The backward pass has its own builders: every matmul
 * becomes an XGrad/YGrad einsum pair, the softmax a pointwise multiply, and
 * each LayerNorm four ops (the "LayerNorm-bwd quad"). The parameter count the
 * weight update all-reduces is read back from the backward ops' weight bytes.
 *
 * The step's statistics live in study/run/train_stats.h. */
#ifndef NPUSIM_TRAIN_H
#define NPUSIM_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opsgen/builders.h"
#include "opsgen/opsgen.h"

/* ---- backward builders ---- */

/* The two einsums of a matmul's backward pass (create_einsum_op_bwd): both
 * carry the forward shapes, equation and FLOPs; the first at fid is named
 * sanitize(desc + "_" + name) + "XGrad", the second at fid + 1 "...YGrad".
 * Weight bytes default to bytes(dtype) * prod(b) on both. Returns the XGrad
 * op (the YGrad op follows it), or NULL on a malformed equation. */
struct op *b_einsum_bwd(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape a, struct shape b, const char *eq,
                        const char *placements, const char *dtype);

/* LayerNorm backward (create_layernorm_op_bwd): four ops at one fid, all with
 * the given count (the reference: 1 whatever the layer count, quirk opsgen Q16),
 * and the caller's description ignored: a Softmax over x ("Softmax"/"Softmax Backprop.", placement
 * 1_1), then three x-by-x einsums "softmax-bwd-{dl/dy,e1,e2}-<fid>" whose
 * default weight bytes 2*prod(x) enter the parameter count. Returns 0 or -1. */
int b_layernorm_bwd(struct trace *t, bool *ovf, int64_t fid, int64_t count, struct shape x);

/* Weight update (create_weight_update, §3.12), appended at fid:
 * [AllReduce of [1, param_count, 1] over the DP axes (plus dp_dcn when > 1)
 * if the total DP degree exceeds 1], a "Input" load of 4*param_count optimizer
 * elements and an "Output" store of param_count, both as VPU ops. The
 * all-reduce's bandwidth is the sum of one ICI bandwidth per ICI axis plus the
 * DCN bandwidth, appended even when dp_dcn == 1 (quirk opsgen Q11).
 * dp holds the ICI DP axes with their latency; its bw entries are ignored. */
int b_weight_update(struct trace *t, bool *ovf, int64_t fid, int64_t param_count,
                    const struct coll_axes *dp, int64_t dp_dcn, double ici_bw_GBps,
                    double dcn_bw_GBps);

/* ---- generator ---- */

/* LLM training (opsgen.md §6): forward then backward ops (with the weight
 * update) of one pipeline stage, appended to out; *param_count (may be NULL)
 * receives the count the weight update used; *ovf as opsgen_llm_inference
 * (opsgen.h). Validates first: model_type
 * "llm", a dense ffn_type or "moe" (with its expert checks), use_flash_attention false, positive sizes,
 * tensor_parallelism_degree dividing num_heads, d_model and d_ff,
 * num_chips >= dp*tp*pp, tensor_parallel_degree_dcn 1, link parameters. */
int opsgen_llm_training(const struct model_config *m, const struct opsgen_links *l,
                        const struct profile *prof, struct trace *out, int64_t *param_count,
                        bool *ovf, struct npu_err *e);

/* Per-chip training footprint in bytes. The reference
 * (get_llm_training_mem_requirement, §11.2; quirk train_memory_reference):
 * BF16 weights and activations plus 3x FP32 optimizer states; the batch is
 * global_batch_size / dp, and attention is counted once, not per layer.
 * Corrected: P = the stage's parameters on one chip (train_layer_params x
 * layers, plus the TP-sharded embedding and LM head); BF16 weights 2P, BF16
 * gradients 2P, FP32 master weights, momentum and variance 12P, divided over
 * the data-parallel degree as zero_stage says (1: states, 2: and gradients,
 * 3 (FSDP): and weights, plus one gathered layer); stored activations of
 * 34 s b D / tp bytes per layer (sequence parallelism with selective
 * recomputation) for pp microbatches in flight, b the microbatch per replica;
 * with remat "full" only each layer's BF16 input (2 s b D / tp) is kept, plus
 * one layer's working set. Terms past int64 count 0; _checked also sets *ovf
 * for them (builders.h). */
int64_t opsgen_llm_training_mem_bytes(const struct model_config *m, const struct profile *prof);
int64_t opsgen_llm_training_mem_checked(bool *ovf, const struct model_config *m, const struct profile *prof);

/* One layer's parameters on one chip (TP-sharded attention and FFN; a
 * mixture of experts' layers on average, its experts over ep x etp chips),
 * checked (*ovf, builders.h): all of them, those replicated over the
 * data-parallel replicas (what their gradients are summed and ZeRO shards
 * over) and a mixture's experts (each on one chip). */
int64_t train_layer_params(bool *ovf, const struct model_config *m);
int64_t train_layer_replicated_params(bool *ovf, const struct model_config *m);
int64_t train_layer_expert_params(bool *ovf, const struct model_config *m);

/* ---- sweep (§13.3 for workload "training") ---- */

/* Validation of one training run: pipeline deeper than the layers, 2-D
 * torus with three parallelisms, ICI pod too large, more replicas and stages
 * than the global batch, training footprint over hbm_size_GB * oom_factor.
 * (Unlike inference, dp_dcn > 1 is allowed.) True if valid, else false and
 * a reason in why. */
bool train_validate_sweep(const struct model_config *m, const struct opsgen_links *l,
                          const struct profile *prof, double oom_factor, char *why, size_t whylen);

#endif
