/* moe.c — the shared mixture-of-experts FFN body, its axes and checks (see
 * moe.h; opsgen.md §7.3). The reference's quirks each have a profile switch
 * (docs/profile.md): the all-to-all moves the global batch (opsgen Q21);
 * every routed expert sees every local token (opsgen Q22, corrected: top-k
 * routing, moe_load_of); both all-to-alls share one name (opsgen Q23); the
 * combine einsum keeps default "weights" (opsgen Q20). */
#include "opsgen/moe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "opsgen/gen.h"
#include "opsgen/parallel.h"

#define BF16 "DT_BFLOAT16"
#define FP32 "DT_FLOAT32"

#define CHK(x) do { if (!(x)) return -1; } while (0)

static int64_t axes_prod(const struct coll_axes *a)
{
    int64_t p = 1;
    for (int i = 0; i < a->n; i++) p *= a->deg[i];
    return p;
}

int moe_all_to_all(const struct layer_ctx *c, const struct moe_ctx *x, int64_t seq, int64_t fid, bool combine)
{
    const struct gen_run *r = x->r;
    const struct model_config *m = r->m;
    double bis = bisection_bw_per_chip_GBps(m->num_chips, r->l->ICI_topology, r->l->ici_bw_GBps,
                                            r->prof->split_axes_drops_missing);
    /* A switch (NVSwitch, a full mesh) links every chip to every peer: a chip sends the (p - 1) / p
     * of its copies bound for the others at its own link bandwidth (the EP axes': past the link
     * domain, the scale-out network's), where a torus is cut at its bisection (the reference's
     * formula; quirk link_domain_as_torus, which treats the switch as a torus). */
    int64_t p = axes_prod(x->ep);
    if (!r->prof->link_domain_as_torus && r->l->link_domain_chips > 0 && p > 1 && x->ep->n == 1)
        bis = x->ep->bw_GBps[0] * (double)p / (double)(p - 1);
    /* Global batch (quirk opsgen Q21); dispatch and combine share the name (opsgen Q23). */
    const char *name = combine && !r->prof->moe_combine_named_dispatch ? "MoE_Combine_AllToAll"
                                                                      : "MoE_Dispatch_AllToAll";
    int64_t batch = r->prof->moe_a2a_global_batch ? m->global_batch_size : r->B;
    CHK(b_all_to_all_over(c->t, c->ovf, fid, c->count, name, name, SHP(batch, seq, x->fanout, moe_token_width(m)),
                          x->a2a_dtype, bis, x->ep));
    return 0;
}

struct moe_load moe_load_of(bool *ovf, const struct model_config *m, int64_t local_tokens)
{
    /* The MoE domain: the data-parallel replicas of one ICI pod send their
     * tokens to the experts, spread over the expert-parallel devices. */
    int64_t R = m->num_routed_experts, A = m->num_activated_routed_experts_per_token;
    int64_t ep = m->expert_parallelism_degree, T = bmul(ovf, local_tokens, m->data_parallelism_degree);
    int64_t local = cdiv64(R, ep);
    double a = A < R ? (double)A / (double)R : 1.0;
    /* Probability that an expert receives at least one of the T tokens. */
    double p = 1.0 - pow(1.0 - a, (double)T);
    if (!(p > 0)) p = a;
    double mean = (double)T * a / p;   /* tokens of an expert that receives any */
    double busy = mean * m->moe_imbalance_factor;
    if (busy > (double)T) busy = (double)T;
    int64_t experts = (int64_t)ceil((double)local * p - 1e-9);
    return (struct moe_load){ experts < 1 ? 1 : experts, busy < 1 ? 1 : (int64_t)ceil(busy - 1e-9) };
}

/* Every chip of the EP group holds every token when the attention runs in
 * TP with no data parallelism (vLLM's and SGLang's TP + EP without
 * data-parallel attention): then the experts take their tokens where they
 * are, no dispatch or combine all-to-all, and the outputs, each chip's sum
 * over its own experts, are summed over the EP axes as the dense FFN's
 * (a reduce-scatter). Physical only: quirk moe_dispatch_replicated_tokens. */
bool moe_tokens_replicated(const struct gen_run *r)
{
    return !r->prof->moe_dispatch_replicated_tokens && r->m->data_parallelism_degree == 1;
}

