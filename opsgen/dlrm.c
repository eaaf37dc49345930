/* dlrm.c — DLRM inference: table plan, EmbeddingBag builder, per-chip op
 * lists, sweep helpers (see dlrm.h; opsgen.md §3.11, §9, §11.4, §13). */
#include "opsgen/dlrm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opsgen/builders.h"
#include "traces/dtype.h"

/* ---- validation ---- */

/* The file a top-level key came from, as the field loader names it. */
static const char *src_of(field_sources *src, const char *key)
{
    const cJSON *s = src ? cJSON_GetObjectItemCaseSensitive(src, key) : NULL;
    return cJSON_IsString(s) ? s->valuestring : "<config>";
}

static int fail(struct npu_err *e, field_sources *src, const char *key, const char *what)
{
    return npu_errf(e, "%s: model field \"%s\": %s", src_of(src, key), key, what);
}

static int check_layers(const struct mlp_layers *l, const char *key, field_sources *src,
                        struct npu_err *e)
{
    if (l->n < 1)
        return fail(e, src, key, "expected a non-empty list of layers");
    for (int i = 0; i < l->n; i++)
        if (l->l[i].in_features <= 0 || l->l[i].out_features <= 0)
            return npu_errf(e, "%s: model field \"%s\": layer %d: expected positive "
                               "\"in_features\" and \"out_features\", got %lld and %lld",
                            src_of(src, key), key, i, (long long)l->l[i].in_features,
                            (long long)l->l[i].out_features);
    return 0;
}

/* Products that must fit in int64 (traffic bytes of the largest ops). */
static bool mul_ok(int64_t *acc, int64_t v)
{
    return !__builtin_mul_overflow(*acc, v, acc);
}

int dlrm_check(const struct model_config *m, field_sources *src, struct npu_err *e)
{
    char why[160];
    if (strcmp(m->model_type, "dlrm"))
        return fail(e, src, "model_type", "expected \"dlrm\" for DLRM inference");
    static const struct { const char *k; size_t off; } pos[] = {
#define F(x) { #x, offsetof(struct model_config, x) }
        F(num_chips), F(data_parallelism_degree), F(tensor_parallelism_degree),
        F(global_batch_size), F(embedding_dim),
#undef F
    };
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        int64_t v = *(const int64_t *)((const char *)m + pos[i].off);
        if (v <= 0) {
            snprintf(why, sizeof why, "expected a positive integer, got %lld", (long long)v);
            return fail(e, src, pos[i].k, why);
        }
    }
    /* The reference asserts these (DLRMOpsGenerator.__init__). */
    static const struct { const char *k; size_t off; const char *what; } one[] = {
#define F(x, w) { #x, offsetof(struct model_config, x), w }
        F(pipeline_parallelism_degree, "pipeline parallelism"),
        F(data_parallel_degree_dcn, "DCN data parallelism"),
        F(tensor_parallel_degree_dcn, "DCN tensor parallelism"),
        F(pipeline_parallel_degree_dcn, "DCN pipeline parallelism"),
#undef F
    };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        int64_t v = *(const int64_t *)((const char *)m + one[i].off);
        if (v != 1) {
            snprintf(why, sizeof why, "expected 1 (DLRM has no %s), got %lld", one[i].what,
                     (long long)v);
            return fail(e, src, one[i].k, why);
        }
    }
    const struct int_list *n = &m->embedding_table_sizes, *k = &m->num_indices_per_lookup;
    if (n->n < 1)
        return fail(e, src, "embedding_table_sizes", "expected a non-empty list");
    if (k->n != n->n) {
        snprintf(why, sizeof why, "expected one entry per embedding table (%d), got %d", n->n,
                 k->n);
        return fail(e, src, "num_indices_per_lookup", why);
    }
    for (int i = 0; i < n->n; i++) {
        if (n->v[i] <= 0)
            return fail(e, src, "embedding_table_sizes", "expected positive integers");
        if (k->v[i] <= 0)
            return fail(e, src, "num_indices_per_lookup", "expected positive integers");
    }
    if (check_layers(&m->bottom_mlp_config, "bottom_mlp_config", src, e) ||
        check_layers(&m->top_mlp_config, "top_mlp_config", src, e))
        return -1;
    /* Largest byte counts: the row all-to-all [gbs, T, max k, E] x 4 and a
     * table's n x E x 4; beyond int64 the reference's Python ints have no C twin. */
    int64_t maxk = 0, sumk = 0;
    for (int i = 0; i < k->n; i++) {
        if (k->v[i] > maxk) maxk = k->v[i];
        if (__builtin_add_overflow(sumk, k->v[i], &sumk))
            return fail(e, src, "num_indices_per_lookup", "values too large");
    }
    int64_t a = m->global_batch_size;
    if (!mul_ok(&a, n->n) || !mul_ok(&a, maxk + sumk) || !mul_ok(&a, m->embedding_dim) ||
        !mul_ok(&a, 8))
        return fail(e, src, "global_batch_size",
                    "batch x tables x lookups x embedding_dim overflows 64-bit byte counts");
    for (int i = 0; i < n->n; i++) {
        int64_t b = n->v[i];
        if (!mul_ok(&b, m->embedding_dim) || !mul_ok(&b, 4))
            return fail(e, src, "embedding_table_sizes",
                        "table size x embedding_dim overflows 64-bit byte counts");
    }
    /* Fusion ids roughly double per step (quirk opsgen Q27): 2^62 caps the op count. */
    int steps = m->bottom_mlp_config.n + m->top_mlp_config.n + n->n + 5;
    if (steps > 60)
        return fail(e, src, "embedding_table_sizes",
                    "too many tables and MLP layers: the reference's doubling fusion ids "
                    "would overflow 64 bits (at most 55 tables + layers)");
    return 0;
}

