/* measure_internal.h — between the kernels of npusim measure
 * (measure_kernels.c: buffers, the timed call, the check) and their driver
 * (measure.c: the plan, timing, outputs). Private to calib/.
 *
 * Main data structure: struct mk, one kernel's sizes and buffers. */
#ifndef NPUSIM_MEASURE_INTERNAL_H
#define NPUSIM_MEASURE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "calib/host.h"
#include "calib/measure.h"
#include "calib/team.h"

enum mk_kind { MK_GEMM, MK_GEMV, MK_ELT, MK_ROW, MK_STREAM, MK_FMA };

struct mk {
    enum mk_kind kind;
    const char *op;            /* "gemm", "add", "triad", ... */
    int prec;                  /* enum precision */
    size_t m, n, k;
    const struct host_blas *blas;
    struct team *team;
    /* buffers: inputs a, b (and c); output y; fp8 codes and scales; the
     * dequantised operands; allocated by mk_setup, freed by mk_free */
    void *a, *b, *c, *y;
    uint8_t *qa, *qb;
    float *sa, *sb, *fa, *fb;
    float table[256];
    double sum;                /* reduce's result */
    int repeat;                /* team kernels: calls looped inside each thread */
    int64_t flops, bytes;      /* per call */
};

/* Allocates and fills k's buffers (deterministic data); -1 when memory
 * runs out, or SKIP reasons in why (bf16 without cblas_sbgemm). */
int mk_setup(struct mk *k, char *why, int why_len);
/* n calls in a row, timed together: the BLAS's called n times, the team's
 * looped n times inside each thread (two barriers, not 2n: a barrier costs
 * microseconds, as long as a kernel in L1). */
void mk_call(struct mk *k, int n);
/* Checks the output of the last call against references into r->check[]. */
void mk_check(struct mk *k, struct measure_result *r);
void mk_free(struct mk *k);

/* The normwise relative errors a kernel must meet, per check. */
#define TOL_FP64 1e-12
#define TOL_FP32 1e-5
#define TOL_ROWWISE 1e-5
#define TOL_SAME_INPUTS 1e-5   /* quantised formats against the same quantised inputs */
#define TOL_BF16 2e-2          /* bf16 against the unrounded product */
/* fp8 block-scaled against the unquantised product: 0.8 of the format's unit
 * roundoff u = 2^-(mantissa bits + 1), 5e-2 for e4m3 (u = 1/16; a correct
 * kernel reaches ~0.58 u on uniform data) and 1e-1 for e5m2 (u = 1/8). */
#define TOL_FP8(man_bits) (0.8 * ldexp(1.0, -((man_bits) + 1)))

#endif
