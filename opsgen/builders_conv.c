/* builders_conv.c — Conv2D, Upsample and Downsample builders (see
 * builders_conv.h; opsgen.md §3.5–§3.6). */
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

/* The Conv2D record shared by b_conv2d and the conv flavour of downsample. */
static struct op *conv_op(struct trace *t, int64_t fid, int64_t count, const char *desc,
                          const char *name, struct shape in, struct shape k, struct shape out,
                          int64_t stride, int64_t pad, const char *dtype)
{
    struct op *op = bld_push(t, fid, count, desc, name, OP_MXU, OPC_CONV2D, "Conv2D");
    op->stats_kind = STATS_EINSUM;
    /* The window's size is the kernel's (k's last two dims). */
    bld_layout(op, FORM_CONV, "Conv2D", "bf01;io01->bf01", "0_0_0");
    op->form.stride = stride;
    op->form.pad = pad;
    bld_in2(op, in, k, dtype);
    bld_out(op, out, dtype);
    /* Every output element of every batch costs one MAC per kernel element
     * (Cin x Cout x kh x kw counted together). */
    op->flops = bmul(bmul(bmul(bmul(2, out.d[0]), out.d[2]), out.d[3]), shape_prod(k));
    return op;
}

struct op *b_conv2d(struct trace *t, int64_t fid, int64_t count, const char *prefix,
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
    struct op *op = conv_op(t, fid, count, desc, "conv2d", SHP(a->B, a->cin, a->h, a->w), k,
                            SHP(a->B, a->cout, ho, wo), a->stride, a->pad, dtype);
    op->weight_bytes = bmul(shape_prod(k), dtype_bytes(dtype));
    return op;
}

/* "<Kind>(a=1x320x64x64,scale_factor=2,memory_placements=0_0_0,type=DT)" */
static struct op *resample_op(struct trace *t, int64_t fid, int64_t count, const char *desc,
                              const char *name, const char *kind, struct shape in,
                              struct shape out, int64_t scale, const char *dtype)
{
    struct op *op = bld_push(t, fid, count, desc, name, OP_VPU, OPC_UP_DOWN_SAMPLE, kind);
    bld_layout(op, FORM_RESAMPLE, kind, NULL, "0_0_0");
    op->form.scale = scale;
    bld_in1(op, in, dtype);
    bld_out(op, out, dtype);
    return op;
}

static bool resample_ok(int64_t B, int64_t C, int64_t h, int64_t w, int64_t scale)
{
    return B > 0 && C > 0 && h > 0 && w > 0 && scale > 0;
}

struct op *b_upsample(struct trace *t, int64_t fid, int64_t count, const char *desc, int64_t B,
                      int64_t C, int64_t h, int64_t w, int64_t scale, const char *dtype)
{
    if (!resample_ok(B, C, h, w, scale))
        return NULL;
    struct op *op = resample_op(t, fid, count, desc, "Upsample", "Upsample", SHP(B, C, h, w),
                                SHP(B, C, h * scale, w * scale), scale, dtype);
    op->flops = 0;   /* a copy: no arithmetic */
    return op;
}

static int64_t halved(int64_t x, int64_t s) { return x / s > 1 ? x / s : 1; }

struct op *b_downsample(struct trace *t, int64_t fid, int64_t count, const char *desc, int64_t B,
                        int64_t C, int64_t h, int64_t w, int64_t scale, bool use_conv,
                        const char *dtype)
{
    if (!resample_ok(B, C, h, w, scale))
        return NULL;
    struct shape in = SHP(B, C, h, w), out = SHP(B, C, halved(h, scale), halved(w, scale));
    if (use_conv)   /* weight bytes stay 0: the reference never sets them for this op */
        return conv_op(t, fid, count, desc, "Downsample", in, SHP(C, C, scale, scale), out, 1, 1, dtype);
    struct op *op = resample_op(t, fid, count, desc, "Downsample", "AvgPool2d", in, out, scale, dtype);
    op->flops = shape_prod(in) + shape_prod(out);   /* each at most 2^48 */   /* one add per input, one divide per output */
    return op;
}