int moe_ffn_body(const struct layer_ctx *c, int64_t seq, int64_t f, void *arg)
{
    const struct moe_ctx *g = arg;
    const struct gen_run *r = g->r;
    const struct model_config *m = r->m;
    int64_t B = c->B, n = c->count, D = m->d_model, R = m->num_routed_experts, W = moe_token_width(m);
    int64_t A = m->num_activated_routed_experts_per_token, e = axes_prod(g->ep);
    int64_t Fm = cdiv64(m->moe_d_ff, layer_tp(c));
    bool relu2 = moe_expert_mats(m) == 2;   /* ungated experts (Nemotron-H); else gated SiLU */
    char pre[64];
    CHK(b_einsum(c->t, c->ovf, f, n, "FFN_MoE_gate-scores", "scores = linear(x, self.weight)", SHP(B, seq, D),
                 SHP(R, D), "BSM;RM->BSR", "0_0_0", BF16));
    CHK(b_unary(c->t, c->ovf, f + 1, n, "FFN_MoE_gate-scores_softmax", "scores = softmax(scores)", "Softmax",
                SHP(B, seq, R), "0_0", FP32));
    f = gen_last(r)->fusion_id + 1;
    /* LatentMoE: the routed experts' tokens projected to their width, in the
     * model's formats (not the experts'), the projection whole on every chip
     * (the engines replicate it); its way back follows the combine. */
    struct layer_ctx lat = *c;
    lat.fmt = &r->fmt;
    if (W != D && !layer_linear(&lat, f++, "FFN_MoE_latent_down", "MatMul: z (2) = x (2) * W_latent_down (1)", seq,
                                D, W))
        return -1;
    bool a2a = e > 1 && !moe_tokens_replicated(r);
    if (a2a && moe_all_to_all(c, g, seq, f++, false))
        return -1;
    struct layer_ctx x = *c;
    x.prefix = pre;
    if (c->prof->moe_every_expert_every_token) {
        /* Every activated expert runs on every local token (quirk opsgen Q22). */
        for (int64_t i = 0; i < A; i++) {
            snprintf(pre, sizeof pre, "FFN_routed_expert%lld-", (long long)i);
            if (layer_ffn_llama_body(&x, seq, W, Fm, f))
                return -1;
            f = gen_last(r)->fusion_id + 1;
        }
    } else {
        struct moe_load ld = moe_load_of(c->ovf, m, bmul(c->ovf, B, seq));
        snprintf(pre, sizeof pre, "FFN_routed_experts-");
        x.B = 1;
        x.count = bmul(c->ovf, n, ld.experts);
        /* a fused MoE kernel (vLLM's fused_moe, grouped GEMMs) runs the activation and the
         * product once over every expert's tokens, not once an expert */
        x.fold = ld.experts;
        if (layer_ffn_expert_body(&x, ld.tokens, W, Fm, f, relu2))
            return -1;
        f = gen_last(r)->fusion_id + 1;
        x = *c;
        x.prefix = pre;
    }
    if (a2a && moe_all_to_all(c, g, seq, f++, true))
        return -1;
    if (m->num_shared_experts > 0 || !g->skip_empty_shared) {
        snprintf(pre, sizeof pre, "FFN_shared_expert-");
        if (layer_ffn_expert_body(&x, seq, D, Fm * m->num_shared_experts, f, relu2))
            return -1;
        f = gen_last(r)->fusion_id + 1;
    }
    struct op *o;
    CHK(o = b_einsum(c->t, c->ovf, f, n, "MoE_combine_weights", "MoE combine weights", SHP(B, seq, A, W),
                     SHP(B, seq, A), "BSEM;BSE->BSM", "0_0_0", BF16));
    if (!c->prof->mla_cache_einsums_weights)
        o->weight_bytes = 0;   /* router outputs, not parameters (quirk opsgen Q20) */
    f++;
    /* the experts' sum back to d_model; its reduction over the chips is priced with the layer's, at d_model */
    if (W != D && !layer_linear(&lat, f++, "FFN_MoE_latent_up", "MatMul: y (2) = z (2) * W_latent_up (1)", seq, W,
                                D))
        return -1;
    CHK(b_binary(c->t, c->ovf, f, n, "MoE_combine_output", "MoE combine output", "Add", SHP(B, seq, D),
                 "0_0_0", BF16, c->prof->binary_ops_list_one_input));
    if (e > 1 && !a2a)
        CHK(b_reduce_scatter(c->t, c->ovf, f + 1, n, "Reduce and scatter the experts' outputs over the EP chips",
                             "ReduceScatterMoE", SHP(B, seq, D), 2, g->ep));
    return 0;
}

struct moe_ctx moe_ctx_std(const struct gen_run *r, const struct coll_axes *ep)
{
    int64_t e = r->m->expert_parallelism_degree, k = r->m->num_activated_routed_experts_per_token;
    return (struct moe_ctx){ r, ep, k < e ? k : e, r->fmt.act, true };
}

