/* memory.c — per-chip memory footprint of LLM inference (opsgen.md §11.1).
 *
 * The reference: BF16 weights plus the activations of one layer's attention
 * and FFN for the phase's context length, times the layers of a pipeline
 * stage (quirk mem_activations_times_layers). Corrected: the stage's weights
 * (vocabulary included), the KV cache of every layer of the stage at the
 * phase's final context length, and the live activations of one layer (the
 * working set of the step's tokens, freed before the next layer), each in
 * the model's number format (weight_dtype, kv_cache_dtype, activation_dtype). Drives the
 * KV-swap trigger (§5.5), the OOM flag and sweep validation (§13.3). */
#include <string.h>

#include "opsgen/builders.h"
#include "opsgen/gen.h"
#include "opsgen/layers.h"
#include "opsgen/linear_attn.h"
#include "opsgen/moe.h"
#include "opsgen/opsgen.h"
#include "opsgen/pattern.h"
#include "traces/precision.h"

int64_t opsgen_llm_inference_mem_bytes(const struct model_config *m, enum phase phase,
                                       const struct profile *prof)
{
    bool ovf = false;   /* the footprint alone: there is no trace to fail */
    return opsgen_llm_inference_mem_checked(&ovf, m, phase, prof);
}

int64_t opsgen_llm_inference_mem_checked(bool *ovf, const struct model_config *m, enum phase phase,
                                         const struct profile *prof)
{
    int64_t tp = m->tensor_parallelism_degree * m->tensor_parallel_degree_dcn;
    int64_t pp = m->pipeline_parallelism_degree * m->pipeline_parallel_degree_dcn;
    int64_t b = cdiv64(m->microbatch_size_ici, m->data_parallelism_degree);
    int64_t H = m->num_heads, D = m->d_model, dh = m->d_head;
    int64_t kv = m->num_kv_heads == -1 ? H : m->num_kv_heads;
    int64_t Hl = cdiv64(H, tp), kvl = cdiv64(kv, tp), Fl = cdiv64(m->d_ff, tp);
    int64_t Lc = cdiv64(m->num_layers, pp);
    int64_t s = m->input_seqlen + (phase == PHASE_DECODE ? m->output_seqlen : 0);
    /* K/V heads are shared when every TP shard keeps at least one; the
     * reference compares tp with the already divided count (quirk opsgen Q14). */
    bool shared = tp <= (prof->mem_kv_sharing_compares_divided ? kvl : kv);
    int64_t kvh = shared ? kvl : Hl;
    if (!prof->kv_heads_ignored)
        kvh = kvl < Hl ? kvl : Hl;   /* as the ops: ceil(kv / tp) heads, one replicated when kv < tp */
    /* Checked (bmul, badd): a product of fields past int64 sets *ovf
     * (builders.h) instead of wrapping. */
    int64_t bs = bmul(ovf, b, s);
    int64_t w_attn = badd(ovf, badd(ovf, bmul4(ovf, D, kvh, dh, 2), bmul4(ovf, D, Hl, dh, m->attention_output_gate ? 2 : 1)),
                          bmul3(ovf, Hl, dh, D));
    int64_t w_ff, a_ff, wide = Fl > D ? Fl : D;
    const struct ffn_kind *k = ffn_kind_of(m->ffn_type);
    bool gated = k ? k->gated : true;
    w_ff = bmul3(ovf, gated ? 3 : 2, D, Fl);   /* gated: gate, up, down; plain MLP: up, down */
    a_ff = bmul3(ovf, gated ? 2 : 1, bs, wide);
    if (prof->mem_activations_times_layers) {
        int64_t a_attn = badd(ovf, bmul3(ovf, bs, Hl, dh), bmul4(ovf, bs, kvh, dh, 2));
        return badd(ovf, bmul3(ovf, 2, badd(ovf, w_attn, w_ff), Lc), bmul3(ovf, 2, badd(ovf, a_attn, a_ff), Lc));
    }
    /* Corrected: w_attn, w_ff as above; the KV cache (2 x s x kvh x dh per
     * layer, all layers of the stage); one layer's working set for the
     * step's tokens (prefill: the prompt's uncached tokens; decode: the decode width): input,
     * queries and the FFN hidden activations; the vocabulary's embedding and
     * LM-head weights (sharded over TP, on the stage's chips). */
    struct opsgen_llm_mem_parts pt;
    opsgen_llm_mem_parts(ovf, m, prof, &pt);
    int64_t fresh = m->input_seqlen - m->cached_prompt_tokens;   /* the generators refuse < 1 */
    int64_t tok = bmul(ovf, b, phase == PHASE_DECODE ? m->decode_width : fresh > 0 ? fresh : 1);
    int64_t state = bld_tensor_bytes(ovf, bmul(ovf, pt.state_elems_per_seq, b), pt.state_dtype);
    return badd(ovf, badd(ovf, badd(ovf, pt.weight_bytes, state),
                          bld_tensor_bytes(ovf, bmul(ovf, opsgen_kv_elems(ovf, &pt, s), b), pt.kv_dtype)),
                bld_tensor_bytes(ovf, bmul(ovf, pt.live_elems_per_token, tok), pt.act_dtype));
}

int64_t opsgen_kv_elems(bool *ovf, const struct opsgen_llm_mem_parts *p, int64_t tokens)
{
    int64_t local = p->kv_window > 0 && tokens > p->kv_window ? p->kv_window : tokens;
    return badd(ovf, bmul(ovf, p->kv_elems_per_token, tokens), bmul(ovf, p->kv_local_elems_per_token, local));
}


