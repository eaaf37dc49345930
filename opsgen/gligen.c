/* gligen.c — GLIGEN inference: the UNet of a grounded latent-diffusion model
 * (opsgen.md §10; quirks opsgen Q29, opsgen Q29b, opsgen Q37).
 *
 * Two passes. plan_build() lays the UNet out as the reference does — a list
 * of down lists (input conv; resnet [+ spatial transformer] per res block;
 * a strided-conv downsample between levels), the three middle modules, and
 * the up lists (resnet on the concatenated skip channels [+ transformer]
 * [+ upsample]). emit_*() then walks the plan once per diffusion step and
 * appends ops, threading the activation shape [B, C, H, W] and the fusion id
 * through every module exactly as the reference (every module starts at the
 * previous module's last fid + 1; descriptions embed the fid at entry).
 * Attention and FFN come from opsgen/layers.h with count 1 and TP given as
 * the one-axis list [tp] (so, unlike DiT, TP does emit collectives here).
 *
 * Main data structures: struct module (one UNet block and its channels),
 * struct modlist (the modules run between two skip-connection points), and
 * struct gl (what every emitter shares). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opsgen/builders.h"
#include "opsgen/builders_conv.h"
#include "opsgen/diffusion.h"
#include "opsgen/layers.h"

#define BF16 "DT_BFLOAT16"
#define CHK(x) do { if (!(x)) return -1; } while (0)

enum mkind { MK_CONV_IN, MK_DOWN, MK_UP, MK_RES, MK_ST };

struct module {
    enum mkind k;
    int64_t cin, cout;   /* MK_ST: channels in cin; MK_DOWN/MK_UP: cin == cout */
    int64_t dh;          /* MK_ST: head width = channels / heads */
};

struct modlist {
    int n;
    struct module m[3];
};

struct plan {
    struct modlist *down, *up;
    int ndown, nup;
    struct modlist mid;
};

struct gl {
    const struct model_config *m;
    struct trace *t;
    bool *ovf;              /* the trace's overflow flag (builders.h) */
    struct layer_ctx lc;    /* count 1, prefill, TP [tp]; prefix set per call */
    struct coll_axes tp;
    int64_t B, temb, heads, ctx_dim, ctx_seq, obj_seq;
    bool flash;
};

static struct op *last(const struct gl *g) { return &g->t->ops[g->t->n - 1]; }
static int64_t next_fid(const struct gl *g) { return last(g)->fusion_id + 1; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* ---- validation ---- */

static bool in_list(const struct int_list *l, int64_t v)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == v) return true;
    return false;
}

