/* compute.c — MXU and VPU time of one op by kind (chipsim.md §5).
 *
 * Two primitives turn op counts into ns: mxu_time (sa_dim^3 matmul "ops"
 * spread over num_sa arrays, +2 pipeline-fill ops, a 100-cycle floor) and
 * vpu_time (8x128 vector ops, one per cycle per VU). Each kind maps its
 * shapes to op counts; einsums may fall back to the VPU when tiny (chipsim Q22).
 * Every division that the reference performs on Python ints goes through
 * py_div so that ceil() sees the same double. */
#include "chipsim/cs_internal.h"

#include <math.h>
#include <string.h>

static int64_t max3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a > b ? a : b;
    return m > c ? m : c;
}

static int64_t mxu_time(const struct cs_ctx *c, int64_t n)
{
    const struct chip_config *ch = c->chip;
    double f = ch->freq_GHz;
    int64_t floor_ns = cs_ceil(c, (double)ch->sa_dim / 128 * 100 / f);
    /* The achieved fraction of the MXU rate (mxu_efficiency, calibration data;
     * the reference: 1). */
    double eff = c->prof->mxu_efficiency_ignored ? 1.0 : ch->mxu_efficiency;
    int64_t busy = cs_ceil(c, py_div((n + 2) * ch->sa_dim, ch->num_sa) / f / eff * c->mx_scale);
    return max3(floor_ns, busy, 1);
}

static int64_t vpu_time(const struct cs_ctx *c, int64_t n)
{
    double cyc = ceil(py_div(n, c->chip->num_vu));
    double t = cyc / c->chip->freq_GHz * c->vu_scale;
    /* chipsim Q5: the reference truncates here while element-wise ops round up. */
    int64_t ns = c->prof->vpu_time_truncates ? cs_trunc(c, t) : cs_ceil(c, t);
    return ns > 1 ? ns : 1;
}

static int64_t tmax(int64_t a, int64_t b) { return a > b ? a : b; }

static int64_t vpu_cycles_ns(const struct cs_ctx *c, int64_t x);

/* Rejects an op beyond NPU_MAX_OP_MACS (counted in double: cannot overflow). */
static int check_macs(const struct cs_ctx *c, double macs)
{
    if (macs <= (double)NPU_MAX_OP_MACS)
        return 0;
    return cs_errf(c, "in_shapes: expected at most 2^56 multiply-accumulates per op, got %.3g from \"%s\"",
                   macs, cs_in_text(c));
}

/* strchr(s, ch) != NULL for the short axis-letter strings (at most 8), inline. */
static bool has_letter(const char *s, char ch)
{
    for (; *s; s++)
        if (*s == ch)
            return true;
    return false;
}

int einsum_classify(const struct cs_ctx *c, const struct instr *in, struct einsum_axes *ax)
{
    (void)c;
    const struct tensor *L = &in->in.t[0], *R = &in->in.t[1];
    /* The index lists are read only up to their counts: no need to clear them. */
    ax->nb = ax->nr = ax->nl = ax->nn = 0;
    ax->b = ax->m = ax->n = ax->k = 1;
    for (int i = 0; in->lhs[i]; i++) {
        bool in_r = has_letter(in->rhs, in->lhs[i]), in_o = has_letter(in->outl, in->lhs[i]);
        if (in_r && !in_o) {
            ax->red[ax->nr++] = i;
            ax->k *= L->dims[i];
        } else if (in_r) {
            ax->batch[ax->nb++] = i;
            ax->b *= L->dims[i];
        } else {
            ax->lnr[ax->nl++] = i;
            ax->m *= L->dims[i];
        }
    }
    for (int i = 0; in->rhs[i]; i++)
        if (!has_letter(in->lhs, in->rhs[i])) {
            ax->rnr[ax->nn++] = i;
            ax->n *= R->dims[i];
        }
    return 0;
}

const struct einsum_axes *einsum_axes_of(const struct cs_ctx *c, const struct instr *in,
                                         struct einsum_axes *local)
{
    if (c->axes)
        return c->axes;
    einsum_classify(c, in, local);
    return local;
}

/* The array tile-ops a GEMM of `ops` such ops takes when it runs in whole
 * waves of num_sa output tiles of gemm_tile_m x gemm_tile_n (physical; the
 * chip sets the tile): tiles = b ceil(m / Tm) ceil(n / Tn), each of
 * ceil(Tm / s) ceil(Tn / s) ceil(k / s) ops, the last wave padded to
 * num_sa tiles. As GEMM libraries pick their tiles and splits by shape: a
 * side shorter than its tile takes the smallest power of two at least s
 * that holds it (a decode GEMM's few rows), and a GEMM of fewer tiles than
 * units splits k over the idle ones (split-K), in whole chunks of s, into
 * at most gemm_split_k_max pieces when the chip's library caps it (0: no
 * cap; matrix-vector kernels of up to KERNEL_GEMV_MAX_ROWS rows are never
 * capped). Never fewer than ops. */
