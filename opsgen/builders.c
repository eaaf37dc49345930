/* builders.c — primitive operator builders (see builders.h; opsgen.md §2.2–§3).
 *
 * Builders fill the op's form (traces/op_form.h): tensors, the config's
 * layout and kind, equation, placements. They print no text: the CSV writer
 * spells the config and shape cells from the form. */
#include "opsgen/builders.h"
#include "base/checked.h"
#include "traces/dtype.h"
#include "traces/precision.h"
#include "base/strbuf.h"

#include <math.h>
#include <string.h>

#define BF16 "DT_BFLOAT16"

/* r, or 0 with *ovf set when the operation that made it overflowed. */
static int64_t checked(bool *ovf, bool o, int64_t r)
{
    *ovf |= o;
    return o ? 0 : r;
}

int64_t bmul(bool *ovf, int64_t a, int64_t b)
{
    bool o = false;
    int64_t r = ck_mul(a, b, &o);
    return checked(ovf, o, r);
}

int64_t badd(bool *ovf, int64_t a, int64_t b)
{
    bool o = false;
    int64_t r = ck_add(a, b, &o);
    return checked(ovf, o, r);
}

int64_t shape_prod(bool *ovf, struct shape s)
{
    int64_t p = 1;
    for (int i = 0; i < s.nd; i++)
        p = bmul(ovf, p, s.d[i]);
    if (p > SHAPE_MAX_ELEMS) {
        *ovf = true;
        return 0;
    }
    return p;
}

/* isalnum() in the C locale (the program never calls setlocale): 1 for
 * [0-9A-Za-z], as a table so the loop below needs no branch per byte. */
#define R10(x) x, x, x, x, x, x, x, x, x, x
static const unsigned char alnum_tab[256] = {
    ['0'] = R10(1),
    ['A'] = R10(1), R10(1), 1, 1, 1, 1, 1, 1,   /* A..Z */
    ['a'] = R10(1), R10(1), 1, 1, 1, 1, 1, 1,   /* a..z */
};
#undef R10

/* Appends the alphanumerics of s to d; returns the new end. The caller sized
 * d for all of s: every byte is stored, the end only advances past kept ones. */
static char *keep_alnum(char *d, const char *s)
{
    for (; *s; s++) {
        *d = *s;
        d += alnum_tab[(unsigned char)*s];
    }
    return d;
}

void sanitize_name(char **field, const char *desc, const char *name)
{
    char buf[strlen(desc) + strlen(name) + 1];
    char *e = keep_alnum(keep_alnum(buf, desc), name);
    op_setn(field, buf, (size_t)(e - buf));
}

/* ---- the op's form (traces/op_form.h): opsgen prints no text ---- */

_Static_assert(SHAPE_MAXD <= OP_SHAPE_MAX_DIMS, "a form holds every shape");

/* s into a form's token field of size n, cut to fit (every token opsgen
 * passes is a short constant). */
static void put_token(char *dst, size_t n, const char *s)
{
    struct strbuf b = strbuf_on(dst, n);
    strbuf_puts(&b, s);
}
#define PUT_TOKEN(field, s) put_token((field), sizeof(field), (s))

static void hold_dims(struct op *op, int slot, struct shape s)
{
    op->form.nd[slot] = (int8_t)s.nd;
    memcpy(op->form.d[slot], s.d, (size_t)s.nd * sizeof s.d[0]);
}

/* Inputs x[0..n-1] (at most OP_SHAPES_MAX_IN), all of dtype dt. */
static void hold_in(struct op *op, const struct shape *x, int n, const char *dt)
{
    PUT_TOKEN(op->form.dtype, dt);
    op->form.n_in = (int8_t)n;
    for (int i = 0; i < n; i++)
        hold_dims(op, i, x[i]);
    op->form.in_held = true;
}

void bld_in1(struct op *op, struct shape a, const char *dt) { hold_in(op, &a, 1, dt); }
void bld_in2(struct op *op, struct shape a, struct shape c, const char *dt) { hold_in(op, (struct shape[]){ a, c }, 2, dt); }

