/* sweep_points.c — the sweep enumerator (see sweep_points.h). */
#include "study/sweep/sweep_points.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void csv_append(char **s, size_t *len, const char *v)
{
    /* RFC 4180: quote a value holding a comma, quote or line break. */
    bool q = strpbrk(v, ",\"\r\n") != NULL;
    size_t need = *len + 2 * strlen(v) + 4;
    char *n = realloc(*s, need);
    if (!n)
        abort();
    *s = n;
    char *p = n + *len;
    *p++ = ',';
    if (q)
        *p++ = '"';
    for (; *v; v++) {
        if (*v == '"')
            *p++ = '"';
        *p++ = *v == '\n' || *v == '\r' ? ' ' : *v;
    }
    if (q)
        *p++ = '"';
    *p = '\0';
    *len = (size_t)(p - n);
}

int sweep_enum_init(struct sweep_enum *en, const struct sweep_plan *plan, struct npu_err *e)
{
    memset(en, 0, sizeof *en);
    en->plan = plan;
    size_t n = (size_t)plan->nmodels * (size_t)plan->nchips;
    en->base = calloc(n ? n : 1, sizeof *en->base);
    en->fam = calloc(n ? n : 1, sizeof *en->fam);
    if (!en->base || !en->fam)
        return npu_errf(e, "out of memory");
    en->ncombos = 1;
    for (int f = 0; f < plan->nfields; f++)
        en->ncombos *= plan->fields[f].count;
    for (int mi = 0; mi < plan->nmodels; mi++)
        for (int ci = 0; ci < plan->nchips; ci++) {
            struct loaded_config *b = &en->base[mi * plan->nchips + ci];
            struct config_request r = { plan->configs, plan->models[mi], plan->chips[ci], NULL, NULL, 0,
                                        plan->only_configs };
            if (config_load(&r, b, e))
                return -1;
            const struct family *fam = family_find(&b->model, plan->workload);
            if (!fam || !fam->enumerate)
                return npu_errf(e, "model \"%s\" (model_type \"%s\"): sweeping its %s is not supported "
                                   "(families: %s)", plan->models[mi], b->model.model_type,
                                plan->workload, families_list());
            if (fam->adjust)
                fam->adjust(b);
            en->fam[mi * plan->nchips + ci] = fam;
        }
    return 0;
}

static void sweep_group_release(struct sweep_group *g)
{
    if (!g || atomic_fetch_sub(&g->refs, 1) != 1)
        return;
    if (g->owned)
        config_free(&g->cfg);
    free(g->field_csv);
    free(g);
}

/* The group of (mi, ci, combo): the base config with the combination's field
 * values applied through the same path as --set. */
static struct sweep_group *make_group(struct sweep_enum *en, int64_t combo)
{
    const struct sweep_plan *p = en->plan;
    const struct loaded_config *b = &en->base[en->mi * p->nchips + en->ci];
    struct sweep_group *g = calloc(1, sizeof *g);
    if (!g)
        abort();
    atomic_init(&g->refs, 1);
    g->cfg = *b;
    g->base = b;
    g->fam = en->fam[en->mi * p->nchips + en->ci];
    const char *cn = b->chip_name;
    snprintf(g->version, sizeof g->version, "%s", strncmp(cn, "tpuv", 4) ? cn : cn + 4);
    size_t len = 0, tl = 0;
    g->field_csv = calloc(1, 1);
    if (p->nfields == 0)
        return g;
    g->owned = true;
    g->cfg.merged = cJSON_Duplicate(b->merged, 1);
    g->cfg.sources = cJSON_Duplicate(b->sources, 1);
    struct npu_err e;
    int64_t rest = combo;
    int64_t vi[SPEC_MAX_FIELDS];
    for (int f = p->nfields - 1; f >= 0; f--) {   /* odometer: the last field varies fastest */
        vi[f] = rest % p->fields[f].count;
        rest /= p->fields[f].count;
    }
    for (int f = 0; f < p->nfields; f++) {
        cJSON *v = spec_field_value(&p->fields[f], vi[f]);
        char *txt = cJSON_PrintUnformatted(v);
        const char *t = txt ? txt : "";
        csv_append(&g->field_csv, &len, t);
        tl += (size_t)snprintf(g->tag + tl, tl < sizeof g->tag ? sizeof g->tag - tl : 0, "+%s=%s",
                               p->fields[f].key, t);
        if (tl >= sizeof g->tag)
            tl = sizeof g->tag - 1;
        cJSON_free(txt);
        if (!g->invalid[0] &&
            config_set_value(g->cfg.merged, g->cfg.sources, p->fields[f].key, v, p->spec_file, &e))
            snprintf(g->invalid, sizeof g->invalid, "%s", e.msg);
        else if (g->invalid[0])
            cJSON_Delete(v);
    }
    for (char *c = g->tag; *c; c++)   /* a value must not add folders */
        if (*c == '/')
            *c = '_';
    if (!g->invalid[0] && config_load_structs(&g->cfg, true, &e))
        snprintf(g->invalid, sizeof g->invalid, "%s", e.msg);
    if (!g->invalid[0]) {
        const struct family *fam = family_find(&g->cfg.model, p->workload);
        if (fam != g->fam)
            snprintf(g->invalid, sizeof g->invalid, "the field values change the model family");
        else if (fam->adjust)
            fam->adjust(&g->cfg);
    }
    return g;
}

