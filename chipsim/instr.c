/* instr.c — pseudo-instructions built from an op's strings, cached by name.
 *
 * The reference turns every op into an "HLO instruction" and later looks it
 * up by name, the first op with a name winning (quirk chipsim Q1, chipsim.md §3.4).
 * Later ops with that name then mutate the shared instruction: conv ops
 * overwrite inputs and output, default-path ops overwrite only the inputs,
 * einsum ops change nothing. The cache is an open-addressing hash table keyed
 * by the name after its last '/' (see the cache section below). */
#include "chipsim/cs_internal.h"
#include "base/strbuf.h"

#include <pthread.h>
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
    KIND("Gelu", K_GELU), KIND("Silu", K_SILU), KIND("Relu", K_RELU),
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

/* The op's tensors (traces/op_form.h: from its form, or its CSV text). */
static int parse_inputs(const struct cs_ctx *c, struct instr *in)
{
    const char *why = "";
    if (op_inputs(c->op, &in->in, &why))
        return cs_errf(c, "in_shapes: expected %s, got \"%s\"", why, cs_in_text(c));
    return 0;
}

static int parse_output(const struct cs_ctx *c, struct instr *in)
{
    const char *why = "";
    if (op_output(c->op, &in->out, &why))
        return cs_errf(c, "out_shape: expected %s, got \"%s\"", why, cs_out_text(c));
    return 0;
}

static int build_einsum(const struct cs_ctx *c, struct instr *in)
{
    if (in->kind == K_BATCHMATMUL) {
        strcpy(in->lhs, "bmk");
        strcpy(in->rhs, "bkn");
        strcpy(in->outl, "bmn");
    } else if (op_equation(c->op, in->lhs, in->rhs, in->outl)) {
        return cs_errf(c, "config: expected eq=<lhs>;<rhs>-><out> with at most 8 letters each, got \"%s\"",
                       cs_config_text(c));
    }
    if (parse_inputs(c, in) || parse_output(c, in))
        return -1;
    if (in->in.n != 2 || (size_t)in->in.t[0].ndim != strlen(in->lhs) ||
        (size_t)in->in.t[1].ndim != strlen(in->rhs) || (size_t)in->out.ndim != strlen(in->outl))
        return cs_errf(c, "in_shapes/out_shape: expected two inputs and an output of ranks %zu, %zu, %zu "
                       "(eq %s;%s->%s), got \"%s\" -> \"%s\"", strlen(in->lhs), strlen(in->rhs),
                       strlen(in->outl), in->lhs, in->rhs, in->outl, cs_in_text(c), cs_out_text(c));
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
    if (op_equation(c->op, in->lhs, in->rhs, in->outl))
        return cs_errf(c, "config: expected eq=<lhs>;<rhs>-><out>, got \"%s\"", cs_config_text(c));
    snprintf(in->dim_labels, sizeof in->dim_labels, "%s;%s->%s", in->lhs, in->rhs, in->outl);
    if (op_conv_stride(c->op, &in->stride_h, &in->stride_w))
        return cs_errf(c, "config: expected window stride=<h>x<w> with positive ints, got \"%s\"", c->op->config);
    return parse_inputs(c, in) || parse_output(c, in) ? -1 : 0;
}

static int build(const struct cs_ctx *c, struct instr *in)
{
    struct tensor_list keep = in->in;   /* reused storage (an entry of a reset cache) */
    memset(in, 0, sizeof *in);
    in->in = keep;
    in->in.n = 0;
    /* The kind chipsim_run took from the same text; only the token is new. */
    const char *cfg = op_kind_text(c->op);
    size_t n = strcspn(cfg, "("), cut = n < sizeof in->token ? n : sizeof in->token - 1;
    memcpy(in->token, cfg, cut);
    in->token[cut] = '\0';
    in->kind = c->op_kind;
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

/* --- the by-name cache ---
 *
 * One run looks up every op by name and inserts each new name once, so the
 * table keeps its instructions in one growable array and the key bytes in
 * one growable text arena, instead of two allocations per name: slots hold
 * an entry index + 1 (0 = empty) and compare the full hash before the
 * bytes. Each thread keeps its table between runs (a sweep simulates
 * thousands of traces): a reset empties it but keeps the arrays and the
 * entries' tensor lists, so a run of the same size allocates nothing. */

struct entry {
    uint64_t hash;
    size_t key_off, key_len;       /* in keys */
    struct instr in;
};

struct instr_cache {
    uint32_t *slots;               /* entry index + 1, or 0; power-of-two count */
    size_t cap;
    struct entry *ent;             /* [0, ent_cap) zeroed or owning their lists */
    size_t n, ent_cap;
    char *keys;
    size_t keys_len, keys_cap;
};

static void instr_cache_free(struct instr_cache *c);

#define CACHE_SLOTS0 128           /* a layer's ~40 names without growing (load <= 1/2) */
#define CACHE_SLOTS_KEPT 4096      /* a reset gives back tables grown past this */

static struct instr_cache *cache_new(void)
{
    struct instr_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->cap = CACHE_SLOTS0;
    c->ent_cap = 64;
    c->keys_cap = 4096;
    c->slots = calloc(c->cap, sizeof *c->slots);
    c->ent = calloc(c->ent_cap, sizeof *c->ent);
    c->keys = malloc(c->keys_cap);
    if (!c->slots || !c->ent || !c->keys) {
        instr_cache_free(c);
        return NULL;
    }
    return c;
}

static void instr_cache_free(struct instr_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->ent_cap; i++)
        instr_free(&c->ent[i].in);
    free(c->slots);
    free(c->ent);
    free(c->keys);
    free(c);
}

