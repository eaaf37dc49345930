/* traffic.c — HBM bytes of one op (chipsim.md §6), with the tile searches.
 *
 * Einsum and conv ops whose operands do not fit in VMEM search over tile
 * sizes that divide each aggregated dimension (ascending divisor lists) and
 * keep the candidate with the largest key (-cost, ..., ops, -traffic,
 * -tile bytes); among equal keys the one visited last wins, as the
 * reference takes the last element of a stable ascending sort. Because tile
 * bytes grow with the innermost tile size, the innermost loop stops at the
 * first size that overflows VMEM. Flash attention uses a closed-form block
 * size. tile_shapes is the Python repr of the per-tensor tiles. */
#include "chipsim/cs_internal.h"
#include "base/strbuf.h"
#include "base/dmemo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Divisor lists recur across a sweep's searches (the same m, n, k again and
 * again) and trial division up to sqrt(n) costs far more than a copy: a
 * small per-thread direct-mapped memo keeps recent lists of up to
 * DIV_MEMO_MAX divisors. */
#define DIV_MEMO_MAX 64               /* 256 slots: ~135 KiB per thread */
struct div_list {
    size_t count;
    int64_t d[DIV_MEMO_MAX];
};
DMEMO(div_memo, int64_t, struct div_list, 8)   /* base/dmemo.h */

static int divisors_uncached(int64_t n, int64_t **out, size_t *count);

/* Ascending positive divisors of n (n > 0); *out is malloc'ed. */
static int divisors(int64_t n, int64_t **out, size_t *count)
{
    uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15ull;
    const struct div_list *m = div_memo_get(&n, h);
    if (m) {
        if (!(*out = malloc((m->count + 1) * sizeof **out)))
            return -1;
        memcpy(*out, m->d, m->count * sizeof **out);
        *count = m->count;
        return 0;
    }
    if (divisors_uncached(n, out, count))
        return -1;
    struct div_list *put = *count <= DIV_MEMO_MAX ? div_memo_put(&n, h) : NULL;
    if (put) {
        put->count = *count;
        memcpy(put->d, *out, *count * sizeof **out);
    }
    return 0;
}

