/* llm_infer.c — LLM inference op sequence (opsgen.md §4.2, §5).
 *
 * One transformer layer per phase, each op counted once per layer (prefill)
 * or once per layer and decode step (decode): optional KV swap, pipeline
 * receive, input LayerNorm, attention, FFN, pipeline send. The fusion-id walk
 * follows the reference step by step, including the stale id of the send ops
 * (quirk opsgen Q5), because the ids are printed in the trace.
 *
 * The phase skeleton (opsgen/phases.h) walks the phase; this file gives it
 * the inference phase data and the layer (attention and FFN).
 *
 * Main data structure: struct gen_run (opsgen/phases.h), the per-run
 * quantities of §4.2 (local batch, layers per stage, TP axes with their link
 * bandwidths). Quirks opsgen Q2 (no GQA in ops) and opsgen Q8 (decode at the
 * final KV length) are switched in the attention builder (opsgen/layers.c). */
#include <stddef.h>
#include <string.h>

#include "opsgen/builders.h"
#include "opsgen/gen.h"
#include "opsgen/layers.h"
#include "opsgen/linear_attn.h"
#include "opsgen/moe.h"
#include "opsgen/pattern.h"
#include "opsgen/opsgen.h"
#include "opsgen/parallel.h"
#include "opsgen/phases.h"

/* The run with the expert axes of a mixture of experts (ffn_type "moe"). */
struct llm_gen {
    struct gen_run r;
    struct coll_axes etp, ep;
    struct tensor_formats efmt;  /* the experts' number formats (expert_weight_dtype) */
};

/* The prefill or decode phase (gen_phases). */
static void phase_setup(void *g, int i, struct gen_phase *ph)
{
    gen_phase_inference(g, i == 1, ph);
}

/* A layer's attention of m over seq query tokens per sequence; decode's
 * cache is s_in prompt and s_out generated tokens (decode_suffix_groups).
 * A local layer takes the local heads' shape, a global one the global's
 * (pattern_attn_shape). */
static struct attn_args attn_base(const struct model_config *m, int64_t seq, int64_t s_in, int64_t s_out, bool local)
{
    struct attn_shape sh = pattern_attn_shape(m, !local);
    return (struct attn_args){ .seq = seq, .s_in = s_in, .s_out = s_out, .H = m->num_heads, .D = m->d_model,
                               .dh = sh.dh, .kv_heads = sh.kv_heads, .flash = m->use_flash_attention,
                               .causal = !m->bidirectional, .parallel_ffn = m->parallel_attn_ffn,
                               .decode_kv_per_head = !m->decode_kv_shared,
                               .output_gate = m->attention_output_gate, .k_eq_v = sh.k_eq_v, .dhv = sh.dv };
}

/* A decode step reading `keys` keys of the cache: one suffix key, the rest
 * the prefix (2 at least). */
static void decode_keys(struct attn_args *at, int64_t keys)
{
    at->s_in = keys > 2 ? keys - 1 : 1;
    at->s_out = 1;
}

/* The attention of one layer of run r, of a phase (seq tokens, decode or
 * not); a local layer (opsgen/pattern.h) sees fewer keys: its prefill
 * queries the window's keys on average, its decode steps the window's
 * keys over the generated tokens on average (at the final length under the
 * reference's decode_kv_full_length). */
static struct attn_args attn_of(const struct gen_run *r, const struct gen_phase *ph, bool local)
{
    const struct model_config *m = r->m;
    int64_t S = m->input_seqlen, O = m->output_seqlen;
    int64_t C = ph->decode ? 0 : m->cached_prompt_tokens;
    struct attn_args at = attn_base(m, ph->seq, S, O, local);
    if (C > 0) {   /* the S - C new queries at positions C + 1 .. S see all S keys */
        at.q_seq = at.kv_new = S - C;
        at.kv_seq = S;
        at.att_keys = r->prof->prefill_attention_unmasked ? S : C + (S - C + 1) / 2;
    }
    if (!local || badd(r->ovf, S, O) <= m->sliding_window)
        return at;
    if (!ph->decode)
        at.att_keys = pattern_local_keys(r->ovf, m, C, S) / (S - C);
    else
        decode_keys(&at, r->prof->decode_kv_full_length ? pattern_local_keys(r->ovf, m, S + O - 1, S + O)
                                                        : pattern_local_keys(r->ovf, m, S, S + O) / O);
    return at;
}

/* One layer of each group alike (opsgen/pattern.h), each counted by its
 * layers: attention, then the dense FFN or the experts. A model of one group
 * is the reference's layer, counted by the phase. The reference does not
 * advance past the FFN, so the sends reuse the FFN's first fid
 * (quirk opsgen Q5, phase data). */
