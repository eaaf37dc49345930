/* kernel.c — what a chip's per-precision peaks and kernel efficiencies
 * apply to: an op's number format, its kernel class and its size.
 *
 * The physical profile times every op in its format on the unit that runs
 * it (chip_unit_precision: the format itself, or the one a compiler would
 * fall back to) and divides its roofline times by the efficiency of its
 * kernel class (chip_kernel_efficiency). Main data structure: the table of
 * kernel classes by cost-model kind. */
#include "chipsim/cs_internal.h"
#include "chipsim/chipsim.h"

#include <string.h>

#include "traces/precision.h"

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

void chipsim_op_format(const struct op *op, const struct chip_config *chip, int *prec, int *prec_ran)
{
    *prec = *prec_ran = -1;
    struct instr in;
    memset(&in, 0, sizeof in);
    const char *why;
    in.kind = kind_from_config(op_kind_text(op), NULL, 0);
    if (op_inputs(op, &in.in, &why) == 0 && op_output(op, &in.out, &why) == 0) {
        *prec = op_format(&in);
        if (*prec >= 0)
            *prec_ran = chip_unit_precision(chip, op_unit(&in), (enum precision)*prec);
    }
    tensor_list_free(&in.in);
}

double chipsim_op_kernel_size(const struct op *op)
{
    if (op->kernel_class < 0)
        return -1;
    struct instr in;
    memset(&in, 0, sizeof in);
    const char *why;
    double n = -1;
    in.kind = kind_from_config(op_kind_text(op), NULL, 0);
    if (op_inputs(op, &in.in, &why) == 0 && op_output(op, &in.out, &why) == 0)
        n = op_kernel_size((enum kernel_class)op->kernel_class, &in, op);
    tensor_list_free(&in.in);
    return n;
}

void chip_formats_init(const struct chip_config *ch, struct chip_formats *f)
{
    f->chip = ch;
    memset(f->ran, -2, sizeof f->ran);
}

void chip_formats_need(struct chip_formats *f, enum chip_unit u, int p)
{
    if (f->ran[u][p] != -2)
        return;
    enum precision r = chip_unit_precision(f->chip, u, (enum precision)p);
    f->ran[u][p] = (int8_t)r;
    f->scale[u][p] = chip_unit_time_scale(f->chip, u, r);
    f->peak[u][p] = chip_unit_peak_tflops(f->chip, u, r);
}

enum chip_unit op_unit(const struct instr *in) { return matrix_kind(in->kind) ? UNIT_MATRIX : UNIT_VECTOR; }

/* Kernel class by kind; gemm is narrowed to gemv by size (op_kernel_class). */
static const int8_t class_of_kind[K_OTHER + 1] = {
    [K_EINSUM] = KC_gemm, [K_BATCHMATMUL] = KC_gemm, [K_CONV2D] = KC_gemm,
    [K_FLASH_ATTENTION] = KC_attention,
    [K_LAYERNORM] = KC_reduction, [K_GROUPNORM] = KC_reduction, [K_RMSNORM] = KC_reduction,
    [K_SOFTMAX] = KC_softmax, [K_GELU] = KC_activation, [K_SILU] = KC_activation,
    [K_ADD] = KC_elementwise, [K_MUL] = KC_elementwise, [K_ABS] = KC_elementwise,
    [K_PW_MUL] = KC_elementwise,
    [K_RELU] = KC_elementwise, [K_UPSAMPLE] = KC_elementwise, [K_AVGPOOL] = KC_elementwise,
    [K_REDUCE_SCATTER] = KC_collective, [K_ALL_REDUCE] = KC_collective, [K_ALL_GATHER] = KC_collective,
    [K_ALL_TO_ALL] = KC_collective, [K_IC_IN] = KC_collective, [K_IC_OUT] = KC_collective,
    [K_KVSWAP_IN] = KC_collective, [K_KVSWAP_OUT] = KC_collective,
    [K_OTHER] = KC_elementwise,
};

