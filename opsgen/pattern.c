/* pattern.c — layer patterns and local attention's key counts (see
 * pattern.h). No data structure beyond struct layer_groups. */
#include "opsgen/pattern.h"

#include <string.h>

#include "opsgen/builders.h"

bool pattern_is_moe(const struct model_config *m)
{
    return !strcmp(m->ffn_type, "moe");
}

bool pattern_linear(const struct model_config *m)
{
    return m->linear_value_heads > 0;
}

/* K of L spread evenly: layer i is one of the K when (i + 1) K / L steps up
 * (K above L counts as L). */
static bool spread_hit(int64_t K, int64_t L, int64_t i)
{
    K = K < L ? K : L;
    return (i + 1) * K / L > i * K / L;
}

static bool any_local(const struct model_config *m)
{
    return m->sliding_window > 0 || pattern_linear(m);
}

bool pattern_layer_local(const struct model_config *m, int64_t i)
{
    int64_t L = m->num_layers, K = m->full_attention_layers;
    if (K >= 0 && L > 0)   /* K global layers spread evenly */
        return any_local(m) && !spread_hit(K, L, i);
    int64_t n = m->full_attention_interval, f = m->first_full_attention_layer >= 0 ? m->first_full_attention_layer : n - 1;
    return any_local(m) && !(n > 0 && i >= f && (i - f) % n == 0);
}

bool pattern_layer_moe(const struct model_config *m, int64_t i)
{
    /* Hugging Face's rule (Llama 4, Qwen-MoE): (i + 1) % step == 0, after the dense first layers */
    int64_t step = m->moe_layer_step > 0 ? m->moe_layer_step : 1;
    return pattern_is_moe(m) && pattern_layer_ffn(m, i) && i >= m->num_dense_layers &&
           (i - m->num_dense_layers + 1) % step == 0;
}

bool pattern_layer_ffn(const struct model_config *m, int64_t i)
{
    int64_t L = m->num_layers, K = m->ffn_layers;
    if (K < 0 || L <= 0)
        return true;
    return spread_hit(K, L, i);   /* as pattern_layer_local's globals */
}

bool pattern_layer_kv_shared(const struct model_config *m, int64_t i)
{
    return m->kv_shared_layers > 0 && i >= m->num_layers - m->kv_shared_layers;
}

/* At most 12 groups: local or not, times experts, a dense FFN or none (no
 * FFN runs no experts), times KV shared or not. */
static void add(struct layer_groups *o, bool local, bool moe, bool no_ffn, bool kv_shared, int64_t n)
{
    for (int k = 0; k < o->n; k++)
        if (o->g[k].local == local && o->g[k].moe == moe && o->g[k].no_ffn == no_ffn &&
            o->g[k].kv_shared == kv_shared) {
            o->g[k].layers += n;
            return;
        }
    o->g[o->n++] = (struct layer_group){ local, moe, n, no_ffn, kv_shared };
}

void pattern_groups(const struct model_config *m, struct layer_groups *out)
{
    memset(out, 0, sizeof *out);
    int64_t L = m->num_layers > 0 ? m->num_layers : 0;
    if (!any_local(m) && !pattern_is_moe(m) && m->ffn_layers < 0 && m->kv_shared_layers <= 0) {   /* every layer alike */
        add(out, false, false, false, false, L);
        return;
    }
    for (int64_t i = 0; i < L; i++)
        add(out, pattern_layer_local(m, i), pattern_layer_moe(m, i), !pattern_layer_ffn(m, i),
            pattern_layer_kv_shared(m, i), 1);
}

void pattern_stage_groups(const struct model_config *m, int64_t stage_layers, struct layer_groups *out)
{
    pattern_groups(m, out);
    pattern_share(out, m->num_layers, stage_layers);
}

void pattern_share(struct layer_groups *out, int64_t L, int64_t stage_layers)
{
    if (out->n <= 1 || L <= 0 || stage_layers == L) {
        if (out->n == 1)
            out->g[0].layers = stage_layers;
        return;
    }
    /* the rounding is on int64 exact integers */
    int64_t rem[12], left = stage_layers;
    for (int k = 0; k < out->n; k++) {
        int64_t x = out->g[k].layers * stage_layers;   /* layers and stages are small (< 2^31) */
        out->g[k].layers = x / L;
        rem[k] = x % L;
        left -= out->g[k].layers;
    }
    while (left-- > 0) {
        int best = 0;
        for (int k = 1; k < out->n; k++)
            if (rem[k] > rem[best])
                best = k;
        out->g[best].layers++;
        rem[best] = -1;
    }
}