/* Config checks (0, or -1 with e). */
static int gligen_validate(const struct model_config *m, struct npu_err *e)
{
    if (strcmp(m->model_type, "gligen"))
        return npu_errf(e, "model field \"model_type\": expected \"gligen\", got \"%s\"", m->model_type);
    if (m->image_resolution.n != 2)
        return npu_errf(e, "model field \"image_resolution\": expected 2 entries [H, W], got %d",
                        m->image_resolution.n);
    if (m->noisy_latent_resolution.n != 2)
        return npu_errf(e, "model field \"unet_config.noisy_latent_resolution\": expected 2 entries "
                           "[H, W], got %d", m->noisy_latent_resolution.n);
    if (m->channel_mult.n < 1)
        return npu_errf(e, "model field \"unet_config.channel_mult\": expected at least one level");
    if (m->pipeline_parallelism_degree != 1)
        return npu_errf(e, "model field \"pipeline_parallelism_degree\": GLIGEN supports only 1, got %lld",
                        (long long)m->pipeline_parallelism_degree);
    int64_t dp = m->data_parallelism_degree, tp = m->tensor_parallelism_degree;
    if (m->num_chips < dp * tp)
        return npu_errf(e, "model field \"num_chips\": expected at least dp*tp*pp = %lld, got %lld",
                        (long long)(dp * tp), (long long)m->num_chips);
    if (m->num_res_blocks > 64 || m->num_diffusion_steps > 1000)
        return npu_errf(e, "model field \"%s\": expected at most %d, got %lld",
                        m->num_res_blocks > 64 ? "unet_config.num_res_blocks" : "num_diffusion_steps",
                        m->num_res_blocks > 64 ? 64 : 1000,
                        (long long)(m->num_res_blocks > 64 ? m->num_res_blocks : m->num_diffusion_steps));
    int64_t cmax = 0;
    for (int i = 0; i < m->channel_mult.n; i++) {
        if (m->channel_mult.v[i] > 4096)   /* checked first: the product stays within 2^36 */
            return npu_errf(e, "model field \"unet_config.channel_mult\": expected multipliers of "
                               "at most 4096, got %lld", (long long)m->channel_mult.v[i]);
        int64_t ch = m->model_channels * m->channel_mult.v[i];
        if (ch % m->unet_num_heads)
            return npu_errf(e, "model field \"unet_config.num_heads\": expected a divisor of every "
                               "level's channels (model_channels x channel_mult), %lld is not "
                               "divisible by %lld", (long long)ch, (long long)m->unet_num_heads);
        cmax = max64(cmax, ch);
    }
    /* Each level but the last halves the latent with a stride-2 conv; the
     * reference keeps max(1, x // 2) while the conv itself yields ceil(x / 2),
     * so an odd size gives mismatched shapes and a skip connection that no
     * longer lines up. Only sizes that halve exactly are meaningful. */
    int64_t div = (int64_t)1 << (m->channel_mult.n - 1 < 30 ? m->channel_mult.n - 1 : 30);
    for (int i = 0; i < 2; i++) {
        int64_t x = m->noisy_latent_resolution.v[i];
        if (x % div || x > 65536)
            return npu_errf(e, "model field \"unet_config.noisy_latent_resolution\": expected sizes "
                               "divisible by %lld (halved by %d downsamplings) and at most 65536, got %lld",
                            (long long)div, m->channel_mult.n - 1, (long long)x);
    }
    /* Keep every FLOP count inside int64: the largest ops are the 3x3 convs
     * over the skip-concatenated channels and the full-resolution attention. */
    double B = (double)m->global_batch_size, hw = (double)m->noisy_latent_resolution.v[0] *
                                                 (double)m->noisy_latent_resolution.v[1];
    double seq = hw + (double)m->bbox_input_seqlen, h = (double)m->unet_num_heads;
    double conv = 2.0 * B * hw * 9.0 * (3.0 * cmax) * (double)cmax;
    double attn = 4.0 * h * B * seq * h * max64(m->text_input_seqlen, (int64_t)seq) +
                  2.0 * B * seq * 4.0 * (double)cmax * (double)cmax * 2.0;
    if (conv > 4e18 || attn > 4e18 || (double)m->context_dim * (double)cmax > 4e18)
        return npu_errf(e, "model fields \"unet_config.*\" and \"global_batch_size\": sizes too large "
                           "(FLOP counts would overflow 64-bit integers)");
    return 0;
}

/* ---- plan (generate_UNet_ops, first half) ---- */

static void add(struct modlist *l, enum mkind k, int64_t cin, int64_t cout, int64_t dh)
{
    l->m[l->n++] = (struct module){ k, cin, cout, dh };
}

