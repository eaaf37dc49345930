/* measure_kernels.c — the kernels of npusim measure: their buffers, the
 * timed call and the check against a reference (see measure.h). Main data
 * structure: struct mk (measure_internal.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/measure_internal.h"
#include "calib/quantize.h"
#include "traces/precision.h"

#define FMA_REPS 64            /* dependent multiply-adds per element of the FMA chain */
#define CHECK_ROWS 8           /* GEMM rows checked against the fp64 product */
#define BLOCK 128              /* fp8 scale blocks: 1 x 128 (A), 128 x 128 (B) */

/* Deterministic data in [-1, 1): xorshift64*, one stream per buffer. */
static void fill(float *f, double *d, size_t n, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        double v = (double)((s * 0x2545f4914f6cdd1dULL) >> 11) / 4503599627370496.0 - 1.0;
        if (f)
            f[i] = (float)v;
        else
            d[i] = v;
    }
}

static void *alloc(size_t count, size_t size)
{
    if (!count || count > SIZE_MAX / size / 2)
        return NULL;
    size_t bytes = (count * size + 63) / 64 * 64;
    return aligned_alloc(64, bytes);
}

static size_t elem_size(const struct mk *k) { return k->prec == PREC_FP64 ? 8 : 4; }

/* ---- setup ---- */

static int setup_gemm(struct mk *k, char *why, int why_len)
{
    size_t m = k->m, n = k->n, kk = k->k;
    k->flops = 2 * (int64_t)m * (int64_t)n * (int64_t)kk;
    int in_bytes = precision_info(k->prec)->bits / 8;
    k->bytes = (int64_t)(m * kk + kk * n) * in_bytes + (int64_t)(m * n) * (int64_t)elem_size(k);
    if (k->prec == PREC_BF16 && !k->blas->sbgemm) {
        snprintf(why, why_len, "bf16: this BLAS does not export cblas_sbgemm");
        return 1;
    }
    k->y = alloc(m * n, elem_size(k));
    if (k->prec == PREC_FP64) {
        k->a = alloc(m * kk, 8), k->b = alloc(kk * n, 8);
        if (!k->a || !k->b || !k->y)
            return -1;
        fill(NULL, k->a, m * kk, 1), fill(NULL, k->b, kk * n, 2);
        return 0;
    }
    k->fa = alloc(m * kk, 4), k->fb = alloc(kk * n, 4);
    if (!k->fa || !k->fb || !k->y)
        return -1;
    fill(k->fa, NULL, m * kk, 1), fill(k->fb, NULL, kk * n, 2);
    if (k->prec == PREC_FP32)
        return 0;
    if (k->prec == PREC_BF16) {
        uint16_t *a = k->a = alloc(m * kk, 2), *b = k->b = alloc(kk * n, 2);
        if (!a || !b)
            return -1;
        for (size_t i = 0; i < m * kk; i++) {
            float r = bf16_round(k->fa[i]);
            uint32_t u;
            memcpy(&u, &r, 4);
            a[i] = (uint16_t)(u >> 16);
        }
        for (size_t i = 0; i < kk * n; i++) {
            float r = bf16_round(k->fb[i]);
            uint32_t u;
            memcpy(&u, &r, 4);
            b[i] = (uint16_t)(u >> 16);
        }
        return 0;
    }
    /* fp8: codes and scales, dequantised into a and b by every call */
    const struct fp8_format *f = k->prec == PREC_FP8_E4M3 ? &fp8_e4m3 : &fp8_e5m2;
    size_t kb = (kk + BLOCK - 1) / BLOCK, nb = (n + BLOCK - 1) / BLOCK;
    k->qa = alloc(m * kk, 1), k->qb = alloc(kk * n, 1);
    k->sa = alloc(m * kb, 4), k->sb = alloc(kb * nb, 4);
    k->a = alloc(m * kk, 4), k->b = alloc(kk * n, 4);
    if (!k->qa || !k->qb || !k->sa || !k->sb || !k->a || !k->b)
        return -1;
    fp8_table(f, k->table);
    fp8_quantize_blocks(f, k->fa, m, kk, 1, BLOCK, k->qa, k->sa);
    fp8_quantize_blocks(f, k->fb, kk, n, BLOCK, BLOCK, k->qb, k->sb);
    return 0;
}

