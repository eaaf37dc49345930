/* params.c — a model's parameter count, total and active per token (see
 * opsgen.h opsgen_model_params). No data structure of its own. */
#include <string.h>

#include "opsgen/builders.h"
#include "opsgen/deepseek.h"
#include "opsgen/layers.h"
#include "opsgen/linear_attn.h"
#include "opsgen/moe.h"
#include "opsgen/opsgen.h"
#include "opsgen/pattern.h"

void opsgen_model_params(const struct model_config *m, int64_t *total, int64_t *active)
{
    bool ovf = false;
    int64_t D = m->d_model, H = m->num_heads, L = m->num_layers, V = m->vocab_size;
    int64_t vocab = bmul3(&ovf, V, D, m->tie_word_embeddings ? 1 : 2);
    /* a MoE layer: every expert (routed, at moe_token_width, and shared;
     * gated, or up and down under expert_ffn relu2), the router and
     * LatentMoE's projections; a token uses its top-k and the shared ones */
    int64_t routed = bmul3(&ovf, moe_expert_mats(m), moe_token_width(m), m->moe_d_ff);
    int64_t R = m->num_routed_experts, S = m->num_shared_experts;
    int64_t fixed = badd(&ovf, badd(&ovf, bmul(&ovf, R, D), moe_latent_params(&ovf, m)),
                         bmul(&ovf, bmul3(&ovf, moe_expert_mats(m), D, m->moe_d_ff), S));
    int64_t moe_all = badd(&ovf, bmul(&ovf, routed, R), fixed);
    int64_t moe_act = badd(&ovf, bmul(&ovf, routed, m->num_activated_routed_experts_per_token), fixed);
    int64_t attn, dense_ffn, moe;   /* a layer's attention, a dense layer's FFN, the MoE layers */
    int64_t local_extra = 0, local = 0;   /* what a local layer's attention adds over attn, and those layers */
    int64_t no_ffn = 0;             /* layers without an FFN (ffn_layers) */
    int64_t linear = 0, linear_extra = 0;   /* linear-attention layers, and what each adds over attn */
    int64_t shared_less = 0;        /* what the KV-sharing layers (kv_shared_layers) have less, or more */
    if (!strcmp(m->ffn_type, "deepseek_moe")) {
        /* MLA: W_q_a, W_q_b, W_kv_a (latent + rope key), W_kv_b, W_o, and the q and kv norms */
        int64_t qr = m->q_lora_rank, kr = m->kv_lora_rank, rope = m->qk_rope_head_dim;
        int64_t nope = m->qk_nope_head_dim, v = m->v_head_dim;
        int64_t wq = qr > 0 ? bmul(&ovf, D, qr) + bmul3(&ovf, qr, H, nope + rope) + qr   /* with its norm */
                            : bmul3(&ovf, D, H, nope + rope);                         /* V2-Lite: direct */
        attn = wq + bmul(&ovf, D, kr + rope) + bmul3(&ovf, kr, H, nope + v) + bmul3(&ovf, H, v, D) + kr;
        if (m->attention_output_gate)   /* Kimi K3's gate on MLA's output */
            attn = badd(&ovf, attn, bmul3(&ovf, D, H, v));
        attn = badd(&ovf, attn, dsa_indexer_params(&ovf, m));   /* DeepSeek Sparse Attention's indexer */
        dense_ffn = bmul3(&ovf, 3, D, m->d_ff);
        moe = L - (m->num_dense_layers < L ? m->num_dense_layers : L);
        if (pattern_linear(m)) {   /* Kimi Linear: linear layers in place of MLA */
            struct layer_groups lg;
            struct linear_attn la;
            pattern_groups(m, &lg);
            linear_attn_of(m, &la);
            linear = pattern_local_of(&lg);
            linear_extra = linear_attn_params(&ovf, &la, D, 1) - attn;
        }
    } else {
        /* W_q (with its output gate), W_o, W_k and W_v (no W_v when V is K's projection) of a
         * global layer (attn) and of a local one */
        int64_t att[2], w_kv[2];
        for (int i = 0; i < 2; i++) {
            struct attn_shape sh = pattern_attn_shape(m, i == 0);
            att[i] = pattern_attn_weights(&ovf, m, &sh, H, sh.kv_heads == -1 ? H : sh.kv_heads, &w_kv[i]);
        }
        attn = att[0];
        const struct ffn_kind *k = ffn_kind_of(m->ffn_type);
        int64_t mats = k && !k->gated ? 2 : 3;   /* up and down; or gate, up and down */
        dense_ffn = bmul3(&ovf, mats, D, m->d_ff);
        struct layer_groups lg;
        pattern_groups(m, &lg);
        moe = pattern_moe_of(&lg);
        no_ffn = pattern_no_ffn_of(&lg);
        local = pattern_local_of(&lg);
        local_extra = att[1] - attn;
        /* the KV-sharing layers: no K/V projections; a dense FFN of kv_shared_d_ff */
        for (int j = 0; j < lg.n; j++) {
            const struct layer_group *g = &lg.g[j];
            if (!g->kv_shared)
                continue;
            int64_t ffn = g->moe || g->no_ffn ? 0 : bmul3(&ovf, mats, D, pattern_d_ff(m, true) - m->d_ff);
            shared_less = badd(&ovf, shared_less, bmul(&ovf, g->layers, w_kv[g->local] - ffn));
        }
        if (pattern_linear(m)) {   /* the local layers are Gated DeltaNet, in place of attention */
            struct linear_attn la;
            linear_attn_of(m, &la);
            linear = local;
            linear_extra = linear_attn_params(&ovf, &la, D, 1) - att[1];
        }
    }
    /* two norms a layer (one a layer without an FFN), one at the end */
    int64_t norms = badd(&ovf, bmul(&ovf, D, 2 * L - no_ffn), D);
    int64_t base = badd(&ovf, badd(&ovf, bmul(&ovf, attn, L), bmul(&ovf, dense_ffn, L - moe - no_ffn)),
                        badd(&ovf, norms, vocab));
    base = badd(&ovf, base, badd(&ovf, bmul(&ovf, linear_extra, linear), bmul(&ovf, local_extra, local)));
    /* per-layer inputs (Gemma 4 E2B, E4B): their table, the token's projection and each layer's two */
    int64_t P = m->per_layer_input_dim, Vp = pattern_per_layer_rows(m);
    if (P > 0)
        base = badd(&ovf, base, bmul3(&ovf, badd(&ovf, badd(&ovf, Vp, D), bmul(&ovf, 2, D)), L, P));
    base -= shared_less;
    *total = badd(&ovf, base, bmul(&ovf, moe_all, moe));
    *active = badd(&ovf, base, bmul(&ovf, moe_act, moe));
    if (ovf)
        *total = *active = -1;
}