static int plan_build(const struct model_config *m, struct plan *p)
{
    int L = m->channel_mult.n;
    int64_t nrb = m->num_res_blocks, mc = m->model_channels, heads = m->unet_num_heads;
    size_t nd = 1 + (size_t)(L * nrb) + (size_t)L, nu = (size_t)(L * (nrb + 1));
    *p = (struct plan){ 0 };
    p->down = calloc(nd, sizeof *p->down);
    p->up = calloc(nu, sizeof *p->up);
    int64_t *chans = calloc(nd, sizeof *chans);
    if (!p->down || !p->up || !chans) {
        free(chans);
        return -1;
    }
    int nc = 0;
    int64_t ch = mc, ds = 1;
    add(&p->down[p->ndown++], MK_CONV_IN, m->image_num_channels, mc, 0);
    chans[nc++] = mc;
    for (int lv = 0; lv < L; lv++) {
        for (int64_t r = 0; r < nrb; r++) {
            struct modlist *l = &p->down[p->ndown++];
            int64_t out = m->channel_mult.v[lv] * mc;
            add(l, MK_RES, ch, out, 0);
            ch = out;
            if (in_list(&m->attention_resolutions, ds))
                add(l, MK_ST, ch, ch, ch / heads);
            chans[nc++] = ch;
        }
        if (lv != L - 1) {
            add(&p->down[p->ndown++], MK_DOWN, ch, ch, 0);
            chans[nc++] = ch;
            ds *= 2;
        }
    }
    add(&p->mid, MK_RES, ch, ch, 0);
    add(&p->mid, MK_ST, ch, ch, ch / heads);
    add(&p->mid, MK_RES, ch, ch, 0);
    for (int lv = L - 1; lv >= 0; lv--) {
        for (int64_t i = 0; i <= nrb; i++) {
            struct modlist *l = &p->up[p->nup++];
            int64_t ich = chans[--nc], out = mc * m->channel_mult.v[lv];
            add(l, MK_RES, ch + ich, out, 0);
            ch = out;
            if (in_list(&m->attention_resolutions, ds))
                add(l, MK_ST, ch, ch, ch / heads);
            if (lv && i == nrb) {
                add(l, MK_UP, ch, ch, 0);
                ds /= 2;
            }
        }
    }
    free(chans);
    return 0;
}

static void plan_free(struct plan *p)
{
    free(p->down);
    free(p->up);
}

/* ---- block emitters (§10.1); f = fid at entry, *x = activation shape ---- */

static int conv(struct gl *g, int64_t f, const char *prefix, int64_t cin, int64_t cout,
                int64_t h, int64_t w, int64_t k, int64_t stride, int64_t pad)
{
    struct conv2d_args a = { g->B, cin, h, w, cout, k, k, stride, pad, 1 };
    CHK(b_conv2d(g->t, g->ovf, f, 1, prefix, &a, BF16));
    return 0;
}

/* GroupNorm on the incoming shape, then a 3x3 conv dim -> dim_out. */
static int block(struct gl *g, int64_t f, int64_t dim, int64_t dim_out, struct shape *x)
{
    char d[96];
    snprintf(d, sizeof d, "Conv2d-GroupNorm%lld", (long long)f);
    CHK(b_unary(g->t, g->ovf, f, 1, d, "X_norm = GroupNorm(X)", "GroupNorm", *x, "0_0", BF16));
    snprintf(d, sizeof d, "Conv2d%lld", (long long)f);
    if (conv(g, f + 1, d, dim, dim_out, x->d[2], x->d[3], 3, 1, 1))
        return -1;
    *x = SHP(g->B, dim_out, x->d[2], x->d[3]);
    return 0;
}

static int resnet(struct gl *g, int64_t f, int64_t dim, int64_t dim_out, struct shape *x)
{
    char d[96];
    struct shape in = *x;
    struct op *o;
    snprintf(d, sizeof d, "Time-Embed-MLP-Einsum%lld", (long long)f);
    CHK(o = b_einsum(g->t, g->ovf, f, 1, d, "einsum", SHP(g->B, g->temb), SHP(g->temb, dim_out),
                     "BT;TD->BD", "0_0_0", BF16));
    o->weight_bytes = 2 * g->temb * dim_out;
    if (block(g, f + 1, dim, dim_out, x) || block(g, next_fid(g), dim_out, dim_out, x))
        return -1;
    if (dim != dim_out) {
        snprintf(d, sizeof d, "SkipConnection-Einsum%lld", (long long)f);
        CHK(o = b_einsum(g->t, g->ovf, next_fid(g), 1, d, "einsum", SHP(g->B, in.d[2], in.d[3], dim),
                         SHP(dim, dim_out), "BHWC;CO->BHWO", "0_0_0", BF16));
        o->weight_bytes = 2 * dim * dim_out;
    }
    return 0;
}