/* Per element: elements moved (read and written) and operations, by op. */
struct elt_cost { const char *op; int moved, flops; };
static const struct elt_cost elt_costs[] = {
    { "add", 3, 1 },      { "mul", 3, 1 },       { "gelu", 2, 8 },     { "silu", 2, 4 },
    { "softmax", 2, 4 },  { "layernorm", 2, 5 }, { "rmsnorm", 2, 3 },  { "copy", 2, 0 },
    { "triad", 3, 2 },    { "reduce", 1, 1 },    { "fma", 2, 2 * FMA_REPS },
};

int mk_setup(struct mk *k, char *why, int why_len)
{
    if (k->kind == MK_GEMM)
        return setup_gemm(k, why, why_len);
    size_t count = k->kind == MK_GEMV ? k->n * k->k : k->kind == MK_ROW ? k->m * k->n : k->m;
    size_t es = elem_size(k);
    k->a = alloc(count, es);
    k->b = alloc(k->kind == MK_GEMV ? k->k : count, es);
    k->y = alloc(k->kind == MK_GEMV ? k->n : count, es);
    if (!k->a || !k->b || !k->y)
        return -1;
    size_t nb = k->kind == MK_GEMV ? k->k : count;
    if (es == 8)
        fill(NULL, k->a, count, 3), fill(NULL, k->b, nb, 4);
    else
        fill(k->a, NULL, count, 3), fill(k->b, NULL, nb, 4);
    if (k->kind == MK_GEMV) {
        k->flops = 2 * (int64_t)count;
        k->bytes = (int64_t)(count + k->k + k->n) * (int64_t)es;
        return 0;
    }
    for (size_t i = 0; i < sizeof elt_costs / sizeof elt_costs[0]; i++)
        if (!strcmp(elt_costs[i].op, k->op)) {
            k->bytes = (int64_t)count * elt_costs[i].moved * (int64_t)es;
            k->flops = (int64_t)count * elt_costs[i].flops;
        }
    return 0;
}

void mk_free(struct mk *k)
{
    void *bufs[] = { k->a, k->b, k->c, k->y, k->qa, k->qb, k->sa, k->sb, k->fa, k->fb };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    k->a = k->b = k->c = k->y = NULL;
    k->qa = k->qb = NULL;
    k->sa = k->sb = k->fa = k->fb = NULL;
}

/* ---- the timed calls ---- */

/* exp for the kernels: Cephes's expf (range reduction by ln 2, a degree-5
 * polynomial, 2^n put into the exponent bits), branch-free so that the
 * compiler vectorises the loops it sits in; relative error ~2e-7. libm's
 * expf and tanhf are calls the vectoriser cannot see through: gelu ran at
 * 67 M elements/s on the development machine with them, 30x under the
 * memory rate, which no real ML kernel is. */