static int phase_layers(void *gp, const struct gen_phase *ph, int64_t *fid)
{
    struct llm_gen *g = gp;
    const struct gen_run *r = &g->r;
    const struct model_config *m = r->m;
    struct layer_groups lg;
    pattern_stage_groups(m, r->L, &lg);
    struct linear_attn la;
    linear_attn_of(m, &la);
    for (int k = 0; k < lg.n; k++) {
        const struct layer_group *gr = &lg.g[k];
        if (gr->layers <= 0)
            continue;
        if (k > 0)
            *fid = gen_last(r)->fusion_id + 1;
        int64_t count = lg.n == 1 ? ph->count : bmul(r->ovf, gr->layers, ph->steps);
        struct layer_ctx lc = { r->t, r->ovf, r->prof, r->B, count, ph->decode, &r->tp, "", &r->fmt, 0 };
        bool linear = gr->local && pattern_linear(m);   /* a Gated DeltaNet layer: no keys to count */
        struct attn_args at = linear ? attn_base(m, ph->seq, m->input_seqlen, m->output_seqlen, true)
                                     : attn_of(r, ph, gr->local);
        at.linear = linear ? &la : NULL;
        at.no_kv_proj = gr->kv_shared;
        int64_t F = pattern_d_ff(m, gr->kv_shared);
        int rc = gr->no_ffn ? layer_attention(&lc, &at, fid)   /* a mixer alone (Nemotron-H's blocks) */
                 : !gr->moe ? layer_block_ff(&lc, &at, m, F, fid)
                            : moe_layer(&lc, &at, r, &g->etp, &g->ep, &g->efmt, fid);
        if (rc)
            return -1;
        if (m->per_layer_input_dim > 0) {   /* Gemma 4 E2B's and E4B's per-layer inputs */
            *fid = gen_last(r)->fusion_id + 1;
            if (layer_per_layer_input(&lc, ph->seq, m->d_model, m->per_layer_input_dim, fid))
                return -1;
        }
    }
    return 0;
}

/* ---- validation ---- */

int opsgen_check_strict(const struct model_config *m, struct npu_err *e)
{
    static const struct { const char *what; size_t off; } dims[] = {
        { "num_heads", offsetof(struct model_config, num_heads) },
        { "d_model", offsetof(struct model_config, d_model) },
        { "d_ff", offsetof(struct model_config, d_ff) },
    };
    int64_t tp = m->tensor_parallelism_degree;
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        int64_t v = *(const int64_t *)((const char *)m + dims[i].off);
        if (tp > 0 && v % tp)
            return npu_errf(e, "model field \"tensor_parallelism_degree\": %lld does not divide %s %lld",
                            (long long)tp, dims[i].what, (long long)v);
    }
    return gen_require_stages(m, e);
}

static int validate(const struct model_config *m, const struct opsgen_links *l,
                    struct npu_err *e)
{
    if (gen_require_llm(m, "LLM inference", e))
        return -1;
    if (!ffn_kind_of(m->ffn_type) && !pattern_is_moe(m))
        return ffn_type_error(m->ffn_type, e);
    static const char *const positive[] = {
        "num_chips", "data_parallelism_degree", "tensor_parallelism_degree",
        "pipeline_parallelism_degree", "data_parallel_degree_dcn", "tensor_parallel_degree_dcn",
        "pipeline_parallel_degree_dcn", "microbatch_size_ici", "input_seqlen", "output_seqlen",
        "d_model", "num_heads", "d_head", "d_ff", "num_layers", "decode_width",
        "max_swap_kv_cache_times_prefill", "max_swap_kv_cache_times_decode",
    };
    if (gen_require_positive(m, positive, sizeof positive / sizeof positive[0], e))
        return -1;
    if (gen_require_axes("num_tensor_parallel_axes", m->num_tensor_parallel_axes, PAR_MAX_FACTORS, e) ||
        gen_require_chips(m, e) || (pattern_is_moe(m) && moe_validate(m, e)) ||
        gen_require_prompt_cache(m, NULL, e) || gen_require_linear(m, NULL, e))
        return -1;
    return gen_require_links(l, true, m->pipeline_parallel_degree_dcn > 1, e);
}

int opsgen_llm_inference(const struct model_config *m, const struct opsgen_links *l,
                         const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e)
{
    if (validate(m, l, e))
        return -1;
    /* A footprint past int64 fails the trace. */
    (void)opsgen_llm_inference_mem_checked(ovf, m, PHASE_DECODE, prof);
    struct llm_gen g = { 0 };
    gen_run_init(&g.r, m, l, prof, out, ovf);
    if (gen_axes(&g.r.tp, m->tensor_parallelism_degree, m->num_tensor_parallel_axes, prof, l, SHAPE_MAXD))
        return npu_errf(e, "model field \"num_tensor_parallel_axes\": at most %d axes supported",
                        SHAPE_MAXD);
    if (pattern_is_moe(m) && moe_axes(m, l, prof, &g.etp, &g.ep))
        return npu_errf(e, "model: parallelism degrees split over more than %d torus axes", SHAPE_MAXD);
    tensor_formats_experts(m, &g.efmt);

    static const struct gen_phase_hooks hooks = { .setup = phase_setup, .layers = phase_layers,
                                                  .mem_bytes = opsgen_llm_inference_mem_checked };
    return gen_phases(&g.r, &hooks, &g, e);
}

