/* phases.c — the phase skeleton of LLM inference, DeepSeek inference and LLM
 * training (see phases.h): the vocabulary ends, the stage ends (KV swap and
 * pipeline transfers), the input norm and the two-phase driver. */
#include "opsgen/phases.h"

#include <math.h>
#include <stdint.h>

#include "opsgen/dlrm.h"
#include "opsgen/pattern.h"
#include "base/strbuf.h"

/* Builder results are NULL only for malformed equations or op names, which
 * the fixed strings never produce; the check keeps that true. */
#define CHK(x) do { if (!(x)) return -1; } while (0)

void gen_run_init(struct gen_run *r, const struct model_config *m, const struct opsgen_links *l,
                  const struct profile *prof, struct trace *t, bool *ovf)
{
    *r = (struct gen_run){ .m = m, .l = l, .prof = prof, .t = t, .ovf = ovf };
    tensor_formats_of(m, &r->fmt);
    r->B = cdiv64(m->microbatch_size_ici, m->data_parallelism_degree);
    /* ceil(num_layers / pp / pp_dcn) on doubles, as the reference. */
    r->L = (int64_t)ceil((double)m->num_layers / (double)m->pipeline_parallelism_degree /
                         (double)m->pipeline_parallel_degree_dcn);
    r->D_tp = cdiv64(m->d_model, m->tensor_parallelism_degree);
}

void gen_phase_inference(const struct gen_run *r, bool decode, struct gen_phase *ph)
{
    const struct model_config *m = r->m;
    ph->tag = decode ? PHASE_DECODE : PHASE_PREFILL;
    ph->decode = decode;
    /* a prefix cache's hit: prefill computes the prompt's other tokens */
    ph->seq = decode ? m->decode_width : m->input_seqlen - m->cached_prompt_tokens;
    ph->count = decode ? r->L * m->output_seqlen : r->L;
    ph->steps = decode ? m->output_seqlen : 1;
    /* Prefill produces one token per sequence: only the last position meets the LM head. */
    ph->head_seq = decode ? ph->seq : 1;
    ph->norm_desc = decode ? "Attention-serving-decode-Input_layernorm" : "Fwd-Attention-encoder-Input_layernorm";
    ph->norm_eq = "X_norm = LayerNorm(X)";
    ph->norm_op = "LayerNorm";
    ph->norm_dtype = "DT_BFLOAT16";
    ph->send_reuses_fid = r->prof->pp_send_reuses_fid;
    ph->recv_desc = ph->send_desc = decode ? "Decode" : "Prefill";
    ph->send_name = decode ? "sendOutput" : "SendOutput";
}

/* ---- the vocabulary ends ---- */

/* The token-embedding lookup of the step's B x seq tokens (rows of width
 * D / tp), none under quirk vocab_ops_missing or with vocab_size 0. */
static int vocab_embed(const struct gen_run *r, const struct gen_phase *ph, int64_t *fid)
{
    const struct model_config *m = r->m;
    if (r->prof->vocab_ops_missing || m->vocab_size <= 0)
        return 0;
    CHK(b_embedding_bag(r->t, r->ovf, *fid, ph->steps, "TokenEmbedding", "TokenEmbedding",
                        bmul(r->ovf, r->B, ph->seq), 1, m->vocab_size,
                        cdiv64(m->d_model, m->tensor_parallelism_degree), "DT_BFLOAT16"));
    (*fid)++;
    int64_t P = m->per_layer_input_dim, LP = bmul(r->ovf, m->num_layers, P);
    if (P <= 0)
        return 0;
    /* Gemma 4 E2B's and E4B's per-layer inputs: each token's num_layers x P row of their table,
     * plus the embedded token projected to that width, normalised; table and projection whole
     * on every chip, as each layer's gate (layers.h layer_per_layer_input) */
    CHK(b_embedding_bag(r->t, r->ovf, *fid, ph->steps, "PerLayerEmbedding", "PerLayerEmbedding",
                        bmul(r->ovf, r->B, ph->seq), 1, pattern_per_layer_rows(m), LP, "DT_BFLOAT16"));
    (*fid)++;
    CHK(b_einsum(r->t, r->ovf, *fid, ph->steps, "PerLayerProjection", "MatMul: p (2) = x (2) * W_per_layer (1)",
                 SHP(r->B, ph->seq, m->d_model), SHP(m->d_model, LP), "BLM;MP->BLP", "0_0_0", "DT_BFLOAT16"));
    CHK(b_unary(r->t, r->ovf, *fid, ph->steps, "PerLayerProjection", "p (2) = RMSNorm(p (2)) + table row (2)",
                "LayerNorm", SHP(r->B, ph->seq, LP), "0_0", "DT_BFLOAT16"));
    (*fid)++;
    return 0;
}