/* Whether b's points would generate exactly a's traces: both load, one
 * family, and everything a generator or a family's prepare() reads is equal
 * byte for byte (the model config; the chip's name and link parameters,
 * which config_links zero-fills first). A difference in padding could only
 * cost a bundle, never make a wrong one. */
static bool same_generator_inputs(const struct sweep_group *a, const struct sweep_group *b)
{
    if (a->invalid[0] || b->invalid[0] || a->fam != b->fam || a->cfg.strict != b->cfg.strict ||
        memcmp(&a->cfg.model, &b->cfg.model, sizeof a->cfg.model) != 0)
        return false;
    struct opsgen_links la, lb;
    config_links(&a->cfg.chip, &la);
    config_links(&b->cfg.chip, &lb);
    return memcmp(&la, &lb, sizeof la) == 0;
}

/* Keeps the configurations whose dp, tp, pp and ep are among the plan's
 * --dp/--tp/--pp/--ep values (in place, in order); their number. */
static size_t keep_asked(const struct sweep_plan *p, struct parallel_cfg *pcs, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const int64_t deg[4] = { pcs[i].dp, pcs[i].tp, pcs[i].pp, pcs[i].ep ? pcs[i].ep : 1 };
        bool keep = true;
        for (int d = 0; d < 4 && keep; d++) {
            bool in = p->nonly[d] == 0;
            for (int j = 0; j < p->nonly[d] && !in; j++)
                in = p->only[d][j] == deg[d];
            keep = in;
        }
        if (keep)
            pcs[k++] = pcs[i];
    }
    return k;
}

/* The family's configurations for the plan's ni-th chip count, those asked for. */
static int enumerate_asked(const struct sweep_plan *p, const struct family *fam, int64_t ni,
                           struct parallel_cfg **pcs, size_t *n, struct npu_err *e)
{
    if (fam->enumerate(spec_ints_value(&p->num_chips, ni), pcs, n, e))
        return -1;
    *n = keep_asked(p, *pcs, *n);
    return 0;
}

/* Points per field combination of family fam: the parallel configurations
 * of every chip count times the batch sizes. A chip count whose enumeration
 * fails counts 0 and sets *failed. */
static long points_per_combination(const struct sweep_plan *p, const struct family *fam, bool *failed)
{
    long total = 0;
    for (int64_t ni = 0; ni < spec_ints_count(&p->num_chips); ni++) {
        struct parallel_cfg *pcs = NULL;
        size_t npc = 0;
        struct npu_err e;
        if (enumerate_asked(p, fam, ni, &pcs, &npc, &e) == 0)
            total += (long)npc * (long)spec_ints_count(&p->batches);
        else
            *failed = true;
        free(pcs);
    }
    return total;
}