static inline float fast_expf(float x)
{
    x = x < -87.0f ? -87.0f : x > 88.0f ? 88.0f : x;
    float n = x * 1.44269504088896341f + 12582912.0f;   /* round to nearest by the 1.5 * 2^23 trick */
    n -= 12582912.0f;
    float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t bits = ((int32_t)n + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* gelu's tanh form: 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)). */
static inline float gelu(float x)
{
    float u = 0.7978845608f * (x + 0.044715f * x * x * x);
    return x / (1.0f + fast_expf(-2.0f * u));
}
static inline float silu(float x) { return x / (1.0f + fast_expf(-x)); }

static void elt_part(void *p, int tid, int nt)
{
    struct mk *k = p;
    long lo, hi;
    team_share((long)k->m, tid, nt, &lo, &hi);
    const float *restrict a = k->a, *restrict b = k->b;
    float *restrict y = k->y;
    for (int rep = 0; rep < k->repeat; rep++)
        switch (k->op[0]) {
        case 'a': for (long i = lo; i < hi; i++) y[i] = a[i] + b[i]; break;
        case 'm': for (long i = lo; i < hi; i++) y[i] = a[i] * b[i]; break;
        case 'g': for (long i = lo; i < hi; i++) y[i] = gelu(a[i]); break;
        default: for (long i = lo; i < hi; i++) y[i] = silu(a[i]); break;
        }
}

/* Sums and maxima over a row in LANES independent accumulators, so that
 * they vectorise without reassociating (no -ffast-math). */
#define LANES 8
static float row_sum(const float *restrict x, size_t n, float shift, bool square)
{
    float acc[LANES] = { 0 };
    size_t j = 0;
    for (; j + LANES <= n; j += LANES)
        for (int l = 0; l < LANES; l++) {
            float d = x[j + l] - shift;
            acc[l] += square ? d * d : d;
        }
    float s = 0;
    for (; j < n; j++)
        s += square ? (x[j] - shift) * (x[j] - shift) : x[j] - shift;
    for (int l = 0; l < LANES; l++)
        s += acc[l];
    return s;
}

/* One row of n: softmax, layernorm (no affine) or rmsnorm, in fp32. */
static void row_op(const char *op, const float *restrict x, float *restrict y, size_t n)
{
    if (op[0] == 's') {
        float mx[LANES], m = x[0];
        for (int l = 0; l < LANES; l++)
            mx[l] = x[0];
        size_t j = 0;
        for (; j + LANES <= n; j += LANES)
            for (int l = 0; l < LANES; l++)
                mx[l] = mx[l] > x[j + l] ? mx[l] : x[j + l];
        for (; j < n; j++)
            m = m > x[j] ? m : x[j];
        for (int l = 0; l < LANES; l++)
            m = m > mx[l] ? m : mx[l];
        for (j = 0; j < n; j++)
            y[j] = fast_expf(x[j] - m);
        float inv = 1.0f / row_sum(y, n, 0, false);
        for (j = 0; j < n; j++)
            y[j] *= inv;
        return;
    }
    float mean = op[0] == 'l' ? row_sum(x, n, 0, false) / (float)n : 0;
    float inv = 1.0f / sqrtf(row_sum(x, n, mean, true) / (float)n + 1e-5f);
    for (size_t j = 0; j < n; j++)
        y[j] = (x[j] - mean) * inv;
}

static void row_part(void *p, int tid, int nt)
{
    struct mk *k = p;
    long lo, hi;
    team_share((long)k->m, tid, nt, &lo, &hi);
    for (int rep = 0; rep < k->repeat; rep++)
        for (long i = lo; i < hi; i++)
            row_op(k->op, (const float *)k->a + i * k->n, (float *)k->y + i * k->n, k->n);
}

static double partial[TEAM_MAX];

static void stream_part(void *p, int tid, int nt)
{
    struct mk *k = p;
    long lo, hi;
    team_share((long)k->m, tid, nt, &lo, &hi);
    const double *restrict a = k->a, *restrict b = k->b;
    double *restrict y = k->y;
    for (int rep = 0; rep < k->repeat; rep++)
        if (k->op[0] == 'c')
            memcpy(y + lo, a + lo, (size_t)(hi - lo) * sizeof *y);
        else if (k->op[0] == 't')
            for (long i = lo; i < hi; i++)
                y[i] = a[i] + 3.0 * b[i];
        else {
            double acc[LANES] = { 0 }, s = 0;
            long i = lo;
            for (; i + LANES <= hi; i += LANES)
                for (int l = 0; l < LANES; l++)
                    acc[l] += a[i + l];
            for (; i < hi; i++)
                s += a[i];
            for (int l = 0; l < LANES; l++)
                s += acc[l];
            *(volatile double *)&partial[tid] = s;   /* each repetition's sum is stored */
        }
}

/* The FMA chain: 64 elements held in registers, FMA_REPS multiply-adds each. */
#define FMA_PART(name, T)                                                          \
    static void name(void *p, int tid, int nt)                                     \
    {                                                                              \
        struct mk *k = p;                                                          \
        long lo, hi;                                                               \
        team_share((long)(k->m / 64), tid, nt, &lo, &hi);                          \
        const T *x = k->a;                                                         \
        T *y = k->y;                                                               \
        for (int rep = 0; rep < k->repeat; rep++)                                  \
        for (long c = lo; c < hi; c++) {                                           \
            T v[64];                                                               \
            memcpy(v, x + c * 64, sizeof v);                                       \
            for (int r = 0; r < FMA_REPS; r++)                                     \
                for (int j = 0; j < 64; j++)                                       \
                    v[j] = v[j] * (T)0.999 + (T)0.001;                             \
            memcpy(y + c * 64, v, sizeof v);                                       \
        }                                                                          \
    }
FMA_PART(fma_part32, float)
FMA_PART(fma_part64, double)

/* fp8: the operands' codes and scales to fp32, rows split over the team
 * (B's rows in whole 128-row blocks, so each thread reads its own scales). */
static void dequant_part(void *p, int tid, int nt)
{
    struct mk *k = p;
    long lo, hi;
    team_share((long)k->m, tid, nt, &lo, &hi);
    fp8_dequantize_blocks(k->table, k->qa + (size_t)lo * k->k, k->sa + (size_t)lo * ((k->k + BLOCK - 1) / BLOCK),
                          (size_t)(hi - lo), k->k, 1, BLOCK, (float *)k->a + (size_t)lo * k->k);
    long blocks = (long)((k->k + BLOCK - 1) / BLOCK);
    team_share(blocks, tid, nt, &lo, &hi);
    size_t r0 = (size_t)lo * BLOCK, r1 = (size_t)hi * BLOCK < k->k ? (size_t)hi * BLOCK : k->k;
    if (r1 > r0)
        fp8_dequantize_blocks(k->table, k->qb + r0 * k->n, k->sb + (size_t)lo * ((k->n + BLOCK - 1) / BLOCK),
                              r1 - r0, k->n, BLOCK, BLOCK, (float *)k->b + r0 * k->n);
}

static void call_gemm(struct mk *k)
{
    int m = (int)k->m, n = (int)k->n, kk = (int)k->k;
    const struct host_blas *b = k->blas;
    if (k->prec == PREC_FP64)
        b->dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, kk, 1.0, k->a, kk, k->b, n, 0.0, k->y, n);
    else if (k->prec == PREC_FP32)
        b->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, kk, 1.0f, k->fa, kk, k->fb, n, 0.0f, k->y, n);
    else if (k->prec == PREC_BF16)
        b->sbgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, kk, 1.0f, k->a, kk, k->b, n, 0.0f, k->y, n);
    else {
        team_run(k->team, dequant_part, k);
        b->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, kk, 1.0f, k->a, kk, k->b, n, 0.0f, k->y, n);
    }
}