/* Keys in all for positions 1..n under a sliding window of W. */
static int64_t sliding_upto(bool *ovf, int64_t W, int64_t n)
{
    if (n <= W)
        return bmul(ovf, n, n + 1) / 2;
    return badd(ovf, bmul(ovf, W, W + 1) / 2, bmul(ovf, n - W, W));
}

int64_t pattern_sliding_keys(bool *ovf, int64_t W, int64_t a, int64_t b)
{
    return sliding_upto(ovf, W, b) - sliding_upto(ovf, W, a);
}

/* Keys in all for positions 1..n. */
static int64_t keys_upto(bool *ovf, const struct model_config *m, int64_t n)
{
    int64_t W = m->sliding_window;
    if (!strcmp(m->local_attention, "chunked")) {
        int64_t q = n / W, r = n % W;
        return badd(ovf, bmul(ovf, q, bmul(ovf, W, W + 1) / 2), r * (r + 1) / 2);
    }
    return sliding_upto(ovf, W, n);
}

int64_t pattern_local_keys(bool *ovf, const struct model_config *m, int64_t a, int64_t b)
{
    return keys_upto(ovf, m, b) - keys_upto(ovf, m, a);
}

int64_t pattern_local_cache(const struct model_config *m, int64_t n)
{
    return n < m->sliding_window ? n : m->sliding_window;
}

struct attn_shape pattern_attn_shape(const struct model_config *m, bool global)
{
    struct attn_shape s = { m->d_head, m->num_kv_heads, false, 0 };
    if (global) {
        s.dh = m->global_d_head > 0 ? m->global_d_head : s.dh;
        s.kv_heads = m->global_num_kv_heads > 0 ? m->global_num_kv_heads : s.kv_heads;
        s.k_eq_v = m->global_k_eq_v;
    }
    s.dv = m->d_head_v > 0 ? m->d_head_v : s.dh;
    return s;
}

int64_t pattern_attn_weights(bool *ovf, const struct model_config *m, const struct attn_shape *s, int64_t H, int64_t kv,
                             int64_t *w_kv)
{
    int64_t D = m->d_model;
    *w_kv = bmul3(ovf, D, kv, badd(ovf, s->dh, s->k_eq_v ? 0 : s->dv));
    return badd(ovf, badd(ovf, *w_kv, bmul4(ovf, D, H, s->dh, m->attention_output_gate ? 2 : 1)),
                bmul3(ovf, H, s->dv, D));
}

int64_t pattern_local_of(const struct layer_groups *g)
{
    int64_t n = 0;
    for (int k = 0; k < g->n; k++)
        n += g->g[k].local ? g->g[k].layers : 0;
    return n;
}

int64_t pattern_d_ff(const struct model_config *m, bool kv_shared)
{
    return kv_shared && m->kv_shared_d_ff > 0 ? m->kv_shared_d_ff : m->d_ff;
}

int64_t pattern_per_layer_rows(const struct model_config *m)
{
    return m->per_layer_vocab_size > 0 ? m->per_layer_vocab_size : m->vocab_size;
}

int64_t pattern_moe_of(const struct layer_groups *g)
{
    int64_t n = 0;
    for (int k = 0; k < g->n; k++)
        n += g->g[k].moe ? g->g[k].layers : 0;
    return n;
}

int64_t pattern_no_ffn_of(const struct layer_groups *g)
{
    int64_t n = 0;
    for (int k = 0; k < g->n; k++)
        n += g->g[k].no_ffn ? g->g[k].layers : 0;
    return n;
}

int64_t pattern_local_layers(const struct model_config *m)
{
    struct layer_groups g;
    pattern_groups(m, &g);
    return pattern_local_of(&g);
}

int64_t pattern_mean_keys(bool *ovf, const struct model_config *m, int64_t S, int64_t global_keys)
{
    int64_t local = pattern_local_layers(m), L = m->num_layers;
    if (local <= 0 || L <= 0 || S <= 0)
        return global_keys;
    int64_t lk = pattern_local_keys(ovf, m, 0, S) / S;
    if (lk > global_keys)
        lk = global_keys;
    /* (global x (L - local) + lk x local) / L, rounded to nearest */
    double k = ((double)global_keys * (double)(L - local) + (double)lk * (double)local) / (double)L;
    return (int64_t)(k + 0.5);
}