enum kernel_class op_kernel_class(const struct instr *in, const struct op *op)
{
    enum kernel_class k = (enum kernel_class)class_of_kind[in->kind];
    if (k == KC_gemm && op->reads_kv_cache)
        return KC_decode_attention;
    if (k == KC_gemm && kernel_is_gemv(op->einsum_m, op->einsum_n))
        return KC_gemv;   /* a grouped GEMM of a few rows an expert streams its weights as a GEMV does */
    return k == KC_gemm && op->grouped ? KC_grouped_gemm : k;
}

double op_kernel_size(enum kernel_class k, const struct instr *in, const struct op *op)
{
    switch (k) {
    case KC_gemm:
    case KC_grouped_gemm:
    case KC_gemv:
    case KC_attention:
    case KC_decode_attention:
        return (double)op->einsum_b * (double)op->einsum_m * (double)op->einsum_n * (double)op->einsum_k;
    case KC_collective:
        return (double)op->bytes;
    default:
        return (double)tensor_elems(in->in.n > 0 ? &in->in.t[0] : &in->out);
    }
}

/* Rows a weight-only kernel dequantises its weights for once (a tile of the
 * activations' rows): 128, a TPU array's side and a GPU kernel's largest M
 * tile. */
#define DEQUANT_ROWS 128

int block_scales_of(const struct cs_ctx *c, const struct instr *in, const struct einsum_axes *ax,
                    struct block_scales *bs)
{
    memset(bs, 0, sizeof *bs);
    if (c->op->form.layout != FORM_TEXT && !c->op->form.scale_k)
        return 0;   /* a generated op without block scales: the common case, decided here */
    char dt[OP_DTYPE_MAX];
    int64_t sk, sn;
    if (op_block_scales(c->op, &sk, &sn, dt))
        return cs_errf(c, "config: expected block_scales=KxN:DT_<TYPE> with K and N from 1 to 65535, got \"%s\"",
                       cs_config_text(c));
    if (!sk)
        return 0;
    int bits = cs_dtype_bits(dt, false), lb = cs_dtype_bits(in->in.t[0].dtype, false),
        rb = cs_dtype_bits(in->in.t[1].dtype, false);
    if (bits < 0)
        return cs_errf(c, "config: expected block scales of a supported dtype, got \"%s\"", dt);
    bool act = lb > 0 && lb <= 8, wgt = rb > 0 && rb <= 8;
    if (!act && !wgt)
        return 0;
    int64_t kb = ceil_div(ax->k, sk), nb = ceil_div(ax->n, sn);
    bs->bytes = wgt ? bits_to_bytes(ax->b * kb * nb, bits) : 0;
    if (c->chip->matrix_block_scales && !c->prof->chip_precisions_ignored) {
        /* the MMA applies the scales (Blackwell): only their bytes */
        bs->bytes += act ? bits_to_bytes(ax->b * ax->m * kb, bits) : 0;
        return 0;
    }
    if (act) {
        /* partial sums promoted once per K block; activations quantised
         * (max, scale, cast) as they are read */
        bs->bytes += bits_to_bytes(ax->b * ax->m * kb, bits);
        bs->vector_elems = 2 * ax->b * ax->m * ax->n * kb + 3 * ax->b * ax->m * ax->k;
    } else {
        /* weights dequantised (scale and convert) once per tile of rows */
        bs->vector_elems = 2 * ax->b * ax->k * ax->n * ceil_div(ax->m, DEQUANT_ROWS);
    }
    /* The rescaling runs in the scales' format (fp32 partial sums), not the
     * operands': its elements are weighed by that format's vector rate
     * against the op's (c->vu_scale), physical profile only. */
    int sp = c->prof->chip_precisions_ignored ? -1 : precision_of_token(dt);
    if (sp >= 0 && c->vu_scale > 0) {
        enum precision ran = chip_unit_precision(c->chip, UNIT_VECTOR, (enum precision)sp);
        bs->vector_elems = (int64_t)ceil((double)bs->vector_elems *
                                         chip_unit_time_scale(c->chip, UNIT_VECTOR, ran) / c->vu_scale);
    }
    return 0;
}
