/* formats.h — a model's number formats applied to its ops: the weights'
 * format on a matmul's B operand, the KV cache's on attention's K and V,
 * and block scales (DeepSeek-V3's fp8: 1 x 128 activation tiles, 128 x 128
 * weight blocks; GPTQ/AWQ's int4: groups of 128 along K per output column).
 *
 * Block scales are part of the matmul (its form's scale_k, scale_n and
 * scale_dtype, traces/op_form.h), as fused kernels run them: chipsim adds
 * the scale tensors' bytes to its traffic and the rescaling (partial sums
 * promoted once per K block, activations quantised as read, or weights
 * dequantised once per tile of rows) to its vector time, beside the MXU.
 *
 * Main data structure: struct tensor_formats (trace tokens and block sizes). */
#ifndef NPUSIM_FORMATS_H
#define NPUSIM_FORMATS_H

#include <stdbool.h>
#include <stdint.h>

#include "opsgen/model.h"
#include "traces/op.h"

struct tensor_formats {
    const char *act, *weight, *kv;   /* trace tokens ("DT_BFLOAT16") */
    int64_t scale_k, scale_n;        /* block of one weight scale: K x N elements; 0: no block scales */
    const char *scale;               /* the scales' token (DT_FLOAT) */
};

/* The model's fields weight_dtype, activation_dtype, kv_cache_dtype,
 * scale_block, weight_scale_block_n and scale_dtype as tokens and sizes. */
void tensor_formats_of(const struct model_config *m, struct tensor_formats *f);
/* The experts' formats of a mixture (expert_weight_dtype; the rest as the model's). */
void tensor_formats_experts(const struct model_config *m, struct tensor_formats *f);

/* The op's inputs after the first stored in dt (when it is not the
 * activations'); the weight bytes follow, checked (*ovf, builders.h). NULL
 * fmt: nothing. Passes NULL through. */
struct op *fmt_store_rest(bool *ovf, const struct tensor_formats *fmt, struct op *op, const char *dt);

/* A weight matmul in the model's formats: its weights stored in
 * fmt->weight (checked as fmt_store_rest) and its block scales set. Returns
 * op (NULL passes through). */
struct op *fmt_weights(bool *ovf, const struct tensor_formats *fmt, struct op *op);

/* n weights in f's weight format with their block scales (one per
 * scale_k x scale_n weights of 8 bits or narrower), in bytes, checked
 * (*ovf); and the same per weight as a double (the footprints computed on
 * doubles). */
int64_t fmt_stored_bytes(bool *ovf, int64_t n, const struct tensor_formats *f);
double fmt_bytes_per_weight(const struct tensor_formats *f);

#endif