static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static bool cache_key_ok;

static void cache_destroy(void *c) { instr_cache_free(c); }
static void cache_key_make(void) { cache_key_ok = pthread_key_create(&cache_key, cache_destroy) == 0; }

struct instr_cache *instr_cache_acquire(void)
{
    pthread_once(&cache_once, cache_key_make);
    struct instr_cache *c = cache_key_ok ? pthread_getspecific(cache_key) : NULL;
    if (c && c->cap <= CACHE_SLOTS_KEPT) {
        memset(c->slots, 0, c->cap * sizeof *c->slots);
        c->n = 0;
        c->keys_len = 0;
        return c;
    }
    instr_cache_free(c);
    c = cache_new();
    if (cache_key_ok && pthread_setspecific(cache_key, c) != 0) {
        instr_cache_free(c);   /* cannot be kept: the caller would leak it */
        c = NULL;
    }
    return c;
}

/* Eight bytes per step (names run to ~100 bytes): only the table layout
 * depends on it, never an output. */
static uint64_t hash(const char *s, size_t *len)
{
    size_t n = strlen(s), i = 0;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
    }
    for (w = 0; i < n; i++)
        w = (w << 8) | (unsigned char)s[i];
    h = (h ^ w) * 0x94d049bb133111ebull;
    *len = n;
    return h ^ (h >> 31);
}

/* The slot holding key, or the empty slot where it belongs. */
static uint32_t *find(struct instr_cache *c, const char *key, size_t len, uint64_t h)
{
    size_t i = (size_t)h & (c->cap - 1);
    for (;; i = (i + 1) & (c->cap - 1)) {
        uint32_t s = c->slots[i];
        if (!s)
            return &c->slots[i];
        const struct entry *e = &c->ent[s - 1];
        if (e->hash == h && e->key_len == len && !memcmp(c->keys + e->key_off, key, len))
            return &c->slots[i];
    }
}

/* Room for one more entry and len + 1 key bytes, at load <= 1/2. */
static int reserve(struct instr_cache *c, size_t len)
{
    if (c->n == c->ent_cap) {
        struct entry *e = realloc(c->ent, 2 * c->ent_cap * sizeof *e);
        if (!e)
            return -1;
        memset(e + c->ent_cap, 0, c->ent_cap * sizeof *e);   /* no list yet */
        c->ent = e;
        c->ent_cap *= 2;
    }
    while (c->keys_len + len + 1 > c->keys_cap) {
        char *k = realloc(c->keys, 2 * c->keys_cap);
        if (!k)
            return -1;
        c->keys = k;
        c->keys_cap *= 2;
    }
    if (2 * (c->n + 1) > c->cap) {
        uint32_t *s = calloc(2 * c->cap, sizeof *s);
        if (!s)
            return -1;
        free(c->slots);
        c->slots = s;
        c->cap *= 2;
        for (size_t i = 0; i < c->n; i++) {
            const struct entry *e = &c->ent[i];
            *find(c, c->keys + e->key_off, e->key_len, e->hash) = (uint32_t)(i + 1);
        }
    }
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
    size_t len;
    uint64_t h = hash(key, &len);
    uint32_t *slot = find(c, key, len, h);
    if (*slot) {
        struct instr *in = &c->ent[*slot - 1].in;
        if (conv_path(ctx)) {
            if (in->kind == K_CONV2D && (parse_inputs(ctx, in) || parse_output(ctx, in)))
                return NULL;
        } else if (parse_inputs(ctx, in)) {
            return NULL;
        }
        return in;
    }
    if (c->n >= UINT32_MAX - 1 || reserve(c, len)) {
        cs_errf(ctx, "out of memory in the instruction cache");
        return NULL;
    }
    struct entry *e = &c->ent[c->n];
    if (build(ctx, &e->in)) {
        instr_free(&e->in);
        return NULL;
    }
    e->hash = h;
    e->key_off = c->keys_len;
    e->key_len = len;
    memcpy(c->keys + c->keys_len, key, len + 1);
    c->keys_len += len + 1;
    *find(c, key, len, h) = (uint32_t)(++c->n);   /* the table may have grown: look again */
    return &e->in;
}
