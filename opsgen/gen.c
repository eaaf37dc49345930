/* gen.c — generator skeleton helpers (see gen.h). */
#include "opsgen/gen.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "opsgen/dlrm.h"
#include "opsgen/parallel.h"
#include "base/strbuf.h"

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

int gen_axes(struct coll_axes *ax, int64_t deg, int64_t n_axes, const struct profile *prof,
             double bw_GBps, int64_t latency_ns, int max_axes)
{
    int64_t a[PAR_MAX_FACTORS];
    int n = 0;
    if (n_axes > 0)
        n = split_parallelism_degree(deg, (int)(n_axes < PAR_MAX_FACTORS ? n_axes : PAR_MAX_FACTORS),
                                     prof->split_axes_drops_missing, a);
    else if (!prof->zero_tp_axes_ignore_tp && deg > 1)
        a[n++] = deg;   /* corrected opsgen Q13: keep the degree on one axis */
    if (n > max_axes || n > SHAPE_MAXD)
        return -1;
    ax->n = n;
    ax->latency_ns = latency_ns;
    for (int i = 0; i < n; i++) {
        ax->deg[i] = a[i];
        ax->bw_GBps[i] = bw_GBps;
    }
    return 0;
}

int gen_vocab_embed(struct trace *t, const struct model_config *m, const struct profile *prof,
                    int64_t B, int64_t seq, int64_t steps, int64_t tp, int64_t *fid)
{
    if (prof->vocab_ops_missing || m->vocab_size <= 0)
        return 0;
    if (!b_embedding_bag(t, *fid, steps, "TokenEmbedding", "TokenEmbedding", bmul(B, seq), 1, m->vocab_size,
                         cdiv64(m->d_model, tp), "DT_BFLOAT16"))
        return -1;
    (*fid)++;
    return 0;
}

int64_t gen_vocab_params(const struct model_config *m, int64_t tp, const struct profile *prof)
{
    return prof->vocab_ops_missing ? 0 : bmul3(2, cdiv64(m->vocab_size, tp), m->d_model);
}

int gen_vocab_head(struct trace *t, const struct model_config *m, const struct profile *prof,
                   int64_t B, int64_t seq, int64_t steps, int64_t tp, int64_t *fid)
{
    if (prof->vocab_ops_missing || m->vocab_size <= 0)
        return 0;
    int64_t Vl = cdiv64(m->vocab_size, tp);
    if (!b_einsum(t, *fid, steps, "LMHead", "MatMul: logits (2) = x_norm (2) * W_vocab (1)",
                  SHP(B, seq, m->d_model), SHP(m->d_model, Vl), "BLM;MV->BLV", "0_0_0", "DT_BFLOAT16"))
        return -1;
    (*fid)++;
    if (!b_unary(t, *fid, steps, "LMHead", "probs = Softmax(logits)", "Softmax", SHP(B, seq, Vl), "0_0",
                 "DT_BFLOAT16"))
        return -1;
    (*fid)++;
    return 0;
}

int gen_prefill_decode(struct trace *out, gen_phase_fn phase, void *g, struct npu_err *e)
{
    size_t first = out->n;
    int64_t last_fid;
    if (phase(g, false, 2, &last_fid))
        goto bad;
    size_t mid = out->n;
    for (size_t i = first; i < mid; i++)
        out->ops[i].phase = PHASE_PREFILL;
    if (phase(g, true, last_fid + 1, &last_fid))
        goto bad;
    for (size_t i = mid; i < out->n; i++)
        out->ops[i].phase = PHASE_DECODE;
    return 0;
bad:
    while (out->n > first)
        op_free(&out->ops[--out->n]);
    return npu_errf(e, "internal: malformed op builder arguments");
}

/* KV-cache swap over PCIe (opsgen.md §5.5): when the phase's footprint
 * exceeds HBM, a swap-in and a swap-out op of the excess divided over
 * min(max swaps, L), each at its own fid (advancing *fid). */
