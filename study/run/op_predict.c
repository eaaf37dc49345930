/* op_predict.c — one operator built with opsgen's builders and timed by
 * chipsim (see op_predict.h). Main data structure: the kind table, which
 * names each kind's builder and the sizes it requires. */
#include "study/run/op_predict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chipsim/chipsim.h"
#include "opsgen/builders.h"
#include "opsgen/formats.h"
#include "traces/precision.h"

void op_request_init(struct op_request *r)
{
    memset(r, 0, sizeof *r);
    r->prec = PREC_BF16;
    r->weight_prec = -1;
    r->measured_us = -1;
}

enum build { B_MATMUL, B_ATTENTION, B_DECODE_ATTENTION, B_BINARY, B_UNARY, B_ROWWISE, B_COLLECTIVE, B_STREAM };

/* needs: which of m, n, k must be given (the others default) */
static const struct kind {
    const char *name;
    enum build build;
    const char *opname;      /* the builders' op name */
    bool need_m, need_n, need_k;
} kinds[] = {
    { "gemm", B_MATMUL, NULL, true, true, true },
    { "gemv", B_MATMUL, NULL, false, true, true },
    { "attention", B_ATTENTION, NULL, true, true, true },
    { "decode-attention", B_DECODE_ATTENTION, NULL, false, true, true },
    { "add", B_BINARY, "Add", true, false, false },
    { "mul", B_BINARY, "Mul", true, false, false },
    { "gelu", B_UNARY, "Gelu", true, false, false },
    { "silu", B_UNARY, "Silu", true, false, false },
    { "relu", B_UNARY, "Relu", true, false, false },
    { "softmax", B_ROWWISE, "Softmax", true, true, false },
    { "layernorm", B_ROWWISE, "LayerNorm", true, true, false },
    { "rmsnorm", B_ROWWISE, "RMSNorm", true, true, false },
    { "copy", B_STREAM, "Copy", true, false, false },
    { "triad", B_STREAM, "Triad", true, false, false },
    { "reduce", B_STREAM, "Reduce", true, false, false },
    { "all-reduce", B_COLLECTIVE, "AllReduce", true, false, false },
    { "all-gather", B_COLLECTIVE, "AllGather", true, false, false },
    { "reduce-scatter", B_COLLECTIVE, "ReduceScatter", true, false, false },
    { "all-to-all", B_COLLECTIVE, "AllToAll", true, false, false },
};

/* Sizes up to 2^31 each: their products stay far inside chipsim's limits
 * (2^48 elements per tensor, checked there with a message). */
#define SIZE_MAX_OP 2147483648LL

static int size_ok(const char *field, int64_t v, bool needed, const char *op, struct npu_err *e)
{
    if (needed && v == 0)
        return npu_errf(e, "%s: expected %s (an integer from 1 to %lld), got none", op, field, SIZE_MAX_OP);
    if (v < 0 || v > SIZE_MAX_OP)
        return npu_errf(e, "%s: expected %s from 1 to %lld, got %lld", op, field, SIZE_MAX_OP, (long long)v);
    return 0;
}

static const struct kind *kind_of(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kinds[i].name, name))
            return &kinds[i];
    return NULL;
}

bool op_kind_known(const char *name) { return kind_of(name) != NULL; }

/* The memory-bandwidth kernels, m elements each: copy (b = a: one read,
 * one write), triad (a = b + s c, STREAM's: two reads, one write, an FMA
 * each) and reduce (a sum over a: one read, one write of a single value).
 * Their bytes are set as the kernels move them; their vector work is an
 * operation per element (two for triad). chipsim times them as ops of no
 * other cost model (K_OTHER): the FLOP count on the vector units. */
