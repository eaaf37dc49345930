/* cs_internal.h — types shared by the chipsim translation units (not public).
 *
 * A pseudo-instruction (struct instr) is what the reference builds from an
 * op's strings: its kind, input tensors, output tensor and, for einsum/conv,
 * the axis letters. Instructions are cached by name (quirk chipsim Q1, instr.c);
 * compute.c and traffic.c read them, chipsim.c drives the per-op pipeline.
 * Tensors (traces/op_form.h) are fixed-rank arrays, so reading an op's
 * allocates only the tensor list. */
#ifndef NPUSIM_CS_INTERNAL_H
#define NPUSIM_CS_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chipsim/chip.h"
#include "base/err.h"
#include "traces/op.h"
#include "base/pyfmt.h"
#include "traces/profile.h"

#define NPU_MAX_DIMS OP_TENSOR_MAX_DIMS
/* Size limits that keep every int64 product of the cost model (bytes x
 * reloads, ops x cycles) far from overflow: a tensor holds at most 2^48
 * elements (struct tensor, traces/op_form.h) and one op performs at most
 * 2^56 multiply-accumulates. The largest op in the reference results is
 * ~2^44 FLOPs, so real traces are thousands of times below both. */
#define NPU_MAX_TENSOR_ELEMS OP_TENSOR_MAX_ELEMS
#define NPU_MAX_OP_MACS (1LL << 56)

/* Cost-model kind, from the config prefix before '(' (chipsim.md §3.1). */
enum kind {
    K_EINSUM, K_BATCHMATMUL, K_FLASH_ATTENTION, K_CONV2D,
    K_LAYERNORM, K_GROUPNORM, K_RMSNORM, K_SOFTMAX, K_ADD, K_MUL, K_ABS, K_PW_MUL,
    K_GELU, K_SILU, K_RELU,
    K_UPSAMPLE, K_AVGPOOL,
    K_REDUCE_SCATTER, K_ALL_REDUCE,
    K_ALL_GATHER, K_ALL_TO_ALL, K_IC_IN, K_IC_OUT, K_KVSWAP_IN, K_KVSWAP_OUT,
    K_OTHER
};

#define KIND_TOKEN_MAX 64

struct instr {
    enum kind kind;
    char token[KIND_TOKEN_MAX];      /* config prefix = parsed_op_type (except einsum) */
    struct tensor_list in;           /* current op's inputs (default/conv paths) */
    struct tensor out;               /* first op's output on the default path */
    /* einsum / conv axes: one letter per dimension */
    char lhs[NPU_MAX_DIMS + 1], rhs[NPU_MAX_DIMS + 1], outl[NPU_MAX_DIMS + 1];
    char dim_labels[sizeof ((struct op_tiling *)0)->dim_labels];
    int ob_bracketed;                /* einsum output dtype kept its "[" (chipsim Q15) */
    int64_t stride_h, stride_w;      /* conv window */
};

struct einsum_axes;

/* A chip's number formats, worked out once per run and format asked
 * (chip.h): the format each unit runs it in, its time multiplier and peak. */
struct chip_formats {
    const struct chip_config *chip;
    int8_t ran[2][PREC_COUNT];      /* [enum chip_unit][asked]; -2: not worked out yet */
    double scale[2][PREC_COUNT];    /* chip_unit_time_scale of ran */
    double peak[2][PREC_COUNT];     /* chip_unit_peak_tflops of ran, TFLOP/s */
};
void chip_formats_init(const struct chip_config *ch, struct chip_formats *f);
/* Works (u, p) out on first use. */
void chip_formats_need(struct chip_formats *f, enum chip_unit u, int p);

