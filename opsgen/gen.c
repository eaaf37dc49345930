/* gen.c — generator skeleton helpers (see gen.h). */
#include "opsgen/gen.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "opsgen/parallel.h"
#include "opsgen/pattern.h"

/* Every generator checks its list of positive fields once per run: a
 * per-thread memo remembers the descriptors of the last lists (looking a
 * name up scans the field tables with strcmp). An entry is trusted only if
 * each remembered descriptor still names the same key, so a list that
 * reuses an address with other names is looked up afresh. */
#define POSITIVE_MEMO_SLOTS 4
#define POSITIVE_MEMO_KEYS 32
struct positive_memo {
    const char *const *keys;
    size_t n;
    const struct field_desc *f[POSITIVE_MEMO_KEYS];
};
static _Thread_local struct positive_memo positive_memo[POSITIVE_MEMO_SLOTS];

static const struct field_desc *int_field(const char *key)
{
    const struct field_table *t[16];
    int nt = model_all_tables(t, 16);
    const struct field_desc *f = NULL;
    for (int k = 0; k < nt && !f; k++)
        f = fields_find(t[k], key);
    return f && f->type == FT_INT ? f : NULL;
}

int gen_require_positive(const struct model_config *m, const char *const *keys, size_t n,
                         struct npu_err *e)
{
    struct positive_memo *pm = &positive_memo[((uintptr_t)keys >> 4) % POSITIVE_MEMO_SLOTS];
    bool hit = pm->keys == keys && pm->n == n;
    for (size_t i = 0; hit && i < n; i++)
        hit = strcmp(pm->f[i]->key, keys[i]) == 0;
    if (!hit)
        pm->keys = NULL;   /* refilled below; valid again only when complete */
    for (size_t i = 0; i < n; i++) {
        const struct field_desc *f = hit ? pm->f[i] : int_field(keys[i]);
        if (!f)
            return npu_errf(e, "internal: \"%s\" is not an integer model field", keys[i]);
        if (!hit && n <= POSITIVE_MEMO_KEYS)
            pm->f[i] = f;
        int64_t v = *(const int64_t *)((const char *)m + f->offset);
        if (v <= 0)
            return npu_errf(e, "model field \"%s\": expected a positive integer, got %lld", keys[i],
                            (long long)v);
    }
    if (!hit && n <= POSITIVE_MEMO_KEYS) {
        pm->keys = keys;   /* the loop ran to the end: every descriptor is filled */
        pm->n = n;
    }
    return 0;
}

bool gen_spans_domain(int64_t deg, const struct opsgen_links *l, const struct profile *prof)
{
    return !prof->collectives_ignore_link_domain && l->link_domain_chips > 0 && deg > l->link_domain_chips;
}

int gen_axes(struct coll_axes *ax, int64_t deg, int64_t n_axes, const struct profile *prof,
             const struct opsgen_links *l, int max_axes)
{
    bool out = gen_spans_domain(deg, l, prof);
    double bw_GBps = out ? l->dcn_bw_GBps : l->ici_bw_GBps;
    int64_t latency_ns = out ? l->dcn_latency_ns : l->ici_latency_ns;
    int64_t a[PAR_MAX_FACTORS];
    int n = 0;
    if (!prof->link_domain_as_torus && l->link_domain_chips > 0 && deg > 1)
        a[n++] = deg;   /* a switch: one ring, not a torus's axes each at the links' bandwidth */
    else if (n_axes > 0)
        n = split_parallelism_degree(deg, (int)(n_axes < PAR_MAX_FACTORS ? n_axes : PAR_MAX_FACTORS),
                                     prof->split_axes_drops_missing, a);
    else if (!prof->zero_tp_axes_ignore_tp && deg > 1)
        a[n++] = deg;   /* corrected opsgen Q13: keep the degree on one axis */
    if (n > max_axes || n > SHAPE_MAXD)
        return -1;
    /* a switch's one hop only inside its domain */
    *ax = coll_axes_ring(1, bw_GBps, latency_ns, l->collective_base_ns,
                         out && l->collective_algorithm == COLL_DIRECT ? COLL_RING : l->collective_algorithm, prof);
    ax->direct_max_bytes = out ? 0 : l->collective_direct_max_bytes;
    ax->n = n;
    for (int i = 0; i < n; i++) {
        ax->deg[i] = a[i];
        ax->bw_GBps[i] = bw_GBps;
    }
    return 0;
}