/* ---- plan ---- */

void dlrm_plan(const struct model_config *m, const struct opsgen_links *l,
               const struct profile *prof, struct dlrm_plan *p)
{
    memset(p, 0, sizeof *p);
    int64_t nc = m->num_chips, E = m->embedding_dim;
    p->bisection_bw_GBps = bisection_bw_per_chip_GBps(nc, l->ICI_topology, l->ici_bw_GBps,
                                                      prof->split_axes_drops_missing);
    p->ntopo = split_parallelism_degree(nc, strstr(l->ICI_topology, "2D") ? 2 : 3,
                                        prof->split_axes_drops_missing, p->topology);
    p->ntables = m->embedding_table_sizes.n;
    int64_t mid = 0;   /* index among the mid-sized tables (round-robin) */
    for (int i = 0; i < p->ntables; i++) {
        struct dlrm_table *t = &p->tables[i];
        t->embed_dim = E;
        t->num_entries = m->embedding_table_sizes.v[i];
        t->num_indices_per_lookup = m->num_indices_per_lookup.v[i];
        t->column_sharding_degree = 1;
        /* Set when the table is created, before its data-parallel degree
         * changes below, so replicated tables keep the global batch (opsgen Q26). */
        t->batch_size = prof->dlrm_table_batch_before_sharding
                            ? m->global_batch_size
                            : cdiv64(m->global_batch_size, m->data_parallelism_degree);
        double gib = (double)(t->num_entries * E * 4) / 1024 / 1024 / 1024;   /* FP32 */
        if (gib >= 6) {
            t->row_sharding_degree = m->tensor_parallelism_degree;
            t->data_parallel_degree = 1;
            t->all_chips = true;
        } else if (gib <= 2) {
            t->row_sharding_degree = 1;
            t->data_parallel_degree = m->data_parallelism_degree;
            t->all_chips = true;
        } else {
            t->row_sharding_degree = 1;
            t->data_parallel_degree = 1;
            t->chip = mid++ % nc;
        }
    }
}

int64_t dlrm_mem_bytes(int64_t hbm_size_GB)
{
    return 8 * hbm_size_GB * 1024 * 1024 * 1024 - 1024;
}

static int64_t mlp_weights(bool *ovf, const struct mlp_layers *l)
{
    int64_t w = 0;
    for (int i = 0; i < l->n; i++)
        w = badd(ovf, w, bmul(ovf, l->l[i].in_features, l->l[i].out_features));
    return w;
}