/* The LM head over the positions that produce a token against the
 * vocabulary sharded over TP, with its softmax. */
static int vocab_head(const struct gen_run *r, const struct gen_phase *ph, int64_t *fid)
{
    const struct model_config *m = r->m;
    if (r->prof->vocab_ops_missing || m->vocab_size <= 0)
        return 0;
    int64_t Vl = cdiv64(m->vocab_size, m->tensor_parallelism_degree), B = r->B, seq = ph->head_seq;
    CHK(b_einsum(r->t, r->ovf, *fid, ph->steps, "LMHead", "MatMul: logits (2) = x_norm (2) * W_vocab (1)",
                 SHP(B, seq, m->d_model), SHP(m->d_model, Vl), "BLM;MV->BLV", "0_0_0", "DT_BFLOAT16"));
    (*fid)++;
    CHK(b_unary(r->t, r->ovf, *fid, ph->steps, "LMHead", "probs = Softmax(logits)", "Softmax", SHP(B, seq, Vl), "0_0",
                "DT_BFLOAT16"));
    (*fid)++;
    return 0;
}

/* ---- the stage ends ---- */

/* KV-cache swap over PCIe (opsgen.md §5.5): when the phase's footprint
 * exceeds HBM, a swap-in and a swap-out op of the excess divided over
 * min(max swaps, L), each at its own fid (advancing *fid). */
static void kv_swap(const struct gen_run *r, const struct gen_phase *ph, int64_t total_bytes, int64_t *fid)
{
    const struct model_config *m = r->m;
    const struct opsgen_links *l = r->l;
    const struct profile *prof = r->prof;
    int64_t cap = l->hbm_size_GB * ((int64_t)1 << 30);
    if (total_bytes <= cap)
        return;
    int64_t times = ph->decode ? m->max_swap_kv_cache_times_decode : m->max_swap_kv_cache_times_prefill;
    if (times > r->L)
        times = r->L;
    int64_t swap = cdiv64(total_bytes - cap, times);
    bool dbl = prof->kv_swap_bytes_doubled;
    b_kv_swap(r->t, r->ovf, (*fid)++, ph->steps, "PCIeMemSwapIn", "PCIeMemSwapIn", false, swap, dbl,
              prof->hbm_pcie_GB_is_GiB, l->pcie_bw_GBps, l->pcie_latency_ns, l->ici_latency_ns);
    b_kv_swap(r->t, r->ovf, (*fid)++, ph->steps, "PCIeMemSwapOut", "PCIeMemSwapOut", true, swap, dbl,
              prof->hbm_pcie_GB_is_GiB, l->pcie_bw_GBps, l->pcie_latency_ns, l->ici_latency_ns);
}

/* One pipeline-stage transfer of the stage activation [B, seq, D / tp]
 * (receive or send, ICI or DCN level) with the reference's descriptions and
 * names, counted once per step. */