static int divisors_uncached(int64_t n, int64_t **out, size_t *count)
{
    size_t cap = 64, k = 0, nhi = 0;
    int64_t *lo = malloc(cap * sizeof *lo), *hi = malloc(cap * sizeof *hi);
    if (!lo || !hi)
        goto oom;
    for (int64_t i = 1; i <= n / i; i++) {
        if (n % i)
            continue;
        if (k == cap || nhi == cap) {
            cap *= 2;
            int64_t *a = realloc(lo, cap * sizeof *a);
            if (!a)
                goto oom;
            lo = a;
            int64_t *b = realloc(hi, cap * sizeof *b);
            if (!b)
                goto oom;
            hi = b;
        }
        lo[k++] = i;
        if (i != n / i)
            hi[nhi++] = n / i;
    }
    int64_t *all = realloc(lo, (k + nhi + 1) * sizeof *all);
    if (!all)
        goto oom;
    for (size_t j = 0; j < nhi; j++)
        all[k + j] = hi[nhi - 1 - j];
    free(hi);
    *out = all;
    *count = k + nhi;
    return 0;
oom:
    free(lo);
    free(hi);
    return -1;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Candidate key (chipsim.md §6.1 step 3), compared lexicographically. */
struct key {
    double opc_neg, second;
    int64_t ops, acc_neg, ts_neg;
};

static struct key make_key(double mxc, double memc, int64_t ops, int64_t acc, int64_t ts)
{
    struct key k;
    double opc = mxc > memc ? mxc : memc;
    k.opc_neg = -opc;
    k.second = mxc > memc ? memc * -1 : -mxc;
    k.ops = ops;
    k.acc_neg = -acc;
    k.ts_neg = -ts;
    return k;
}

/* a >= b: the later-visited candidate a wins ties. */
static bool key_ge(const struct key *a, const struct key *b)
{
    if (a->opc_neg != b->opc_neg)
        return a->opc_neg > b->opc_neg;
    if (a->second != b->second)
        return a->second > b->second;
    if (a->ops != b->ops)
        return a->ops > b->ops;
    if (a->acc_neg != b->acc_neg)
        return a->acc_neg > b->acc_neg;
    return a->ts_neg >= b->ts_neg;
}

int64_t cs_vmem_bytes(const struct cs_ctx *c)
{
    const struct mem_levels *l = &c->chip->memory_levels;
    if (c->vmem_cap > 0)
        return c->vmem_cap;
    return l->n ? (int64_t)(l->l[l->n - 1].capacity_KiB * 1024) : c->chip->vmem_size_MB * 1024 * 1024;
}

/* memc denominator: bytes per cycle, (hbm*2^30)/(1e9*f) with the reference's
 * GB of 2^30 B (quirk chipsim Q11), else hbm/f. */
static double mem_rate(const struct cs_ctx *c)
{
    const struct chip_config *ch = c->chip;
    if (c->prof->hbm_pcie_GB_is_GiB)
        return ch->hbm_bw_GBps * 1024 * 1024 * 1024 / (1e9 * ch->freq_GHz);
    return ch->hbm_bw_GBps / ch->freq_GHz;
}

/* The element width of dt in bits (*bits) and whole bytes (*out: what the
 * tile searches pack into VMEM; a 4-bit format takes a byte there). */
static int dtype_width(const struct cs_ctx *c, const char *field, const char *dt, bool bracketed, int *out,
                       int *bits)
{
    *bits = cs_dtype_bits(dt, bracketed && c->prof->bracketed_float_dtype_fails);
    *out = (*bits + 7) / 8;
    if (*bits < 0)
        return cs_errf(c, "%s: expected a supported dtype (4/8/16/32/64-bit, BOOL, DT_FLOAT, DT_INT), got \"%s%s\"",
                       field, bracketed ? "[" : "", dt);
    return 0;
}

static int dtype_or_err(const struct cs_ctx *c, const char *field, const char *dt, bool bracketed, int *out)
{
    int bits;
    return dtype_width(c, field, dt, bracketed, out, &bits);
}

/* The bytes of elems elements of bits each: the reference's double product
 * for whole bytes (as it computes them), rounded up for 4-bit formats. */
static int64_t width_bytes(double elems, int bits)
{
    return bits % 8 == 0 ? (int64_t)(elems * (bits / 8)) : (int64_t)ceil(elems * bits / 8);
}

static int set_tiles(struct op *op, const int64_t *const *rows, const int *lens)
{
    struct op_tiling *t = &op->tiling;
    t->rows = OP_TILE_ROWS;
    for (int r = 0; r < OP_TILE_ROWS; r++) {
        t->len[r] = (int8_t)lens[r];
        memcpy(t->d[r], rows[r], (size_t)lens[r] * sizeof rows[r][0]);
    }
    return 0;
}

/* Split s over the axes idx (sizes from dims), largest first (stable). */
static void split_axes(const int *idx, int n, const int64_t *dims, int64_t s, int64_t *tile)
{
    int ord[NPU_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j > 0 && dims[ord[j - 1]] < dims[idx[i]]) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = idx[i];
    }
    for (int i = 0; i < n; i++) {
        int64_t g = gcd64(dims[ord[i]], s);
        tile[ord[i]] = dims[ord[i]] / g;
        s /= g;
    }
}

static void mirror(const char *from_labels, const int *idx, int n, const int64_t *from, const char *to_labels,
                   int64_t *to)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; to_labels[j]; j++)
            if (to_labels[j] == from_labels[idx[i]])
                to[j] = from[idx[i]];
}

