/* measure.h — micro-benchmarks of the machine npusim runs on (`npusim
 * measure`), each kernel's result checked against a reference before its
 * time counts.
 *
 * The kernels, as rows of the native measurement format (calib/op_table.h):
 *   gemm   C[m,n] = A[m,k] B[k,n]: fp64, fp32 (the BLAS), bf16 (the BLAS's
 *          cblas_sbgemm, where exported), fp8 e4m3 and e5m2 block-scaled
 *          (1x128 activation and 128x128 weight scale blocks, emulated: codes
 *          and scales dequantised to fp32, then the BLAS's sgemm)
 *   gemv   y = W x, m = 1: fp64, fp32, with W larger than the last cache
 *   add, mul, gelu, silu            fp32, m elements, larger than the last cache
 *   softmax, layernorm, rmsnorm     fp32, m rows of n
 *   copy, triad, reduce             fp64, STREAM's kernels
 * and, outside the measurement rows (their operands stay in a cache, which
 * npusim's memory model does not place operands in), the triad at working
 * sets in L1, L2 and L3 (L2 and L3 set the host chip's memory_levels) and an FMA chain in
 * L1 (its vector peaks).
 *
 * Every kernel runs once and is checked (normwise relative error against a
 * reference: GEMMs against fp64 products over sampled rows; the quantised
 * formats twice, against the unquantised product and against the product of
 * the same quantised inputs); a failed kernel is reported and not timed.
 * Then warm-up, repetitions until a time budget (each repetition loops a
 * short kernel until it lasts ~0.2 ms), median and spread. Kernels of our own
 * run on a team of threads; the BLAS on its own threads; both counts are
 * recorded.
 *
 * A test hook: NPUSIM_MEASURE_FAULT=OP:DTYPE (gemm:fp32, add:fp32, ...)
 * corrupts that kernel's output before its check, to exercise the FAIL
 * path (tests/cli/t_measure.sh).
 *
 * Main data structures: struct measure_opts (what to run), struct
 * measure_result (one kernel: sizes, times, check), struct measure_run. */
#ifndef NPUSIM_MEASURE_H
#define NPUSIM_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "calib/host.h"
#include "chipsim/chip.h"
#include "base/err.h"
#include "base/strbuf.h"

enum measure_status { MEASURE_PASS, MEASURE_FAIL, MEASURE_SKIP };

struct measure_result {
    char op[16];               /* a native op kind; "fma" for the vector peak */
    int prec;                  /* enum precision */
    int64_t m, n, k;           /* 0: not applicable (empty cell) */
    char level[8];             /* working set: "L1", "L2", "L3" or "DRAM" */
    bool in_table;             /* a row of the measurement files */
    char backend[40];          /* "openblas", "gsl-cblas", "c", "c+openblas" */
    int threads;
    int reps, inner;           /* timed repetitions; kernel calls per repetition */
    double median_us, min_us, max_us, iqr_pct;  /* per kernel call */
    int64_t flops, bytes;      /* per call (bytes: the operands' traffic) */
    int n_checks;
    struct { const char *against; double err, tol; } check[2];
    enum measure_status status;
    char why[120];             /* FAIL or SKIP: why */
};

struct measure_opts {
    bool quick;                /* a small sweep, under 30 s */
    bool check_only;           /* correctness only: nothing timed */
    int threads;               /* 0: the online CPUs */
    const char *blas;          /* "auto", "openblas" or "gsl" */
    double budget_s;           /* per kernel; 0: 0.1 quick, 0.5 full */
    /* called before each kernel (NULL: none) */
    void (*progress)(void *ctx, int done, int total, const char *what);
    void *ctx;
};

struct measure_run {
    struct host_info host;
    struct host_blas blas;
    char warn[256];            /* what was assumed ("" if nothing) */
    int threads;
    struct measure_result *r;
    int n;
    int passed, failed, skipped;
};

/* Runs the kernels. -1 with e only when nothing can run (BLAS, memory). */
int measure_run(const struct measure_opts *o, struct measure_run *out, struct npu_err *e);
void measure_run_free(struct measure_run *m);

/* The passed rows of the measurement table as the native CSV (op,dtype,m,n,
 * k,batch,time_us, then tflops, GBps, min_us, max_us, iqr_pct, reps,
 * threads, backend, rel_err) and its JSON twin (a list of the same records). */
void measure_csv(const struct measure_run *m, struct strbuf *out);
void measure_json(const struct measure_run *m, struct strbuf *out);
/* Every kernel as a table: PASS/FAIL/SKIP, errors and tolerances, and (not
 * check_only) median time, TFLOP/s and GB/s. */
void measure_table(const struct measure_run *m, bool check_only, struct strbuf *out);

/* The "host" chip config built from the measured peaks: matrix_tflops per
 * format (the best GEMM), vector_tflops (the FMA chain), hbm_bw_GBps (the
 * best DRAM stream), memory_levels (L2 and L3: capacity, the triad's rate
 * one level out), the memory size, and sources that say how. */
void measure_host_chip(const struct measure_run *m, struct chip_config *chip);

#endif