static void pipe_xfer(const struct gen_run *r, const struct gen_phase *ph, int64_t fid, bool output, bool dcn)
{
    const struct opsgen_links *l = r->l;
    struct shape x = SHP(r->B, ph->seq, r->D_tp);
    char d[64], nm[96];
    struct strbuf db = STRBUF(d), nb = STRBUF(nm);
    /* "<prefix><Send|Receive...><DCN|ICI>" and "<send|receive>_<DCNT|ICI>Transfer[<elems>]" */
    strbuf_puts(&db, output ? ph->send_desc : ph->recv_desc);
    strbuf_puts(&db, output ? "SendOutputToPipeline" : "ReceiveInputFromPipeline");
    strbuf_puts(&db, dcn ? "DCN" : "ICI");
    strbuf_puts(&nb, output ? ph->send_name : "receiveInput");
    strbuf_puts(&nb, dcn ? "_DCNTTransfer[" : "_ICITransfer[");
    strbuf_puti(&nb, shape_prod(r->ovf, x));
    strbuf_putc(&nb, ']');
    /* DCN stages are timed on the ICI link by the reference (quirk opsgen Q9). */
    bool ici = !dcn || r->prof->dcn_transfers_use_ici;
    b_pipe_xfer(r->t, r->ovf, fid, ph->steps, d, nm, output, x, ici ? l->ici_bw_GBps : l->dcn_bw_GBps,
                ici ? l->ici_latency_ns : l->dcn_latency_ns);
}

/* The start of a stage: the KV swap (when the generator has one and it is
 * enabled), then the DCN and ICI pipeline receives, each at its own fid. */
static void stage_receive(const struct gen_run *r, const struct gen_phase_hooks *h, const struct gen_phase *ph,
                          int64_t *fid)
{
    const struct model_config *m = r->m;
    if (h->mem_bytes && m->enable_swap_kv_cache)
        kv_swap(r, ph, h->mem_bytes(r->ovf, m, ph->decode ? PHASE_DECODE : PHASE_PREFILL, r->prof), fid);
    if (m->pipeline_parallel_degree_dcn > 1)
        pipe_xfer(r, ph, (*fid)++, false, true);
    if (m->pipeline_parallelism_degree > 1)
        pipe_xfer(r, ph, (*fid)++, false, false);
}

/* The end: the ICI then DCN pipeline sends. */
static void stage_send(const struct gen_run *r, const struct gen_phase *ph, int64_t *fid)
{
    if (r->m->pipeline_parallelism_degree > 1)
        pipe_xfer(r, ph, (*fid)++, true, false);
    if (r->m->pipeline_parallel_degree_dcn > 1)
        pipe_xfer(r, ph, (*fid)++, true, true);
}

/* ---- the driver ---- */

/* One phase from fid; returns the fid of its last op through *last_fid. */
static int phase_run(const struct gen_run *r, const struct gen_phase_hooks *h, void *g, struct gen_phase *ph,
                     int64_t fid, int64_t *last_fid)
{
    if (ph->bwd ? h->vocab_bwd(g, &fid, false) : vocab_embed(r, ph, &fid))
        return -1;
    stage_receive(r, h, ph, &fid);
    if (ph->skip_fid)
        fid++;
    ph->first_layer_op = r->t->n;
    if (ph->norm_desc) {
        CHK(b_unary(r->t, r->ovf, fid, ph->count, ph->norm_desc, ph->norm_eq, ph->norm_op,
                    SHP(r->B, ph->seq, r->D_tp), "0_0", ph->norm_dtype));
        fid++;
    }
    if (h->layers(g, ph, &fid))
        return -1;
    if (!ph->send_reuses_fid)
        fid = gen_last(r)->fusion_id + 1;
    stage_send(r, ph, &fid);
    if (ph->bwd ? h->vocab_bwd(g, &fid, true) : vocab_head(r, ph, &fid))
        return -1;
    if (h->end && h->end(g, ph, fid))
        return -1;
    *last_fid = gen_last(r)->fusion_id;
    return 0;
}

int gen_phases(const struct gen_run *r, const struct gen_phase_hooks *h, void *g, struct npu_err *e)
{
    struct trace *out = r->t;
    size_t first = out->n;
    int64_t fid = 2;
    for (int i = 0; i < 2; i++) {
        struct gen_phase ph = { 0 };
        h->setup(g, i, &ph);
        ph.first_op = out->n;
        int64_t last_fid;
        if (phase_run(r, h, g, &ph, fid, &last_fid))
            goto bad;
        if (ph.tag != PHASE_NONE)
            for (size_t k = ph.first_op; k < out->n; k++)
                out->ops[k].phase = ph.tag;
        fid = last_fid + 1;
    }
    return 0;
bad:
    while (out->n > first)
        op_free(&out->ops[--out->n]);
    return npu_errf(e, "internal: malformed op builder arguments");
}
