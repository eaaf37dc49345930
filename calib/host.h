/* host.h — the machine npusim runs on, as `npusim measure` needs it: the CPU,
 * its cache hierarchy read from sysfs, the memory size, and the BLAS found at
 * run time.
 *
 * The BLAS: OpenBLAS (Debian's libopenblas0) is opened with dlopen when
 * present; otherwise GSL's reference CBLAS, which npusim links anyway, is
 * used and labelled as such (its GEMM is a plain triple loop: a lower bound,
 * not the machine's peak). Opening OpenBLAS at run time rather than linking
 * it keeps GSL's own fits on GSL's CBLAS, so calibration prints the same
 * bytes on a machine with or without OpenBLAS, and lets one binary measure
 * with either. bf16 needs cblas_sbgemm, which Debian's OpenBLAS 0.3.21
 * declares in its header but does not export: it is looked up by name and
 * reported as unsupported when absent.
 *
 * Main data structures: struct host_info (CPU, caches, memory) and struct
 * host_blas (the BLAS's entry points). */
#ifndef NPUSIM_HOST_H
#define NPUSIM_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_cblas.h>

#include "base/err.h"

#define HOST_CACHES_MAX 8
struct host_cache {
    int level;                 /* 1, 2, 3 */
    char type[16];             /* "Data", "Instruction", "Unified" */
    int64_t size_bytes;        /* one instance */
    int shared_cpus;           /* CPUs sharing one instance */
};

struct host_info {
    char cpu_model[96];
    int cpus;                  /* online */
    int64_t mem_bytes;         /* MemTotal */
    double freq_GHz;           /* the highest the kernel reports; 0: unknown */
    int n_caches;              /* data and unified caches, innermost first */
    struct host_cache caches[HOST_CACHES_MAX];
};

/* Reads the caches of one CPU from sysfs_cache_dir (NULL: cpu0's under
 * /sys; tests pass a tree of their own): index<N>/{level,type,size,
 * shared_cpu_list}. Instruction caches are skipped. -1 with e when the
 * folder has no readable cache. */
int host_caches_read(const char *sysfs_cache_dir, struct host_info *h, struct npu_err *e);
/* Everything of struct host_info; what cannot be read stays 0 or "". The
 * caches: host_caches_read(NULL); without them, a 32 KiB L1, 1 MiB L2 and
 * 32 MiB L3 are assumed (said in the warning *warn, else ""). */
void host_info_read(struct host_info *h, char *warn, int warn_len);
/* The bytes of level (1..3) that n_threads threads can hold together: one
 * instance per shared_cpus threads. 0 when the level is absent. */
int64_t host_level_bytes(const struct host_info *h, int level, int n_threads);

/* CBLAS entry points, typed as GSL's gsl_cblas.h declares them (OpenBLAS's
 * enums have the same values and its 32-bit-integer build the same ABI). */
typedef void (*blas_dgemm_fn)(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m, int n, int k, double alpha, const double *a,
                              int lda, const double *b, int ldb, double beta, double *c, int ldc);
typedef void (*blas_sgemm_fn)(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha, const float *a,
                              int lda, const float *b, int ldb, float beta, float *c, int ldc);
typedef void (*blas_sbgemm_fn)(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha, const uint16_t *a,
                               int lda, const uint16_t *b, int ldb, float beta, float *c, int ldc);
typedef void (*blas_dgemv_fn)(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, int m, int n, double alpha, const double *a, int lda,
                              const double *x, int incx, double beta, double *y, int incy);
typedef void (*blas_sgemv_fn)(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, int m, int n, float alpha, const float *a, int lda,
                              const float *x, int incx, float beta, float *y, int incy);

struct host_blas {
    char name[64];             /* "openblas 0.3.21 ..." or "gsl-cblas (reference)" */
    bool optimized;            /* false: GSL's reference loops */
    int threads;               /* the BLAS's threads (1 for GSL) */
    blas_dgemm_fn dgemm;
    blas_sgemm_fn sgemm;
    blas_sbgemm_fn sbgemm;     /* NULL: bf16 unsupported */
    blas_dgemv_fn dgemv;
    blas_sgemv_fn sgemv;
    void *handle;              /* dlopen's; NULL for GSL */
};

/* which: "auto" (OpenBLAS if it opens, else GSL), "openblas" (an error if it
 * does not open) or "gsl". threads: OpenBLAS's thread count (0: its
 * default). -1 with e naming what failed. */
int host_blas_open(const char *which, int threads, struct host_blas *b, struct npu_err *e);
void host_blas_close(struct host_blas *b);

#endif