void bld_out(struct op *op, struct shape o, const char *dt)
{
    PUT_TOKEN(op->form.dtype, dt);
    hold_dims(op, FORM_OUT, o);
    op->form.out_held = true;
}

void bld_layout(struct op *op, enum form_layout l, const char *kind, const char *eq, const char *placements)
{
    struct op_form *f = &op->form;
    f->layout = (uint8_t)l;
    PUT_TOKEN(f->kind, kind);
    PUT_TOKEN(f->eq, eq ? eq : "");
    PUT_TOKEN(f->placements, placements ? placements : "");
}

/* The fields every builder sets the same way. */
struct op *bld_push(struct trace *t, int64_t fid, int64_t count, const char *desc,
                       const char *name, enum op_type ty, enum opcode_type oct,
                       const char *opcode)
{
    struct op *op = trace_push(t);
    op->fusion_id = fid;
    op->count = count;
    op_set(&op->description, desc);
    sanitize_name(&op->name, desc, name);
    op->type = ty;
    op->opcode_type = oct;
    op_set(&op->opcode, opcode);
    return op;
}

int64_t bld_tensor_bytes(bool *ovf, int64_t elems, const char *dtype)
{
    int bits = dtype_bits(dtype);
    return bits % 8 == 0 ? bmul(ovf, bits / 8, elems) : bits_to_bytes(elems, bits);
}

/* ---- einsum (§3.1) ---- */

struct lpair { char c; int64_t v; };

static bool has_pair(const struct lpair *p, int n, struct lpair x)
{
    for (int i = 0; i < n; i++)
        if (p[i].c == x.c && p[i].v == x.v) return true;
    return false;
}

/* Adds x to the set p (pairs, not letters: same letter, other size is new). */
static int add_pair(struct lpair *p, int n, struct lpair x)
{
    if (!has_pair(p, n, x)) p[n++] = x;
    return n;
}

struct op *b_einsum(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                    const char *name, struct shape a, struct shape b, const char *eq,
                    const char *placements, const char *dtype)
{
    const char *semi = strchr(eq, ';'), *arrow = strstr(eq, "->");
    if (!semi || !arrow || arrow < semi) return NULL;
    const char *la = eq, *lb = semi + 1, *lo = arrow + 2;
    int na = (int)(semi - la), nb = (int)(arrow - lb), no = (int)strlen(lo);
    if (na != a.nd || nb != b.nd || no > SHAPE_MAXD) return NULL;

    struct shape o = { no, {0} };
    for (int i = 0; i < no; i++) {
        const char *p;
        if ((p = memchr(la, lo[i], (size_t)na))) o.d[i] = a.d[p - la];
        else if ((p = memchr(lb, lo[i], (size_t)nb))) o.d[i] = b.d[p - lb];
        else return NULL;
    }
    /* FLOPs = 2 * prod(batch) * prod(reduction) * prod(rest) over the union of
     * the (letter, size) sets of a, b and the output. Every output pair is
     * one of a's or b's (o.d copies the size of the letter's first place
     * above), so the union of a's and b's pairs is the whole set. */
    struct lpair U[2 * SHAPE_MAXD];
    int nU = 0;
    for (int i = 0; i < na; i++) nU = add_pair(U, nU, (struct lpair){ la[i], a.d[i] });
    for (int i = 0; i < nb; i++) nU = add_pair(U, nU, (struct lpair){ lb[i], b.d[i] });
    int64_t flops = 2;
    for (int i = 0; i < nU; i++)  /* each pair lands in exactly one class */
        flops = bmul(ovf, flops, U[i].v);

    struct op *op = bld_push(t, fid, count, desc, name, OP_MXU, OPC_EINSUM, "Einsum");
    op->stats_kind = STATS_EINSUM;
    bld_layout(op, FORM_EINSUM, "XlaEinsum", eq, placements);
    bld_in2(op, a, b, dtype);
    bld_out(op, o, dtype);
    op->flops = flops;
    op->weight_bytes = bld_tensor_bytes(ovf, shape_prod(ovf, b), dtype);
    return op;
}

/* ---- elementwise (§3.2–§3.3) ---- */