int64_t gen_vocab_params(bool *ovf, const struct model_config *m, int64_t tp, const struct profile *prof)
{
    if (prof->vocab_ops_missing)
        return 0;
    int64_t v = bmul3(ovf, m->tie_word_embeddings ? 1 : 2, cdiv64(m->vocab_size, tp), m->d_model);
    /* per-layer inputs (Gemma 4 E2B, E4B): their table and the token's projection, whole on every chip */
    int64_t P = m->per_layer_input_dim, Vp = pattern_per_layer_rows(m);
    return P > 0 ? badd(ovf, v, bmul3(ovf, badd(ovf, Vp, m->d_model), m->num_layers, P)) : v;
}


int gen_require_llm(const struct model_config *m, const char *what, struct npu_err *e)
{
    if (strcmp(m->model_type, "llm"))
        return npu_errf(e, "model field \"model_type\": expected \"llm\" for %s, got \"%s\"", what,
                        m->model_type);
    return 0;
}

int gen_require_prompt_cache(const struct model_config *m, const char *what, struct npu_err *e)
{
    if (m->cached_prompt_tokens > 0 && what)
        return npu_errf(e, "model field \"cached_prompt_tokens\": %lld, but %s has no prefix cache (LLM "
                        "inference only); expected 0", (long long)m->cached_prompt_tokens, what);
    if (m->cached_prompt_tokens > 0 && m->cached_prompt_tokens >= m->input_seqlen)
        return npu_errf(e, "model field \"cached_prompt_tokens\": expected fewer than input_seqlen %lld (prefill "
                        "computes at least one token), got %lld", (long long)m->input_seqlen,
                        (long long)m->cached_prompt_tokens);
    return 0;
}