int64_t dlrm_mem_bytes_of(const struct model_config *m, const struct opsgen_links *l,
                          const struct profile *prof)
{
    if (prof->dlrm_gligen_placeholder_footprint)
        return dlrm_mem_bytes(l->hbm_size_GB);
    struct dlrm_plan p;
    dlrm_plan(m, l, prof, &p);
    bool flag = false, *ovf = &flag;   /* the footprint alone: there is no trace to fail */
    int64_t nc = m->num_chips, busiest = 0, E = m->embedding_dim, T = p.ntables;
    /* FP32 tables: row-sharded ones split over the chips, replicated ones
     * whole on every chip, the rest whole on their chip; the busiest chip. */
    for (int64_t c = 0; c < nc && c < FIELD_LIST_MAX; c++) {
        int64_t b = 0;
        for (int i = 0; i < p.ntables; i++) {
            const struct dlrm_table *t = &p.tables[i];
            if (t->all_chips || t->chip == c)
                b = badd(ovf, b, bmul3(ovf, cdiv64(t->num_entries, t->row_sharding_degree), E, 4));
        }
        if (b > busiest)
            busiest = b;
    }
    /* BF16 MLPs on every chip, with the top MLP's first layer from the
     * padded interaction width; the local batch's looked-up rows (FP32) and
     * interaction matrix (BF16). */
    int64_t inter = cdiv64(E + (T + 1) * T / 2, 128) * 128;
    int64_t top0 = m->top_mlp_config.n > 0 ? m->top_mlp_config.l[0].in_features : 0;
    int64_t w = bmul(ovf, 2, badd(ovf, badd(ovf, mlp_weights(ovf, &m->bottom_mlp_config),
                                            mlp_weights(ovf, &m->top_mlp_config)),
                                  bmul(ovf, inter, top0)));
    int64_t Bm = cdiv64(m->global_batch_size, m->data_parallelism_degree);
    int64_t act = bmul(ovf, Bm, badd(ovf, bmul3(ovf, T + 1, E, 4), bmul3(ovf, T + 1, T + 1, 2)));
    return badd(ovf, badd(ovf, busiest, w), act);
}

/* ---- EmbeddingBag (§3.11) ---- */

/* "a, b, c" (Python list body) into a heap buffer. */
struct op *b_embedding_bag(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                           const char *name, int64_t batch, int64_t k, int64_t rows, int64_t dim,
                           const char *dtype)
{
    int bpe = dtype_bytes(dtype);
    if (bpe < 0)
        return NULL;
    struct op *op = bld_push(t, fid, count, desc, name, OP_VPU, OPC_EMBEDDING_BAG, "EmbeddingBag");
    op_set(&op->name, name);   /* the reference keeps this name raw */
    bld_layout(op, FORM_EMBEDDING_BAG, "EmbeddingBag", NULL, "[0, 0]");
    /* Inputs: the int64 indices [B, 1, k] (their dtype is the layout's), then the table. */
    bld_in2(op, SHP(batch, 1, k), SHP(rows, dim), dtype);
    bld_out(op, SHP(batch, 1, dim), dtype);
    int64_t entries = bmul(ovf, batch, k);
    /* int64 indices read, looked-up rows fetched, pooled rows written;
     * checked products (an LLM's vocabulary lookup has batch x sequence rows). */
    op->bytes = badd(ovf, badd(ovf, bmul(ovf, entries, 8), bmul3(ovf, entries, dim, bpe)),
                     bmul3(ovf, batch, dim, bpe));
    op->flops = bmul3(ovf, 2, entries, dim);   /* sum pooling */
    op->weight_bytes = 0;
    return op;
}

/* ---- per-chip ops (§9) ---- */

struct gen {
    const struct model_config *m;
    const struct opsgen_links *l;
    const struct dlrm_plan *p;
    struct trace *t;
    bool *ovf;           /* the trace's overflow flag (builders.h) */
    const struct profile *prof;
    int64_t Bm;          /* MLP/interaction batch: cdiv(gbs, dp) */
    int64_t maxk;
};

/* The next fusion id after the ops so far: the reference adds the last op's
 * id, so ids roughly double at every step (quirk opsgen Q27). */
static int64_t advance(const struct gen *g, int64_t fid)
{
    int64_t last = g->t->ops[g->t->n - 1].fusion_id;
    return g->prof->dlrm_fid_doubling ? fid + last : last + 1;
}

/* One einsum per layer; the fusion id doubles from layer to layer (opsgen Q27). */
static int mlp(struct gen *g, int64_t fid, const char *desc, const char *name, int64_t in,
               int64_t out)
{
    char d[SBUF], nm[SBUF];
    snprintf(d, sizeof d, "%s_einsum", desc);
    snprintf(nm, sizeof nm, "%s_einsum", name);
    return b_einsum(g->t, g->ovf, fid, 1, d, nm, SHP(g->Bm, in), SHP(in, out), "BI;IO->BO", "0_0_0",
                    "DT_BFLOAT16") ? 0 : -1;
}

