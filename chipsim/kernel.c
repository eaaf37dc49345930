/* kernel.c — what a chip's per-precision peaks and kernel efficiencies
 * apply to: an op's number format, its kernel class and its size.
 *
 * The physical profile times every op in its format on the unit that runs
 * it (chip_unit_precision: the format itself, or the one a compiler would
 * fall back to) and divides its roofline times by the efficiency of its
 * kernel class (chip_kernel_efficiency). Main data structure: the table of
 * kernel classes by cost-model kind. */
#include "chipsim/cs_internal.h"

static bool matrix_kind(enum kind k)
{
    return k == K_EINSUM || k == K_BATCHMATMUL || k == K_CONV2D || k == K_FLASH_ATTENTION;
}

int op_format(const struct instr *in)
{
    int p = precision_of_token(in->in.n > 0 ? in->in.t[0].dtype : in->out.dtype);
    /* A matmul computes in the wider of its operands' formats: a kernel with
     * int4 or int8 weights and bf16 activations dequantises the weights. */
    if (matrix_kind(in->kind) && in->in.n > 1) {
        int q = precision_of_token(in->in.t[1].dtype);
        if (q >= 0 && (p < 0 || precision_info((enum precision)q)->bits > precision_info((enum precision)p)->bits))
            p = q;
    }
    return p;
}

enum chip_unit op_unit(const struct instr *in) { return matrix_kind(in->kind) ? UNIT_MATRIX : UNIT_VECTOR; }

/* Kernel class by kind; gemm is narrowed to gemv by size (op_kernel_class). */
static const int8_t class_of_kind[K_OTHER + 1] = {
    [K_EINSUM] = KC_gemm, [K_BATCHMATMUL] = KC_gemm, [K_CONV2D] = KC_gemm,
    [K_FLASH_ATTENTION] = KC_attention,
    [K_LAYERNORM] = KC_reduction, [K_GROUPNORM] = KC_reduction, [K_RMSNORM] = KC_reduction,
    [K_SOFTMAX] = KC_reduction,
    [K_ADD] = KC_elementwise, [K_MUL] = KC_elementwise, [K_ABS] = KC_elementwise,
    [K_PW_MUL] = KC_elementwise, [K_GELU] = KC_elementwise, [K_SILU] = KC_elementwise,
    [K_RELU] = KC_elementwise, [K_UPSAMPLE] = KC_elementwise, [K_AVGPOOL] = KC_elementwise,
    [K_REDUCE_SCATTER] = KC_collective, [K_ALL_REDUCE] = KC_collective, [K_ALL_GATHER] = KC_collective,
    [K_ALL_TO_ALL] = KC_collective, [K_IC_IN] = KC_collective, [K_IC_OUT] = KC_collective,
    [K_KVSWAP_IN] = KC_collective, [K_KVSWAP_OUT] = KC_collective,
    [K_OTHER] = KC_elementwise,
};

enum kernel_class op_kernel_class(const struct instr *in, const struct op *op)
{
    enum kernel_class k = (enum kernel_class)class_of_kind[in->kind];
    int64_t rows = op->einsum_m < op->einsum_n ? op->einsum_m : op->einsum_n;
    return k == KC_gemm && rows <= KERNEL_GEMV_MAX_ROWS ? KC_gemv : k;
}

double op_kernel_size(enum kernel_class k, const struct instr *in, const struct op *op)
{
    switch (k) {
    case KC_gemm:
    case KC_gemv:
    case KC_attention:
        return (double)op->einsum_b * (double)op->einsum_m * (double)op->einsum_n * (double)op->einsum_k;
    case KC_collective:
        return (double)op->bytes;
    default:
        return (double)tensor_elems(in->in.n > 0 ? &in->in.t[0] : &in->out);
    }
}