static int layernorm(struct gl *g, int64_t f, const char *role, int64_t q, int64_t dq)
{
    char d[96];
    snprintf(d, sizeof d, "BasicTransformerBlock-%s%lld", role, (long long)f);
    CHK(b_unary(g->t, g->ovf, f, 1, d, "X_norm = LayerNorm(X)", "LayerNorm", SHP(g->B, q, dq), "0_0", BF16));
    return 0;
}

static int attention(struct gl *g, int64_t f, const char *prefix, const struct attn_args *a)
{
    g->lc.prefix = prefix;
    return layer_attention(&g->lc, a, &f);
}

static int ffn(struct gl *g, int64_t f, const char *prefix, int64_t q, int64_t dq)
{
    struct ffn_args fa = { .seq = q, .D = dq, .F = 4 * dq, .ffn_type = "default" };
    g->lc.prefix = prefix;
    return layer_ffn(&g->lc, &fa, &f);
}

/* GatedSelfAttentionDense: project the grounding tokens, self-attend over
 * image + grounding tokens, FFN over the image tokens. */
static int gated_self_attention(struct gl *g, int64_t f, int64_t q, int64_t dq, int64_t dh)
{
    char d[96];
    struct op *o;
    snprintf(d, sizeof d, "GatedSelfAttention-Linear%lld", (long long)f);
    CHK(o = b_einsum(g->t, g->ovf, f, 1, d, "X = Linear(context)", SHP(g->B, g->obj_seq, g->ctx_dim),
                     SHP(g->ctx_dim, dq), "BLM;MD->BLD", "0_0_0", BF16));
    o->weight_bytes = 2 * g->ctx_dim * dq;
    struct attn_args a = { .seq = q + g->obj_seq, .H = g->heads, .D = dq, .dh = dh, .flash = g->flash };
    snprintf(d, sizeof d, "GatedSelfAttention-Attn%lld", (long long)f);
    if (attention(g, f + 1, d, &a))
        return -1;
    snprintf(d, sizeof d, "GatedSelfAttention-FFN%lld", (long long)f);
    return ffn(g, next_fid(g), d, q, dq);
}

static int basic_transformer(struct gl *g, int64_t f, int64_t q, int64_t dq, int64_t dh)
{
    char d[96];
    if (layernorm(g, f, "Input_layernorm", q, dq))
        return -1;
    struct attn_args self = { .seq = q, .H = g->heads, .D = dq, .dh = dh, .flash = g->flash };
    snprintf(d, sizeof d, "SelfAttention%lld", (long long)(f + 1));
    if (attention(g, f + 1, d, &self) || gated_self_attention(g, next_fid(g), q, dq, dh))
        return -1;
    int64_t n = next_fid(g);
    if (layernorm(g, n, "Fuser_output_layernorm", q, dq))
        return -1;
    struct attn_args cross = { .seq = q, .H = g->heads, .D = dq, .dh = dh, .flash = g->flash,
                               .cross = true, .q_seq = q, .kv_seq = g->ctx_seq, .d_query = dq,
                               .d_key = g->ctx_dim, .d_value = g->ctx_dim };
    snprintf(d, sizeof d, "CrossAttention%lld", (long long)(n + 1));
    if (attention(g, n + 1, d, &cross))
        return -1;
    n = next_fid(g);
    if (layernorm(g, n, "Attn_output_layernorm", q, dq))
        return -1;
    snprintf(d, sizeof d, "BasicTransformerBlock-FFN%lld", (long long)(n + 1));
    return ffn(g, n + 1, d, q, dq);
}

/* SpatialTransformer: GroupNorm, 1x1 projection in (as an einsum over the
 * H*W tokens), one transformer block, projection out. Shape unchanged. */