int gen_require_linear(const struct model_config *m, const char *what, struct npu_err *e)
{
    if (m->attention_output_gate && what)
        return npu_errf(e, "model field \"attention_output_gate\": true, but %s does not build it (LLM inference "
                        "only); expected false", what);
    if (m->full_attention_layers > m->num_layers)
        return npu_errf(e, "model field \"full_attention_layers\": %lld exceeds num_layers %lld",
                        (long long)m->full_attention_layers, (long long)m->num_layers);
    if (m->ffn_layers > m->num_layers)
        return npu_errf(e, "model field \"ffn_layers\": %lld exceeds num_layers %lld", (long long)m->ffn_layers,
                        (long long)m->num_layers);
    if (m->ffn_layers >= 0 && what)
        return npu_errf(e, "model field \"ffn_layers\": %lld, but %s gives every layer its FFN (LLM inference "
                        "only); expected -1", (long long)m->ffn_layers, what);
    if (!strcmp(m->expert_ffn, "relu2") && what)
        return npu_errf(e, "model field \"expert_ffn\": \"relu2\", but %s builds gated experts (LLM inference "
                        "only); expected \"gated\"", what);
    /* the global layers' own attention shape, the KV-sharing layers and the per-layer inputs (Gemma 4) */
    const char *shape = m->global_d_head > 0 ? "global_d_head" : m->d_head_v > 0 ? "d_head_v"
                        : m->global_num_kv_heads > 0 ? "global_num_kv_heads"
                        : m->global_k_eq_v ? "global_k_eq_v" : m->kv_shared_layers > 0 ? "kv_shared_layers"
                        : m->per_layer_input_dim > 0 ? "per_layer_input_dim" : NULL;
    if (shape && what)
        return npu_errf(e, "model field \"%s\": set, but %s builds every layer alike (LLM inference "
                        "only); expected it unset", shape, what);
    if (m->kv_shared_layers > 0 && m->kv_shared_layers >= m->num_layers)
        return npu_errf(e, "model field \"kv_shared_layers\": %lld, expected fewer than num_layers %lld (they read "
                        "an earlier layer's K/V)", (long long)m->kv_shared_layers, (long long)m->num_layers);
    if (m->kv_shared_layers > 0 && m->linear_value_heads > 0)
        return npu_errf(e, "model field \"kv_shared_layers\": %lld with linear_value_heads: npusim shares only "
                        "attention layers' K/V; expected 0", (long long)m->kv_shared_layers);
    if (m->moe_latent_size > 0 && what)
        return npu_errf(e, "model field \"moe_latent_size\": %lld, but %s builds experts at d_model (LLM "
                        "inference only); expected 0", (long long)m->moe_latent_size, what);
    if (m->linear_value_heads <= 0)
        return 0;
    if (what)
        return npu_errf(e, "model field \"linear_value_heads\": %lld, but %s has no linear-attention layers (LLM "
                        "inference only); expected 0", (long long)m->linear_value_heads, what);
    if (m->sliding_window > 0)
        return npu_errf(e, "model field \"sliding_window\": %lld with linear_value_heads: the local layers are the "
                        "linear-attention ones; expected 0", (long long)m->sliding_window);
    if (m->linear_key_heads > 0 && m->linear_value_heads % m->linear_key_heads)
        return npu_errf(e, "model field \"linear_key_heads\": %lld does not divide linear_value_heads %lld",
                        (long long)m->linear_key_heads, (long long)m->linear_value_heads);
    return 0;
}

int gen_require_axes(const char *key, int64_t v, int max, struct npu_err *e)
{
    if (v < 0 || v > max)
        return npu_errf(e, "model field \"%s\": expected 0..%d, got %lld", key, max, (long long)v);
    return 0;
}

int gen_require_chips(const struct model_config *m, struct npu_err *e)
{
    int64_t dp = m->data_parallelism_degree, tp = m->tensor_parallelism_degree;
    int64_t pp = m->pipeline_parallelism_degree;
    if (m->num_chips < dp * tp * pp)
        return npu_errf(e, "model field \"num_chips\": expected at least dp*tp*pp = %lld, got %lld",
                        (long long)(dp * tp * pp), (long long)m->num_chips);
    if (m->tensor_parallel_degree_dcn != 1)
        return npu_errf(e, "model field \"tensor_parallel_degree_dcn\": expected 1, got %lld",
                        (long long)m->tensor_parallel_degree_dcn);
    return 0;
}

int gen_require_stages(const struct model_config *m, struct npu_err *e)
{
    int64_t stages = m->pipeline_parallelism_degree * m->pipeline_parallel_degree_dcn;
    if (m->num_layers < stages)
        /* Named by the degree, which a user sets (--pp), not the model's layers. */
        return npu_errf(e, "model field \"pipeline_parallelism_degree\": expected pp*pp_dcn of at most "
                           "num_layers = %lld stages, got %lld", (long long)m->num_layers, (long long)stages);
    return 0;
}

int gen_require_links(const struct opsgen_links *l, bool pcie, bool dcn, struct npu_err *e)
{
    if (!(l->ici_bw_GBps > 0) || (pcie && !(l->pcie_bw_GBps > 0)) || l->hbm_size_GB <= 0)
        return npu_errf(e, "chip fields \"ici_bw_GBps\", %s\"hbm_size_GB\": expected positive values",
                        pcie ? "\"pcie_bw_GBps\", " : "");
    if (dcn && !(l->dcn_bw_GBps > 0))
        return npu_errf(e, "chip field \"dcn_bw_GBps\": expected a positive value");
    return 0;
}
