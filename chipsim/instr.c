/* instr.c — pseudo-instructions built from an op's strings, cached by name.
 *
 * The reference turns every op into an "HLO instruction" and later looks it
 * up by name, the first op with a name winning (quirk Q1, chipsim.md §3.4).
 * Later ops with that name then mutate the shared instruction: conv ops
 * overwrite inputs and output, default-path ops overwrite only the inputs,
 * einsum ops change nothing. The cache is an open-addressing hash table keyed
 * by the name after its last '/', holding heap-allocated instructions. */
#include "chipsim/cs_internal.h"
#include "traces/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Config prefixes and their kinds; the length is stored so that a lookup
 * compares only the entries of the prefix's length. */
#define KIND(tok, k) { tok, sizeof tok - 1, k }
static const struct {
    const char *token;
    size_t len;
    enum kind kind;
} kind_table[] = {
    KIND("XlaEinsum", K_EINSUM), KIND("BatchMatMul", K_BATCHMATMUL),
    KIND("FlashAttention", K_FLASH_ATTENTION), KIND("Conv2D", K_CONV2D),
    KIND("LayerNorm", K_LAYERNORM), KIND("GroupNorm", K_GROUPNORM), KIND("RMSNorm", K_RMSNORM),
    KIND("Softmax", K_SOFTMAX), KIND("Add", K_ADD), KIND("Mul", K_MUL), KIND("Abs", K_ABS),
    KIND("Pointwise Mul.", K_PW_MUL), KIND("Upsample", K_UPSAMPLE), KIND("AvgPool2d", K_AVGPOOL),
    KIND("ReduceScatter", K_REDUCE_SCATTER), KIND("AllReduce", K_ALL_REDUCE),
    KIND("AllGather", K_ALL_GATHER), KIND("AllToAll", K_ALL_TO_ALL),
    KIND("InterChipCommInput", K_IC_IN), KIND("InterChipCommOutput", K_IC_OUT),
    KIND("KVSwapInput", K_KVSWAP_IN), KIND("KVSwapOutput", K_KVSWAP_OUT),
};
#undef KIND

enum kind kind_from_config(const char *config, char *token, size_t size)
{
    size_t n = strcspn(config, "(");
    if (token) {
        size_t c = n < size ? n : size - 1;
        memcpy(token, config, c);
        token[c] = '\0';
    }
    for (size_t i = 0; i < sizeof kind_table / sizeof kind_table[0]; i++)
        if (kind_table[i].len == n && !memcmp(config, kind_table[i].token, n))
            return kind_table[i].kind;
    return K_OTHER;
}

void instr_free(struct instr *in) { tensor_list_free(&in->in); }