static int spatial_transformer(struct gl *g, int64_t f, int64_t ch, int64_t dh, const struct shape *x)
{
    char d[96];
    int64_t dq = g->heads * dh, seq = x->d[2] * x->d[3];
    struct op *o;
    snprintf(d, sizeof d, "SpatialTransformer-Input_GroupNorm%lld", (long long)f);
    CHK(b_unary(g->t, g->ovf, f, 1, d, "X_norm = GroupNorm(X)", "GroupNorm", *x, "0_0", BF16));
    snprintf(d, sizeof d, "SpatialTransformer-Proj_in%lld", (long long)(f + 1));
    CHK(o = b_einsum(g->t, g->ovf, f + 1, 1, d, "einsum", SHP(g->B, seq, ch), SHP(ch, dq), "BSN;NC->BSC",
                     "0_0_0", BF16));
    o->weight_bytes = 2 * ch * dq;
    if (basic_transformer(g, f + 2, seq, dq, dh))
        return -1;
    int64_t n = next_fid(g);
    snprintf(d, sizeof d, "SpatialTransformer-Proj_out%lld", (long long)n);
    CHK(o = b_einsum(g->t, g->ovf, n, 1, d, "einsum", SHP(g->B, seq, dq), SHP(dq, ch), "BSN;NC->BSC",
                     "0_0_0", BF16));
    o->weight_bytes = 2 * ch * dq;
    return 0;
}

static int emit_module(struct gl *g, int64_t f, const struct module *md, struct shape *x)
{
    char d[96];
    int64_t h = x->d[2], w = x->d[3];
    switch (md->k) {
    case MK_CONV_IN:
        snprintf(d, sizeof d, "Conv2d%lld", (long long)f);
        if (conv(g, f, d, md->cin, md->cout, h, w, 3, 1, 1))
            return -1;
        *x = SHP(g->B, md->cout, conv_out_dim(h, 3, 1, 1, 1), conv_out_dim(w, 3, 1, 1, 1));
        return 0;
    case MK_DOWN:
        snprintf(d, sizeof d, "Downsample-Conv2d%lld", (long long)f);
        if (conv(g, f, d, md->cin, md->cout, h, w, 3, 2, 1))
            return -1;
        *x = SHP(g->B, md->cout, max64(1, h / 2), max64(1, w / 2));
        return 0;
    case MK_UP:
        snprintf(d, sizeof d, "Upsample%lld", (long long)f);
        CHK(b_upsample(g->t, g->ovf, f, 1, d, g->B, md->cin, h, w, 2, BF16));
        /* The conv shares the upsample's fid (opsgen Q37) and runs at the
         * pre-upsample resolution (quirk opsgen Q29). */
        snprintf(d, sizeof d, "Upsample-Conv2d%lld", (long long)f);
        if (conv(g, f, d, md->cin, md->cout, h, w, 3, 1, 1))
            return -1;
        *x = SHP(g->B, md->cout, h * 2, w * 2);
        return 0;
    case MK_RES:
        return resnet(g, f, md->cin, md->cout, x);
    case MK_ST:
        return spatial_transformer(g, f, md->cin, md->dh, x);
    }
    return -1;
}

/* Runs a list's modules; *fid = the next module's fid (last op's + 1). */
static int emit_list(struct gl *g, const struct modlist *l, struct shape *x, int64_t *fid)
{
    for (int i = 0; i < l->n; i++) {
        if (emit_module(g, *fid, &l->m[i], x))
            return -1;
        *fid = next_fid(g);
    }
    return 0;
}

/* ---- emission (generate_UNet_ops, second half) ---- */