/* Shared per-run context for error messages and rates. */
struct cs_ctx {
    const struct chip_config *chip;
    const struct profile *prof;
    struct npu_err *e;
    size_t index;                    /* op index in the trace */
    const struct op *op;
    enum kind op_kind;               /* kind_from_config(op_kind_text(op)): set by
                                      * chipsim_run, read by the instruction builder */
    const struct einsum_axes *axes;  /* the einsum's classification, made once per op for
                                      * compute and traffic on every chip (chipsim.c); NULL:
                                      * classify it (einsum_axes_of) */
    double mx_scale, vu_scale;       /* MXU and VPU time multipliers of the op's number format
                                      * (chip_unit_time_scale; 1: the geometry's rate), set by
                                      * time_op */
    int64_t vmem_cap;                /* bytes the tile searches fit into; 0: the chip's VMEM
                                      * (cs_vmem_bytes) */
    struct chip_formats *fmts;       /* the chip's, for time_op; NULL: worked out per op */
    bool *time_overflow;             /* set by cs_trunc and cs_ceil when a time leaves the
                                      * scale; time_op points it at its own flag and turns
                                      * it into an error. NULL: not reported */
};

/* The capacity the traffic model tiles to: c->vmem_cap, else the outermost
 * memory level's, else vmem_size_MB. */
int64_t cs_vmem_bytes(const struct cs_ctx *c);

/* The op's config, in_shapes and out_shape cells for error messages: its
 * text, or printed from its form (per-thread buffers: valid until the next
 * call of the same function on this thread). */
const char *cs_config_text(const struct cs_ctx *c);
const char *cs_in_text(const struct cs_ctx *c);
const char *cs_out_text(const struct cs_ctx *c);

/* Times past CS_NS_MAX (2^61 ns, 73 years) are out of scale: cs_ceil and
 * cs_trunc return the bound and set *c->time_overflow, which time_op turns
 * into an error naming the op. */
#define CS_NS_MAX 2305843009213693952.0
static inline int64_t cs_trunc(const struct cs_ctx *c, double x)
{
    if (!(x < CS_NS_MAX && x > -CS_NS_MAX)) {
        if (c->time_overflow)
            *c->time_overflow = true;
        return x < 0 ? -(int64_t)CS_NS_MAX : (int64_t)CS_NS_MAX;
    }
    return (int64_t)x;
}
static inline int64_t cs_ceil(const struct cs_ctx *c, double x) { return cs_trunc(c, ceil(x)); }

/* Formats "op <i> \"<name>\": <msg>" into ctx->e; returns -1. */
int cs_errf(const struct cs_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- shape.c --- */
/* Exact integer ceiling division for a >= 0, b > 0 (inline: hot in tile searches). */
static inline int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }
int64_t tensor_elems(const struct tensor *t);
/* Bits per element of a dtype token (§3.2: the reference's substring rule
 * for whole bytes; 4 for int4 and fp4); bracketed = frontend output dtype
 * that kept its leading "[". Returns -1 if unsupported. */
int cs_dtype_bits(const char *dtype, bool bracketed);



/* --- instr.c --- */
/* Kind of a config string by its prefix before '('; copies the prefix to
 * token (truncated to token_size) unless token is NULL. */
enum kind kind_from_config(const char *config, char *token, size_t token_size);
struct instr_cache;
/* This thread's by-name table, emptied (kept between runs; freed when the
 * thread exits). NULL when out of memory. */
struct instr_cache *instr_cache_acquire(void);
/* Returns the instruction for the op (cached by name under chipsim Q1, updated per the
 * path rules of §3.4), or NULL with an error set. With chipsim Q1 off, a fresh
 * instruction is built in *scratch and returned. */
struct instr *instr_for_op(struct instr_cache *c, struct instr *scratch, const struct cs_ctx *ctx);
void instr_free(struct instr *in);

/* --- compute.c --- */
/* Compute time (§5); fills the op's stats (parsed_op_type set by caller). */
int compute_time(const struct cs_ctx *c, const struct instr *in, struct op *op, int64_t *sa,
                 int64_t *vu);