int moe_layer(const struct layer_ctx *c, const struct attn_args *a, const struct gen_run *r,
              const struct coll_axes *etp, const struct coll_axes *ep, const struct tensor_formats *efmt,
              int64_t *fid)
{
    const struct model_config *m = r->m;
    int64_t f = *fid;
    if (layer_attention(c, a, &f))
        return -1;
    *fid = f = gen_last(r)->fusion_id + 1;
    struct moe_ctx mx = moe_ctx_std(r, ep);
    struct layer_ctx ec = *c;
    ec.tp = etp;
    ec.fmt = efmt;
    struct ffn_args fa = { .seq = a->seq, .D = m->d_model, .F = m->d_ff, .ffn_type = m->ffn_type,
                           .body = moe_ffn_body, .body_arg = &mx, .input_gathered = true };
    return layer_ffn(&ec, &fa, &f);
}

int64_t moe_etp(const struct model_config *m)
{
    int64_t ep = m->expert_parallelism_degree > 0 ? m->expert_parallelism_degree : 1;
    int64_t etp = cdiv64(m->data_parallelism_degree * m->tensor_parallelism_degree, ep);
    return etp > 0 ? etp : 1;
}

int64_t moe_expert_mats(const struct model_config *m)
{
    return !strcmp(m->expert_ffn, "relu2") ? 2 : 3;
}

int64_t moe_token_width(const struct model_config *m)
{
    return m->moe_latent_size > 0 ? m->moe_latent_size : m->d_model;
}

int64_t moe_latent_params(bool *ovf, const struct model_config *m)
{
    return m->moe_latent_size > 0 ? bmul3(ovf, 2, m->d_model, m->moe_latent_size) : 0;
}

int64_t moe_expert_params(bool *ovf, const struct model_config *m)
{
    int64_t ep = m->expert_parallelism_degree > 0 ? m->expert_parallelism_degree : 1, k = moe_expert_mats(m);
    int64_t routed = bmul(ovf, bmul3(ovf, k, moe_token_width(m), m->moe_d_ff), m->num_routed_experts);
    int64_t shared = bmul(ovf, bmul3(ovf, k, m->d_model, m->moe_d_ff), m->num_shared_experts);
    return cdiv64(cdiv64(badd(ovf, routed, shared), moe_etp(m)), ep);
}

int moe_axes(const struct model_config *m, const struct opsgen_links *l, const struct profile *prof,
             struct coll_axes *etp, struct coll_axes *ep)
{
    int64_t e = m->data_parallelism_degree * m->tensor_parallelism_degree / m->expert_parallelism_degree;
    int64_t n_etp = m->num_data_parallel_axes + m->num_tensor_parallel_axes - m->num_expert_parallel_axes;
    return gen_axes(etp, e, n_etp, prof, l, SHAPE_MAXD) ||
                   gen_axes(ep, m->expert_parallelism_degree, m->num_expert_parallel_axes, prof, l, SHAPE_MAXD)
               ? -1 : 0;
}

int moe_validate(const struct model_config *m, struct npu_err *e)
{
    static const char *const positive[] = { "expert_parallelism_degree", "moe_d_ff", "num_routed_experts",
                                            "num_activated_routed_experts_per_token" };
    if (gen_require_positive(m, positive, sizeof positive / sizeof positive[0], e))
        return -1;
    if (m->num_shared_experts < 0)
        return npu_errf(e, "model field \"num_shared_experts\": expected 0 or more, got %lld",
                        (long long)m->num_shared_experts);
    if (gen_require_axes("num_expert_parallel_axes", m->num_expert_parallel_axes, SHAPE_MAXD, e))
        return -1;
    int64_t dp = m->data_parallelism_degree, tp = m->tensor_parallelism_degree;
    int64_t ep = m->expert_parallelism_degree;
    if (m->expert_parallel_degree_dcn != 1)
        return npu_errf(e, "model field \"expert_parallel_degree_dcn\": expected 1 (expert parallelism "
                           "runs over ICI only), got %lld", (long long)m->expert_parallel_degree_dcn);
    /* Experts shard the dp x tp chips: ep * etp = dp * tp, so etp >= 1. */
    if (ep > dp * tp)
        return npu_errf(e, "model field \"expert_parallelism_degree\": expected at most dp*tp = %lld "
                           "(experts are spread over the data- and tensor-parallel chips), got %lld",
                        (long long)(dp * tp), (long long)ep);
    if (ep > m->num_routed_experts)
        return npu_errf(e, "model field \"expert_parallelism_degree\": %lld exceeds num_routed_experts "
                           "%lld (a shard would hold no expert)", (long long)ep,
                        (long long)m->num_routed_experts);
    if (m->num_activated_routed_experts_per_token > m->num_routed_experts)
        return npu_errf(e, "model field \"num_activated_routed_experts_per_token\": expected at most "
                           "num_routed_experts = %lld, got %lld", (long long)m->num_routed_experts,
                        (long long)m->num_activated_routed_experts_per_token);
    return 0;
}