/* ---- one serving step's attention ---- */

bool opsgen_op_is_attention_core(const struct op *op)
{
    /* llama's scores, softmax and weighted sum, or flash attention; MLA's
     * three cache einsums and softmax (opsgen/deepseek.c), which follow its
     * "Attention-serving-" prefix (the MoE gate has a scores_softmax too) */
    static const char *const mla[] = { "q_nope_kv_cache_einsum", "q_pe_pe_einsum", "scores_softmax",
                                       "scores_kv_cache_einsum", "indexer_scores_einsum", "indexer_topk" };
    const char *d = op->description, *p = strstr(d, "Attention-serving-");
    if (strstr(d, "Softmax(Q*K)*V") || strstr(d, "-FlashAttention-") || strstr(d, "GatedDeltaNet_") ||
        strstr(d, "Mamba2_") || strstr(d, "Mamba1_") || strstr(d, "ShortConv_"))
        return true;   /* a linear layer's recurrence follows each sequence's chunk (opsgen/linear_attn.h) */
    for (size_t i = 0; p && i < sizeof mla / sizeof mla[0]; i++) {
        const char *x = strstr(p, mla[i]);
        if (x && x[strlen(mla[i])] == '\0')
            return true;
    }
    return false;
}

bool opsgen_op_is_lm_head(const struct op *op)
{
    return !strcmp(op->description, "LMHead");
}

/* The attention core of one group of g's layers (count executions), local
 * or not, into scratch. */
static int step_group(const struct llm_gen *g, const struct opsgen_step_attn *a, int64_t count, bool local,
                      struct trace *scratch)
{
    const struct model_config *m = g->r.m;
    struct layer_ctx lc = { scratch, g->r.ovf, g->r.prof, a->batch, count, a->decode, &g->r.tp, "", &g->r.fmt, 0 };
    /* Decode: one suffix group of length s needs an odd step count 2s - 1
     * (decode_suffix_groups), counted here once per layer. */
    struct attn_args at = attn_base(m, a->decode ? m->decode_width : a->q, a->prefix, 2 * a->suffix - 1, local);
    if (!a->decode) {
        at.q_seq = a->q;
        at.kv_seq = a->kv;
        at.att_keys = a->att;
    }
    if (local && pattern_linear(m)) {   /* a Gated DeltaNet layer's recurrence over the chunk or step */
        struct linear_attn la;
        linear_attn_of(m, &la);
        return layer_linear_core(&lc, &la, a->decode ? m->decode_width : a->q, 2);
    }
    if (local && a->decode) {   /* the window's keys of the context at this step */
        int64_t ctx = badd(g->r.ovf, a->prefix, a->suffix);
        int64_t keys = pattern_local_keys(g->r.ovf, m, ctx - 1, ctx);
        if (keys < ctx)
            decode_keys(&at, keys);
    } else if (local && a->q > 0) {   /* the chunk's queries, at positions kv - q + 1 .. kv */
        int64_t keys = pattern_local_keys(g->r.ovf, m, a->kv - a->q, a->kv) / a->q;
        if (keys < at.att_keys)
            at.att_keys = keys > 1 ? keys : 1;
    }
    int64_t fid = 2;
    return layer_attention(&lc, &at, &fid);
}

int opsgen_llm_step_attention(const struct model_config *m, const struct opsgen_links *l,
                              const struct profile *prof, const struct opsgen_step_attn *a,
                              struct trace *out, bool *ovf, struct npu_err *e)
{
    struct trace scratch;
    trace_init(&scratch);
    struct llm_gen g = { 0 };
    gen_run_init(&g.r, m, l, prof, &scratch, ovf);
    if (gen_axes(&g.r.tp, m->tensor_parallelism_degree, m->num_tensor_parallel_axes, prof, l, SHAPE_MAXD))
        return npu_errf(e, "model field \"num_tensor_parallel_axes\": at most %d axes supported", SHAPE_MAXD);
    /* the stage's layers: global ones, and the local ones of a window */
    struct layer_groups lg;
    pattern_stage_groups(m, g.r.L, &lg);
    int64_t local = pattern_local_of(&lg);
    int rc = 0;
    if (g.r.L - local > 0)
        rc = step_group(&g, a, g.r.L - local, false, &scratch);
    if (!rc && local > 0)
        rc = step_group(&g, a, local, true, &scratch);
    for (size_t i = 0; i < scratch.n; i++) {
        struct op *op = &scratch.ops[i];
        if (!rc && opsgen_op_is_attention_core(op)) {
            *trace_push(out) = *op;   /* moved: the strings go with it */
            op_init(op);
        }
    }
    trace_free(&scratch);
    return rc ? npu_errf(e, "internal: malformed op builder arguments") : 0;
}
