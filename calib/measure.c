/* measure.c — the plan of npusim measure's kernels, their timing, and what
 * is written of them: the measurement rows, the table, the host chip (see
 * measure.h). Main data structure: the plan, an array of struct plan_item. */
#include "calib/measure.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/measure_internal.h"
#include "base/clock.h"
#include "traces/precision.h"

#define UNIT_MIN_S 200e-6      /* a repetition loops a short kernel at least this long */
#define INNER_MAX 100000

struct plan_item {
    enum mk_kind kind;
    const char *op;
    int prec;
    size_t m, n, k;
    const char *level;
    bool in_table;
};

struct plan {
    struct plan_item *it;
    int n, cap;
};

static int plan_add(struct plan *p, enum mk_kind kind, const char *op, int prec, size_t m, size_t n, size_t k,
                    const char *level, bool in_table)
{
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 64;
        struct plan_item *it = realloc(p->it, (size_t)cap * sizeof *it);
        if (!it)
            return -1;
        p->it = it, p->cap = cap;
    }
    p->it[p->n++] = (struct plan_item){ kind, op, prec, m, n, k, level, in_table };
    return 0;
}

/* n rounded down to a multiple of q, at least q. */
static size_t round_to(double n, size_t q)
{
    size_t r = (size_t)(n / (double)q) * q;
    return r > q ? r : q;
}

/* The GEMM shapes: squares, then rectangles as LLM layers have them
 * (m <= 16 rows is npusim's gemv class). */
static const size_t squares_quick[] = { 128, 192, 256, 384, 512, 768, 1024 };
static const size_t squares_full[] = { 64, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048 };
static const size_t rects_quick[][3] = { { 64, 1024, 1024 }, { 256, 2048, 512 }, { 512, 256, 1024 } };
static const size_t rects_full[][3] = { { 16, 4096, 4096 }, { 64, 1024, 1024 }, { 128, 4096, 1024 },
                                        { 256, 2048, 512 }, { 512, 1024, 4096 }, { 2048, 512, 2048 } };
static const char *const elt_ops[] = { "add", "mul", "gelu", "silu" };
static const char *const row_ops[] = { "softmax", "layernorm", "rmsnorm" };
static const char *const stream_ops[] = { "copy", "triad", "reduce" };

static int plan_gemms(struct plan *p, const struct measure_opts *o, const struct host_blas *b)
{
    static const int precs[] = { PREC_FP64, PREC_FP32, PREC_BF16, PREC_FP8_E4M3, PREC_FP8_E5M2 };
    const size_t *sq = o->quick ? squares_quick : squares_full;
    size_t nsq = o->quick ? sizeof squares_quick / sizeof squares_quick[0] : sizeof squares_full / sizeof squares_full[0];
    size_t nre = o->quick ? sizeof rects_quick / sizeof rects_quick[0] : sizeof rects_full / sizeof rects_full[0];
    /* GSL's reference loops run ~1 GFLOP/s: keep its GEMMs at 512 */
    size_t cap = b->optimized ? 1 << 20 : 512;
    for (size_t pi = 0; pi < sizeof precs / sizeof precs[0]; pi++) {
        for (size_t i = 0; i < nsq; i++)
            if (sq[i] <= cap && (precs[pi] <= PREC_FP32 || sq[i] >= 128) &&
                plan_add(p, MK_GEMM, "gemm", precs[pi], sq[i], sq[i], sq[i], "", true))
                return -1;
        for (size_t i = 0; i < nre && b->optimized; i++) {
            const size_t *r = o->quick ? rects_quick[i] : rects_full[i];
            if (plan_add(p, MK_GEMM, "gemm", precs[pi], r[0], r[1], r[2], "", true))
                return -1;
        }
    }
    return 0;
}

/* What runs: GEMMs; GEMVs, elementwise, row-wise and STREAM kernels over
 * working sets 2x and (full) 6x the last cache; the triad in each cache; the
 * FMA chain in L1. */
