/* builders_conv.h — convolution and spatial resampling op builders
 * (opsgen.md §3.5–§3.6), used by the UNet of GLIGEN.
 *
 * Tensors are NCHW: input [B, Cin, H, W], kernel [Cin, Cout, kh, kw]. Like
 * the primitive builders (builders.h) each call appends one op with the
 * reference's config string, shape strings, sanitised name, FLOPs and
 * weight bytes, and returns it (valid until the next push), or NULL when the
 * arguments cannot describe a real op (non-positive sizes, a kernel larger
 * than the padded input). Callers validate configs first, so NULL is an
 * internal error for them.
 *
 * Main data structure: struct conv2d_args, one convolution's geometry. */
#ifndef NPUSIM_BUILDERS_CONV_H
#define NPUSIM_BUILDERS_CONV_H

#include <stdint.h>

#include "opsgen/builders.h"

struct conv2d_args {
    int64_t B, cin, h, w;        /* input [B, cin, h, w] */
    int64_t cout, kh, kw;        /* kernel [cin, cout, kh, kw] */
    int64_t stride, pad, dil;    /* same in both spatial dims; dil 0 means 1 */
};

/* PyTorch's output size floor((in + 2p - d(k-1) - 1)/s + 1); <= 0 if the
 * kernel does not fit the padded input. */
int64_t conv_out_dim(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil);

/* Conv2D, opcode "Conv2D" (MXU): description = prefix + "Conv2d", name
 * argument "conv2d"; FLOPs = 2 * B * Ho * Wo * prod(kernel); weight bytes =
 * prod(kernel) * element size. */
struct op *b_conv2d(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *prefix,
                    const struct conv2d_args *a, const char *dtype);

/* Upsample (VPU, opcode "Upsample"): [B, C, h, w] -> [B, C, h*s, w*s], 0 FLOPs. */
struct op *b_upsample(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc, int64_t B,
                      int64_t C, int64_t h, int64_t w, int64_t scale, const char *dtype);

#endif
