/* sweep.c — LLM sweep enumeration, validation, axis mapping and run names
 * (see sweep.h; opsgen.md §13). */
#include "opsgen/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opsgen/builders.h"

/* ---- enumeration: every family's parallel configurations (§13) ---- */

/* Divisors of n ascending. Returns the count. */
static size_t divisors(int64_t n, int64_t *out, size_t max)
{
    size_t k = 0;
    for (int64_t d = 1; d <= n && k < max; d++)
        if (n % d == 0) out[k++] = d;
    return k;
}

#define MAX_DIV 4096

/* The configurations found so far. */
struct cfg_list {
    struct parallel_cfg *v;
    size_t n, cap;
};

static int push_cfg(struct cfg_list *l, struct parallel_cfg c)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 16;
        struct parallel_cfg *p = realloc(l->v, nc * sizeof *p);
        if (!p)
            return -1;
        l->v = p;
        l->cap = nc;
    }
    l->v[l->n++] = c;
    return 0;
}

/* A family's configurations of num chips in at most max_pods DCN pods, in
 * the reference's loop order; arg: the family's own bound. */
typedef int (*gen_fn)(int64_t num, int64_t max_pods, int64_t arg, struct cfg_list *l);

/* LLM: every (dp, tp, pp, dp_dcn, pp_dcn) whose product is num, dp at most
 * arg, loops nested in that order. */
static int gen_llama(int64_t num, int64_t max_pods, int64_t max_dp, struct cfg_list *l)
{
    int64_t *f = malloc(MAX_DIV * sizeof *f);
    if (!f) return -1;
    size_t nf = divisors(num, f, MAX_DIV);
    int rc = 0;
    for (size_t a = 0; a < nf && f[a] <= max_dp && !rc; a++)
        for (size_t b = 0; b < nf && !rc; b++)
            for (size_t c = 0; c < nf && !rc; c++)
                for (size_t x = 0; x < nf && f[x] <= max_pods && !rc; x++)
                    for (size_t y = 0; y < nf && f[y] <= max_pods && !rc; y++) {
                        if (f[x] * f[y] > max_pods) continue;
                        if (f[a] * f[b] * f[c] * f[x] * f[y] != num) continue;
                        rc = push_cfg(l, (struct parallel_cfg){
                            .num_chips = num, .dp = f[a], .tp = f[b], .pp = f[c], .ep = 1,
                            .dp_dcn = f[x], .tp_dcn = 1, .pp_dcn = f[y], .ep_dcn = 1 });
                    }
    free(f);
    return rc;
}

/* MoE: dp, tp, pp, ep, dp_dcn, pp_dcn (ep_dcn 1), expert TP (dp*tp/ep) at
 * most arg. */
static int gen_moe(int64_t num, int64_t max_pods, int64_t max_etp, struct cfg_list *l)
{
    int64_t *f = malloc(MAX_DIV * sizeof *f);
    if (!f) return -1;
    size_t nf = divisors(num, f, MAX_DIV);
    int rc = 0;
    for (size_t a = 0; a < nf && f[a] <= 1 && !rc; a++)   /* inference: dp 1 */
        for (size_t b = 0; b < nf && !rc; b++)
            for (size_t c = 0; c < nf && !rc; c++)
                for (size_t x = 0; x < nf && !rc; x++)
                    for (size_t y = 0; y < nf && f[y] <= max_pods && !rc; y++)
                        for (size_t z = 0; z < nf && f[z] <= max_pods && !rc; z++) {
                            int64_t dp = f[a], tp = f[b], pp = f[c], ep = f[x];
                            int64_t dpd = f[y], ppd = f[z];
                            if (dpd * ppd > max_pods || ep > dp * tp || dp * tp / ep > max_etp)
                                continue;
                            /* EP multiplies the chip count (quirk opsgen Q33). */
                            if (dp * tp * pp * ep * dpd * ppd != num)
                                continue;
                            rc = push_cfg(l, (struct parallel_cfg){
                                .num_chips = num, .dp = dp, .tp = tp, .pp = pp, .ep = ep,
                                .dp_dcn = dpd, .tp_dcn = 1, .pp_dcn = ppd, .ep_dcn = 1 });
                        }
    free(f);
    return rc;
}

