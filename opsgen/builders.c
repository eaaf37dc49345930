/* builders.c — primitive operator builders (see builders.h; opsgen.md §2.2–§3).
 *
 * Shape strings come in four spellings, all produced here: "8x4096" in
 * configs, "DT:[8,4096]" for inputs, "[DT:(8,4096)]" for the output, and the
 * Python list text "[8, 4096]" / "['8', '4096']" that the reference prints
 * for transfers and reduce-scatters. */
#include "opsgen/builders.h"
#include "traces/checked.h"
#include "traces/dtype.h"
#include "traces/shape_text.h"
#include "traces/strbuf.h"

#include <math.h>
#include <string.h>

#define BF16 "DT_BFLOAT16"

/* Set when a size, FLOP count or time of an op being built leaves int64 or
 * a tensor exceeds SHAPE_MAX_ELEMS; opsgen_take_overflow() reports it once
 * the trace is built. Per thread: sweeps build traces on several threads. */
static _Thread_local bool size_overflow;

void opsgen_flag_overflow(void) { size_overflow = true; }

bool opsgen_take_overflow(void)
{
    bool v = size_overflow;
    size_overflow = false;
    return v;
}

/* r, or 0 with the flag set when the operation that made it overflowed. */
static int64_t checked(bool ovf, int64_t r)
{
    size_overflow |= ovf;
    return ovf ? 0 : r;
}

int64_t bmul(int64_t a, int64_t b)
{
    bool ovf = false;
    int64_t r = ck_mul(a, b, &ovf);
    return checked(ovf, r);
}

int64_t badd(int64_t a, int64_t b)
{
    bool ovf = false;
    int64_t r = ck_add(a, b, &ovf);
    return checked(ovf, r);
}