static int plan_build(struct plan *p, const struct measure_opts *o, const struct host_info *h,
                      const struct host_blas *b, int threads)
{
    if (plan_gemms(p, o, b))
        return -1;
    int64_t llc = host_level_bytes(h, 3, threads);
    if (!llc)
        llc = host_level_bytes(h, 2, threads);
    double big[2] = { 2.0 * (double)llc, 6.0 * (double)llc };
    int nbig = o->quick ? 1 : 2;
    for (int s = 0; s < nbig; s++) {
        for (int prec = PREC_FP64; prec <= PREC_FP32; prec++) {
            size_t side = round_to(sqrt(big[s] / (prec == PREC_FP64 ? 8 : 4)), 256);
            if (plan_add(p, MK_GEMV, "gemv", prec, 1, side, side, "DRAM", true) ||
                plan_add(p, MK_GEMV, "gemv", prec, 1, 4 * side, side / 2, "DRAM", true))
                return -1;
        }
        for (size_t i = 0; i < 4; i++)
            if (plan_add(p, MK_ELT, elt_ops[i], PREC_FP32, round_to(big[s] / 12, 4096), 0, 0, "DRAM", true))
                return -1;
        for (size_t i = 0; i < 3; i++)
            if (plan_add(p, MK_ROW, row_ops[i], PREC_FP32, round_to(big[s] / 8 / 1024, 16), 1024, 0, "DRAM", true))
                return -1;
        for (size_t i = 0; i < 3; i++)
            if (plan_add(p, MK_STREAM, stream_ops[i], PREC_FP64, round_to(big[s] / 24, 4096), 0, 0, "DRAM", true))
                return -1;
    }
    static const char *const names[] = { "", "L1", "L2", "L3" };
    for (int lv = 1; lv <= 3; lv++) {
        int64_t bytes = host_level_bytes(h, lv, threads);
        if (bytes && plan_add(p, MK_STREAM, "triad", PREC_FP64, round_to((double)bytes / 2 / 24, 64 * (size_t)threads),
                              0, 0, names[lv], false))
            return -1;
    }
    int64_t l1 = host_level_bytes(h, 1, threads);
    size_t fma_n = round_to((double)(l1 ? l1 : 32768 * threads) / 4 / 8, 64 * (size_t)threads);
    if (plan_add(p, MK_FMA, "fma", PREC_FP32, fma_n, 0, 0, "L1", false) ||
        plan_add(p, MK_FMA, "fma", PREC_FP64, fma_n / 2, 0, 0, "L1", false))
        return -1;
    return 0;
}


/* Warm-up while finding how many calls make one repetition last
 * UNIT_MIN_S (so a barrier's microseconds do not count), then repetitions
 * until the budget is spent (at least min_reps, at most max_reps); per-call
 * statistics. */
static int time_kernel(struct mk *k, const struct measure_opts *o, double first_s, struct measure_result *r)
{
    double budget = o->budget_s > 0 ? o->budget_s : o->quick ? 0.1 : 0.5;
    int min_reps = o->quick ? 3 : 5, max_reps = o->quick ? 30 : 200;
    double *t = malloc((size_t)max_reps * sizeof *t);
    if (!t)
        return -1;
    int inner = 1;
    double unit = first_s;
    while (unit < UNIT_MIN_S && inner < INNER_MAX) {
        double grow = unit > 0 ? 1.2 * UNIT_MIN_S / unit : 16;
        inner = inner * grow > INNER_MAX ? INNER_MAX : (int)ceil(inner * grow);
        double t0 = clock_monotonic_s();
        mk_call(k, inner);
        unit = clock_monotonic_s() - t0;
    }
    mk_call(k, inner);
    double start = clock_monotonic_s();
    int reps = 0;
    while (reps < max_reps && (reps < min_reps || clock_monotonic_s() - start < budget)) {
        double t0 = clock_monotonic_s();
        mk_call(k, inner);
        t[reps++] = (clock_monotonic_s() - t0) / inner * 1e6;
    }
    gsl_sort(t, 1, (size_t)reps);
    r->reps = reps, r->inner = inner;
    r->median_us = gsl_stats_median_from_sorted_data(t, 1, (size_t)reps);
    r->min_us = t[0], r->max_us = t[reps - 1];
    double iqr = gsl_stats_quantile_from_sorted_data(t, 1, (size_t)reps, 0.75) -
                 gsl_stats_quantile_from_sorted_data(t, 1, (size_t)reps, 0.25);
    r->iqr_pct = r->median_us > 0 ? 100 * iqr / r->median_us : 0;
    free(t);
    return 0;
}

/* The test hook of measure.h: NPUSIM_MEASURE_FAULT=OP:DTYPE corrupts that
 * kernel's first output element before its check, so the FAIL path runs. */