/* Starts the bundle led by combination en->combo. */
static void start_bundle(struct sweep_enum *en)
{
    const struct sweep_plan *p = en->plan;
    en->bundle[0] = make_group(en, en->combo);
    en->nbundle = 1;
    en->off = 0;
    if (p->bundle_max <= 1 || en->bundle[0]->invalid[0])
        return;
    /* The members' points are the leader's (their configs give enumerate the
     * same model), so member j's come j x inner indices after the leader's. */
    bool failed = false;   /* then the enumerator stops there anyway: no bundle */
    en->inner = points_per_combination(p, en->bundle[0]->fam, &failed);
    while (!failed && en->inner > 0 && en->nbundle < p->bundle_max && en->nbundle < SWEEP_BUNDLE_MAX &&
           en->combo + en->nbundle < en->ncombos && en->nbundle * en->inner <= SWEEP_BUNDLE_HELD) {
        struct sweep_group *g = make_group(en, en->combo + en->nbundle);
        if (!same_generator_inputs(en->bundle[0], g)) {
            sweep_group_release(g);
            break;
        }
        en->bundle[en->nbundle++] = g;
    }
}

static void end_bundle(struct sweep_enum *en)
{
    for (int j = 0; j < en->nbundle; j++)
        sweep_group_release(en->bundle[j]);
    memset(en->bundle, 0, sizeof en->bundle);
    en->start += en->nbundle * en->off;   /* off == the points of one combination by now */
    en->combo += en->nbundle;
    en->nbundle = 0;
    en->serial++;
}

void sweep_point_release(struct sweep_point *pt)
{
    for (int j = 0; j < pt->n; j++)
        sweep_group_release(pt->m[j].g);
    pt->n = 0;
}

int sweep_enum_next(struct sweep_enum *en, struct sweep_point *pt, struct npu_err *e)
{
    const struct sweep_plan *p = en->plan;
    int64_t nnum = spec_ints_count(&p->num_chips), nb = spec_ints_count(&p->batches);
    for (;;) {
        if (!en->nbundle) {
            if (en->mi >= p->nmodels || nb == 0 || nnum == 0)
                return 0;
            start_bundle(en);
            en->ni = 0;
        }
        if (!en->pcs) {
            if (en->ni == nnum) {
                end_bundle(en);
                if (en->combo == en->ncombos) {
                    en->combo = 0;
                    if (++en->ci == p->nchips) {
                        en->ci = 0;
                        en->mi++;
                    }
                }
                continue;
            }
            if (enumerate_asked(p, en->bundle[0]->fam, en->ni, &en->pcs, &en->npc, e))
                return -1;
            en->pi = 0;
            en->bi = 0;
            if (en->npc == 0 || !en->pcs) {
                free(en->pcs);
                en->pcs = NULL;
                en->ni++;
                continue;
            }
        }
        if (en->pi == en->npc) {
            free(en->pcs);
            en->pcs = NULL;
            en->ni++;
            continue;
        }
        long off = en->off++;
        pt->par = en->pcs[en->pi];
        pt->batch = spec_ints_value(&p->batches, en->bi);
        if (++en->bi == nb) {
            en->bi = 0;
            en->pi++;
        }
        pt->n = 0;
        pt->bundle = en->serial;
        for (int j = 0; j < en->nbundle; j++) {
            long index = en->start + j * en->inner + off;   /* inner is known whenever nbundle > 1 */
            if (p->shard_n > 1 && index % p->shard_n != p->shard_k)
                continue;
            atomic_fetch_add(&en->bundle[j]->refs, 1);
            pt->m[pt->n++] = (struct sweep_member){ index, en->bundle[j], j };
        }
        if (pt->n)
            return 1;
    }
}

long sweep_enum_total(const struct sweep_enum *en)
{
    const struct sweep_plan *p = en->plan;
    long total = 0;
    bool failed = false;   /* the sweep reports it; the count is only for the progress line */
    for (int i = 0; i < p->nmodels * p->nchips; i++)   /* enumerate reads the chip count alone (family.h) */
        total += points_per_combination(p, en->fam[i], &failed) * (long)en->ncombos;
    return total;
}

long sweep_enum_count(const struct sweep_enum *en)
{
    const struct sweep_plan *p = en->plan;
    long total = sweep_enum_total(en);
    if (p->shard_n > 1)
        total = (total - p->shard_k + p->shard_n - 1) / p->shard_n;
    return total;
}

void sweep_enum_free(struct sweep_enum *en)
{
    for (int j = 0; j < en->nbundle; j++)
        sweep_group_release(en->bundle[j]);
    en->nbundle = 0;
    free(en->pcs);
    en->pcs = NULL;
    if (en->base)
        for (int i = 0; i < en->plan->nmodels * en->plan->nchips; i++)
            config_free(&en->base[i]);
    free(en->base);
    free(en->fam);
    en->base = NULL;
    en->fam = NULL;
}
