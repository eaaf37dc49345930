/* op.h — the operator record every stage shares, and the trace that holds them.
 *
 * opsgen fills the creation-time fields (names, the form: config layout,
 * tensors and equation as data, count, FLOPs, pre-set communication traffic
 * and time); chipsim fills the timing fields; power fills the DVFS and
 * energy fields. The record mirrors the reference's 101 CSV columns (spec
 * chipsim.md §2, §10; trace_csv.h has the column schema); the CSV writer
 * prints the cells that are data here (config, shapes) and the reader
 * keeps a file's text for them.
 *
 * Main data structure: struct trace, a growable array of struct op in
 * generation order. Strings are owned by the op (op_free releases them),
 * except that every empty one shares one read-only "". They come from
 * traces/opstr.c, not plain malloc, and may be shared by copies of the op:
 * set them with op_set/op_setn/op_share, copy them out to keep them,
 * and never write through them or free() them.
 * Units are in every name: _ns, _bytes, _J, _W; sizes and times are int64,
 * rates and energies double. */
#ifndef NPUSIM_OP_H
#define NPUSIM_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traces/op_form.h"

/* Role of the op (CSV "OpType"); drives vmem time, utilisation and energy. */
enum op_type { OP_MXU, OP_VPU, OP_ICI_NO_COMPUTE, OP_OTHER };

/* Opcode class (not written to CSV; derived from the config kind on read). */
enum opcode_type {
    OPC_OTHER, OPC_CONV2D, OPC_EINSUM, OPC_FLASH_ATTENTION, OPC_ELEMENTWISE,
    OPC_UP_DOWN_SAMPLE, OPC_COLLECTIVE_REDUCE, OPC_COLLECTIVE_NO_COMPUTE,
    OPC_EMBEDDING_BAG
};

/* Which statistics block the op carries; decides which CSV cells are blank.
 * BASE: dim_labels..einsum_K blank; EINSUM: all set; FA: num_tiles blank. */
enum op_stats_kind { STATS_BASE, STATS_EINSUM, STATS_FA };

/* Bounded-by: NONE before timing ("" in CSV). */
/* BOUND_POWER (npusim's own, never under the neusim profile): the op's
 * compute clock was throttled so that the chip stays within its power cap
 * (power/powercap.h); its compute time is the bound, stretched. */
enum bounded_by { BOUND_NONE, BOUND_COMPUTE, BOUND_MEMORY, BOUND_ICI, BOUND_POWER };

/* Which phase of an inference run the op belongs to (not a reference column;
 * carried in the optional trailing "Phase" column of stream traces). */
enum phase { PHASE_NONE, PHASE_PREFILL, PHASE_DECODE };

/* Components with their own DVFS setting, in CSV order. */
enum { COMP_SA, COMP_VU, COMP_SRAM, COMP_HBM, COMP_ICI, NUM_COMP };
/* DVFS slack columns of the energy stage, in CSV order (power.md §6). */
enum { SLACK_SA, SLACK_VU, SLACK_HBM, SLACK_ICI, SLACK_VMEM, NUM_SLACK };
/* Energy terms, in CSV order (components plus "other"). */
enum { EN_SA, EN_VU, EN_SRAM, EN_HBM, EN_ICI, EN_OTHER, NUM_EN };

struct op_dvfs {
    char policy[16];          /* "None", "Ideal", ... */
    double voltage_V;         /* 0.0 until the energy pass */
    double freq_GHz;          /* 0.0 until the energy pass */
    int64_t scaling_time_ns;  /* 20 by default */
    double efficiency_pct;    /* regulator efficiency, 100.0 by default */
    double activity;          /* always 1.0 in the reference */
};

struct op {
    /* --- creation-time fields (opsgen) --- */
    int64_t fusion_id;
    char *description;
    char *config;             /* a CSV's "XlaEinsum(...)" text; "" when form.layout prints it */
    char *name;
    char *opcode;             /* CSV "Op Code" */
    char *in_shapes;          /* a CSV's "DT_BFLOAT16:[1,4096],DT_BFLOAT16:[4096,128]"; "" when held */
    char *out_shape;          /* a CSV's "[DT_BFLOAT16:(1,128)]"; "" when held */
    struct op_form form;      /* the same as data (traces/op_form.h) */
    enum op_type type;
    enum opcode_type opcode_type;
    enum op_stats_kind stats_kind;
    enum phase phase;
    int32_t group;            /* independent timing group: ops of different groups never
                               * share chipsim's name table (DLRM: one group per chip);
                               * carried in the optional "Group" stream column */
    int64_t count;            /* executions of this op (layers, layers x tokens) */
    int64_t flops;            /* "FLOP Count" */
    int64_t weight_bytes;     /* "Weight Size" */
    int64_t ici_out_bytes, ici_in_bytes;
    int64_t pcie_ns;          /* KV swap only */
    /* A decode step's attention reading the KV cache (chipsim: the
     * decode_attention kernel class). Not in the CSV: an op read back is a
     * matrix-vector product like any other. */
    bool reads_kv_cache;
    /* One grouped GEMM over a fused MoE kernel's experts (the einsum's
     * leading axis; chipsim: the grouped_gemm kernel class). Not in the
     * CSV, as reads_kv_cache. */
    bool grouped;