void mk_call(struct mk *k, int n)
{
    k->repeat = n;
    switch (k->kind) {
    case MK_GEMM:
        for (int i = 0; i < n; i++)
            call_gemm(k);
        break;
    case MK_GEMV:
        for (int i = 0; i < n; i++)
            if (k->prec == PREC_FP64)
                k->blas->dgemv(CblasRowMajor, CblasNoTrans, (int)k->n, (int)k->k, 1.0, k->a, (int)k->k, k->b, 1,
                               0.0, k->y, 1);
            else
                k->blas->sgemv(CblasRowMajor, CblasNoTrans, (int)k->n, (int)k->k, 1.0f, k->a, (int)k->k, k->b, 1,
                               0.0f, k->y, 1);
        break;
    case MK_ELT: team_run(k->team, elt_part, k); break;
    case MK_ROW: team_run(k->team, row_part, k); break;
    case MK_STREAM:
        team_run(k->team, stream_part, k);
        if (k->op[0] == 'r') {
            k->sum = 0;
            for (int t = 0; t < k->team->n; t++)
                k->sum += partial[t];
        }
        break;
    case MK_FMA: team_run(k->team, k->prec == PREC_FP64 ? fma_part64 : fma_part32, k); break;
    }
}

/* ---- the checks ---- */

