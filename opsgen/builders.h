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

#include "traces/op.h"

#define SHAPE_MAXD 8

struct shape {
    int nd;
    int64_t d[SHAPE_MAXD];
};

#define SHP(...) ((struct shape){ \
    (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), {__VA_ARGS__} })

static inline int64_t cdiv64(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* A tensor's element count; past SHAPE_MAX_ELEMS (2^48, as chipsim checks)
 * or int64 it returns 0 and flags the overflow. */
#define SHAPE_MAX_ELEMS ((int64_t)1 << 48)
int64_t shape_prod(struct shape s);
/* The bytes of elems elements of dtype (4-bit formats packed two to a byte),
 * checked as bmul; negative for an unknown dtype. */
int64_t bld_tensor_bytes(int64_t elems, const char *dtype);
/* a * b for sizes, FLOP counts and times; 0 and the overflow flag when the
 * product leaves int64. */
int64_t bmul(int64_t a, int64_t b);
int64_t badd(int64_t a, int64_t b);
/* bmul over 3 and 4 factors. */
static inline int64_t bmul3(int64_t a, int64_t b, int64_t c) { return bmul(bmul(a, b), c); }
static inline int64_t bmul4(int64_t a, int64_t b, int64_t c, int64_t d) { return bmul(bmul3(a, b, c), d); }
/* Whether a size of the ops built on this thread since the last call left
 * int64 (or a tensor exceeded SHAPE_MAX_ELEMS); clears the flag. */
bool opsgen_take_overflow(void);
/* Sets that flag: for a size computed otherwise (in doubles) that left int64. */
void opsgen_flag_overflow(void);
/* Keeps only [A-Za-z0-9] of desc + name (the "_" joiner disappears with it). */
void sanitize_name(char **field, const char *desc, const char *name);

/* Link parameters and the per-axis degrees a collective runs over. */
struct coll_axes {
    int n;
    int64_t deg[SHAPE_MAXD];
    double bw_GBps[SHAPE_MAXD];   /* one entry per axis; summed */
    int64_t latency_ns;
};
/* Staged per-chip element count RS(e, axes) (opsgen.md §3.10). */
int64_t staged_elems(int64_t e, const struct coll_axes *ax);

/* Every builder returns the new op (valid until the next push on t), or NULL
 * when its arguments are outside what the reference accepts (unknown unary
 * name, einsum letter missing from both inputs). */
struct op *b_einsum(struct trace *t, int64_t fid, int64_t count, const char *desc,
                    const char *name, struct shape a, struct shape b, const char *eq,
                    const char *placements, const char *dtype);
struct op *b_unary(struct trace *t, int64_t fid, int64_t count, const char *desc,
                   const char *name, const char *opname, struct shape x,
                   const char *placements, const char *dtype);
/* opname "Add" or "Mul"; one_input reproduces the one-tensor input string. */
struct op *b_binary(struct trace *t, int64_t fid, int64_t count, const char *desc,
                    const char *name, const char *opname, struct shape x,
                    const char *placements, const char *dtype, bool one_input);
/* heads_as_dhead: quirk opsgen Q1 (output [B,Sq,H,H], FLOPs scale with H). */
struct op *b_flash_attention(struct trace *t, int64_t fid, int64_t count, const char *desc,
                             const char *name, struct shape q, struct shape k,
                             struct shape v, const char *dtype, bool heads_as_dhead);
/* HBM load (output=false, opcode "Input") or store ("Output"). */
struct op *b_hbm_io(struct trace *t, int64_t fid, int64_t count, const char *desc,
                    const char *name, bool output, struct shape x, const char *dtype);
/* Pipeline stage transfer; bw/latency are the link the caller chose (quirk opsgen Q9). */
struct op *b_pipe_xfer(struct trace *t, int64_t fid, int64_t count, const char *desc,
                       const char *name, bool output, struct shape x, double bw_GBps,
                       int64_t latency_ns);
/* KV swap over PCIe; n is a byte count, doubled again when `doubled` (quirk opsgen Q10);
 * gib: the link's GB is 2^30 B (quirk chipsim Q11), else 1e9 B. */
struct op *b_kv_swap(struct trace *t, int64_t fid, int64_t count, const char *desc,
                     const char *name, bool output, int64_t n, bool doubled, bool gib,
                     double pcie_bw_GBps, int64_t pcie_latency_ns, int64_t ici_latency_ns);
struct op *b_all_gather(struct trace *t, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, int dim, const struct coll_axes *ax);
struct op *b_reduce_scatter(struct trace *t, int64_t fid, int64_t count, const char *desc,
                            const char *name, struct shape x, int dim,
                            const struct coll_axes *ax);
struct op *b_all_reduce(struct trace *t, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, const struct coll_axes *ax);
/* n: group size of the latency term. */
struct op *b_all_to_all(struct trace *t, int64_t fid, int64_t count, const char *desc,
                        const char *name, struct shape x, const char *dtype,
                        double bisection_bw_GBps, int64_t n, int64_t latency_ns);

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
/* ceil(bytes / GBps) with 1 GB/s = 1 byte/ns (GB = 1e9, quirk chipsim Q11). */
int64_t bld_xfer_ns(int64_t bytes, double GBps);

/* Output shape of a collective scattered along dim over p chips. */
struct shape shape_scattered(struct shape x, int dim, int64_t p);

#endif