static int chip_ops(struct gen *g, int64_t c)
{
    const struct model_config *m = g->m;
    int64_t T = g->p->ntables, E = m->embedding_dim, gbs = m->global_batch_size;
    char d[SBUF], nm[SBUF];
    int64_t fid = 2, f = fid;
    /* The all-to-all latency term counts tables, not chips (quirk opsgen Q28). */
    int64_t a2a_group = g->prof->dlrm_a2a_group_is_tables ? T : m->num_chips;
    /* the all-to-alls' latency as every collective's: the larger of it and
     * the transfer (the reference's), or added (physical) */
    struct coll_axes a2a = coll_axes_ring(a2a_group, g->p->bisection_bw_GBps, g->l->ici_latency_ns,
                                          g->l->collective_base_ns, g->l->collective_algorithm, g->prof);

    /* 1. bottom MLP */
    for (int i = 0; i < m->bottom_mlp_config.n; i++) {
        snprintf(d, sizeof d, "BottomMLP_%d", i);
        snprintf(nm, sizeof nm, "bottom_mlp_%d", i);
        if (mlp(g, f, d, nm, m->bottom_mlp_config.l[i].in_features,
                m->bottom_mlp_config.l[i].out_features))
            return -1;
        f = advance(g, f);
    }
    fid = advance(g, fid);

    /* 2. indices all-to-all: worst case, every lookup of the global batch;
     * the latency term counts tables, not chips (opsgen Q28). */
    snprintf(d, sizeof d, "EmbeddingIndicesAllToAll-%lld", (long long)fid);
    if (!b_all_to_all_over(g->t, g->ovf, fid, 1, d, "EmbeddingIndicesAllToAll", SHP(gbs, T, g->maxk),
                           "DT_INT32", g->p->bisection_bw_GBps, &a2a))
        return -1;
    fid += 1;

    /* 3. this chip's embedding bags */
    f = fid;
    for (int i = 0; i < T; i++) {
        const struct dlrm_table *tb = &g->p->tables[i];
        if (!tb->all_chips && tb->chip != c)
            continue;
        int64_t rows = cdiv64(tb->num_entries, tb->row_sharding_degree);
        snprintf(d, sizeof d, "EmbeddingBag%lld", (long long)f);
        snprintf(nm, sizeof nm, "embedding_bag_%lld", (long long)f);
        if (!b_embedding_bag(g->t, g->ovf, f, 1, d, nm, tb->batch_size, tb->num_indices_per_lookup, rows,
                             tb->embed_dim, "DT_FLOAT"))
            return -1;
        f = advance(g, f);
    }
    /* The last op so far: the last bag, or the indices all-to-all if none. */
    fid = advance(g, fid);

    /* 4. looked-up rows all-to-all (before pooling, opsgen Q28), FP32 */
    snprintf(d, sizeof d, "EmbeddingAllToAll-%lld", (long long)fid);
    if (!b_all_to_all_over(g->t, g->ovf, fid, 1, d, "EmbeddingAllToAll", SHP(gbs, T, g->maxk, E), "DT_FLOAT",
                           g->p->bisection_bw_GBps, &a2a))
        return -1;
    fid += 1;

    /* 5. dot interaction of the T sparse and 1 dense features */
    if (!b_einsum(g->t, g->ovf, fid, 1, "DotInteraction_einsum", "DotInteraction_einsum",
                  SHP(g->Bm, T + 1, E), SHP(g->Bm, E, T + 1), "BNE;BEN->BNN", "0_0_0",
                  "DT_BFLOAT16"))
        return -1;
    fid = advance(g, fid);

    /* 6. top MLP: an extra first layer from the padded interaction width */
    int64_t inter = cdiv64(E + (T + 1) * T / 2, 128) * 128;
    f = fid;
    if (mlp(g, f, "TopMLP_init", "top_mlp_init", inter, m->top_mlp_config.l[0].in_features))
        return -1;
    f = advance(g, f);
    for (int i = 0; i < m->top_mlp_config.n; i++) {
        snprintf(d, sizeof d, "TopMLP_%d", i);
        snprintf(nm, sizeof nm, "top_mlp_%d", i);
        if (mlp(g, f, d, nm, m->top_mlp_config.l[i].in_features,
                m->top_mlp_config.l[i].out_features))
            return -1;
        f = advance(g, f);
    }
    return 0;
}

#define DLRM_MAX_CHIPS 4096