static void inject_fault(struct mk *k)
{
    const char *f = getenv("NPUSIM_MEASURE_FAULT");
    char want[48];
    snprintf(want, sizeof want, "%s:%s", k->op, precision_info(k->prec)->name);
    if (!f || strcmp(f, want) || !k->y)
        return;
    if (k->prec == PREC_FP64)
        ((double *)k->y)[0] += 1e3;
    else
        ((float *)k->y)[0] += 1e3f;
    if (k->op[0] == 'r')
        k->sum += 1e3;
}

/* One kernel: set up, call once, check, time (unless check_only or FAIL). */
static int run_one(const struct plan_item *it, struct measure_run *m, struct team *team,
                   const struct measure_opts *o, struct measure_result *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->op, sizeof r->op, "%s", it->op);
    r->prec = it->prec;
    r->m = (int64_t)it->m, r->n = (int64_t)it->n, r->k = (int64_t)it->k;
    snprintf(r->level, sizeof r->level, "%s", it->level);
    r->in_table = it->in_table;
    bool blas = it->kind == MK_GEMM || it->kind == MK_GEMV;
    const char *lib = m->blas.optimized ? "openblas" : "gsl-cblas";
    snprintf(r->backend, sizeof r->backend, "%s%s", blas && it->prec >= PREC_FP8_E4M3 ? "c+" : "",
             blas ? lib : "c");
    r->threads = blas ? m->blas.threads : team->n;
    struct mk k = { .kind = it->kind, .op = it->op, .prec = it->prec, .m = it->m, .n = it->n, .k = it->k,
                    .blas = &m->blas, .team = team };
    int rc = mk_setup(&k, r->why, sizeof r->why);
    if (rc < 0) {
        mk_free(&k);
        r->status = MEASURE_SKIP;
        snprintf(r->why, sizeof r->why, "out of memory for its buffers");
        return 0;
    }
    r->flops = k.flops, r->bytes = k.bytes;
    if (rc > 0) {
        r->status = MEASURE_SKIP;
        mk_free(&k);
        return 0;
    }
    double t0 = clock_monotonic_s();
    mk_call(&k, 1);
    double first = clock_monotonic_s() - t0;
    inject_fault(&k);
    mk_check(&k, r);
    r->status = MEASURE_PASS;
    for (int i = 0; i < r->n_checks; i++)
        if (!(r->check[i].err <= r->check[i].tol)) {
            r->status = MEASURE_FAIL;
            snprintf(r->why, sizeof r->why, "error %.3g against the %s, above %.3g", r->check[i].err,
                     r->check[i].against, r->check[i].tol);
        }
    rc = r->status == MEASURE_PASS && !o->check_only ? time_kernel(&k, o, first, r) : 0;
    mk_free(&k);
    return rc;
}

int measure_run(const struct measure_opts *o, struct measure_run *m, struct npu_err *e)
{
    memset(m, 0, sizeof *m);
    host_info_read(&m->host, m->warn, sizeof m->warn);
    m->threads = o->threads > 0 ? o->threads : m->host.cpus;
    if (m->threads > TEAM_MAX)
        return npu_errf(e, "--threads: expected at most %d, got %d", TEAM_MAX, m->threads);
    if (host_blas_open(o->blas ? o->blas : "auto", m->threads, &m->blas, e))
        return -1;
    struct plan p = { 0 };
    struct team team;
    if (plan_build(&p, o, &m->host, &m->blas, m->threads) || !(m->r = calloc((size_t)p.n, sizeof *m->r))) {
        free(p.it);
        host_blas_close(&m->blas);
        return npu_errf(e, "measure: out of memory");
    }
    if (team_start(&team, m->threads)) {
        free(p.it);
        host_blas_close(&m->blas);
        return npu_errf(e, "measure: cannot start %d threads", m->threads);
    }
    int rc = 0;
    for (int i = 0; i < p.n && !rc; i++) {
        if (o->progress)
            o->progress(o->ctx, i, p.n, p.it[i].op);
        rc = run_one(&p.it[i], m, &team, o, &m->r[m->n]);
        struct measure_result *r = &m->r[m->n++];
        m->passed += r->status == MEASURE_PASS, m->failed += r->status == MEASURE_FAIL;
        m->skipped += r->status == MEASURE_SKIP;
    }
    if (o->progress)
        o->progress(o->ctx, p.n, p.n, "");
    team_stop(&team);
    free(p.it);
    if (rc)
        return npu_errf(e, "measure: out of memory");
    return 0;
}

void measure_run_free(struct measure_run *m)
{
    free(m->r);
    host_blas_close(&m->blas);
    m->r = NULL;
    m->n = 0;
}