int64_t shape_prod(struct shape s)
{
    int64_t p = 1;
    for (int i = 0; i < s.nd; i++)
        p = bmul(p, s.d[i]);
    if (p > SHAPE_MAX_ELEMS) {
        size_overflow = true;
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

/* Appends the dims joined with sep, each wrapped in q ("'" for Python strings).
 * Hot (every shape and config string): separator lengths are taken once and
 * the common one-character separator is a single byte append. */
static void bld_put_dims(struct strbuf *b, struct shape s, const char *sep, const char *q)
{
    size_t ns = strlen(sep), nq = strlen(q);
    for (int i = 0; i < s.nd; i++) {
        if (i) {
            if (ns == 1) strbuf_putc(b, *sep);
            else strbuf_putn(b, sep, ns);
        }
        if (nq) strbuf_putn(b, q, nq);
        strbuf_puti(b, s.d[i]);
        if (nq) strbuf_putn(b, q, nq);
    }
}

void bld_join(char *buf, size_t n, struct shape s, const char *sep, const char *q)
{
    struct strbuf b = strbuf_on(buf, n);
    bld_put_dims(&b, s, sep, q);
}

/* "DT:[a,b]" */
static void put_in(struct strbuf *b, struct shape a, const char *dt) { shape_text_in(b, dt, a.d, a.nd); }

static void set_text(char **field, const struct strbuf *b) { op_setn(field, b->s, b->n); }

/* ---- the parsed twin of the shape text (op.h, struct op_shapes) ---- */

_Static_assert(SHAPE_MAXD <= OP_SHAPE_MAX_DIMS, "op_shapes holds every shape");

/* Exactly the dtype tokens chipsim's parser reads back whole: "DT_" then
 * [A-Z0-9|]+, short enough not to be cut. Anything else keeps the text path. */
static bool dtype_clean(const char *dt)
{
    if (strncmp(dt, "DT_", 3))
        return false;
    size_t n = 3;
    while ((dt[n] >= 'A' && dt[n] <= 'Z') || (dt[n] >= '0' && dt[n] <= '9') || dt[n] == '|')
        n++;
    return dt[n] == '\0' && n > 3 && n < OP_DTYPE_MAX;
}

static void hold_dims(struct op *op, int slot, struct shape s)
{
    op->shp.nd[slot] = (int8_t)s.nd;
    memcpy(op->shp.d[slot], s.d, (size_t)s.nd * sizeof s.d[0]);
}

/* Inputs: held when the dtype is clean and agrees with a held output's. */
static void hold_in(struct op *op, const struct shape *x, int n, const char *dt)
{
    struct op_shapes *h = &op->shp;
    h->in_held = n <= OP_SHAPES_MAX_IN && dtype_clean(dt) && (!h->out_held || !strcmp(h->dtype, dt));
    if (!h->in_held)
        return;
    strcpy(h->dtype, dt);
    h->n_in = (int8_t)n;
    for (int i = 0; i < n; i++)
        hold_dims(op, i, x[i]);
}

static void hold_out(struct op *op, struct shape o, const char *dt)
{
    struct op_shapes *h = &op->shp;
    h->out_held = h->in_held ? !strcmp(h->dtype, dt) : dtype_clean(dt);
    if (!h->out_held)
        return;
    if (!h->in_held)
        strcpy(h->dtype, dt);
    hold_dims(op, OP_SHAPES_MAX_IN, o);
}

/* A lean trace's op needs no text where its shapes are held (op.h). */
static bool text_needed(const struct op *op, bool held) { return !(held && op->shp.lean); }

/* "lhs;rhs->out" in letters, at most 8 each: what chipsim's split_eq always
 * accepts, so a held equation can never fail where the text would not. */
static bool eq_plain(const char *eq)
{
    int part = 0, n = 0;
    for (const char *p = eq; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')) {
            if (++n > 8)
                return false;
        } else if (*p == ';' && part == 0) {
            part = 1, n = 0;
        } else if (p[0] == '-' && p[1] == '>' && part == 1) {
            part = 2, n = 0, p++;
        } else {
            return false;
        }
    }
    return part == 2;
}

/* Holds the config's kind (the text before its '(') and an einsum's
 * equation as data, which is all chipsim reads of these configs, so that it
 * never parses back what was printed here. True when the text can be left
 * out too (a lean trace); false: print it as usual (the CSV's cell). */
static bool hold_config(struct op *op, const char *kind, const char *eq)
{
    struct op_shapes *h = &op->shp;
    if (strlen(kind) >= sizeof h->config_kind || strchr(kind, '(') || (eq && !eq_plain(eq)))
        return false;
    strcpy(h->config_kind, kind);
    strcpy(h->eq, eq ? eq : "");
    h->config_held = true;
    return h->lean;
}

void bld_in1(struct op *op, struct shape a, const char *dt)
{
    hold_in(op, &a, 1, dt);
    if (!text_needed(op, op->shp.in_held))
        return;
    char s[SBUF];
    struct strbuf b = STRBUF(s);
    put_in(&b, a, dt);
    set_text(&op->in_shapes, &b);
}

void bld_in2(struct op *op, struct shape a, struct shape c, const char *dt)
{
    hold_in(op, (struct shape[]){ a, c }, 2, dt);
    if (!text_needed(op, op->shp.in_held))
        return;
    char s[2 * SBUF];
    struct strbuf b = STRBUF(s);
    put_in(&b, a, dt);
    strbuf_putc(&b, ',');
    put_in(&b, c, dt);
    set_text(&op->in_shapes, &b);
}

void bld_out(struct op *op, struct shape o, const char *dt)
{
    hold_out(op, o, dt);
    if (!text_needed(op, op->shp.out_held))
        return;
    char s[SBUF];
    struct strbuf b = STRBUF(s);
    shape_text_out(&b, dt, o.d, o.nd);
    set_text(&op->out_shape, &b);
}

/* The fields every builder sets the same way. */
struct op *bld_push(struct trace *t, int64_t fid, int64_t count, const char *desc,
                       const char *name, enum op_type ty, enum opcode_type oct,
                       const char *opcode)
{
    struct op *op = trace_push(t);
    op->shp.lean = t->lean;
    op->fusion_id = fid;
    op->count = count;
    op_set(&op->description, desc);
    sanitize_name(&op->name, desc, name);
    op->type = ty;
    op->opcode_type = oct;
    op_set(&op->opcode, opcode);
    return op;
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

/* The common end of a config string: ",memory_placements=P,type=DT)". */
static void put_config_tail(struct strbuf *cb, const char *placements, const char *dtype)
{
    strbuf_puts(cb, ",memory_placements=");
    strbuf_puts(cb, placements);
    strbuf_puts(cb, ",type=");
    strbuf_puts(cb, dtype);
    strbuf_putc(cb, ')');
}

struct op *b_einsum(struct trace *t, int64_t fid, int64_t count, const char *desc,
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
        flops = bmul(flops, U[i].v);

    char cfg[2 * SBUF];
    struct strbuf cb = STRBUF(cfg);
    struct op *op = bld_push(t, fid, count, desc, name, OP_MXU, OPC_EINSUM, "Einsum");
    op->stats_kind = STATS_EINSUM;
    if (!hold_config(op, "XlaEinsum", eq)) {
        /* "XlaEinsum(a=8x4096,b=4096x128,eq=..,memory_placements=..,type=..)" */
        strbuf_puts(&cb, "XlaEinsum(a=");
        bld_put_dims(&cb, a, "x", "");
        strbuf_puts(&cb, ",b=");
        bld_put_dims(&cb, b, "x", "");
        strbuf_puts(&cb, ",eq=");
        strbuf_puts(&cb, eq);
        put_config_tail(&cb, placements, dtype);
        set_text(&op->config, &cb);
    }
    bld_in2(op, a, b, dtype);
    bld_out(op, o, dtype);
    op->flops = flops;
    op->weight_bytes = bmul(dtype_bytes(dtype), shape_prod(b));
    return op;
}

/* ---- elementwise (§3.2–§3.3) ---- */

struct op *b_unary(struct trace *t, int64_t fid, int64_t count, const char *desc,
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
    char s[SBUF];
    struct strbuf cb = STRBUF(s);
    struct op *op = bld_push(t, fid, count, desc, name, OP_VPU, OPC_ELEMENTWISE, opname);
    if (!hold_config(op, opname, NULL)) {
        /* "<op>(x=..,memory_placements=..,type=..)" */
        strbuf_puts(&cb, opname);
        strbuf_puts(&cb, "(x=");
        bld_put_dims(&cb, x, "x", "");
        put_config_tail(&cb, placements, dtype);
        set_text(&op->config, &cb);
    }
    bld_in1(op, x, dtype);
    bld_out(op, x, dtype);
    op->flops = bmul(f, shape_prod(x));
    return op;
}

struct op *b_binary(struct trace *t, int64_t fid, int64_t count, const char *desc,
                    const char *name, const char *opname, struct shape x,
                    const char *placements, const char *dtype, bool one_input)
{
    char s[SBUF], c[2 * SBUF];
    struct strbuf xb = STRBUF(s), cb = STRBUF(c);
    struct op *op = bld_push(t, fid, count, desc, name, OP_VPU, OPC_ELEMENTWISE, opname);
    if (!hold_config(op, opname, NULL)) {
        /* "<op>(a=..,b=..,memory_placements=..,type=..)", a and b the same shape */
        bld_put_dims(&xb, x, "x", "");
        strbuf_puts(&cb, opname);
        strbuf_puts(&cb, "(a=");
        strbuf_putn(&cb, xb.s, xb.n);
        strbuf_puts(&cb, ",b=");
        strbuf_putn(&cb, xb.s, xb.n);
        put_config_tail(&cb, placements, dtype);
        set_text(&op->config, &cb);
    }
    if (one_input) bld_in1(op, x, dtype);  /* chipsim Q7 */
    else bld_in2(op, x, x, dtype);
    bld_out(op, x, dtype);
    op->flops = shape_prod(x);
    return op;
}

/* ---- flash attention (§3.4) ---- */

struct op *b_flash_attention(struct trace *t, int64_t fid, int64_t count, const char *desc,
                             const char *name, struct shape q, struct shape k,
                             struct shape v, const char *dtype, bool heads_as_dhead)
{
    if (q.nd != 4 || k.nd != 4 || v.nd != 4) return NULL;
    int64_t b = q.d[0], sq = q.d[1], h = q.d[2], skv = k.d[1];
    int64_t x = heads_as_dhead ? h : q.d[3];   /* quirk opsgen Q1 */
    char cfg[3 * SBUF + 64], in[3 * SBUF + 64];
    struct strbuf cb = STRBUF(cfg), ib = STRBUF(in);
    struct op *op = bld_push(t, fid, count, desc, name, OP_MXU, OPC_FLASH_ATTENTION,
                         "FlashAttention");
    op->stats_kind = STATS_FA;
    if (!hold_config(op, "FlashAttention", NULL)) {
        /* "FlashAttention(q=..,k=..,v=..,memory_placements=[0, 0, 0],type=..)" */
        strbuf_puts(&cb, "FlashAttention(q=");
        bld_put_dims(&cb, q, "x", "");
        strbuf_puts(&cb, ",k=");
        bld_put_dims(&cb, k, "x", "");
        strbuf_puts(&cb, ",v=");
        bld_put_dims(&cb, v, "x", "");
        strbuf_puts(&cb, ",memory_placements=[0, 0, 0],type=");
        strbuf_puts(&cb, dtype);
        strbuf_putc(&cb, ')');
        set_text(&op->config, &cb);
    }
    hold_in(op, (struct shape[]){ q, k, v }, 3, dtype);
    if (text_needed(op, op->shp.in_held)) {
        put_in(&ib, q, dtype);
        strbuf_putc(&ib, ',');
        put_in(&ib, k, dtype);
        strbuf_putc(&ib, ',');
        put_in(&ib, v, dtype);
        set_text(&op->in_shapes, &ib);
    }
    bld_out(op, SHP(b, sq, h, x), dtype);
    int64_t hbsq = bmul(bmul(h, b), sq);   /* 2(2 h b sq x skv) + 4 h b sq skv, checked */
    op->flops = bmul(bmul(bmul(hbsq, skv), 4), x + 1);
    op->weight_bytes = 0;
    return op;
}

/* ---- HBM load/store (§3.7) ---- */

struct op *b_hbm_io(struct trace *t, int64_t fid, int64_t count, const char *desc,
                    const char *name, bool output, struct shape x, const char *dtype)
{
    char s[SBUF];
    struct strbuf cb = STRBUF(s);
    struct op *op = bld_push(t, fid, count, desc, name, OP_OTHER, OPC_OTHER,
                         output ? "Output" : "Input");
    if (!hold_config(op, "Abs", NULL)) {
        strbuf_puts(&cb, "Abs(x=");
        bld_put_dims(&cb, x, "x", "");
        strbuf_puts(&cb, ",type=");
        strbuf_puts(&cb, dtype);
        strbuf_putc(&cb, ')');
        set_text(&op->config, &cb);
    }
    bld_in1(op, x, dtype);
    bld_out(op, x, dtype);
    return op;
}

/* ---- communication (§3.8–§3.10) ---- */

/* ceil(bytes / GBps) on doubles: 1 GB/s is treated as 1 byte/ns (GB = 1e9). */
int64_t bld_xfer_ns(int64_t bytes, double GBps)
{
    if (bytes == 0)
        return 0;   /* nothing to move (the link may even have no bandwidth) */
    return ck_ceil((double)bytes / GBps, &size_overflow);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

void bld_traffic(struct op *op, int64_t in, int64_t out)
{
    op->ici_in_bytes = in;
    op->ici_out_bytes = out;
    op->bytes = in + out;
}

struct op *b_pipe_xfer(struct trace *t, int64_t fid, int64_t count, const char *desc,
                       const char *name, bool output, struct shape x, double bw_GBps,
                       int64_t latency_ns)
{
    char s[SBUF];
    struct strbuf cb = STRBUF(s);
    struct op *op = bld_push(t, fid, count, desc, name, OP_ICI_NO_COMPUTE, OPC_OTHER,
                         output ? "InterChipXferOutput" : "InterChipXferInput");
    if (!hold_config(op, output ? "InterChipCommOutput" : "InterChipCommInput", NULL)) {
        strbuf_puts(&cb, output ? "InterChipCommOutput([" : "InterChipCommInput([");
        bld_put_dims(&cb, x, ", ", "");
        strbuf_putn(&cb, "])", 2);
        set_text(&op->config, &cb);
    }
    bld_in1(op, x, BF16);
    bld_out(op, x, BF16);
    int64_t bytes = bmul(shape_prod(x), 2);
    bld_traffic(op, output ? 0 : bytes, output ? bytes : 0);
    op->ici_ns = max64(bld_xfer_ns(bytes, bw_GBps), latency_ns);
    return op;
}

struct op *b_kv_swap(struct trace *t, int64_t fid, int64_t count, const char *desc,
                     const char *name, bool output, int64_t n, bool doubled, bool gib,
                     double pcie_bw_GBps, int64_t pcie_latency_ns, int64_t ici_latency_ns)
{
    struct shape x = SHP(n);
    char s[SBUF];
    struct strbuf cb = STRBUF(s);
    struct op *op = bld_push(t, fid, count, desc, name, OP_ICI_NO_COMPUTE, OPC_OTHER,
                         output ? "KVSwapOutput" : "KVSwapInput");
    if (!hold_config(op, output ? "KVSwapOutput" : "KVSwapInput", NULL)) {
        strbuf_puts(&cb, output ? "KVSwapOutput([" : "KVSwapInput([");
        bld_put_dims(&cb, x, ", ", "");
        strbuf_putn(&cb, "])", 2);
        set_text(&op->config, &cb);
    }
    bld_in1(op, x, BF16);
    bld_out(op, x, BF16);
    int64_t bytes = doubled ? bmul(n, 2) : n;   /* quirk opsgen Q10 */
    bld_traffic(op, output ? 0 : bytes, output ? bytes : 0);
    /* The reference's PCIe GB = 2^30 B, divided step by step as it does
     * (quirk chipsim Q11); corrected: GB = 1e9 B, so GB/s = bytes/ns. */
    int64_t tn = gib ? ck_ceil((double)bytes * 1e9 / 1024 / 1024 / 1024 / pcie_bw_GBps, &size_overflow)
                     : ck_ceil((double)bytes / pcie_bw_GBps, &size_overflow);
    op->ici_ns = max64(tn, ici_latency_ns);
    op->pcie_ns = max64(tn, pcie_latency_ns);
    return op;
}

int64_t staged_elems(int64_t e, const struct coll_axes *ax)
{
    int64_t tot = 0, cur = e;
    for (int i = 0; i < ax->n; i++) {
        tot = ck_add(tot, cur, &size_overflow);
        cur = cdiv64(cur, ax->deg[i]);
    }
    return tot;
}

static int64_t axes_prod(const struct coll_axes *ax)
{
    int64_t p = 1;
    for (int i = 0; i < ax->n; i++) p = bmul(p, ax->deg[i]);
    return p;
}

static double axes_bw(const struct coll_axes *ax)
{
    double bw = 0;
    for (int i = 0; i < ax->n; i++) bw += ax->bw_GBps[i];
    return bw;
}

/* Output shape of a collective gathered along dim over p chips. */
static struct shape shape_gathered(struct shape x, int dim, int64_t p)
{
    x.d[dim] = bmul(x.d[dim], p);
    return x;
}

struct shape shape_scattered(struct shape x, int dim, int64_t p)
{
    x.d[dim] = cdiv64(x.d[dim], p);
    return x;
}

/* "AllGather(8x4096->8x8192)" */
static void set_arrow_config(struct op *op, const char *kind, struct shape in, struct shape out,
                             const char *sep, const char *q)
{
    if (hold_config(op, kind, NULL))
        return;
    char s[2 * SBUF + 64];
    struct strbuf cb = STRBUF(s);
    const char *open = *q ? "([" : "(", *arrow = *q ? "]->[" : "->", *close = *q ? "])" : ")";
    strbuf_puts(&cb, kind);
    strbuf_puts(&cb, open);
    bld_put_dims(&cb, in, sep, q);
    strbuf_puts(&cb, arrow);
    bld_put_dims(&cb, out, sep, q);
    strbuf_puts(&cb, close);
    set_text(&op->config, &cb);
}

struct op *b_all_gather(struct trace *t, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, int dim, const struct coll_axes *ax)
{
    int64_t p = axes_prod(ax);
    struct shape o = shape_gathered(x, dim, p);
    struct op *op = bld_push(t, fid, count, desc, name, OP_ICI_NO_COMPUTE,
                         OPC_COLLECTIVE_NO_COMPUTE, "AllGather");
    set_arrow_config(op, "AllGather", x, o, "x", "");
    bld_in1(op, x, BF16);
    bld_out(op, o, BF16);
    int64_t bytes = bmul(staged_elems(bmul(shape_prod(x), p), ax), 2);
    bld_traffic(op, bytes, bytes);
    op->ici_ns = max64(bld_xfer_ns(bytes, axes_bw(ax)), bmul(ax->latency_ns, p - 1));
    return op;
}

struct op *b_reduce_scatter(struct trace *t, int64_t fid, int64_t count, const char *desc,
                            const char *name, struct shape x, int dim,
                            const struct coll_axes *ax)
{
    int64_t p = axes_prod(ax);
    struct shape o = shape_scattered(x, dim, p);
    struct op *op = bld_push(t, fid, count, desc, name, OP_VPU, OPC_COLLECTIVE_REDUCE,
                         "ReduceScatter");
    set_arrow_config(op, "ReduceScatter", x, o, ", ", "'");
    bld_in1(op, x, BF16);
    bld_out(op, o, BF16);
    int64_t elems = staged_elems(cdiv64(shape_prod(x), p), ax);
    int64_t bytes = bmul(elems, 2);
    bld_traffic(op, bytes, bytes);
    op->ici_ns = max64(bld_xfer_ns(bytes, axes_bw(ax)), bmul(ax->latency_ns, p - 1));
    op->flops = bmul(elems, p - 1);
    return op;
}

struct op *b_all_reduce(struct trace *t, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, const struct coll_axes *ax)
{
    int64_t p = axes_prod(ax);
    struct op *op = bld_push(t, fid, count, desc, name, OP_VPU, OPC_COLLECTIVE_REDUCE,
                         "AllReduce");
    set_arrow_config(op, "AllReduce", x, x, "x", "");
    bld_in1(op, x, BF16);
    bld_out(op, x, BF16);
    int64_t bytes = bmul(staged_elems(shape_prod(x), ax), 4);
    bld_traffic(op, bytes, bytes);
    op->ici_ns = max64(bld_xfer_ns(bytes, axes_bw(ax)), bmul(2 * ax->latency_ns, p - 1));
    return op;
}

struct op *b_all_to_all(struct trace *t, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, const char *dtype,
                        double bisection_bw_GBps, int64_t n, int64_t latency_ns)
{
    struct op *op = bld_push(t, fid, count, desc, name, OP_ICI_NO_COMPUTE, OPC_OTHER, "AllToAll");
    set_arrow_config(op, "AllToAll", x, x, "x", "");
    bld_in1(op, x, BF16);
    bld_out(op, x, BF16);
    int64_t bytes = bmul(shape_prod(x), dtype_bytes(dtype));
    bld_traffic(op, bytes, bytes);
    op->ici_ns = max64(bld_xfer_ns(bytes, bisection_bw_GBps), bmul(latency_ns, n - 1));
    return op;
}