/* Element i of an operand: fp64, fp32, or bf16 bits. */
static double at(const void *buf, int type, size_t i)
{
    if (type == PREC_FP64)
        return ((const double *)buf)[i];
    if (type == PREC_BF16) {
        uint32_t u = (uint32_t)((const uint16_t *)buf)[i] << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    return ((const float *)buf)[i];
}

/* ||y - ref|| / ||ref|| over GEMM rows sampled evenly (all when m is small):
 * ref from operands a, b in fp64. */
static double gemm_err(const struct mk *k, const void *a, int ta, const void *b, int tb)
{
    size_t m = k->m, n = k->n, kk = k->k, rows = m < CHECK_ROWS ? m : CHECK_ROWS;
    double *ref = calloc(n, sizeof *ref), num = 0, den = 0;
    if (!ref)
        return INFINITY;
    for (size_t s = 0; s < rows; s++) {
        size_t i = rows > 1 ? s * (m - 1) / (rows - 1) : 0;
        memset(ref, 0, n * sizeof *ref);
        for (size_t p = 0; p < kk; p++) {
            double av = at(a, ta, i * kk + p);
            for (size_t j = 0; j < n; j++)
                ref[j] += av * at(b, tb, p * n + j);
        }
        for (size_t j = 0; j < n; j++) {
            double d = at(k->y, k->prec == PREC_FP64 ? PREC_FP64 : PREC_FP32, i * n + j) - ref[j];
            num += d * d, den += ref[j] * ref[j];
        }
    }
    free(ref);
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void add_check(struct measure_result *r, const char *against, double err, double tol)
{
    if (isnan(err))
        err = INFINITY;
    r->check[r->n_checks].against = against;
    r->check[r->n_checks].err = err;
    r->check[r->n_checks++].tol = tol;
}

static void check_gemm(struct mk *k, struct measure_result *r)
{
    switch (k->prec) {
    case PREC_FP64: add_check(r, "fp64 product", gemm_err(k, k->a, PREC_FP64, k->b, PREC_FP64), TOL_FP64); break;
    case PREC_FP32: add_check(r, "fp64 product", gemm_err(k, k->fa, PREC_FP32, k->fb, PREC_FP32), TOL_FP32); break;
    case PREC_BF16:
        add_check(r, "unrounded product", gemm_err(k, k->fa, PREC_FP32, k->fb, PREC_FP32), TOL_BF16);
        add_check(r, "same bf16 inputs", gemm_err(k, k->a, PREC_BF16, k->b, PREC_BF16), TOL_SAME_INPUTS);
        break;
    default: /* fp8: a and b hold the dequantised operands of the last call */
        add_check(r, "unquantised product", gemm_err(k, k->fa, PREC_FP32, k->fb, PREC_FP32),
                  TOL_FP8(k->prec == PREC_FP8_E4M3 ? fp8_e4m3.man_bits : fp8_e5m2.man_bits));
        add_check(r, "same fp8 inputs", gemm_err(k, k->a, PREC_FP32, k->b, PREC_FP32), TOL_SAME_INPUTS);
        break;
    }
}

/* ||y - ref|| / ||ref|| of n outputs, ref(i) computed in double. */
static double vec_err(const struct mk *k, size_t n, double (*ref)(const struct mk *, size_t))
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double want = ref(k, i), d = at(k->y, k->prec == PREC_FP64 ? PREC_FP64 : PREC_FP32, i) - want;
        num += d * d, den += want * want;
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static double ref_gemv(const struct mk *k, size_t j)
{
    double s = 0;
    for (size_t p = 0; p < k->k; p++)
        s += at(k->a, k->prec, j * k->k + p) * at(k->b, k->prec, p);
    return s;
}

static double ref_elt(const struct mk *k, size_t i)
{
    double a = at(k->a, k->prec, i), b = at(k->b, k->prec, i);
    switch (k->op[0]) {
    case 'a': return a + b;
    case 'm': return k->op[1] == 'u' ? a * b : 0;
    case 'g': return 0.5 * a * (1 + tanh(0.7978845608028654 * (a + 0.044715 * a * a * a)));
    case 's': return a / (1 + exp(-a));
    case 'c': return a;
    case 't': return a + 3.0 * b;
    default: { /* fma */
        double v = a;
        for (int r = 0; r < FMA_REPS; r++)
            v = v * 0.999 + 0.001;
        return v;
    }
    }
}

/* Row i / n of softmax, layernorm or rmsnorm, in double. */
static double ref_row(const struct mk *k, size_t idx)
{
    size_t n = k->n, i = idx / n, j = idx % n;
    const float *x = (const float *)k->a + i * n;
    double mean = 0, var = 0, mx = x[0], s = 0;
    if (k->op[0] == 's') {
        for (size_t q = 1; q < n; q++)
            mx = fmax(mx, x[q]);
        for (size_t q = 0; q < n; q++)
            s += exp(x[q] - mx);
        return exp(x[j] - mx) / s;
    }
    if (k->op[0] == 'l') {
        for (size_t q = 0; q < n; q++)
            mean += x[q];
        mean /= (double)n;
    }
    for (size_t q = 0; q < n; q++)
        var += (x[q] - mean) * (x[q] - mean);
    return (x[j] - mean) / sqrt(var / (double)n + 1e-5);
}

void mk_check(struct mk *k, struct measure_result *r)
{
    r->n_checks = 0;
    switch (k->kind) {
    case MK_GEMM: check_gemm(k, r); break;
    case MK_GEMV: add_check(r, "fp64 product", vec_err(k, k->n, ref_gemv), k->prec == PREC_FP64 ? TOL_FP64 : TOL_FP32); break;
    case MK_ROW: {
        /* the first rows only: a reference row costs O(n^2) here */
        size_t m = k->m;
        k->m = m < 16 ? m : 16;
        add_check(r, "fp64 reference", vec_err(k, k->m * k->n, ref_row), TOL_ROWWISE);
        k->m = m;
        break;
    }
    case MK_STREAM:
        if (k->op[0] == 'r') {
            double s = 0;
            for (size_t i = 0; i < k->m; i++)
                s += ((const double *)k->a)[i];
            add_check(r, "serial sum", fabs(k->sum - s) / fmax(fabs(s), 1e-300), TOL_FP64);
            break;
        }
        /* fall through */
    default:
        add_check(r, "fp64 reference", vec_err(k, k->m, ref_elt), k->prec == PREC_FP64 ? TOL_FP64 : TOL_FP32);
        break;
    }
}
