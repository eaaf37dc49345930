/* builders.h — primitive operator builders (opsgen.md §2.2–§3).
 *
 * Each builder appends one op to a trace and fills its creation-time fields:
 * config string, shape strings, sanitised name, FLOPs, weight bytes and, for
 * communication ops, the pre-set traffic and time. The strings are spelled
 * exactly as the reference prints them, because the cost model parses them
 * and the parity tests compare them cell for cell.
 *
 * Main data structure: struct shape, a small fixed array of int64 dims
 * passed by value (no allocation). Build one with SHP(a, b, c). */
#ifndef NPUSIM_BUILDERS_H
#define NPUSIM_BUILDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opsgen/opsgen.h"
#include "traces/op.h"

#define SHAPE_MAXD 8

struct shape {
    int nd;
    int64_t d[SHAPE_MAXD];
};

#define SHP(...) ((struct shape){ \
    (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), {__VA_ARGS__} })

static inline int64_t cdiv64(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The overflow flag. Every checked size below takes bool *ovf, the flag of
 * the trace being built: it is set (never cleared) when a size, FLOP count or
 * time leaves int64 or a tensor exceeds SHAPE_MAX_ELEMS, and the result is 0
 * instead of a wrapped value. The generators carry the pointer in their
 * contexts (struct gen_run, struct layer_ctx, ...); who asked for the trace
 * owns the flag and turns it into an error once the trace is built
 * (family_generate in study/run/pipeline.c, op_predict). */

/* A tensor's element count; past SHAPE_MAX_ELEMS (2^48, as chipsim checks)
 * or int64 it returns 0 and sets *ovf. */
#define SHAPE_MAX_ELEMS ((int64_t)1 << 48)
int64_t shape_prod(bool *ovf, struct shape s);
/* The bytes of elems elements of dtype (4-bit formats packed two to a byte),
 * checked as bmul; negative for an unknown dtype. */
int64_t bld_tensor_bytes(bool *ovf, int64_t elems, const char *dtype);
/* a * b for sizes, FLOP counts and times; 0 with *ovf set when the product
 * leaves int64. badd: a + b, the same way. */
int64_t bmul(bool *ovf, int64_t a, int64_t b);
int64_t badd(bool *ovf, int64_t a, int64_t b);
/* bmul over 3 and 4 factors. */
static inline int64_t bmul3(bool *ovf, int64_t a, int64_t b, int64_t c) { return bmul(ovf, bmul(ovf, a, b), c); }
static inline int64_t bmul4(bool *ovf, int64_t a, int64_t b, int64_t c, int64_t d)
{
    return bmul(ovf, bmul3(ovf, a, b, c), d);
}
/* Keeps only [A-Za-z0-9] of desc + name (the "_" joiner disappears with it). */
void sanitize_name(char **field, const char *desc, const char *name);

/* Link parameters and the per-axis degrees a collective runs over. */
struct coll_axes {
    int n;
    int64_t deg[SHAPE_MAXD];
    double bw_GBps[SHAPE_MAXD];   /* one entry per axis; summed */
    int64_t latency_ns;           /* alpha: one step of the ring */
    bool latency_adds;            /* time = alpha x steps + bytes / beta (physical); false: the
                                   * larger of the two (the reference, collective_latency_overlaps) */
    enum coll_algorithm algorithm;   /* its latency steps (opsgen.h); a ring's without latency_adds */
    bool ring_bytes;              /* a ring's bytes, (p - 1) / p of the whole tensor a phase
                                   * (physical); false: the reference's staged elements
                                   * (collective_staged_bytes) */
    int64_t base_ns;              /* paid once a phase whatever p (with latency_adds only: the
                                   * chip's collective_base_ns) */
    int64_t direct_max_bytes;     /* with latency_adds, a collective whose whole tensor is at most
                                   * this takes one step a phase (the engines' custom all-reduce
                                   * inside a switch's domain); 0: none */
};
/* One axis of p chips at bw_GBps, latency_ns a step and base_ns a phase
 * (the chip's collective_base_ns), taking its algorithm, its latency rule
 * (latency_adds) and its bytes (ring_bytes) from prof: the one place a
 * collective's pricing reads the profile. */
struct coll_axes coll_axes_ring(int64_t p, double bw_GBps, int64_t latency_ns, int64_t base_ns,
                                enum coll_algorithm algorithm, const struct profile *prof);

/* Staged per-chip element count RS(e, axes) (opsgen.md §3.10), checked. */
int64_t staged_elems(bool *ovf, int64_t e, const struct coll_axes *ax);

/* Every builder appends to t, sets *ovf when a size of the op overflows (see
 * above) and returns the new op (valid until the next push on t), or NULL
 * when its arguments are outside what the reference accepts (unknown unary
 * name, einsum letter missing from both inputs). */
struct op *b_einsum(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                    const char *name, struct shape a, struct shape b, const char *eq,
                    const char *placements, const char *dtype);
struct op *b_unary(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                   const char *name, const char *opname, struct shape x,
                   const char *placements, const char *dtype);
/* opname "Add" or "Mul"; one_input reproduces the one-tensor input string. */
struct op *b_binary(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                    const char *name, const char *opname, struct shape x,
                    const char *placements, const char *dtype, bool one_input);
/* heads_as_dhead: quirk opsgen Q1 (output [B,Sq,H,H], FLOPs scale with H). */
struct op *b_flash_attention(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                             const char *name, struct shape q, struct shape k,
                             struct shape v, const char *dtype, bool heads_as_dhead);
/* HBM load (output=false, opcode "Input") or store ("Output"). */
struct op *b_hbm_io(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                    const char *name, bool output, struct shape x, const char *dtype);
/* Pipeline stage transfer; bw/latency are the link the caller chose (quirk opsgen Q9). */
struct op *b_pipe_xfer(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                       const char *name, bool output, struct shape x, double bw_GBps,
                       int64_t latency_ns);
/* KV swap over PCIe; n is a byte count, doubled again when `doubled` (quirk opsgen Q10);
 * gib: the link's GB is 2^30 B (quirk chipsim Q11), else 1e9 B. */
struct op *b_kv_swap(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                     const char *name, bool output, int64_t n, bool doubled, bool gib,
                     double pcie_bw_GBps, int64_t pcie_latency_ns, int64_t ici_latency_ns);
struct op *b_all_gather(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, int dim, const struct coll_axes *ax);
/* The same moving elem_bytes an element while its shapes print BF16, as every
 * reference collective prints (MLA's fp8 and fp32 KV gathers). */
struct op *b_all_gather_dt(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                           const char *name, struct shape x, int dim, const struct coll_axes *ax,
                           int64_t elem_bytes);
struct op *b_reduce_scatter(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                            const char *name, struct shape x, int dim,
                            const struct coll_axes *ax);
struct op *b_all_reduce(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, const struct coll_axes *ax);
/* The reference's pricing over one group of n chips (n - 1 latency steps, the
 * larger of them and the transfer): b_all_to_all_over without latency_adds. */
struct op *b_all_to_all(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, const char *dtype,
                        double bisection_bw_GBps, int64_t n, int64_t latency_ns);
/* The same over the axes ax at bw_GBps a chip: the reference's pricing
 * without ax->latency_adds (the larger of the transfer and p - 1 steps);
 * with it (physical) the transfer plus the steps (p - 1, or one under
 * COLL_DIRECT) and the base latency, as every collective. */
struct op *b_all_to_all_over(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                             const char *name, struct shape x, const char *dtype, double bw_GBps,
                             const struct coll_axes *ax);

/* ---- building blocks for builders in other files (conv, DLRM, training) ---- */
#define SBUF 256
/* Appends an op with the fields every builder sets the same way: fusion id,
 * count, description, sanitised name (desc + "_" + name), op type, opcode. */
struct op *bld_push(struct trace *t, int64_t fid, int64_t count, const char *desc,
                    const char *name, enum op_type ty, enum opcode_type oct, const char *opcode);
/* The op's form (traces/op_form.h): its inputs, its output (all of dtype
 * dt), and how its config reads (eq and placements may be NULL: none). */
void bld_in1(struct op *op, struct shape a, const char *dt);
void bld_in2(struct op *op, struct shape a, struct shape b, const char *dt);
void bld_out(struct op *op, struct shape o, const char *dt);
void bld_layout(struct op *op, enum form_layout l, const char *kind, const char *eq, const char *placements);
/* Pre-set ICI traffic: in/out bytes and memory traffic = in + out. */
void bld_traffic(struct op *op, int64_t in, int64_t out);
/* ceil(bytes / GBps) with 1 GB/s = 1 byte/ns (GB = 1e9, quirk chipsim Q11);
 * past int64 it sets *ovf. */
int64_t bld_xfer_ns(bool *ovf, int64_t bytes, double GBps);

/* Output shape of a collective scattered along dim over p chips. */
struct shape shape_scattered(struct shape x, int dim, int64_t p);

#endif