static int emit(struct gl *g, const struct plan *p)
{
    const struct model_config *m = g->m;
    int64_t s = 2, tp = m->tensor_parallelism_degree, mc = m->model_channels;
    int64_t mcl = cdiv64(mc, tp), tl = cdiv64(g->temb, tp);
    char d[96];
    struct op *o;
    snprintf(d, sizeof d, "Time-Embed-MLP-FFi%lld", (long long)s);
    CHK(o = b_einsum(g->t, g->ovf, s, 1, d, "einsum", SHP(g->B, mcl), SHP(mcl, g->temb), "BT;TD->BD",
                     "0_0_0", BF16));
    o->weight_bytes = 2 * mc * g->temb;   /* the full matrix, not the shard */
    snprintf(d, sizeof d, "Time-Embed-MLP-FFo%lld", (long long)s);
    CHK(o = b_einsum(g->t, g->ovf, s + 1, 1, d, "einsum", SHP(g->B, tl), SHP(tl, g->temb), "BT;TD->BD",
                     "0_0_0", BF16));
    o->weight_bytes = 2 * tl * g->temb;
    /* The reference always skips one fid for a pipeline receive that pp = 1
     * never emits (quirk opsgen Q29b). */
    int64_t fid = next_fid(g) + 1;
    /* The UNet input takes the image's channels, and it is not reset between
     * steps: later steps start from the previous step's last up-path shape
     * (quirk opsgen Q29b; only H and W are read, so the ops are identical). */
    struct shape x = SHP(g->B, m->image_num_channels, m->noisy_latent_resolution.v[0],
                         m->noisy_latent_resolution.v[1]);
    struct shape *res = malloc((size_t)p->ndown * sizeof *res);
    if (!res)
        return -1;
    int rc = 0;
    for (int64_t step = 0; step < m->num_diffusion_steps && !rc; step++) {
        int nr = 0;
        for (int i = 0; i < p->ndown && !rc; i++) {
            rc = emit_list(g, &p->down[i], &x, &fid);
            res[nr++] = x;
        }
        if (!rc)
            rc = emit_list(g, &p->mid, &x, &fid);
        for (int i = 0; i < p->nup && !rc; i++) {
            /* Skip connection: concatenate channels (the modules already
             * count them), keep the larger spatial size. */
            struct shape r = res[--nr];
            x = SHP(g->B, x.d[1] + r.d[1], max64(x.d[2], r.d[2]), max64(x.d[3], r.d[3]));
            rc = emit_list(g, &p->up[i], &x, &fid);
        }
        if (rc)
            break;
        snprintf(d, sizeof d, "Out%lld-GroupNorm", (long long)fid);
        if (!b_unary(g->t, g->ovf, fid, 1, d, "X_norm = GroupNorm(X)", "GroupNorm", x, "0_0", BF16)) {
            rc = -1;
            break;
        }
        snprintf(d, sizeof d, "Out%lld-", (long long)(fid + 1));
        rc = conv(g, fid + 1, d, mc, m->image_num_channels, x.d[2], x.d[3], 3, 1, 1);
        if (!rc)
            fid = next_fid(g);
    }
    free(res);
    return rc;
}

int opsgen_gligen(const struct model_config *m, const struct opsgen_links *l,
                  const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e)
{
    if (gligen_validate(m, e))
        return -1;
    struct gl g = { .m = m, .t = out, .ovf = ovf };
    g.B = cdiv64(m->global_batch_size, m->data_parallelism_degree);
    g.temb = 4 * m->model_channels;
    g.heads = m->unet_num_heads;
    g.ctx_dim = m->context_dim;
    g.ctx_seq = m->text_input_seqlen;
    g.obj_seq = m->bbox_input_seqlen;
    g.flash = m->use_flash_attention;
    /* TP goes to the layers as the single axis [tp] (opsgen.md §10). */
    g.tp = coll_axes_ring(m->tensor_parallelism_degree, l->ici_bw_GBps, l->ici_latency_ns, l->collective_base_ns,
                          COLL_RING, prof);
    g.lc = (struct layer_ctx){ out, ovf, prof, g.B, 1, false, &g.tp, "", NULL, 0 };
    struct plan p;
    if (plan_build(m, &p)) {
        plan_free(&p);
        return npu_errf(e, "gligen: out of memory");
    }
    size_t first = out->n;
    int rc = emit(&g, &p);
    plan_free(&p);
    if (rc) {
        while (out->n > first)
            op_free(&out->ops[--out->n]);
        return npu_errf(e, "internal: malformed GLIGEN op builder arguments");
    }
    return 0;
}