static struct op *stream(struct trace *t, bool *ovf, const struct kind *k, int64_t m, const char *dt)
{
    static const struct { const char *name; int reads, writes, ops; } shape[] = {
        { "copy", 1, 1, 1 }, { "triad", 2, 1, 2 }, { "reduce", 1, 0, 1 },
    };
    size_t i = 0;
    while (strcmp(shape[i].name, k->name))
        i++;
    struct op *op = bld_push(t, 0, 1, k->name, "op", OP_VPU, OPC_ELEMENTWISE, k->opname);
    bld_layout(op, FORM_X, k->opname, NULL, "0_0");
    bld_in1(op, SHP(m), dt);
    bld_out(op, shape[i].writes ? SHP(m) : SHP(1), dt);
    int64_t elem = bld_tensor_bytes(ovf, m, dt);
    op->bytes = badd(ovf, bmul(ovf, shape[i].reads, elem), shape[i].writes ? bmul(ovf, shape[i].writes, elem)
                                                                      : bld_tensor_bytes(ovf, 1, dt));
    op->flops = bmul(ovf, shape[i].ops, m);
    return op;
}

/* The op of request r on t; a size past int64 sets *ovf (builders.h). */
static struct op *build(struct trace *t, bool *ovf, const struct kind *k, const struct op_request *r,
                        const struct profile *prof,
                        const struct chip_config *chip)
{
    const char *dt = precision_info((enum precision)r->prec)->token;
    int64_t m = r->m ? r->m : 1, n = r->n ? r->n : 1, kk = r->k ? r->k : 1, b = r->batch ? r->batch : 1;
    struct shape x = r->n ? SHP(m, n) : SHP(m);
    switch (k->build) {
    case B_MATMUL: {
        struct op *op = b > 1 ? b_einsum(t, ovf, 0, 1, k->name, "op", SHP(b, m, kk), SHP(b, kk, n), "BMK;BKN->BMN",
                                         "0_0_0", dt)
                              : b_einsum(t, ovf, 0, 1, k->name, "op", SHP(m, kk), SHP(kk, n), "MK;KN->MN", "0_0_0", dt);
        if (op && r->weight_prec >= 0)
            fmt_store_rest(ovf, &(struct tensor_formats){ 0 }, op,
                           precision_info((enum precision)r->weight_prec)->token);
        return op;
    }
    case B_ATTENTION: {
        int64_t h = r->heads ? r->heads : 1;
        return b_flash_attention(t, ovf, 0, 1, k->name, "op", SHP(b, m, h, kk), SHP(b, n, h, kk), SHP(b, n, h, kk), dt,
                                 false);
    }
    case B_DECODE_ATTENTION: {
        /* One fused kernel as one einsum, marked as a read of the cache
         * (chipsim's decode_attention class): the M query rows of each of
         * the H cache heads against its K and V, 2N positions of d_head K,
         * 4 B H M N K FLOPs. Its output is the scores (B M 2N H), not the
         * B M H K a fused kernel writes: 2N / K times more, 2 M / K of the
         * cache's bytes (6% at M 4, K 128). */
        int64_t h = r->heads ? r->heads : 1;
        struct op *op = b_einsum(t, ovf, 0, 1, k->name, "op", SHP(b, m, h, kk), SHP(b, bmul(ovf, 2, n), h, kk),
                                 "BLND;BSND->BLSN", "0_0_0", dt);
        if (op) {
            op->reads_kv_cache = true;
            op->weight_bytes = 0;
        }
        return op;
    }
    case B_BINARY:
        return b_binary(t, ovf, 0, 1, k->name, "op", k->opname, x, "0_0_0", dt, false);
    case B_UNARY:
    case B_ROWWISE:
        return b_unary(t, ovf, 0, 1, k->name, "op", k->opname, x, "0_0", dt);
    case B_STREAM:
        return stream(t, ovf, k, m, dt);
    case B_COLLECTIVE: {
        /* One ring of n chips (8 unless given) at the chip's link rate (its
         * collective_algorithm's latency steps); the
         * builders move bf16 elements, so m elements of the format are
         * carried as the bf16 elements of the same bytes. */
        int64_t chips = r->n ? r->n : 8;
        int64_t e16 = (m * precision_info((enum precision)r->prec)->bits + 15) / 16;
        struct coll_axes ax = coll_axes_ring(chips, chip->ici_bw_GBps, chip->ici_latency_ns, chip->collective_base_ns,
                                             coll_algorithm_of(chip->collective_algorithm), prof);
        if (chip->link_domain_chips <= 0 || chips <= chip->link_domain_chips)
            ax.direct_max_bytes = chip->collective_direct_max_bytes;   /* the engines' custom kernels */
        if (!strcmp(k->name, "all-reduce"))
            return b_all_reduce(t, ovf, 0, 1, k->name, "op", SHP(e16), &ax);
        if (!strcmp(k->name, "all-gather"))
            return b_all_gather(t, ovf, 0, 1, k->name, "op", SHP(e16), 0, &ax);
        if (!strcmp(k->name, "reduce-scatter"))
            return b_reduce_scatter(t, ovf, 0, 1, k->name, "op", SHP(e16), 0, &ax);
        /* its whole tensor at the link rate, its exchanges' latency as a run's MoE all-to-all */
        return b_all_to_all_over(t, ovf, 0, 1, k->name, "op", SHP(e16), "DT_BFLOAT16", chip->ici_bw_GBps, &ax);
    }
    }
    return NULL;
}

