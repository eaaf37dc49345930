/* builders_conv.c — Conv2D and Upsample builders (see builders_conv.h;
 * opsgen.md §3.5–§3.6). */
#include "opsgen/builders_conv.h"

#include <stdio.h>

#include "traces/dtype.h"

int64_t conv_out_dim(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil)
{
    if (dil <= 0) dil = 1;
    if (stride <= 0) return 0;
    int64_t num = in + 2 * pad - dil * (k - 1) - 1;
    /* floor(num / s) + 1 with Python's floor for negative numerators. */
    int64_t q = num / stride;
    if (num % stride && num < 0) q--;
    return q + 1;
}

struct op *b_conv2d(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *prefix,
                    const struct conv2d_args *a, const char *dtype)
{
    int64_t ho = conv_out_dim(a->h, a->kh, a->stride, a->pad, a->dil);
    int64_t wo = conv_out_dim(a->w, a->kw, a->stride, a->pad, a->dil);
    if (a->B <= 0 || a->cin <= 0 || a->cout <= 0 || a->kh <= 0 || a->kw <= 0 || ho <= 0 ||
        wo <= 0 || a->pad < 0 || dtype_bytes(dtype) <= 0)
        return NULL;
    char desc[SBUF];
    snprintf(desc, sizeof desc, "%sConv2d", prefix);
    struct shape k = SHP(a->cin, a->cout, a->kh, a->kw);
    struct op *op = bld_push(t, fid, count, desc, "conv2d", OP_MXU, OPC_CONV2D, "Conv2D");
    op->stats_kind = STATS_EINSUM;
    bld_layout(op, FORM_CONV, "Conv2D", "bf01;io01->bf01", "0_0_0");   /* window size: k's last two dims */
    op->form.stride = a->stride;
    op->form.pad = a->pad;
    bld_in2(op, SHP(a->B, a->cin, a->h, a->w), k, dtype);
    bld_out(op, SHP(a->B, a->cout, ho, wo), dtype);
    /* Every output element of every batch costs one MAC per kernel element
     * (Cin x Cout x kh x kw counted together). */
    op->flops = bmul(ovf, bmul(ovf, bmul(ovf, bmul(ovf, 2, a->B), ho), wo), shape_prod(ovf, k));
    op->weight_bytes = bmul(ovf, shape_prod(ovf, k), dtype_bytes(dtype));
    return op;
}

struct op *b_upsample(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc, int64_t B,
                      int64_t C, int64_t h, int64_t w, int64_t scale, const char *dtype)
{
    (void)ovf;   /* no size to check: a copy */
    if (B <= 0 || C <= 0 || h <= 0 || w <= 0 || scale <= 0)
        return NULL;
    struct op *op = bld_push(t, fid, count, desc, "Upsample", OP_VPU, OPC_UP_DOWN_SAMPLE, "Upsample");
    bld_layout(op, FORM_RESAMPLE, "Upsample", NULL, "0_0_0");
    op->form.scale = scale;
    bld_in1(op, SHP(B, C, h, w), dtype);
    bld_out(op, SHP(B, C, h * scale, w * scale), dtype);
    op->flops = 0;   /* a copy: no arithmetic */
    return op;
}