/* Diffusion: every (dp, tp, pp) of product num in one pod; GLIGEN (arg 1)
 * without pipeline parallelism. */
static int gen_diffusion(int64_t num, int64_t max_pods, int64_t gligen, struct cfg_list *l)
{
    (void)max_pods;
    for (int64_t dp = 1; dp <= num; dp++) {
        if (num % dp) continue;
        for (int64_t tp = 1; tp <= num; tp++) {
            if (num % tp) continue;
            for (int64_t pp = 1; pp <= num; pp++) {
                if (num % pp || (gligen && pp > 1) || dp * tp * pp != num) continue;
                struct parallel_cfg c = { .num_chips = num, .dp = dp, .tp = tp, .pp = pp, .ep = 1,
                                          .dp_dcn = 1, .tp_dcn = 1, .pp_dcn = 1, .ep_dcn = 1 };
                if (push_cfg(l, c))
                    return -1;
            }
        }
    }
    return 0;
}

/* Runs gen for num_chips (at most max_chips) into *out (malloc'ed, *n).
 * Above 256 chips each DCN pod count (1, 2, 4) gets num_chips / pods chips
 * in total (quirk opsgen Q32). */
static int enumerate(int64_t num_chips, int64_t max_chips, gen_fn gen, int64_t arg, struct parallel_cfg **out,
                     size_t *n, struct npu_err *e)
{
    *out = NULL;
    *n = 0;
    if (num_chips <= 0)
        return npu_errf(e, "sweep: num_chips must be positive, got %lld", (long long)num_chips);
    if (num_chips > max_chips)
        return npu_errf(e, "sweep: num_chips %lld is too large (at most %lld)", (long long)num_chips,
                        (long long)max_chips);
    static const int64_t dcn[] = { 1, 2, 4 };
    struct cfg_list l = { NULL, 0, 0 };
    int rc = 0;
    for (int i = 0; i < (num_chips > 256 ? 3 : 1) && !rc; i++)
        rc = gen(num_chips / dcn[i], dcn[i], arg, &l);
    if (rc) {
        free(l.v);
        return npu_errf(e, "sweep: out of memory enumerating %lld chips", (long long)num_chips);
    }
    *out = l.v;
    *n = l.n;
    return 0;
}

int sweep_llm_configs(int64_t num_chips, bool training, struct parallel_cfg **out, size_t *n,
                      struct npu_err *e)
{
    return enumerate(num_chips, INT64_MAX, gen_llama, training ? INT64_MAX : 1, out, n, e);
}

int sweep_moe_configs(int64_t num_chips, int64_t max_etp, struct parallel_cfg **out, size_t *n,
                      struct npu_err *e)
{
    return enumerate(num_chips, INT64_MAX, gen_moe, max_etp, out, n, e);
}

int sweep_diffusion_configs(int64_t num_chips, bool gligen, struct parallel_cfg **out, size_t *n,
                            struct npu_err *e)
{
    return enumerate(num_chips, 1 << 24, gen_diffusion, gligen, out, n, e);
}

void sweep_apply_parallel(struct model_config *m, const struct parallel_cfg *p, int64_t gbs)
{
    m->num_chips = p->num_chips;
    m->data_parallelism_degree = p->dp;
    m->tensor_parallelism_degree = p->tp;
    m->pipeline_parallelism_degree = p->pp;
    m->data_parallel_degree_dcn = p->dp_dcn;
    m->tensor_parallel_degree_dcn = p->tp_dcn ? p->tp_dcn : 1;
    m->pipeline_parallel_degree_dcn = p->pp_dcn;
    if (p->ep) m->expert_parallelism_degree = p->ep;
    if (p->ep_dcn) m->expert_parallel_degree_dcn = p->ep_dcn;
    /* Successive float divisions, then ceil, as the reference computes it. */
    m->microbatch_size_ici =
        (int64_t)ceil((double)gbs / (double)p->dp_dcn / (double)p->pp / (double)p->pp_dcn);
    m->microbatch_size_dcn = cdiv64(gbs, p->pp_dcn);
    m->global_batch_size = gbs;
}