static int64_t tile_side(int64_t len, int64_t tile, int64_t s)
{
    int64_t t = s;
    while (t < len && t < tile)
        t *= 2;
    return t < tile ? t : tile;
}

static int64_t wave_ops(const struct cs_ctx *c, const struct einsum_axes *ax, int64_t ops)
{
    const struct chip_config *ch = c->chip;
    if (c->prof->chip_precisions_ignored || ch->gemm_tile_m <= 0 || ch->gemm_tile_n <= 0 || ch->num_sa <= 0)
        return ops;
    int64_t s = ch->sa_dim, tm = tile_side(ax->m, ch->gemm_tile_m, s), tn = tile_side(ax->n, ch->gemm_tile_n, s);
    double tiles = (double)ax->b * (double)ceil_div(ax->m, tm) * (double)ceil_div(ax->n, tn);
    double kb = (double)ceil_div(ax->k, s), split = 1;
    if (tiles < (double)ch->num_sa)
        split = fmin(floor((double)ch->num_sa / tiles), kb);
    if (ch->gemm_split_k_max > 0 && !kernel_is_gemv(ax->m, ax->n))
        split = fmin(split, (double)ch->gemm_split_k_max);
    double per = (double)ceil_div(tm, s) * (double)ceil_div(tn, s) * ceil(kb / split);
    double w = ceil(tiles * split / (double)ch->num_sa) * (double)ch->num_sa * per;
    if (w >= 0x1p62)
        return ops;   /* check_macs has bounded the op; a padded count this large cannot be one */
    return (int64_t)w > ops ? (int64_t)w : ops;
}

static int compute_einsum(const struct cs_ctx *c, const struct instr *in, struct op *op, int64_t *sa,
                          int64_t *vu)
{
    struct einsum_axes local;
    const struct einsum_axes ax = *einsum_axes_of(c, in, &local);
    if (check_macs(c, (double)ax.b * (double)ax.m * (double)ax.n * (double)ax.k))
        return -1;
    int64_t s = c->chip->sa_dim;
    int64_t ops = ax.b * ceil_div(ax.m, s) * ceil_div(ax.n, s) * ceil_div(ax.k, s);
    op->einsum_b = ax.b;
    op->einsum_m = ax.m;
    op->einsum_n = ax.n;
    op->einsum_k = ax.k;
    op->num_sa_ops = ops;
    /* the vector units add each K chunk's partial sums, unless the matrix
     * units accumulate themselves (physical profile) */
    bool in_place = c->chip->matrix_accumulates && !c->prof->chip_precisions_ignored;
    int64_t mx_sa = mxu_time(c, wave_ops(c, &ax, ops)), mx_vu = in_place ? 0 : vpu_time(c, ops * chip_vu_mult(c->chip));
    int64_t m = ax.m, n = ax.n, k = ax.k;
    int64_t v1 = ceil_div(m, 8) * ceil_div(n, 128) * ceil_div(k, 8);
    int64_t v2 = ceil_div(m, 128) * ceil_div(n, 8) * ceil_div(k, 8);
    int64_t v3 = ceil_div(m, 8) * ceil_div(n, 8) * ceil_div(k, 128);
    int64_t v = v1 < v2 ? v1 : v2;
    v = ax.b * (v < v3 ? v : v3) * 2;
    int64_t vp_vu = vpu_time(c, v);
    /* chipsim Q22: the VPU path wins only when the MXU path is > 4x slower
     * (a VPU time past INT64_MAX / 4, a saturated overflow, never wins). */
    if (!c->chip->use_vu_for_small_matmul || vp_vu > INT64_MAX / 4 || tmax(mx_sa, mx_vu) <= 4 * vp_vu) {
        *sa = mx_sa;
        *vu = mx_vu;
    } else {
        *sa = 0;
        *vu = vp_vu;
    }
    /* Block scales: the rescaling runs on the vector units beside the MXU. */
    struct block_scales bs;
    if (block_scales_of(c, in, &ax, &bs))
        return -1;
    if (bs.vector_elems)
        *vu += vpu_cycles_ns(c, bs.vector_elems);
    return 0;
}