struct op *b_unary(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                   const char *name, const char *opname, struct shape x,
                   const char *placements, const char *dtype)
{
    static const struct { const char *n; int64_t f; } per_elem[] = {
        { "Softmax", 4 }, { "LayerNorm", 8 }, { "GroupNorm", 8 }, { "RMSNorm", 6 },
        { "Pointwise Mul.", 1 }, { "Gelu", 8 }, { "Silu", 4 }, { "Relu", 1 },
    };
    int64_t f = -1;
    for (size_t i = 0; i < sizeof per_elem / sizeof per_elem[0]; i++)
        if (!strcmp(opname, per_elem[i].n)) f = per_elem[i].f;
    if (f < 0) return NULL;
    struct op *op = bld_push(t, fid, count, desc, name, OP_VPU, OPC_ELEMENTWISE, opname);
    bld_layout(op, FORM_X, opname, NULL, placements);
    bld_in1(op, x, dtype);
    bld_out(op, x, dtype);
    op->flops = bmul(ovf, f, shape_prod(ovf, x));
    return op;
}

struct op *b_binary(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                    const char *name, const char *opname, struct shape x,
                    const char *placements, const char *dtype, bool one_input)
{
    struct op *op = bld_push(t, fid, count, desc, name, OP_VPU, OPC_ELEMENTWISE, opname);
    bld_layout(op, FORM_AB_OUT, opname, NULL, placements);   /* a and b: the output's shape */
    if (one_input) bld_in1(op, x, dtype);  /* chipsim Q7 */
    else bld_in2(op, x, x, dtype);
    bld_out(op, x, dtype);
    op->flops = shape_prod(ovf, x);
    return op;
}

/* ---- flash attention (§3.4) ---- */

struct op *b_flash_attention(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                             const char *name, struct shape q, struct shape k,
                             struct shape v, const char *dtype, bool heads_as_dhead)
{
    if (q.nd != 4 || k.nd != 4 || v.nd != 4) return NULL;
    int64_t b = q.d[0], sq = q.d[1], h = q.d[2], skv = k.d[1];
    int64_t x = heads_as_dhead ? h : q.d[3];   /* quirk opsgen Q1 */
    int64_t xv = heads_as_dhead || v.d[3] == q.d[3] ? x : v.d[3];   /* the values' width (MiMo-V2-Flash's differs) */
    struct op *op = bld_push(t, fid, count, desc, name, OP_MXU, OPC_FLASH_ATTENTION,
                         "FlashAttention");
    op->stats_kind = STATS_FA;
    bld_layout(op, FORM_QKV, "FlashAttention", NULL, "[0, 0, 0]");
    hold_in(op, (struct shape[]){ q, k, v }, 3, dtype);
    bld_out(op, SHP(b, sq, h, xv), dtype);
    int64_t hbsq = bmul(ovf, bmul(ovf, h, b), sq);   /* 2 h b sq skv (x + xv) + 4 h b sq skv, checked */
    op->flops = bmul(ovf, bmul(ovf, bmul(ovf, hbsq, skv), 2), badd(ovf, badd(ovf, x, xv), 2));
    op->weight_bytes = 0;
    return op;
}

/* ---- HBM load/store (§3.7) ---- */

struct op *b_hbm_io(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                    const char *name, bool output, struct shape x, const char *dtype)
{
    (void)ovf;   /* no size to check: the op has no FLOPs or traffic of its own */
    struct op *op = bld_push(t, fid, count, desc, name, OP_OTHER, OPC_OTHER,
                         output ? "Output" : "Input");
    bld_layout(op, FORM_ABS, "Abs", NULL, NULL);
    bld_in1(op, x, dtype);
    bld_out(op, x, dtype);
    return op;
}

/* ---- communication (§3.8–§3.10) ---- */