    /* --- timing (chipsim; some pre-set by opsgen for communication ops) --- */
    enum bounded_by bounded_by;
    int64_t exe_ns;
    int64_t mem_ns;           /* HBM time */
    int64_t ici_ns;           /* pre-set by the creator of communication ops */
    int64_t ici_alpha_ns;     /* of ici_ns, the collective's latency steps where they add to its
                               * transfer (physical): the kernel efficiency scales only the rest.
                               * Not in the CSV: an op read back scales all of ici_ns */
    int64_t sa_ns;            /* MXU time */
    int64_t vu_ns;            /* VPU time */
    int64_t vmem_ns;
    int64_t bytes;            /* "Bytes accessed"; pre-set for comm ops and embedding bags */
    char *parsed_op_type;     /* "" until chipsim */
    char *dim_labels;         /* a CSV's einsum/conv "BLM,MND->BLND"; chipsim's: tiling */
    char *tile_shapes;        /* a CSV's Python repr of the tiles; chipsim's: tiling */
    struct op_tiling tiling;  /* the tiles and labels as data (traces/op_form.h) */
    int64_t num_tiles;
    int64_t max_vmem_demand_bytes;
    int64_t num_sa_ops;       /* CSV "num_mxu_ops" */
    int64_t einsum_b, einsum_m, einsum_n, einsum_k;
    int64_t vu_softmax_ns;
    double flops_util;        /* computed before the energy rescale (quirk chipsim Q18) */
    /* The op's number format and the one its unit ran it in (enum precision;
     * -1: none, or not applied under the profile), its kernel class (enum
     * kernel_class, -1 likewise) and the efficiency its time was divided by. */
    int8_t prec, prec_ran, kernel_class;
    double efficiency;
    double hbm_bw_util;

    /* --- power --- */
    bool energy_done;         /* false: energies print as int 0 */
    struct op_dvfs dvfs[NUM_COMP];
    double static_J[NUM_EN];
    double dynamic_J[NUM_EN];
    int64_t num_setpm[NUM_COMP];
    /* DVFS slack of the final op (power_energy_pass; CSV dvfs_extra_*):
     * max(exe - t_c, 0) and that over t_c, both 0 when t_c <= 0. */
    bool has_slack;
    int64_t dvfs_extra_ns[NUM_SLACK];
    double dvfs_extra_ratio[NUM_SLACK];
};

struct trace {
    struct op *ops;
    size_t n, cap;
};

/* The config, in_shapes and out_shape cells: the op's text, or printed
 * into buf (size n, cut to fit) from its form (traces/op_form.h). */
const char *op_config_text(const struct op *op, char *buf, size_t n);
const char *op_in_shapes_text(const struct op *op, char *buf, size_t n);
const char *op_out_shape_text(const struct op *op, char *buf, size_t n);
/* The tile_shapes and dim_labels cells: chipsim's tiling, or the op's text. */
const char *op_tile_shapes_text(const struct op *op, char *buf, size_t n);
static inline const char *op_dim_labels_text(const struct op *op)
{
    return op->tiling.held ? op->tiling.dim_labels : op->dim_labels;
}
/* The text the config's kind is read from (its prefix before '('): the
 * form's kind, or the config text of an op without a layout. */
static inline const char *op_kind_text(const struct op *op)
{
    return op->form.layout != FORM_TEXT ? op->form.kind : op->config;
}
/* Sets every field to the reference defaults (count 1, DVFS "None"/20/100.0). */
void op_init(struct op *op);
void op_free(struct op *op);
/* Copy; the strings are shared with src (counted, see traces/opstr.h), as
 * neither op ever writes them. Returns 0. */
int op_copy(struct op *dst, const struct op *src);
/* Replaces *field with src, another op's string field, shared (not copied). */
void op_share(char **field, char *src);
/* Replaces *field with a copy of s. */
void op_set(char **field, const char *s);
/* Replaces *field with a copy of the n bytes at s (plus a NUL); s may be a
 * strbuf's text, whose length the caller already knows. */
void op_setn(char **field, const char *s, size_t n);

void trace_init(struct trace *t);
void trace_free(struct trace *t);
/* Appends a freshly op_init'ed op and returns it (pointer valid until the next push). */
struct op *trace_push(struct trace *t);
/* Makes room for n more ops at once, exactly (no doubling): for a trace whose
 * final size is known, e.g. one held for long (study/run/results.h). */
void trace_reserve(struct trace *t, size_t n);
/* Appends copies of all ops of src (sharing their strings: op_copy). */
int trace_append(struct trace *dst, const struct trace *src);

/* Derived statistics (chipsim.md §2.3), from the final execution time. */
double op_tflops_per_sec(const struct op *op);   /* 0 when exe == 0 */
double op_hbm_bw_GBps(const struct op *op);      /* GB = 2^30; 0 when exe == 0 */
double op_static_energy_J(const struct op *op);  /* sum sa..other */
double op_dynamic_energy_J(const struct op *op);
double op_total_energy_J(const struct op *op);

/* Names used in the CSV. */
const char *op_type_name(enum op_type t);         /* "MXU", "VPU", "ICINoCompute", "Other" */
int op_type_parse(const char *s, enum op_type *t);
const char *bounded_by_name(enum bounded_by b);   /* "", "Compute", "Memory", "ICI/NVLink", "Power" */
int bounded_by_parse(const char *s, enum bounded_by *b);
const char *phase_name(enum phase p);             /* "", "prefill", "decode" */

#endif