/* Einsum axis classification (§5.2), shared with traffic.c. Each list holds
 * indices into the LHS (batch, reduction, lhs_nonred) or RHS (rhs_nonred). */
struct einsum_axes {
    int batch[NPU_MAX_DIMS], nb;
    int red[NPU_MAX_DIMS], nr;
    int lnr[NPU_MAX_DIMS], nl;
    int rnr[NPU_MAX_DIMS], nn;
    int64_t b, m, n, k;
};
int einsum_classify(const struct cs_ctx *c, const struct instr *in, struct einsum_axes *ax);
/* c->axes, or the classification made into *local. */
const struct einsum_axes *einsum_axes_of(const struct cs_ctx *c, const struct instr *in,
                                         struct einsum_axes *local);

/* Conv axes (§5.4): dimension indices and sizes. */
struct conv_axes {
    int ib, iic, ih_i, iw_i; /* input tensor indices */
    int kic, koc, kh_i, kw_i; /* kernel */
    int ob, ooc, oh_i, ow_i;  /* output */
    int64_t b, ic, oc, kh, kw, oh, ow, ih, iw;
};
int conv_classify(const struct cs_ctx *c, const struct instr *in, struct conv_axes *ax);

/* --- kernel.c --- */
/* The op's number format (enum precision; -1: none of the table's): a
 * matmul's is the wider of its operands', else its first input's. */
int op_format(const struct instr *in);
/* The unit that runs it: the matrix units for matmuls, convolutions and
 * attention, else the vector units. */
enum chip_unit op_unit(const struct instr *in);
/* Its kernel class and size (chip.h: struct kernel_efficiency); after
 * compute_time and bytes_accessed, whose figures they read. */
enum kernel_class op_kernel_class(const struct instr *in, const struct op *op);
double op_kernel_size(enum kernel_class k, const struct instr *in, const struct op *op);

/* An einsum's block scales (traces/op_form.h): the scale tensors' HBM bytes
 * and the vector work of rescaling, both 0 without block scales or without
 * an 8-bit or narrower operand. The work overlaps the MXU (its VPU time);
 * the bytes add to the op's traffic. */
struct block_scales {
    int64_t bytes, vector_elems;
};
int block_scales_of(const struct cs_ctx *c, const struct instr *in, const struct einsum_axes *ax,
                    struct block_scales *bs);

/* --- tile_memo.c --- */
/* Everything a tile search reads, packed as words (unused words zero; doubles
 * as their bit patterns), and the tile sizes it chose. */
#define TILE_MEMO_WORDS 18
#define TILE_MEMO_VALS 5
struct tile_memo_key {
    uint64_t w[TILE_MEMO_WORDS];
};
/* Copies the remembered result of this thread's search with key k into val;
 * false when there is none. */
bool tile_memo_get(const struct tile_memo_key *k, int64_t val[TILE_MEMO_VALS]);
void tile_memo_put(const struct tile_memo_key *k, const int64_t val[TILE_MEMO_VALS]);
/* Forgets this thread's entries (tests: cold and warm runs must agree). */
void tile_memo_clear(void);

/* --- traffic.c --- */
/* The einsum tile search itself (no memo): the (Mf, Nf, Kf) tile sizes
 * along the aggregated m, n, k of ax (and b) for dtype widths lb, rb, ob,
 * with memc = traffic / rate and mxc the compute cycles. Exposed for the
 * tests, which check that rate 1 and mxc 0 choose the same tiles. */
int search_einsum_uncached(const struct cs_ctx *c, const struct einsum_axes *ax, int lb, int rb, int ob,
                           double rate, double mxc, int64_t *bMf, int64_t *bNf, int64_t *bKf);
/* HBM bytes (§6); compute_ns is what the tile search sees (0 under chipsim Q4). */
int bytes_accessed(const struct cs_ctx *c, const struct instr *in, struct op *op,
                   int64_t compute_ns, int64_t *bytes);

#endif