static int compute_fa(const struct cs_ctx *c, const struct instr *in, struct op *op, int64_t *sa,
                      int64_t *vu)
{
    const struct tensor *t = in->in.t;
    if (in->in.n < 3 || t[0].ndim != 4 || t[1].ndim != 4 || t[2].ndim != 4)
        return cs_errf(c, "in_shapes: expected Q,K,V as 4-D [batch,seqlen,heads,d_head], got \"%s\"",
                       cs_in_text(c));
    /* V may be narrower than Q and K (MiMo-V2-Flash's 128 beside 192): the
     * second product (softmax x V) then takes V's width */
    for (int i = 1; i < 3; i++)
        if (t[i].dims[0] != t[0].dims[0] || t[i].dims[2] != t[0].dims[2] || (i == 1 && t[i].dims[3] != t[0].dims[3]))
            return cs_errf(c, "in_shapes: expected Q,K,V with equal batch and heads, Q and K of equal d_head, "
                              "got \"%s\"", cs_in_text(c));
    if (t[1].dims[1] != t[2].dims[1])
        return cs_errf(c, "in_shapes: expected K and V with equal seqlen, got \"%s\"", cs_in_text(c));
    int64_t b = t[0].dims[0], q = t[0].dims[1], h = t[0].dims[2], d = t[0].dims[3], kv = t[1].dims[1];
    int64_t dv = t[2].dims[3];
    if (check_macs(c, (double)b * (double)h * (double)q * (double)kv * ((double)d + (double)dv)))
        return -1;
    int64_t s = c->chip->sa_dim;
    int64_t qk = h * b * ceil_div(kv, s) * ceil_div(q, s) * ceil_div(d, s);
    int64_t av = h * b * ceil_div(kv, s) * ceil_div(q, s) * ceil_div(dv, s);
    *sa = mxu_time(c, qk) + mxu_time(c, av);
    int64_t softmax = vpu_time(c, cs_ceil(c, py_div(4 * b * h * q * kv, 128) / 8));
    int64_t pv = vpu_time(c, qk * chip_vu_mult(c->chip)), pv_av = vpu_time(c, av * chip_vu_mult(c->chip));
    *vu = pv + softmax + pv_av;
    op->vu_softmax_ns = softmax;
    op->einsum_b = b * h;
    op->einsum_m = kv;
    op->einsum_n = q;
    op->einsum_k = d;
    op->num_sa_ops = qk + av;
    return 0;
}

static int conv_letter(char ch, bool lhs_or_out, bool is_out, int *role)
{
    /* roles: 0 batch, 1 input channel, 2 output channel, 3 spatial0, 4 spatial1 */
    if (ch == '0' || ch == '1')
        *role = 3 + (ch - '0');
    else if (lhs_or_out && ch == 'b')
        *role = 0;
    else if (lhs_or_out && ch == 'f')
        *role = is_out ? 2 : 1;
    else if (!lhs_or_out && ch == 'i')
        *role = 1;
    else if (!lhs_or_out && ch == 'o')
        *role = 2;
    else
        return -1;
    return 0;
}

int conv_classify(const struct cs_ctx *c, const struct instr *in, struct conv_axes *ax)
{
    size_t n = strlen(in->lhs);
    if (n < 2 || strlen(in->rhs) != n || strlen(in->outl) != n)
        return cs_errf(c, "config: expected conv dim labels of equal length >= 2, got \"%s\"", in->dim_labels);
    if (in->in.n < 2 || (size_t)in->in.t[0].ndim != n || (size_t)in->in.t[1].ndim != n ||
        (size_t)in->out.ndim != n)
        return cs_errf(c, "in_shapes/out_shape: expected input and kernel and output of rank %zu, got \"%s\" "
                       "-> \"%s\"", n, cs_in_text(c), cs_out_text(c));
    const char *labels[3] = {in->lhs, in->rhs, in->outl};
    int idx[3][5];
    for (int t = 0; t < 3; t++) {
        for (int r = 0; r < 5; r++)
            idx[t][r] = -1;
        for (size_t i = 0; i < n; i++) {
            int role;
            if (conv_letter(labels[t][i], t != 1, t == 2, &role) || idx[t][role] >= 0)
                return cs_errf(c, "config: expected conv labels with one b/f/0/1 (input, output) and "
                               "i/o/0/1 (kernel) each, got \"%s\"", in->dim_labels);
            idx[t][role] = (int)i;
        }
    }
    if (idx[0][0] < 0 || idx[0][1] < 0 || idx[0][3] < 0 || idx[0][4] < 0 || idx[1][1] < 0 ||
        idx[1][2] < 0 || idx[1][3] < 0 || idx[1][4] < 0 || idx[2][0] < 0 || idx[2][2] < 0 ||
        idx[2][3] < 0 || idx[2][4] < 0)
        return cs_errf(c, "config: expected conv labels with batch, channels and two spatial dims, got \"%s\"",
                       in->dim_labels);
    const int64_t *I = in->in.t[0].dims, *K = in->in.t[1].dims, *O = in->out.dims;
    ax->ib = idx[0][0], ax->iic = idx[0][1], ax->ih_i = idx[0][3], ax->iw_i = idx[0][4];
    ax->kic = idx[1][1], ax->koc = idx[1][2], ax->kh_i = idx[1][3], ax->kw_i = idx[1][4];
    ax->ob = idx[2][0], ax->ooc = idx[2][2], ax->oh_i = idx[2][3], ax->ow_i = idx[2][4];
    ax->b = I[ax->ib], ax->ic = I[ax->iic], ax->ih = I[ax->ih_i], ax->iw = I[ax->iw_i];
    ax->kh = K[ax->kh_i], ax->kw = K[ax->kw_i];
    ax->oc = O[ax->ooc], ax->oh = O[ax->oh_i], ax->ow = O[ax->ow_i];
    return 0;
}