int search_einsum_uncached(const struct cs_ctx *c, const struct einsum_axes *ax, int lb, int rb, int ob,
                           double rate, double mxc, int64_t *bMf, int64_t *bNf, int64_t *bKf)
{
    int64_t *dm = NULL, *dn = NULL, *dk = NULL, *ck = NULL;
    size_t nm, nn, nk;
    int rc = -1;
    if (divisors(ax->m, &dm, &nm) || divisors(ax->n, &dn, &nn) || divisors(ax->k, &dk, &nk)) {
        cs_errf(c, "tile search: out of memory");
        goto out;
    }
    const int64_t S = c->chip->sa_dim, VMEM = cs_vmem_bytes(c), mnk = ax->m * ax->n * ax->k;
    /* Per-divisor terms hoisted out of the (Mf, Nf) loop, each computed by the
     * same expression as before: ck = MXU tiles along K, cn = along N, and
     * lhs_reads = LHS bytes re-read once per N tile. */
    ck = malloc((nk + 2 * nn) * sizeof *ck);
    if (!ck) {
        cs_errf(c, "tile search: out of memory");
        goto out;
    }
    int64_t *cn = ck + nk, *lhs_reads = cn + nn;
    for (size_t l = 0; l < nk; l++)
        ck[l] = ceil_div(dk[l], S);
    for (size_t j = 0; j < nn; j++) {
        cn[j] = ceil_div(dn[j], S);
        lhs_reads[j] = (int64_t)(ceil(py_div(mnk, dn[j])) * lb);
    }
    for (int64_t LB = 10; LB >= 1; LB--) {
        bool found = false;
        struct key best = {0};
        for (size_t i = 0; i < nm; i++) {
            const int64_t Mf = dm[i], rhs_reads = (int64_t)(ceil(py_div(mnk, Mf)) * rb);
            const int64_t cm = ceil_div(Mf, S);
            /* The smallest tile of (Mf, the smallest Nf) overflows VMEM: so do
             * all later Mf (tile bytes grow with Mf and Nf; dtype widths > 0). */
            if (Mf * dn[0] * ob + dk[0] * (Mf * lb + dn[0] * rb) > VMEM)
                break;
            /* Largest Kf index that fits: tile bytes grow with Nf, so it
             * never rises along j; walk it down from the last one. */
            size_t kmax = nk - 1;
            for (size_t j = 0; j < nn; j++) {
                const int64_t Nf = dn[j];
                /* Within one (Mf, Nf) every candidate shares cost and traffic;
                 * tile bytes grow strictly with Kf and ops never shrink, so the
                 * best Kf is the smallest one reaching the largest feasible ops. */
                const int64_t base = Mf * Nf * ob, per = Mf * lb + Nf * rb;
                if (base + dk[0] * per > VMEM)
                    break;   /* and every larger Nf */
                const int64_t mn_ops = cm * cn[j];
                int64_t acc = ax->b * (ax->m * ax->n * ob + lhs_reads[j] + rhs_reads);
                double memc = (double)acc / rate;
                while (kmax > 0 && base + dk[kmax] * per > VMEM)
                    kmax--;
                size_t lo = kmax;
                int64_t ops = mn_ops * ck[lo] < 3 ? 3 : mn_ops * ck[lo];
                if (ops <= LB)
                    continue;
                while (lo > 0 && (mn_ops * ck[lo - 1] < 3 ? 3 : mn_ops * ck[lo - 1]) == ops)
                    lo--;
                int64_t Kf = dk[lo], ts = base + Kf * per;
                struct key k = make_key(mxc, memc, ops, acc, ts);
                if (!found || key_ge(&k, &best)) {
                    best = k;
                    *bMf = Mf, *bNf = Nf, *bKf = Kf;
                    found = true;
                }
            }
        }
        if (found) {
            rc = 0;
            goto out;
        }
    }
    cs_errf(c, "tile search: expected a tile that fits in %lld bytes of VMEM, got none",
            (long long)VMEM);
out:
    free(ck);
    free(dm);
    free(dn);
    free(dk);
    return rc;
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* Tag of the first key word: which search a memo entry belongs to. */
enum { MEMO_EINSUM = 1, MEMO_CONV = 2 };

/* The first two key words only rank candidates by memc = acc / rate: with
 * opc = max(mxc, memc), a smaller memc never loses on (-opc, second) and an
 * equal one ties (case by case: both below mxc, both at or above it, one on
 * each side). So when acc -> memc is strictly increasing, the winner is the
 * same for every rate and every mxc, and the search may run with rate 1 and
 * mxc 0, where memc is acc itself. Division by a finite rate > 0 is
 * correctly rounded and monotone; it is strict when the largest acc is below
 * 2^52 (two accs differ by at least 1, i.e. 1/rate, more than an ulp of
 * acc/rate). acc never exceeds b (m n ob + m n k (lb + rb)), its value at
 * 1x1x1 tiles; the bound is taken in double with room for its rounding.
 * Sweeps of HBM bandwidth, clock or anything that only moves compute time
 * then share one memo entry per shape. */
static bool search_rate_free(const struct einsum_axes *ax, int lb, int rb, int ob, double rate)
{
    double mn = (double)ax->m * (double)ax->n;
    double acc_max = (double)ax->b * (mn * ob + mn * (double)ax->k * (lb + rb));
    return isfinite(rate) && rate > 0 && acc_max < 0x1p51;
}

/* search_einsum_uncached through the per-thread memo (tile_memo.c). */
static int search_einsum(const struct cs_ctx *c, const struct einsum_axes *ax, int lb, int rb, int ob,
                         int64_t compute_ns, int64_t *bMf, int64_t *bNf, int64_t *bKf)
{
    double rate = mem_rate(c), mxc = (double)compute_ns * c->chip->freq_GHz;
    if (search_rate_free(ax, lb, rb, ob, rate))
        rate = 1.0, mxc = 0.0;
    /* Every input of the search: sizes, dtype widths, sa_dim, VMEM, and the
     * two doubles it derives from the chip and compute time. */
    const struct tile_memo_key key = {{
        MEMO_EINSUM, (uint64_t)ax->b, (uint64_t)ax->m, (uint64_t)ax->n, (uint64_t)ax->k,
        (uint64_t)lb, (uint64_t)rb, (uint64_t)ob, (uint64_t)c->chip->sa_dim,
        (uint64_t)cs_vmem_bytes(c), dbits(rate), dbits(mxc),
    }};
    int64_t v[TILE_MEMO_VALS] = {0};
    if (tile_memo_get(&key, v)) {
        *bMf = v[0], *bNf = v[1], *bKf = v[2];
        return 0;
    }
    if (search_einsum_uncached(c, ax, lb, rb, ob, rate, mxc, bMf, bNf, bKf))
        return -1;
    v[0] = *bMf, v[1] = *bNf, v[2] = *bKf;
    tile_memo_put(&key, v);
    return 0;
}

/* Under the physical profile a chip with memory levels (the GPU presets)
 * tiles as GPU libraries do, with ragged edge tiles: its tile search runs
 * over each size rounded up to whole arrays (a multiple of sa_dim). The
 * reference's search takes only divisors, so a row count without a useful
 * one (a serving pass of 8053 tokens, a prime) got one-row tiles that
 * re-read the weights 8053 times through shared memory: 5x the time of
 * 8052 rows. The bytes are then the padded GEMM's, at most sa_dim - 1 rows
 * or columns more a side. */
static bool pads_tiles(const struct cs_ctx *c)
{
    return c->chip->memory_levels.n > 0 && !c->prof->chip_precisions_ignored;
}

static int64_t pad_dim(int64_t d, int64_t s) { return d > s ? ceil_div(d, s) * s : d; }

static int traffic_einsum(const struct cs_ctx *c, const struct instr *in, struct op *op, int64_t compute_ns,
                          int64_t *bytes)
{
    struct einsum_axes local;
    const struct einsum_axes ax0 = *einsum_axes_of(c, in, &local);
    struct einsum_axes ax = ax0;
    const bool padded = pads_tiles(c);
    if (padded) {
        ax.m = pad_dim(ax.m, c->chip->sa_dim);
        ax.n = pad_dim(ax.n, c->chip->sa_dim);
        ax.k = pad_dim(ax.k, c->chip->sa_dim);
    }
    const struct tensor *L = &in->in.t[0], *R = &in->in.t[1], *O = &in->out;
    int lb, rb, ob, lbits, rbits, obits;
    if (dtype_width(c, "in_shapes", L->dtype, false, &lb, &lbits) ||
        dtype_width(c, "in_shapes", R->dtype, false, &rb, &rbits) ||
        dtype_width(c, "out_shape", O->dtype, in->ob_bracketed, &ob, &obits))
        return -1;
    const int64_t S = c->chip->sa_dim, VMEM = cs_vmem_bytes(c);
    const int64_t b = ax.b, pm = ax.m, pn = ax.n, pk = ax.k;   /* the searched (padded) sizes */
    int64_t kk = 8 * S < pk ? 8 * S : pk;
    op->max_vmem_demand_bytes = ob * pm * pn + lb * pm * kk + rb * kk * pn;
    int64_t tot = lb * pm * pk * b + rb * pk * pn * b + ob * pm * pn * b;
    int64_t lt[NPU_MAX_DIMS], rt[NPU_MAX_DIMS], ot[NPU_MAX_DIMS];
    /* the GEMM whose bytes are counted: the real one when it fits whole */
    int64_t m = ax0.m, n = ax0.n, k = ax0.k, Mf = m, Nf = n, Kf = k;
    if (tot <= VMEM) {
        memcpy(lt, L->dims, sizeof lt);
        memcpy(rt, R->dims, sizeof rt);
        memcpy(ot, O->dims, sizeof ot);
    } else {
        if (pm <= 0 || pn <= 0 || pk <= 0)
            return cs_errf(c, "in_shapes: expected positive einsum sizes, got m=%lld n=%lld k=%lld",
                           (long long)pm, (long long)pn, (long long)pk);
        if (search_einsum(c, &ax, lb, rb, ob, compute_ns, &Mf, &Nf, &Kf))
            return -1;
        m = pm, n = pn, k = pk;   /* the padded GEMM's bytes; the tiles reported on the real sizes */
        for (int i = 0; i < NPU_MAX_DIMS; i++)
            lt[i] = rt[i] = ot[i] = -1;
        for (int i = 0; i < ax.nb; i++) {
            char ch = in->lhs[ax.batch[i]];
            for (int j = 0; in->lhs[j]; j++)
                if (in->lhs[j] == ch)
                    lt[j] = 1;
            for (int j = 0; in->rhs[j]; j++)
                if (in->rhs[j] == ch)
                    rt[j] = 1;
            for (int j = 0; in->outl[j]; j++)
                if (in->outl[j] == ch)
                    ot[j] = 1;
        }
        split_axes(ax.lnr, ax.nl, L->dims, ceil_div(ax0.m, Mf), lt);
        mirror(in->lhs, ax.lnr, ax.nl, lt, in->outl, ot);
        split_axes(ax.rnr, ax.nn, R->dims, ceil_div(ax0.n, Nf), rt);
        mirror(in->rhs, ax.rnr, ax.nn, rt, in->outl, ot);
        split_axes(ax.red, ax.nr, L->dims, ceil_div(ax0.k, Kf), lt);
        mirror(in->lhs, ax.red, ax.nr, lt, in->rhs, rt);
    }
    int64_t M = 1, N = 1, out_elems = tensor_elems(O), out_tile = 1;
    for (int i = 0; i < ax.nl; i++)
        M *= lt[ax.lnr[i]];
    for (int i = 0; i < ax.nn; i++)
        N *= rt[ax.rnr[i]];
    if (padded)   /* the searched tile itself: the split above is the real sizes' */
        M = Mf, N = Nf;
    for (int i = 0; i < O->ndim; i++)
        out_tile *= ot[i];
    if (M <= 0 || N <= 0 || out_tile <= 0)
        return cs_errf(c, "in_shapes: expected positive einsum tile sizes, got \"%s\"", cs_in_text(c));
    op->num_tiles = (int64_t)ceil(py_div(out_elems, out_tile));
    int64_t bmn = b * m * n, bkmn = bmn * k;
    *bytes = bits_to_bytes(bmn, obits) + width_bytes(ceil(py_div(bkmn, N)), lbits) +
             width_bytes(ceil(py_div(bkmn, M)), rbits);
    struct block_scales bs;   /* the scale tensors, read once */
    if (block_scales_of(c, in, &ax, &bs))
        return -1;
    *bytes += bs.bytes;
    const int64_t *rows[3] = {lt, rt, ot};
    int lens[3] = {L->ndim, R->ndim, O->ndim};
    return set_tiles(op, rows, lens);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int traffic_fa(const struct cs_ctx *c, const struct instr *in, struct op *op, int64_t *bytes)
{
    const struct tensor *Q = &in->in.t[0];
    int db, dbits, kvb, kvbits;   /* Q and O; K and V (a KV cache may be narrower) */
    if (dtype_width(c, "in_shapes", Q->dtype, false, &db, &dbits) ||
        dtype_width(c, "in_shapes", in->in.t[1].dtype, false, &kvb, &kvbits))
        return -1;
    int64_t b = Q->dims[0], q = Q->dims[1], h = Q->dims[2], d = Q->dims[3], kv = in->in.t[1].dims[1];
    const int64_t S = c->chip->sa_dim, VMEM = cs_vmem_bytes(c);
    /* chipsim Q10: the reference's fit test counts the score matrix d_head times. */
    int64_t score = b * kv * q * h * (c->prof->fa_fit_test_scores_times_dhead ? d : 1);
    int64_t tot = (b * q * h * d + score + b * q * h * d) * db + bits_to_bytes(2 * b * kv * h * d, kvbits);
    int64_t t0, t1;
    if (tot <= VMEM) {
        t0 = kv, t1 = q;
        op->max_vmem_demand_bytes = tot;
        *bytes = tot;
    } else {
#define REQ(Bc, Br) ((2 * (Bc) * d + (Br) * d + 2 * (Bc) * (Br)) * db)
        if (REQ(S, S) > VMEM)
            return cs_errf(c, "in_shapes: expected a %lldx%lld attention block to fit in VMEM, got d_head %lld",
                           (long long)S, (long long)S, (long long)d);
        op->max_vmem_demand_bytes = REQ(S > kv ? S : kv, S);
#undef REQ
        int64_t elems = (int64_t)py_div(cs_vmem_bytes(c), db);
        int64_t Br = S, Bc = floor_div(elems - Br * d, 2 * (Br + d));
        if (Bc > kv)
            Bc = kv;
        if (Bc < S)
            Bc = S;
        t0 = Bc, t1 = Br;
        *bytes = bits_to_bytes(b * h * 2 * kv * d, kvbits) + b * h * 2 * (int64_t)ceil(py_div(kv, Bc)) * q * d * db;
    }
    op->tiling.rows = 0;   /* one flat list: "[t0, t1]" */
    op->tiling.len[0] = 2;
    op->tiling.d[0][0] = t0;
    op->tiling.d[0][1] = t1;
    return 0;
}

struct conv_dims {
    int64_t kh, kw, sh, sw;
    int ib, kb, obb;
};

static int64_t rih(const struct conv_dims *d, int64_t OH) { return d->sh >= d->kh ? OH * d->kh : OH * d->sh + d->kh - 1; }
static int64_t riw(const struct conv_dims *d, int64_t OW) { return d->sw >= d->kw ? OW * d->kw : OW * d->sw + d->kw - 1; }

static int64_t tsb(const struct conv_dims *d, int64_t B, int64_t IC, int64_t OC, int64_t OH, int64_t OW)
{
    return B * IC * rih(d, OH) * riw(d, OW) * d->ib + IC * OC * d->kh * d->kw * d->kb + B * OC * OH * OW * d->obb;
}

static int search_conv_uncached(const struct cs_ctx *c, const struct conv_axes *ax, const struct conv_dims *cd,
                                int64_t compute_ns, int64_t best[5])
{
    int64_t *dv[5] = {0};
    size_t nd[5];
    const int64_t sizes[5] = {ax->b, ax->oh, ax->ow, ax->oc, ax->ic};
    int rc = -1;
    for (int i = 0; i < 5; i++)
        if (divisors(sizes[i], &dv[i], &nd[i])) {
            cs_errf(c, "tile search: out of memory");
            goto out;
        }
    const int64_t S = c->chip->sa_dim, VMEM = cs_vmem_bytes(c), khw = cd->kh * cd->kw;
    const int64_t total = ax->b * ax->oc * ax->oh * ax->ow;
    const double rate = mem_rate(c), f = c->chip->freq_GHz;
    bool found = false;
    struct key bk = {0};
    for (size_t i0 = 0; i0 < nd[0]; i0++)
        for (size_t i1 = 0; i1 < nd[1]; i1++)
            for (size_t i2 = 0; i2 < nd[2]; i2++)
                for (size_t i3 = 0; i3 < nd[3]; i3++) {
                    int64_t B = dv[0][i0], OH = dv[1][i1], OW = dv[2][i2], OC = dv[3][i3];
                    int64_t nt = (int64_t)ceil(py_div(total, B * OC * OH * OW));
                    int64_t acc = nt * (B * ax->ic * rih(cd, OH) * riw(cd, OW) * cd->ib +
                                        B * OC * OH * OW * cd->obb + ax->ic * OC * khw * cd->kb);
                    double memc = (double)acc / rate;
                    int64_t mo = ceil_div(OC, S) * ceil_div(B * OH * OW, S);
                    for (size_t i4 = 0; i4 < nd[4]; i4++) {
                        int64_t IC = dv[4][i4];
                        int64_t ts = tsb(cd, B, IC, OC, OH, OW);
                        if (ts > VMEM)
                            break;
                        int64_t ops = mo * ceil_div(IC * khw, S);
                        if (ops < 3)
                            ops = 3;
                        if (ops <= 10)
                            continue;
                        /* chipsim Q4: compute time is 0 here, so the fake estimate is used. */
                        double mxc = compute_ns > 0 ? (double)compute_ns * f : (double)(100 * (ops + 2) * nt);
                        struct key k = make_key(mxc, memc, ops, acc, ts);
                        if (!found || key_ge(&k, &bk)) {
                            bk = k;
                            best[0] = B, best[1] = OH, best[2] = OW, best[3] = OC, best[4] = IC;
                            found = true;
                        }
                    }
                }
    if (found)
        rc = 0;
    else
        cs_errf(c, "tile search: expected a conv tile with more than 10 MXU ops that fits in %lld bytes "
                "of VMEM, got none", (long long)VMEM);
out:
    for (int i = 0; i < 5; i++)
        free(dv[i]);
    return rc;
}

/* search_conv_uncached through the per-thread memo (tile_memo.c). */
static int search_conv(const struct cs_ctx *c, const struct conv_axes *ax, const struct conv_dims *cd,
                       int64_t compute_ns, int64_t best[5])
{
    /* Every input of the search: the five searched sizes, the window, dtype
     * widths, sa_dim, VMEM, the memory rate, the clock and compute time. */
    const struct tile_memo_key key = {{
        MEMO_CONV, (uint64_t)ax->b, (uint64_t)ax->oh, (uint64_t)ax->ow, (uint64_t)ax->oc,
        (uint64_t)ax->ic, (uint64_t)cd->kh, (uint64_t)cd->kw, (uint64_t)cd->sh, (uint64_t)cd->sw,
        (uint64_t)cd->ib, (uint64_t)cd->kb, (uint64_t)cd->obb, (uint64_t)c->chip->sa_dim,
        (uint64_t)cs_vmem_bytes(c), dbits(mem_rate(c)), dbits(c->chip->freq_GHz),
        (uint64_t)compute_ns,
    }};
    _Static_assert(TILE_MEMO_VALS >= 5, "conv memo entries hold five tile sizes");
    int64_t v[TILE_MEMO_VALS] = {0};
    if (!tile_memo_get(&key, v)) {
        if (search_conv_uncached(c, ax, cd, compute_ns, v))
            return -1;
        tile_memo_put(&key, v);
    }
    memcpy(best, v, 5 * sizeof *best);
    return 0;
}

static int traffic_conv(const struct cs_ctx *c, const struct instr *in, struct op *op, int64_t compute_ns,
                        int64_t *bytes)
{
    struct conv_axes ax;
    if (conv_classify(c, in, &ax))
        return -1;
    const struct tensor *I = &in->in.t[0], *K = &in->in.t[1], *O = &in->out;
    struct conv_dims cd = {ax.kh, ax.kw, in->stride_h, in->stride_w, 0, 0, 0};
    if (dtype_or_err(c, "in_shapes", I->dtype, false, &cd.ib) ||
        dtype_or_err(c, "in_shapes", K->dtype, false, &cd.kb) ||
        dtype_or_err(c, "out_shape", O->dtype, false, &cd.obb))
        return -1;
    const int64_t S = c->chip->sa_dim, VMEM = cs_vmem_bytes(c);
    op->max_vmem_demand_bytes = tsb(&cd, ax.b, 8 * S < ax.ic ? 8 * S : ax.ic, ax.oc, ax.oh, ax.ow);
    int64_t tot = ax.b * ax.ic * ax.ih * ax.iw * cd.ib + ax.ic * ax.oc * ax.kh * ax.kw * cd.kb +
                  ax.b * ax.oc * ax.oh * ax.ow * cd.obb;
    int64_t it[NPU_MAX_DIMS], kt[NPU_MAX_DIMS], ot[NPU_MAX_DIMS];
    memcpy(it, I->dims, sizeof it);
    memcpy(kt, K->dims, sizeof kt);
    memcpy(ot, O->dims, sizeof ot);
    if (tot > VMEM) {
        if (ax.b <= 0 || ax.oh <= 0 || ax.ow <= 0 || ax.oc <= 0 || ax.ic <= 0)
            return cs_errf(c, "in_shapes: expected positive conv sizes, got \"%s\"", cs_in_text(c));
        int64_t t[5];
        if (search_conv(c, &ax, &cd, compute_ns, t))
            return -1;
        it[ax.ib] = t[0], it[ax.iic] = t[4], it[ax.ih_i] = rih(&cd, t[1]), it[ax.iw_i] = riw(&cd, t[2]);
        kt[ax.kic] = t[4], kt[ax.koc] = t[3];
        ot[ax.ob] = t[0], ot[ax.ooc] = t[3], ot[ax.oh_i] = t[1], ot[ax.ow_i] = t[2];
    }
    int64_t B_ = ot[ax.ob], OC_ = ot[ax.ooc], OH_ = ot[ax.oh_i], OW_ = ot[ax.ow_i];
    if (B_ * OC_ * OH_ * OW_ <= 0)
        return cs_errf(c, "out_shape: expected positive conv output sizes, got \"%s\"", cs_out_text(c));
    int64_t nt = (int64_t)ceil(py_div(ax.b * ax.oc * ax.oh * ax.ow, B_ * OC_ * OH_ * OW_));
    int64_t inputs = nt == 1 ? B_ * ax.ic * ax.ih * ax.iw : B_ * ax.ic * rih(&cd, OH_) * riw(&cd, OW_);
    op->num_tiles = nt;
    *bytes = nt * (inputs * cd.ib + B_ * OC_ * OH_ * OW_ * cd.obb + ax.ic * OC_ * ax.kh * ax.kw * cd.kb);
    const int64_t *rows[3] = {it, kt, ot};
    int lens[3] = {I->ndim, K->ndim, O->ndim};
    return set_tiles(op, rows, lens);
}

static int traffic_default(const struct cs_ctx *c, const struct instr *in, const struct op *op, int64_t *bytes)
{
    if (op->bytes > 0) {
        *bytes = op->bytes;
        return 0;
    }
    int64_t sum = 0;
    int db, bits;
    for (size_t i = 0; i < in->in.n; i++) {
        if (dtype_width(c, "in_shapes", in->in.t[i].dtype, false, &db, &bits))
            return -1;
        sum += bits_to_bytes(tensor_elems(&in->in.t[i]), bits);
    }
    if (dtype_width(c, "out_shape", in->out.dtype, false, &db, &bits))
        return -1;
    *bytes = sum + bits_to_bytes(tensor_elems(&in->out), bits);
    return 0;
}

int bytes_accessed(const struct cs_ctx *c, const struct instr *in, struct op *op, int64_t compute_ns,
                   int64_t *bytes)
{
    switch (in->kind) {
    case K_EINSUM:
    case K_BATCHMATMUL:
        return traffic_einsum(c, in, op, compute_ns, bytes);
    case K_FLASH_ATTENTION:
        return traffic_fa(c, in, op, bytes);
    case K_CONV2D:
        return traffic_conv(c, in, op, compute_ns, bytes);
    default:
        return traffic_default(c, in, op, bytes);
    }
}