void opsgen_llm_mem_parts(bool *ovf, const struct model_config *m, const struct profile *prof,
                          struct opsgen_llm_mem_parts *p)
{
    int64_t tp = m->tensor_parallelism_degree * m->tensor_parallel_degree_dcn;
    int64_t pp = m->pipeline_parallelism_degree * m->pipeline_parallel_degree_dcn;
    int64_t H = m->num_heads, D = m->d_model;
    int64_t Hl = cdiv64(H, tp), Fl = cdiv64(m->d_ff, tp);
    int64_t Lc = cdiv64(m->num_layers, pp);
    const struct ffn_kind *k = ffn_kind_of(m->ffn_type);
    bool gated = k ? k->gated : true;
    /* a global and a local attention layer's heads on a chip, their K/V heads and weights */
    struct attn_shape sh[2] = { pattern_attn_shape(m, true), pattern_attn_shape(m, false) };
    int64_t kvh[2], w_att[2], w_kv[2];   /* [1]: a local layer's; w_kv: its K/V projections */
    for (int i = 0; i < 2; i++) {
        int64_t kvl = cdiv64(sh[i].kv_heads == -1 ? H : sh[i].kv_heads, tp);
        kvh[i] = kvl < Hl ? kvl : Hl;   /* as the ops: ceil(kv / tp) heads, one replicated when kv < tp */
        w_att[i] = pattern_attn_weights(ovf, m, &sh[i], Hl, kvh[i], &w_kv[i]);
    }
    int64_t w_attn = w_att[0];
    int64_t w_ff = bmul3(ovf, gated ? 3 : 2, D, Fl);
    /* the KV-sharing layers (kv_shared_layers): no K/V projections, their own FFN width */
    int64_t Fs = cdiv64(pattern_d_ff(m, true), tp);
    int64_t w_ff_shared = bmul3(ovf, gated ? 3 : 2, D, Fs);
    int64_t w_ple = bmul3(ovf, 2, D, m->per_layer_input_dim);   /* a layer's per-layer input gate and projection */
    struct tensor_formats f;
    tensor_formats_of(m, &f);
    /* the stage's layers by group: dense or expert FFNs, global or local K/V */
    struct layer_groups lg;
    pattern_stage_groups(m, Lc, &lg);
    int64_t layers_w = 0, experts_w = 0, global = 0, local = 0, live_ff = bmul(ovf, gated ? 2 : 1, Fl > Fs ? Fl : Fs);
    /* linear-attention layers (opsgen/linear_attn.h): their heads over TP */
    struct linear_attn la;
    linear_attn_of(m, &la);
    bool linear = pattern_linear(m);
    int64_t w_local = linear ? linear_attn_params(ovf, &la, D, tp) : w_att[1];
    for (int i = 0; i < lg.n; i++) {
        int64_t n = lg.g[i].layers;
        int64_t wa = lg.g[i].local ? w_local : w_attn, wf = lg.g[i].kv_shared ? w_ff_shared : w_ff;
        if (lg.g[i].kv_shared)
            wa -= w_kv[lg.g[i].local];
        layers_w = badd(ovf, layers_w, bmul(ovf, badd(ovf, badd(ovf, wa, w_ple), lg.g[i].moe || lg.g[i].no_ffn ? 0 : wf), n));
        if (lg.g[i].moe) {   /* its experts, and the router's R x D; LatentMoE's projections in the model's format */
            experts_w = badd(ovf, experts_w, bmul(ovf, badd(ovf, moe_expert_params(ovf, m),
                                                             bmul(ovf, m->num_routed_experts, D)), n));
            layers_w = badd(ovf, layers_w, bmul(ovf, moe_latent_params(ovf, m), n));
        }
        if (!lg.g[i].kv_shared)   /* the KV-sharing layers keep no cache */
            *(lg.g[i].local ? &local : &global) += n;
    }
    if (pattern_is_moe(m)) {   /* the experts' hidden activations, if wider */
        int64_t e = bmul(ovf, 2, cdiv64(m->moe_d_ff, moe_etp(m)));
        live_ff = live_ff > e ? live_ff : e;
    }
    struct tensor_formats ef;
    tensor_formats_experts(m, &ef);
    p->weight_bytes = badd(ovf, fmt_stored_bytes(ovf, badd(ovf, layers_w, gen_vocab_params(ovf, m, tp, prof)), &f),
                           fmt_stored_bytes(ovf, experts_w, &ef));
    p->kv_elems_per_token = bmul(ovf, bmul(ovf, kvh[0], badd(ovf, sh[0].dh, sh[0].dv)), global);
    p->kv_local_elems_per_token = linear ? 0 : bmul(ovf, bmul(ovf, kvh[1], badd(ovf, sh[1].dh, sh[1].dv)), local);
    p->kv_window = local > 0 && !linear ? m->sliding_window : 0;
    p->state_elems_per_seq = linear ? bmul(ovf, linear_attn_state_elems(ovf, &la, tp), local) : 0;
    p->state_dtype = la.state;
    int64_t dq = sh[0].dh > sh[1].dh ? sh[0].dh : sh[1].dh;   /* the wider layer's queries */
    p->live_elems_per_token = badd(ovf, badd(ovf, D, bmul(ovf, Hl, dq)), live_ff);
    p->kv_dtype = f.kv;
    p->act_dtype = f.act;
}