/* ceil(bytes / GBps) on doubles: 1 GB/s is treated as 1 byte/ns (GB = 1e9). */
int64_t bld_xfer_ns(bool *ovf, int64_t bytes, double GBps)
{
    if (bytes == 0)
        return 0;   /* nothing to move (the link may even have no bandwidth) */
    return ck_ceil((double)bytes / GBps, ovf);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

void bld_traffic(struct op *op, int64_t in, int64_t out)
{
    op->ici_in_bytes = in;
    op->ici_out_bytes = out;
    op->bytes = in + out;
}

struct op *b_pipe_xfer(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                       const char *name, bool output, struct shape x, double bw_GBps,
                       int64_t latency_ns)
{
    struct op *op = bld_push(t, fid, count, desc, name, OP_ICI_NO_COMPUTE, OPC_OTHER,
                         output ? "InterChipXferOutput" : "InterChipXferInput");
    bld_layout(op, FORM_LIST, output ? "InterChipCommOutput" : "InterChipCommInput", NULL, NULL);
    bld_in1(op, x, BF16);
    bld_out(op, x, BF16);
    int64_t bytes = bmul(ovf, shape_prod(ovf, x), 2);
    bld_traffic(op, output ? 0 : bytes, output ? bytes : 0);
    op->ici_ns = max64(bld_xfer_ns(ovf, bytes, bw_GBps), latency_ns);
    return op;
}

struct op *b_kv_swap(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                     const char *name, bool output, int64_t n, bool doubled, bool gib,
                     double pcie_bw_GBps, int64_t pcie_latency_ns, int64_t ici_latency_ns)
{
    struct shape x = SHP(n);
    struct op *op = bld_push(t, fid, count, desc, name, OP_ICI_NO_COMPUTE, OPC_OTHER,
                         output ? "KVSwapOutput" : "KVSwapInput");
    bld_layout(op, FORM_LIST, output ? "KVSwapOutput" : "KVSwapInput", NULL, NULL);
    bld_in1(op, x, BF16);
    bld_out(op, x, BF16);
    int64_t bytes = doubled ? bmul(ovf, n, 2) : n;   /* quirk opsgen Q10 */
    bld_traffic(op, output ? 0 : bytes, output ? bytes : 0);
    /* The reference's PCIe GB = 2^30 B, divided step by step as it does
     * (quirk chipsim Q11); corrected: GB = 1e9 B, so GB/s = bytes/ns. */
    int64_t tn = gib ? ck_ceil((double)bytes * 1e9 / 1024 / 1024 / 1024 / pcie_bw_GBps, ovf)
                     : ck_ceil((double)bytes / pcie_bw_GBps, ovf);
    op->ici_ns = max64(tn, ici_latency_ns);
    op->pcie_ns = max64(tn, pcie_latency_ns);
    return op;
}

struct coll_axes coll_axes_ring(int64_t p, double bw_GBps, int64_t latency_ns, int64_t base_ns,
                                enum coll_algorithm algorithm, const struct profile *prof)
{
    return (struct coll_axes){ .n = 1, .deg = { p }, .bw_GBps = { bw_GBps }, .latency_ns = latency_ns,
                               .latency_adds = !prof->collective_latency_overlaps, .algorithm = algorithm,
                               .ring_bytes = !prof->collective_staged_bytes, .base_ns = base_ns };
}

int64_t staged_elems(bool *ovf, int64_t e, const struct coll_axes *ax)
{
    int64_t tot = 0, cur = e;
    for (int i = 0; i < ax->n; i++) {
        tot = ck_add(tot, cur, ovf);
        cur = cdiv64(cur, ax->deg[i]);
    }
    return tot;
}

static int64_t axes_prod(bool *ovf, const struct coll_axes *ax)
{
    int64_t p = 1;
    for (int i = 0; i < ax->n; i++) p = bmul(ovf, p, ax->deg[i]);
    return p;
}

static double axes_bw(const struct coll_axes *ax)
{
    double bw = 0;
    for (int i = 0; i < ax->n; i++) bw += ax->bw_GBps[i];
    return bw;
}

/* Output shape of a collective gathered along dim over p chips. */
static struct shape shape_gathered(bool *ovf, struct shape x, int dim, int64_t p)
{
    x.d[dim] = bmul(ovf, x.d[dim], p);
    return x;
}

struct shape shape_scattered(struct shape x, int dim, int64_t p)
{
    x.d[dim] = cdiv64(x.d[dim], p);
    return x;
}

enum coll_algorithm coll_algorithm_of(const char *name)
{
    static const struct { const char *name; enum coll_algorithm a; } table[] = {
        { "ring", COLL_RING }, { "direct", COLL_DIRECT }, { "tree", COLL_TREE },
    };
    for (size_t i = 0; name && i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(name, table[i].name))
            return table[i].a;
    return COLL_RING;
}

/* The latency steps of `phases` phases (an all-gather or reduce-scatter is
 * one, an all-reduce two) over p chips whose whole tensor is whole_bytes: p -
 * 1 each on a ring (always, under the reference's pricing), one each where
 * every chip reaches its peers directly (or the tensor is small enough for
 * the engines' custom kernels, direct_max_bytes), ceil(log2 p) each up or
 * down a tree. */
static int64_t coll_steps(bool *ovf, const struct coll_axes *ax, int64_t phases, int64_t p, int64_t whole_bytes)
{
    int64_t depth = 0;
    enum coll_algorithm a = ax->latency_adds ? ax->algorithm : COLL_RING;
    if (ax->latency_adds && ax->direct_max_bytes > 0 && whole_bytes <= ax->direct_max_bytes)
        a = COLL_DIRECT;
    switch (a) {
    case COLL_DIRECT: return phases;
    case COLL_TREE:
        while (((int64_t)1 << depth) < p && depth < 62)
            depth++;
        return bmul(ovf, phases, depth);
    default: return bmul(ovf, phases, p - 1);
    }
}

/* The bytes a chip sends in a collective of `phases` phases (all-gather,
 * reduce-scatter 1; all-reduce 2) over `whole` elements of elem_bytes (the
 * gathered output, the input to scatter or reduce). A ring's (physical):
 * (p - 1) / p of the whole a phase, whatever the axes (rings over d1 then d2
 * send (d1 - 1) / d1 + (d2 - 1) / (d1 d2) = (p - 1) / p of it). The
 * reference's: its staged elements a phase (an all-gather its whole output,
 * a reduce-scatter one shard), so a TP2 layer's two all-gathers and two
 * reduce-scatters sent 3 tensors where a ring sends 2, a TP8 layer's 2.25
 * where a ring sends 3.5. */
static int64_t coll_bytes(bool *ovf, const struct coll_axes *ax, int64_t whole, int64_t staged, int64_t phases,
                          int64_t elem_bytes)
{
    if (!ax->ring_bytes)
        return bmul(ovf, bmul(ovf, staged, phases), elem_bytes);
    int64_t p = axes_prod(ovf, ax);
    return bmul(ovf, bmul(ovf, cdiv64(bmul(ovf, whole, p - 1), p), phases), elem_bytes);
}

/* A collective's time over ax: its bytes at the axes' bandwidth (beta) and
 * `steps` hops of alpha each, added (physical, with the base latency once a
 * phase) or the larger (the reference's). */
static void set_coll_time(bool *ovf, struct op *op, const struct coll_axes *ax, int64_t xfer_ns, int64_t phases,
                          int64_t steps)
{
    int64_t a = bmul(ovf, ax->latency_ns, steps);
    if (ax->latency_adds)
        a = badd(ovf, a, bmul(ovf, ax->base_ns, phases));
    op->ici_ns = ax->latency_adds ? badd(ovf, xfer_ns, a) : max64(xfer_ns, a);
    op->ici_alpha_ns = ax->latency_adds ? a : 0;   /* the links' efficiency is not the hops' */
}

static void set_coll_ns(bool *ovf, struct op *op, const struct coll_axes *ax, int64_t bytes, int64_t phases,
                        int64_t steps)
{
    set_coll_time(ovf, op, ax, bld_xfer_ns(ovf, bytes, axes_bw(ax)), phases, steps);
}

struct op *b_all_gather(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, int dim, const struct coll_axes *ax)
{
    return b_all_gather_dt(t, ovf, fid, count, desc, name, x, dim, ax, 2);
}

struct op *b_all_gather_dt(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                           const char *name, struct shape x, int dim, const struct coll_axes *ax,
                           int64_t elem_bytes)
{
    int64_t p = axes_prod(ovf, ax);
    struct shape o = shape_gathered(ovf, x, dim, p);
    struct op *op = bld_push(t, fid, count, desc, name, OP_ICI_NO_COMPUTE,
                         OPC_COLLECTIVE_NO_COMPUTE, "AllGather");
    bld_layout(op, FORM_ARROW, "AllGather", NULL, NULL);
    bld_in1(op, x, BF16);
    bld_out(op, o, BF16);
    int64_t whole = bmul(ovf, shape_prod(ovf, x), p);
    int64_t bytes = coll_bytes(ovf, ax, whole, staged_elems(ovf, whole, ax), 1, elem_bytes);
    bld_traffic(op, bytes, bytes);
    set_coll_ns(ovf, op, ax, bytes, 1, coll_steps(ovf, ax, 1, p, bmul(ovf, whole, elem_bytes)));
    return op;
}

struct op *b_reduce_scatter(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                            const char *name, struct shape x, int dim,
                            const struct coll_axes *ax)
{
    int64_t p = axes_prod(ovf, ax);
    struct shape o = shape_scattered(x, dim, p);
    struct op *op = bld_push(t, fid, count, desc, name, OP_VPU, OPC_COLLECTIVE_REDUCE,
                         "ReduceScatter");
    bld_layout(op, FORM_ARROW_QUOTED, "ReduceScatter", NULL, NULL);
    bld_in1(op, x, BF16);
    bld_out(op, o, BF16);
    int64_t elems = staged_elems(ovf, cdiv64(shape_prod(ovf, x), p), ax);
    int64_t bytes = coll_bytes(ovf, ax, shape_prod(ovf, x), elems, 1, 2);
    bld_traffic(op, bytes, bytes);
    set_coll_ns(ovf, op, ax, bytes, 1, coll_steps(ovf, ax, 1, p, bmul(ovf, shape_prod(ovf, x), 2)));
    op->flops = bmul(ovf, elems, p - 1);
    return op;
}

struct op *b_all_reduce(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, const struct coll_axes *ax)
{
    int64_t p = axes_prod(ovf, ax);
    struct op *op = bld_push(t, fid, count, desc, name, OP_VPU, OPC_COLLECTIVE_REDUCE,
                         "AllReduce");
    bld_layout(op, FORM_ARROW, "AllReduce", NULL, NULL);
    bld_in1(op, x, BF16);
    bld_out(op, x, BF16);
    int64_t bytes = coll_bytes(ovf, ax, shape_prod(ovf, x), staged_elems(ovf, shape_prod(ovf, x), ax), 2, 2);
    bld_traffic(op, bytes, bytes);
    set_coll_ns(ovf, op, ax, bytes, 2, coll_steps(ovf, ax, 2, p, bmul(ovf, shape_prod(ovf, x), 2)));
    return op;
}

struct op *b_all_to_all_over(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                             const char *name, struct shape x, const char *dtype, double bw_GBps,
                             const struct coll_axes *ax)
{
    struct op *op = bld_push(t, fid, count, desc, name, OP_ICI_NO_COMPUTE, OPC_OTHER, "AllToAll");
    bld_layout(op, FORM_ARROW, "AllToAll", NULL, NULL);
    bld_in1(op, x, BF16);
    bld_out(op, x, BF16);
    int64_t bytes = bmul(ovf, shape_prod(ovf, x), dtype_bytes(dtype)), p = axes_prod(ovf, ax);
    bld_traffic(op, bytes, bytes);
    /* p - 1 pairwise exchanges (one where every peer is one hop away, with
     * latency_adds): the larger of them and the transfer (the reference's),
     * or added with its one phase's base latency (physical) */
    set_coll_time(ovf, op, ax, bld_xfer_ns(ovf, bytes, bw_GBps), 1,
                  ax->latency_adds && ax->algorithm == COLL_DIRECT ? 1 : p - 1);
    return op;
}

struct op *b_all_to_all(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, const char *dtype,
                        double bisection_bw_GBps, int64_t n, int64_t latency_ns)
{
    struct coll_axes ax = { 1, { n }, { bisection_bw_GBps }, latency_ns, false, COLL_RING, false, 0, 0 };
    return b_all_to_all_over(t, ovf, fid, count, desc, name, x, dtype, bisection_bw_GBps, &ax);
}