static void gen_kv_swap(struct trace *t, const struct model_config *m, const struct opsgen_links *l,
                 const struct profile *prof, bool decode, int64_t L, int64_t total_bytes, int64_t *fid)
{
    int64_t cap = l->hbm_size_GB * ((int64_t)1 << 30);
    if (total_bytes <= cap)
        return;
    int64_t times = decode ? m->max_swap_kv_cache_times_decode : m->max_swap_kv_cache_times_prefill;
    if (times > L)
        times = L;
    int64_t swap = cdiv64(total_bytes - cap, times);
    int64_t steps = decode ? m->output_seqlen : 1;
    bool dbl = prof->kv_swap_bytes_doubled;
    b_kv_swap(t, (*fid)++, steps, "PCIeMemSwapIn", "PCIeMemSwapIn", false, swap, dbl, prof->hbm_pcie_GB_is_GiB,
              l->pcie_bw_GBps, l->pcie_latency_ns, l->ici_latency_ns);
    b_kv_swap(t, (*fid)++, steps, "PCIeMemSwapOut", "PCIeMemSwapOut", true, swap, dbl, prof->hbm_pcie_GB_is_GiB,
              l->pcie_bw_GBps, l->pcie_latency_ns, l->ici_latency_ns);
}

/* One pipeline-stage transfer of x (receive or send, ICI or DCN level) with
 * the reference's descriptions and names, counted once per decode step. */
static void pipe_xfer(const struct gen_stage *s, int64_t fid, bool output, bool dcn)
{
    const struct opsgen_links *l = s->l;
    bool decode = s->decode;
    char d[64], nm[96];
    struct strbuf db = STRBUF(d), nb = STRBUF(nm);
    /* "<Phase><Send|Receive...><DCN|ICI>" and "<send|receive>_<DCNT|ICI>Transfer[<elems>]" */
    strbuf_puts(&db, decode ? "Decode" : "Prefill");
    strbuf_puts(&db, output ? "SendOutputToPipeline" : "ReceiveInputFromPipeline");
    strbuf_puts(&db, dcn ? "DCN" : "ICI");
    strbuf_puts(&nb, output ? (decode ? "sendOutput" : "SendOutput") : "receiveInput");
    strbuf_puts(&nb, dcn ? "_DCNTTransfer[" : "_ICITransfer[");
    strbuf_puti(&nb, shape_prod(s->x));
    strbuf_putc(&nb, ']');
    /* DCN stages are timed on the ICI link by the reference (quirk opsgen Q9). */
    bool ici = !dcn || s->prof->dcn_transfers_use_ici;
    b_pipe_xfer(s->t, fid, decode ? s->m->output_seqlen : 1, d, nm, output, s->x,
                ici ? l->ici_bw_GBps : l->dcn_bw_GBps,
                ici ? l->ici_latency_ns : l->dcn_latency_ns);
}

void gen_stage_receive(const struct gen_stage *s, int64_t *fid)
{
    const struct model_config *m = s->m;
    if (m->enable_swap_kv_cache)
        gen_kv_swap(s->t, m, s->l, s->prof, s->decode, s->L,
                    s->mem_bytes(m, s->decode ? PHASE_DECODE : PHASE_PREFILL, s->prof), fid);
    if (m->pipeline_parallel_degree_dcn > 1)
        pipe_xfer(s, (*fid)++, false, true);
    if (m->pipeline_parallelism_degree > 1)
        pipe_xfer(s, (*fid)++, false, false);
}

void gen_stage_send(const struct gen_stage *s, int64_t *fid)
{
    if (s->m->pipeline_parallelism_degree > 1)
        pipe_xfer(s, (*fid)++, true, false);
    if (s->m->pipeline_parallel_degree_dcn > 1)
        pipe_xfer(s, (*fid)++, true, true);
}