/* chipsim's bound, with the VMEM (memory levels) told apart from compute. */
static const char *bound_of(const struct op *op)
{
    int64_t compute = op->sa_ns > op->vu_ns ? op->sa_ns : op->vu_ns;
    switch (op->bounded_by) {
    case BOUND_MEMORY: return "memory";
    case BOUND_ICI: return "interconnect";
    default: return op->vmem_ns > compute && op->vmem_ns >= op->mem_ns ? "vmem" : "compute";
    }
}

int op_predict(const struct op_request *r, const struct chip_config *chip, const struct profile *prof,
               struct op_prediction *out, struct npu_err *e)
{
    const struct kind *k = kind_of(r->op);
    if (!k)
        return npu_errf(e, "op: expected one of %s, got \"%s\"", OP_REQUEST_KINDS, r->op);
    if (size_ok("m", r->m, k->need_m, r->op, e) || size_ok("n", r->n, k->need_n, r->op, e) ||
        size_ok("k", r->k, k->need_k, r->op, e) || size_ok("batch", r->batch, false, r->op, e) ||
        size_ok("heads", r->heads, false, r->op, e))
        return -1;
    if (k->build == B_COLLECTIVE && r->n == 1)
        return npu_errf(e, "%s: expected n (the chips) of at least 2, got 1", r->op);
    struct trace t;
    trace_init(&t);
    bool ovf = false;
    struct op *op = build(&t, &ovf, k, r, prof, chip);
    int rc = -1;
    if (!op || ovf)
        npu_errf(e, "%s: the sizes overflow 64-bit counts", r->op);
    else if (chipsim_run(&t, chip, prof, e) == 0) {
        op = &t.ops[0];
        memset(out, 0, sizeof *out);
        out->time_us = (double)op->exe_ns / 1e3;
        out->flops = op->flops;
        out->bytes = op->bytes;
        out->tflops = op->exe_ns > 0 ? (double)op->flops / (double)op->exe_ns / 1e3 : 0;
        out->intensity = op->bytes > 0 ? (double)op->flops / (double)op->bytes : 0;
        out->efficiency = op->efficiency;
        out->bound = bound_of(op);
        out->prec_ran = op->prec_ran;
        out->kernel_class = op->kernel_class >= 0 ? kernel_class_name((enum kernel_class)op->kernel_class) : "";
        out->kernel_size = chipsim_op_kernel_size(op);
        rc = 0;
    }
    trace_free(&t);
    return rc;
}