static int compute_conv(const struct cs_ctx *c, const struct instr *in, struct op *op, int64_t *sa,
                        int64_t *vu)
{
    struct conv_axes ax;
    if (conv_classify(c, in, &ax))
        return -1;
    if (check_macs(c, (double)ax.oc * (double)ax.ic * (double)ax.kh * (double)ax.kw * (double)ax.b *
                          (double)ax.oh * (double)ax.ow))
        return -1;
    int64_t m = ax.oc, k = ax.ic * ax.kh * ax.kw, n = ax.b * ax.oh * ax.ow, s = c->chip->sa_dim;
    int64_t ops = ceil_div(m, s) * ceil_div(n, s) * ceil_div(k, s);
    *sa = mxu_time(c, ops);
    *vu = vpu_time(c, ops * chip_vu_mult(c->chip));
    op->einsum_b = ax.b;
    op->einsum_m = m;
    op->einsum_n = n;
    op->einsum_k = k;
    op->num_sa_ops = ops;
    return 0;
}

/* ceil(cycles / f) with cycles = ceil(x / vu_speed). */
static int64_t vpu_cycles_ns(const struct cs_ctx *c, int64_t x)
{
    double cyc = ceil(py_div(x, chip_vu_speed(c->chip)));
    return cs_ceil(c, cyc / c->chip->freq_GHz * c->vu_scale);
}

static int need_input(const struct cs_ctx *c, const struct instr *in)
{
    if (in->in.n == 0)
        return cs_errf(c, "in_shapes: expected at least one input tensor, got \"%s\"", cs_in_text(c));
    return 0;
}

int compute_time(const struct cs_ctx *c, const struct instr *in, struct op *op, int64_t *sa, int64_t *vu)
{
    *sa = *vu = 0;
    int mult = 1;
    switch (in->kind) {
    case K_EINSUM:
    case K_BATCHMATMUL:
        return compute_einsum(c, in, op, sa, vu);
    case K_FLASH_ATTENTION:
        return compute_fa(c, in, op, sa, vu);
    case K_CONV2D:
        return compute_conv(c, in, op, sa, vu);
    case K_LAYERNORM:
    case K_GROUPNORM:
        mult = 8;
        goto elementwise;
    case K_RMSNORM:
        mult = 6;
        goto elementwise;
    case K_SOFTMAX:
    case K_SILU:   /* x * sigmoid(x): exp, add, reciprocal, multiply */
        mult = 4;
        goto elementwise;
    case K_GELU:   /* the tanh form: x^3, fma, tanh, add, two multiplies and more */
        mult = 8;
        goto elementwise;
    case K_ADD:
    case K_MUL:
    case K_ABS:
    case K_RELU:
    case K_PW_MUL:
    elementwise:
        if (need_input(c, in))
            return -1;
        *vu = vpu_cycles_ns(c, mult * tensor_elems(&in->in.t[0]));
        return 0;
    case K_UPSAMPLE:
        return 0;
    case K_AVGPOOL:
        if (need_input(c, in))
            return -1;
        *vu = vpu_cycles_ns(c, tensor_elems(&in->out) + tensor_elems(&in->in.t[0]));
        return 0;
    case K_REDUCE_SCATTER:
    case K_ALL_REDUCE: {
        double cyc = ceil(py_div(op->flops, chip_vu_speed(c->chip)));
        /* chipsim Q6: the reference reports these cycles as ns. */
        *vu = c->prof->collective_vpu_time_in_cycles ? cs_trunc(c, cyc)
                                                     : cs_ceil(c, cyc / c->chip->freq_GHz * c->vu_scale);
        return 0;
    }
    case K_ALL_GATHER:
    case K_ALL_TO_ALL:
    case K_IC_IN:
    case K_IC_OUT:
    case K_KVSWAP_IN:
    case K_KVSWAP_OUT:
        return 0;
    case K_OTHER:
        break;
    }
    if (op->sa_ns > 0 || op->vu_ns > 0) {
        *sa = op->sa_ns;
        *vu = op->vu_ns;
        return 0;
    }
    if (op->flops > 0) {
        *vu = vpu_cycles_ns(c, op->flops);
        return 0;
    }
    return cs_errf(c, "config: kind \"%s\" has no cost model; expected pre-set MXU/VPU times or a positive "
                   "FLOP count, got 0", in->token);
}