void sweep_map_axes_llm(const char *v, struct model_config *m)
{
    int64_t n = (!strcmp(v, "2") || !strcmp(v, "3") || !strcmp(v, "5e") || !strcmp(v, "6e"))
                    ? 2 : 3;
    bool d = m->data_parallelism_degree > 1, t = m->tensor_parallelism_degree > 1,
         p = m->pipeline_parallelism_degree > 1;
    int64_t ad = 0, at = 0, ap = 0;
    switch (d + t + p) {
    case 0:
        break;
    case 1:
        if (d) ad = n;
        if (t) at = n;
        if (p) ap = 1;
        break;
    case 2:
        if (t) {
            at = n - 1;
            if (d) ad = 1; else ap = 1;
        } else {
            ad = n - 1;
            ap = 1;
        }
        break;
    default:  /* three: one axis each, even on 2-D chips (quirk opsgen Q34) */
        ad = at = ap = 1;
        break;
    }
    m->num_data_parallel_axes = ad;
    m->num_tensor_parallel_axes = at;
    m->num_pipeline_parallel_axes = ap;
}

/* Largest ICI pod (dp*tp*pp chips) per chip version (opsgen.md §13.3 step 4). */
static const struct { const char *version; int64_t max_chips; } pod_limit[] = {
    { "2", 256 }, { "5e", 256 }, { "6e", 256 },
    { "3", 1024 },   /* the reference's message says 512 (quirk opsgen Q35) */
    { "4", 4096 }, { "5p", 6144 }, { "6p", 8192 },
};

#define FAIL(...) do { if (why && whylen) snprintf(why, whylen, __VA_ARGS__); return false; } while (0)

bool sweep_validate_structure(const struct model_config *m, const char *v, char *why, size_t whylen)
{
    int64_t dp = m->data_parallelism_degree, tp = m->tensor_parallelism_degree;
    int64_t pp = m->pipeline_parallelism_degree, dpd = m->data_parallel_degree_dcn;
    int64_t ppd = m->pipeline_parallel_degree_dcn;
    if (pp * ppd > m->num_layers)
        FAIL("pp*pp_dcn %lld exceeds num_layers %lld", (long long)(pp * ppd),
             (long long)m->num_layers);
    if ((!strcmp(v, "2") || !strcmp(v, "3")) && dp > 1 && tp > 1 && pp > 1)
        FAIL("TPUv%s does not support dp, tp and pp all > 1", v);
    int64_t pod = dp * tp * pp;
    for (size_t i = 0; i < sizeof pod_limit / sizeof pod_limit[0]; i++)
        if (!strcmp(v, pod_limit[i].version) && pod > pod_limit[i].max_chips)
            FAIL("ICI pod size %lld exceeds %lld chips of TPUv%s", (long long)pod,
                 (long long)pod_limit[i].max_chips, v);
    if (dp * dpd * pp * ppd > m->global_batch_size)
        FAIL("dp*dp_dcn*pp*pp_dcn %lld exceeds global_batch_size %lld",
             (long long)(dp * dpd * pp * ppd), (long long)m->global_batch_size);
    if (why && whylen) why[0] = '\0';
    return true;
}

bool sweep_validate_llm(const struct model_config *m, const struct opsgen_links *l,
                        const struct profile *prof, enum phase ph, double oom_factor,
                        char *why, size_t whylen)
{
    if (m->data_parallel_degree_dcn > 1)
        FAIL("inference with data_parallel_degree_dcn %lld > 1", (long long)m->data_parallel_degree_dcn);
    if (!sweep_validate_structure(m, l->chip_name, why, whylen))
        return false;
    double gib = (double)opsgen_llm_inference_mem_bytes(m, ph, prof) / 1073741824.0;
    if (gib > (double)l->hbm_size_GB * oom_factor)
        FAIL("%s footprint %.4f GiB exceeds %lld GB x %g", phase_name(ph), gib,
             (long long)l->hbm_size_GB, oom_factor);
    if (why && whylen) why[0] = '\0';
    return true;
}
#undef FAIL

void sweep_pstr_llm(const struct parallel_cfg *p, int64_t gbs, char *buf, size_t n)
{
    snprintf(buf, n, "dp%lld-tp%lld-pp%lld-dpdcn%lld-tpdcn1-ppdcn%lld-bs%lld", (long long)p->dp,
             (long long)p->tp, (long long)p->pp, (long long)p->dp_dcn, (long long)p->pp_dcn,
             (long long)gbs);
}