/* Value of "key=" in the config up to the next ',' (or ')' at the end). */
static int config_value(const char *config, const char *key, char *out, size_t size)
{
    const char *p = strstr(config, key);
    if (!p)
        return -1;
    p += strlen(key);
    size_t n = strcspn(p, ",)");
    if (n >= size)
        return -1;
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

/* "lhs;rhs->out" (sep = ';') into three letter strings. */
static int split_eq(const char *eq, char *lhs, char *rhs, char *out)
{
    const char *semi = strchr(eq, ';'), *arrow = strstr(eq, "->");
    if (!semi || !arrow || semi > arrow || strchr(semi + 1, ';'))
        return -1;
    size_t nl = (size_t)(semi - eq), nr = (size_t)(arrow - semi - 1), no = strlen(arrow + 2);
    if (nl > NPU_MAX_DIMS || nr > NPU_MAX_DIMS || no > NPU_MAX_DIMS)
        return -1;
    memcpy(lhs, eq, nl);
    lhs[nl] = '\0';
    memcpy(rhs, semi + 1, nr);
    rhs[nr] = '\0';
    memcpy(out, arrow + 2, no);
    out[no] = '\0';
    return 0;
}

/* From opsgen's parsed twin when the op holds one, else from the text. */
static int parse_inputs(const struct cs_ctx *c, struct instr *in)
{
    const char *why = "";
    const struct op *op = c->op;
    if (op->shp.in_held ? shape_held_inputs(&op->shp, &in->in, &why)
                        : shape_parse_inputs(op->in_shapes, &in->in, &why))
        return cs_errf(c, "in_shapes: expected %s, got \"%s\"", why, c->op->in_shapes);
    return 0;
}

static int parse_output(const struct cs_ctx *c, struct instr *in)
{
    const char *why = "";
    const struct op *op = c->op;
    if (op->shp.out_held ? shape_held_output(&op->shp, &in->out, &why)
                         : shape_parse_output(op->out_shape, &in->out, &why))
        return cs_errf(c, "out_shape: expected %s, got \"%s\"", why, c->op->out_shape);
    return 0;
}

static int build_einsum(const struct cs_ctx *c, struct instr *in)
{
    char eq[64];
    if (in->kind == K_BATCHMATMUL) {
        strcpy(in->lhs, "bmk");
        strcpy(in->rhs, "bkn");
        strcpy(in->outl, "bmn");
    } else if (config_value(c->op->config, "eq=", eq, sizeof eq) ||
               split_eq(eq, in->lhs, in->rhs, in->outl)) {
        return cs_errf(c, "config: expected eq=<lhs>;<rhs>-><out> with at most 8 letters each, got \"%s\"",
                       c->op->config);
    }
    if (parse_inputs(c, in) || parse_output(c, in))
        return -1;
    if (in->in.n != 2 || (size_t)in->in.t[0].ndim != strlen(in->lhs) ||
        (size_t)in->in.t[1].ndim != strlen(in->rhs) || (size_t)in->out.ndim != strlen(in->outl))
        return cs_errf(c, "in_shapes/out_shape: expected two inputs and an output of ranks %zu, %zu, %zu "
                       "(eq %s;%s->%s), got \"%s\" -> \"%s\"", strlen(in->lhs), strlen(in->rhs),
                       strlen(in->outl), in->lhs, in->rhs, in->outl, c->op->in_shapes, c->op->out_shape);
    in->ob_bracketed = 1;
    struct strbuf b = STRBUF(in->dim_labels);   /* "lhs,rhs->out" */
    strbuf_puts(&b, in->lhs);
    strbuf_putc(&b, ',');
    strbuf_puts(&b, in->rhs);
    strbuf_putn(&b, "->", 2);
    strbuf_puts(&b, in->outl);
    return 0;
}

static int build_conv(const struct cs_ctx *c, struct instr *in)
{
    char eq[64];
    if (config_value(c->op->config, "eq=", eq, sizeof eq) || split_eq(eq, in->lhs, in->rhs, in->outl))
        return cs_errf(c, "config: expected eq=<lhs>;<rhs>-><out>, got \"%s\"", c->op->config);
    snprintf(in->dim_labels, sizeof in->dim_labels, "%s", eq);
    in->stride_h = in->stride_w = 1;
    const char *w = strstr(c->op->config, "window={");
    if (w) {
        const char *end = strchr(w, '}');
        const char *st = strstr(w, "stride=");
        if (end && st && st < end) {
            char *q;
            long long sh = strtoll(st + 7, &q, 10), sw = 0;
            if (*q == 'x')
                sw = strtoll(q + 1, &q, 10);
            if (sh <= 0 || sw <= 0)
                return cs_errf(c, "config: expected window stride=<h>x<w> with positive ints, got \"%s\"",
                               c->op->config);
            in->stride_h = sh;
            in->stride_w = sw;
        }
    }
    return parse_inputs(c, in) || parse_output(c, in) ? -1 : 0;
}

static int build(const struct cs_ctx *c, struct instr *in)
{
    memset(in, 0, sizeof *in);
    in->kind = kind_from_config(c->op->config, in->token, sizeof in->token);
    switch (in->kind) {
    case K_EINSUM:
    case K_BATCHMATMUL:
        return build_einsum(c, in);
    case K_CONV2D:
        return build_conv(c, in);
    default:
        return parse_inputs(c, in) || parse_output(c, in) ? -1 : 0;
    }
}

/* Path choice of the reference: opcode CONV2D/EINSUM → conv path. Ops read
 * back from CSV carry OPC_OTHER, so fall back to the config kind. */
static bool conv_path(const struct cs_ctx *c)
{
    const struct op *op = c->op;
    if (op->opcode_type == OPC_CONV2D || op->opcode_type == OPC_EINSUM)
        return true;
    if (op->opcode_type != OPC_OTHER)
        return false;
    enum kind k = c->op_kind;
    return k == K_EINSUM || k == K_BATCHMATMUL || k == K_CONV2D;
}

/* --- the by-name cache --- */

struct slot {
    char *key;
    struct instr *in;
};

struct instr_cache {
    struct slot *slots;
    size_t cap, n;
};

struct instr_cache *instr_cache_new(void)
{
    struct instr_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->cap = 128;   /* a layer's ~40 names without growing (load <= 1/2) */
    c->slots = calloc(c->cap, sizeof *c->slots);
    if (!c->slots) {
        free(c);
        return NULL;
    }
    return c;
}

void instr_cache_free(struct instr_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->cap; i++)
        if (c->slots[i].key) {
            free(c->slots[i].key);
            instr_free(c->slots[i].in);
            free(c->slots[i].in);
        }
    free(c->slots);
    free(c);
}

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static struct slot *find(struct instr_cache *c, const char *key)
{
    size_t i = (size_t)hash(key) & (c->cap - 1);
    while (c->slots[i].key && strcmp(c->slots[i].key, key))
        i = (i + 1) & (c->cap - 1);
    return &c->slots[i];
}

static int grow(struct instr_cache *c)
{
    struct slot *old = c->slots;
    size_t ocap = c->cap;
    struct slot *s = calloc(ocap * 2, sizeof *s);
    if (!s)
        return -1;
    c->slots = s;
    c->cap = ocap * 2;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].key)
            *find(c, old[i].key) = old[i];
    free(old);
    return 0;
}

struct instr *instr_for_op(struct instr_cache *c, struct instr *scratch, const struct cs_ctx *ctx)
{
    const struct op *op = ctx->op;
    if (!ctx->prof->lookup_ops_by_name_first_wins) {
        instr_free(scratch);
        return build(ctx, scratch) ? NULL : scratch;
    }
    const char *key = strrchr(op->name, '/');
    key = key ? key + 1 : op->name;
    struct slot *s = find(c, key);
    if (s->key) {
        struct instr *in = s->in;
        if (conv_path(ctx)) {
            if (in->kind == K_CONV2D && (parse_inputs(ctx, in) || parse_output(ctx, in)))
                return NULL;
        } else if (parse_inputs(ctx, in)) {
            return NULL;
        }
        return in;
    }
    const size_t cap0 = c->cap;
    struct instr *in = calloc(1, sizeof *in);
    char *k = strdup(key);
    if (!in || !k || (2 * (c->n + 1) > c->cap && grow(c))) {
        free(in);
        free(k);
        cs_errf(ctx, "out of memory in the instruction cache");
        return NULL;
    }
    if (build(ctx, in)) {
        instr_free(in);
        free(in);
        free(k);
        return NULL;
    }
    if (c->cap != cap0)
        s = find(c, key); /* the table has grown: the slot moved */
    s->key = k;
    s->in = in;
    c->n++;
    return in;
}
