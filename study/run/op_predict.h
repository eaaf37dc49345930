/* op_predict.h — one operator, predicted: `npusim op` and its --csv files.
 *
 * An operator named as a user or a measurement file names it (gemm with
 * m, n, k, a number format, ...) is built as the one-op trace opsgen would
 * make (its builders), timed by chipsim on the chip and read back as time,
 * throughput, arithmetic intensity, the bound and the efficiency used. The
 * same record is the row of a measurement file (op,dtype,m,n,k,batch,time_us):
 * what validation and calibration read (calib/op_table.h).
 *
 * Main data structures: struct op_request (what to predict) and struct
 * op_prediction (what chipsim says). */
#ifndef NPUSIM_OP_PREDICT_H
#define NPUSIM_OP_PREDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "chipsim/chip.h"
#include "base/err.h"
#include "traces/profile.h"

/* The operator kinds, with how m, n, k and batch read for each:
 *   gemm, gemv       C[m,n] = A[m,k] B[k,n] (batch > 1: batched); gemv: m defaults to 1
 *   attention        batch x heads sequences of m queries over n keys of d_head k
 *   add, mul, gelu, silu, relu        m elements (or m rows of n)
 *   softmax, layernorm, rmsnorm       m rows of n
 *   copy, triad, reduce               m elements (STREAM's copy and triad; a sum)
 *   all-reduce, all-gather, reduce-scatter, all-to-all   m elements per chip over n chips */
#define OP_REQUEST_KINDS "gemm|gemv|attention|decode-attention|add|mul|gelu|silu|relu|softmax|layernorm|rmsnorm|" \
                         "copy|triad|reduce|all-reduce|all-gather|reduce-scatter|all-to-all"

/* Whether name is one of OP_REQUEST_KINDS. */
bool op_kind_known(const char *name);

struct op_request {
    char op[24];
    int prec;                /* enum precision of the activations (and weights) */
    int weight_prec;         /* a matmul's B operand when stored otherwise (-1: prec) */
    int64_t m, n, k, batch;  /* 0: not given (the kind's default) */
    int64_t heads;           /* attention: heads per sequence; decode-attention: the
                              * cache's (KV) heads (1) */
    double measured_us;      /* a measurement's time; < 0: none */
};
void op_request_init(struct op_request *r);

struct op_prediction {
    double time_us;
    double tflops;           /* achieved: the op's FLOPs over its time */
    double intensity;        /* FLOPs per HBM byte; 0 without traffic */
    double efficiency;       /* achieved over roofline used (chip's kernel_efficiency) */
    int64_t flops, bytes;
    const char *bound;       /* "compute", "memory", "vmem" or "interconnect" */
    int prec_ran;            /* enum precision the unit ran; -1 under the reference's profile */
    const char *kernel_class; /* chip.h names; "" under the reference's profile */
    double kernel_size;      /* the n of its efficiency curve (chipsim_op_kernel_size); -1: none */
};

/* Predicts r on chip under prof. -1 with e naming the field on bad sizes. */
int op_predict(const struct op_request *r, const struct chip_config *chip, const struct profile *prof,
               struct op_prediction *out, struct npu_err *e);

#endif
