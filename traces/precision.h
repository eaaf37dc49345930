/* precision.h — number formats as a first-class dimension: the table of
 * data types npusim knows (fp64 down to fp4), their names, trace tokens and
 * storage widths.
 *
 * A model declares the precision of its weights, activations and KV cache
 * by name ("bf16", "fp8", "int4"); its ops carry the trace token
 * ("DT_BFLOAT16", "DT_FLOAT8_E4M3FN"); a chip declares a dense peak per
 * precision (chipsim/chip.h). The order of PRECISION_LIST is the order of
 * the enum and of the chip's per-precision fields. The tokens are chosen so
 * that the reference's substring rule (traces/dtype.h) sizes every 8-bit and
 * wider one as the table does, and its shape grammar (DT_[A-Z0-9]+: no
 * underscore after "DT_") reads them; TensorFlow's underscored spellings
 * ("DT_FLOAT8_E4M3FN") are aliases. Widths are storage bits:
 * an int4 or fp4 tensor takes half a byte per element.
 *
 * Main data structure: the const table behind precision_info(). */
#ifndef NPUSIM_PRECISION_H
#define NPUSIM_PRECISION_H

#include <stdbool.h>
#include <stdint.h>

/* X(a, enum suffix, name, trace token, storage bits, is floating point),
 * where a is the caller's own argument, passed through (tables per unit). */
#define PRECISION_LIST(X, a)                                \
    X(a, FP64, "fp64", "DT_FLOAT64", 64, true)              \
    X(a, FP32, "fp32", "DT_FLOAT", 32, true)                \
    X(a, TF32, "tf32", "DT_TF32", 32, true)                 \
    X(a, BF16, "bf16", "DT_BFLOAT16", 16, true)             \
    X(a, FP16, "fp16", "DT_FLOAT16", 16, true)              \
    X(a, FP8_E4M3, "fp8_e4m3", "DT_FLOAT8E4M3FN", 8, true)  \
    X(a, FP8_E5M2, "fp8_e5m2", "DT_FLOAT8E5M2", 8, true)    \
    X(a, INT8, "int8", "DT_INT8", 8, false)                 \
    X(a, INT4, "int4", "DT_INT4", 4, false)                 \
    X(a, FP4, "fp4", "DT_FLOAT4E2M1FN", 4, true)

enum precision {
#define PRECISION_ENUM(a, e, n, t, b, f) PREC_##e,
    PRECISION_LIST(PRECISION_ENUM, _)
#undef PRECISION_ENUM
    PREC_COUNT
};

struct precision_info {
    const char *name;     /* "bf16": what configs and --dtype say */
    const char *token;    /* "DT_BFLOAT16": what traces say */
    int bits;             /* storage bits per element */
    bool is_float;
};

/* The row of p (0 <= p < PREC_COUNT). */
const struct precision_info *precision_info(enum precision p);

/* A name or alias ("bf16", "fp8" = fp8_e4m3, "float32", "e4m3", ...): the
 * precision, or -1. The accepted spellings: precision_names(). */
int precision_by_name(const char *name);

/* A trace token: the table's, and the other spellings traces use
 * ("DT_FLOAT32", "DT_HALF", "DT_DOUBLE", "DT_FLOAT8" = e4m3, "DT_BF16"). -1 for a
 * token that names no number format of the table (DT_INT32, DT_INT64, BOOL). */
int precision_of_token(const char *token);

/* "fp64|fp32|...": the canonical names, for messages and --help. */
const char *precision_names(void);

/* Storage bits per element of a trace token: the table's width for a
 * format it knows, else 8 x dtype_bytes (the reference's substring rule);
 * -1 for an unknown token. */
int dtype_bits(const char *token);

/* ceil(elems x bits / 8) without overflow for elems < 2^56: the bytes of a
 * tensor of elems elements of bits each. */
static inline int64_t bits_to_bytes(int64_t elems, int bits)
{
    return bits % 8 == 0 ? elems * (bits / 8) : (elems / 8) * bits + ((elems % 8) * bits + 7) / 8;
}

#endif