int opsgen_dlrm_inference(const struct model_config *m, const struct opsgen_links *l,
                          const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e)
{
    if (dlrm_check(m, NULL, e))
        return -1;
    if (!(l->ici_bw_GBps > 0))
        return npu_errf(e, "chip field \"ici_bw_GBps\": expected a positive value");
    /* One op list per chip, and the straggler search reads them all per chip. */
    if (m->num_chips > DLRM_MAX_CHIPS)
        return npu_errf(e, "model field \"num_chips\": DLRM is simulated one op list per chip: expected at "
                           "most %d chips, got %lld", DLRM_MAX_CHIPS, (long long)m->num_chips);
    struct dlrm_plan *p = malloc(sizeof *p);
    if (!p)
        return npu_errf(e, "DLRM: out of memory");
    dlrm_plan(m, l, prof, p);
    struct gen g = { .m = m, .l = l, .p = p, .t = out, .ovf = ovf, .prof = prof };
    g.Bm = cdiv64(m->global_batch_size, m->data_parallelism_degree);
    for (int i = 0; i < m->num_indices_per_lookup.n; i++)
        if (m->num_indices_per_lookup.v[i] > g.maxk)
            g.maxk = m->num_indices_per_lookup.v[i];
    size_t first = out->n;
    int rc = 0;
    for (int64_t c = 0; c < m->num_chips && !rc; c++) {
        size_t start = out->n;
        rc = chip_ops(&g, c);
        for (size_t i = start; i < out->n; i++)
            out->ops[i].group = (int32_t)c;
    }
    free(p);
    if (rc) {
        while (out->n > first)
            op_free(&out->ops[--out->n]);
        return npu_errf(e, "internal: malformed DLRM op builder arguments");
    }
    return 0;
}

/* ---- groups ---- */

int dlrm_group_range(const struct trace *t, int32_t g, size_t *first, size_t *n,
                     struct npu_err *e)
{
    size_t i = 0;
    while (i < t->n && t->ops[i].group != g)
        i++;
    size_t j = i;
    while (j < t->n && t->ops[j].group == g)
        j++;
    if (i == t->n)
        return npu_errf(e, "trace: no ops of chip %d (column \"Group\"); expected one group per chip",
                        (int)g);
    for (size_t k = j; k < t->n; k++)
        if (t->ops[k].group == g)
            return npu_errf(e, "trace: the ops of chip %d (column \"Group\") are not contiguous",
                            (int)g);
    *first = i;
    *n = j - i;
    return 0;
}

int32_t dlrm_straggler(const struct trace *t, int64_t num_chips)
{
    int32_t best = 0;
    int64_t best_ns = -1;
    for (int64_t c = 0; c < num_chips; c++) {
        int64_t sum = 0;
        for (size_t i = 0; i < t->n; i++)
            if (t->ops[i].group == c)
                sum += t->ops[i].exe_ns;   /* not times count, as the reference */
        if (sum > best_ns) {   /* strict: the first chip wins ties (Python max) */
            best_ns = sum;
            best = (int32_t)c;
        }
    }
    return best;
}

/* ---- sweep ---- */

int sweep_dlrm_configs(int64_t num_chips, struct parallel_cfg **out, size_t *n, struct npu_err *e)
{
    *out = NULL;
    *n = 0;
    if (num_chips <= 0)
        return npu_errf(e, "sweep: num_chips must be positive, got %lld", (long long)num_chips);
    static const int64_t pods[] = { 1, 2, 4 };
    size_t k = num_chips > 256 ? 3 : 1;   /* above 256: num_chips / dcn chips (opsgen Q32) */
    *out = calloc(k, sizeof **out);
    if (!*out)
        return npu_errf(e, "sweep: out of memory");
    for (size_t i = 0; i < k; i++) {
        int64_t c = num_chips / pods[i];
        (*out)[i] = (struct parallel_cfg){ .num_chips = c, .dp = c, .tp = c, .pp = 1,
                                           .dp_dcn = 1, .tp_dcn = 1, .pp_dcn = 1 };
    }
    *n = k;
    return 0;
}

void sweep_map_axes_dlrm(const char *v, struct model_config *m)
{
    /* 5e/6e count as 3-D here, unlike the LLM rule (quirk opsgen Q34). */
    int64_t a = (!strcmp(v, "2") || !strcmp(v, "3")) ? 2 : 3;
    m->num_data_parallel_axes = a;
    m->num_tensor_parallel_axes = a;
    m->num_pipeline_parallel_axes = 0;
}
