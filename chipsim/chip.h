/* chip.h — the chip configuration (reference ChipConfig) and its derived rates.
 *
 * Every field of the reference class with its default (TPUv5p-like; note the
 * class default freq 1.75 GHz while tpuv5p.json says 1.7, quirk chipsim Q23). Loaded
 * from the merged config JSON through chip_fields (traces/fields.h). Power
 * fields live here too because the chip JSON carries them; power/ reads them. */
#ifndef NPUSIM_CHIP_H
#define NPUSIM_CHIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traces/fields.h"
#include "traces/precision.h"

/* The kernel classes a chip declares an efficiency for (the
 * kernel_efficiency.<class> fields) and chipsim sorts every op into:
 * gemm (einsum, batched matmul, convolution), gemv (a matmul with at most
 * KERNEL_GEMV_MAX_ROWS rows on either side: decode's skinny matmuls),
 * attention (flash attention), decode_attention (a decode step's queries
 * against the KV cache: paged attention, FlashInfer, XQA; streaming the
 * cache, it reaches less of the HBM bandwidth than a weight-streaming GEMV,
 * and runs as gemv where the chip does not declare it: e_max 0),
 * grouped_gemm (a fused MoE kernel's grouped GEMM over the woken experts,
 * wider than a GEMV: Triton's fused_moe reaches about half the dense
 * kernels' rate, CUTLASS's and DeepGEMM's about theirs; runs as gemm where
 * the chip does not declare it: e_max 0),
 * elementwise (add, mul, copies), activation
 * (GeLU, SiLU: an exp or tanh per element, which special-function units or
 * polynomial code evaluate far below the FMA rate: H100's exp units reach
 * ~4 TFLOP/s against 989 for bf16 matmuls), reduction (the norms: row sums
 * in two passes), softmax (exp and two row reductions) and collective
 * (every transfer over ICI, DCN or PCIe). Kernels of one class share their
 * fixed cost and the shape of their efficiency curve on real hardware
 * (LLMCompass measured A100's GeLU, softmax and layernorm with launch costs
 * of ~48, ~13 and ~53 us), so calibration fits each on its own. */
#define KERNEL_CLASS_LIST(X) X(gemm) X(gemv) X(attention) X(decode_attention) X(elementwise) X(activation) \
    X(reduction) X(softmax) \
    X(collective) X(grouped_gemm)
enum kernel_class {
#define KERNEL_CLASS_ENUM(k) KC_##k,
    KERNEL_CLASS_LIST(KERNEL_CLASS_ENUM)
#undef KERNEL_CLASS_ENUM
    KC_COUNT
};
/* 16: the M of a tensor core's MMA tile (m16n8k16); vendors' libraries switch
 * to matrix-vector kernels at or below it. */
#define KERNEL_GEMV_MAX_ROWS 16
/* A matmul of m x n outputs is a matrix-vector kernel: at most
 * KERNEL_GEMV_MAX_ROWS rows on either side. */
static inline bool kernel_is_gemv(int64_t m, int64_t n) { return (m < n ? m : n) <= KERNEL_GEMV_MAX_ROWS; }

/* One class's efficiency: achieved over the roofline, eff(n) = e x n / (n +
 * n_half) with e = by_prec[p] when given, else e_max; n is the kernel's size
 * (multiply-accumulates for gemm, gemv and attention, elements for
 * elementwise and reduction, bytes for collectives). */
struct kernel_efficiency {
    double e_max;                /* 0.01..1; 1: the roofline */
    double n_half;               /* size reaching half of e; 0: flat (no size dependence) */
    double t0_ns;                /* fixed time every kernel of the class adds (launch, pipeline
                                  * fill): t = t0 + t_roofline / e; 0: none */
    double by_prec[PREC_COUNT];  /* e for one precision; 0: e_max */
    double t0_by_prec[PREC_COUNT]; /* t0 of one precision's kernels (another kernel: another
                                  * launch and setup cost); 0: t0_ns */
};

struct chip_config {
    char name[FIELD_STR_MAX];
    int64_t num_sa;              /* systolic arrays (MXUs) */
    int64_t num_vu;              /* vector units */
    int64_t num_vu_ports;
    double hbm_bw_GBps;          /* GB = 2^30 B for HBM time under the neusim profile (chipsim Q11), else 1e9 B */
    int64_t hbm_latency_ns;
    int64_t vmem_size_MB;        /* MiB of on-chip SRAM */
    double freq_GHz;
    int64_t sa_dim;
    int64_t hbm_size_GB;         /* GiB */
    double ici_bw_GBps;          /* GB = 1e9 B for collectives (quirk chipsim Q11) */
    double dcn_bw_GBps;
    double pcie_bw_GBps;         /* GB = 2^30 B */
    int64_t ici_latency_ns;
    int64_t dcn_latency_ns;      /* unused by the reference */
    int64_t pcie_latency_ns;
    double TDP_W, min_power_W, avg_power_W, max_power_W;
    double HBM_GBps_per_W, ICI_GBps_per_W;
    char ICI_topology[FIELD_STR_MAX];
    double embodied_carbon_kgCO2;
    bool use_vu_for_small_matmul;
    double static_power_W_per_sa, static_power_W_per_vu, static_power_vmem_W;
    double static_power_ici_W, static_power_hbm_mc_W, static_power_hbm_phy_W;
    double static_power_other_W;
    double dynamic_power_W_per_SA, dynamic_power_W_per_VU, dynamic_power_vmem_W;
    double dynamic_power_ici_W_per_GBps, dynamic_power_hbm_W_per_GBps;
    double dynamic_power_other_W;
    char pg_config[FIELD_STR_MAX];
    bool enable_dvfs;
    /* npusim's own (FF_EXT: not in the reference's sim_config) */
    double power_cap_W;          /* sustained power limit the clock throttles to; 0: TDP_W */
    double idle_power_W;         /* published idle power; 0: unknown (the model's is its static power) */
    double mxu_efficiency;       /* achieved / peak MXU rate (0.05..1); 1: the roofline. Calibrated
                                  * from published training MFU where known (power_data_source) */
    double price_per_chip_hour_usd; /* on-demand price for the SLO stage's goodput per dollar;
                                     * 0: the reference's table by TPU version */
    double die_area_mm2;                    /* logic die area, all dies; 0 = not published */
    double dynamic_power_scale;  /* multiplies every dynamic power (SA, VU, Vmem, HBM, ICI); 1: as given.
                                  * Set so that the model's full-load power meets a measured maximum */
    /* Dense peaks per precision (sparse figures are not peaks), TFLOP/s with an
     * FMA counted as 2 (TOP/s for the integer formats); 0: the unit lacks the
     * precision. The matrix units always run bf16, at matrix_tflops[BF16] when
     * given, else at the peak of their geometry (chip_peak_sa_tflops). A chip
     * that declares no vector peak runs every format at its lanes' rate
     * (2 x num_vu x 1024 x f, the reference's model). Applied in the physical
     * profile only. */
    double matrix_tflops[PREC_COUNT];
    double vector_tflops[PREC_COUNT];
    /* On-chip memory levels, innermost first (traces/fields.h: name,
     * capacity_KiB per instance, fill_GBps). Empty (every TPU preset): the one
     * VMEM of vmem_size_MB with the reference's VMEM time. Given: the
     * outermost level's capacity tiles the HBM traffic, each level's traffic
     * is what tiling to its capacity moves into it, and its time that
     * traffic over fill_GBps; the slowest level is the op's VMEM time. */
    struct mem_levels memory_levels;
    struct kernel_efficiency kernel_eff[KC_COUNT];   /* physical profile only */
    /* Launch gaps (physical profile only): a kernel takes at least the time
     * the host needs to launch it, kernel_launch_ns, or graph_kernel_ns in a
     * phase run as a captured graph (graph_capture: GRAPH_NONE, GRAPH_DECODE,
     * GRAPH_ALL). 0: no gap. */
    int64_t kernel_launch_ns, graph_kernel_ns;
    char graph_capture[FIELD_STR_MAX];      /* "none", "decode", "all" */
    /* "ring": a collective takes p - 1 latency steps a phase; "direct": one
     * (a switch or full mesh, inside the link domain); "tree": ceil(log2 p)
     * (physical profile; opsgen.h, enum coll_algorithm). */
    char collective_algorithm[FIELD_STR_MAX];
    /* Each phase of a collective also pays this once, whatever the group
     * size: the kernel's start and its protocol's handshake (NCCL's base
     * latency, beside its per-hop latency ici_latency_ns; physical profile;
     * 0: none). */
    int64_t collective_base_ns;
    int64_t collective_direct_max_bytes;   /* collectives of at most this whole tensor: one step a phase */
    /* The output tile one SM (CTA) computes, in elements (physical profile;
     * 0: none): a GEMM runs in whole waves of num_sa tiles, the last wave's
     * idle arrays wasted (wave quantisation). */
    int64_t gemm_tile_m, gemm_tile_n;
    /* The matrix units apply block scales in the MMA (Blackwell): no vector
     * rescaling for a block-scaled matmul (physical profile only). */
    bool matrix_block_scales;
    /* The matrix units keep a matmul's partial sums across K themselves
     * (tensor cores in registers or tensor memory): no vector work per
     * array op (physical profile only; false: the vector units add each
     * K chunk's partial sums, chipsim's model of a TPU's MXU). */
    bool matrix_accumulates;
    /* The most pieces a GEMM of fewer tiles than units splits k into (0:
     * as many as the idle units allow; 1: none); matrix-vector kernels
     * (KERNEL_GEMV_MAX_ROWS rows) always split as far as they can. */
    int64_t gemm_split_k_max;
    /* The serving framework's host time per forward pass (a prefill, or one
     * decode step): step_overhead_ns once, layer_overhead_ns per layer, on
     * top of the kernels' time, and request_overhead_ns per sequence in
     * the pass (physical profile only; 0: none). */
    int64_t step_overhead_ns, layer_overhead_ns, request_overhead_ns;
    /* The chips its ICI (NVLink) joins at ici_bw_GBps: a collective group
     * larger runs on the scale-out network (opsgen/gen.h gen_axes). */
    int64_t link_domain_chips;              /* 0: not given */
    /* Documentation only, last: whoever compares chips for what they
     * compute (power/energy_memo.c) compares the bytes before these
     * (CHIP_CONFIG_COMPUTED_BYTES). */
    char power_data_source[FIELD_STR_MAX]; /* where TDP/idle/cap come from; "estimate" when not published */
    char calibration_source[FIELD_STR_MAX]; /* where mxu_efficiency comes from; "" = not calibrated */
    char hardware_source[FIELD_STR_MAX];    /* where the peaks, memory and interconnect figures come
                                             * from (docs/hardware.md); "" = not given */
    char process_node[FIELD_STR_MAX];       /* "TSMC 4N"; "" = not published */
    char embodied_carbon_source[FIELD_STR_MAX]; /* how embodied_carbon_kgCO2 was found */
    /* What the chip is, for the words pages and summaries use (chip_vocab);
     * it changes no result. */
    char kind[FIELD_STR_MAX];               /* "tpu", "nvidia_gpu", "amd_gpu" */
};
#define CHIP_CONFIG_COMPUTED_BYTES offsetof(struct chip_config, power_data_source)

extern const struct field_table chip_fields;

/* Defaults of the reference class. */
void chip_config_default(struct chip_config *c);

/* Derived rates, evaluated in the reference's order (chipsim.md §1). */
double chip_vmem_bw_GBps(const struct chip_config *c);
double chip_peak_sa_tflops(const struct chip_config *c);
double chip_peak_vu_tflops(const struct chip_config *c);
double chip_peak_tflops(const struct chip_config *c);
double chip_sa_bw_GBps(const struct chip_config *c);   /* (2*sa_dim*2*num_sa)*f */
double chip_vpu_bw_GBps(const struct chip_config *c);  /* (128*8*ports)*f */
int64_t chip_vu_speed(const struct chip_config *c);    /* num_vu*8*128 elements/cycle */
int64_t chip_vu_mult(const struct chip_config *c);     /* ceil(sa_dim/128*8*2) */

/* ---- precisions and efficiencies (physical profile) ---- */
enum chip_unit { UNIT_MATRIX, UNIT_VECTOR };
/* The dense peak of unit u in precision p, TFLOP/s; 0 when the unit lacks it. */
double chip_unit_peak_tflops(const struct chip_config *c, enum chip_unit u, enum precision p);
/* The precision a kernel asked in p runs in on unit u, as compilers do: p when
 * the unit has it; else, among formats of p's kind (float or integer; an
 * integer may then fall back to a float), the narrowest at least as wide, so
 * fp8 runs as fp16 or bf16 and int4 as int8; else the widest narrower one
 * (fp32 runs as bf16 passes, as on a TPU). Ties go to the table's order. */
enum precision chip_unit_precision(const struct chip_config *c, enum chip_unit u, enum precision p);
/* Time multiplier of unit u running in p against the rate its geometry gives
 * (1: the geometry's rate; 0.5: twice as fast). */
double chip_unit_time_scale(const struct chip_config *c, enum chip_unit u, enum precision p);
/* The efficiency curve class k runs on in precision p (-1: none): its own,
 * or gemv's for decode_attention when the chip declares neither its e_max
 * nor an e for p (e_max 0, the default). */
const struct kernel_efficiency *chip_kernel_eff(const struct chip_config *c, enum kernel_class k, int p);
/* Achieved over roofline of class k in precision p (-1: none declared) at size n. */
double chip_kernel_efficiency(const struct chip_config *c, enum kernel_class k, int p, double n);
/* The launch gap a kernel of phase ph (enum phase, traces/op.h) waits at
 * least (struct chip_config's kernel_launch_ns, graph_kernel_ns, graph_capture). */
int64_t chip_launch_gap_ns(const struct chip_config *c, int ph);
/* The fixed time of a kernel of class k in precision p (-1: the class's), ns. */
double chip_kernel_t0_ns(const struct chip_config *c, enum kernel_class k, int p);
/* An op's time from its slowest component (ns): plus its kernel class's
 * fixed time, at least its launch gap; the slowest alone for an op without
 * a kernel class (the neusim profile). The energy pass and the power cap
 * keep the difference when they re-time an op (power_op_fixed_ns). */
struct op;
int64_t chip_op_time_ns(const struct chip_config *c, const struct op *op, int64_t slowest_ns);
const char *kernel_class_name(enum kernel_class k);
struct op;
/* The number format an op computes in and the one the chip's unit runs it
 * in, as chipsim_run sets op->prec and op->prec_ran, for an op that was
 * timed elsewhere (a trace read back from CSV): from its tensors. Both -1
 * when its tensors name no format of traces/precision.h. */
void chipsim_op_format(const struct op *op, const struct chip_config *chip, int *prec, int *prec_ran);
/* The size n its kernel efficiency e n / (n + n_half) saw, for an op chipsim
 * timed (op->kernel_class set): multiply-accumulates for gemm, gemv and
 * attention, bytes for collectives, the first input's elements otherwise.
 * -1 under the reference's profile (no kernel class). */
double chipsim_op_kernel_size(const struct op *op);

/* The words for a chip's parts, by its kind (one row per kind of
 * chip_vocab_table in chip.c): TPUs keep the MXU and ICI of the model,
 * NVIDIA GPUs say tensor cores and NVLink, AMD GPUs matrix cores and
 * Infinity Fabric (docs/hardware.md maps the parts). */
struct chip_vocab {
    const char *kind;                 /* the chip's kind field */
    bool gpu;
    const char *unit, *units;         /* "chip", "chips"; "GPU", "GPUs" */
    const char *matrix;               /* the matrix units: "MXU", "tensor cores" */
    const char *matrix_peak;          /* "MXU peak", "tensor-core peak" */
    const char *vector;               /* the vector units: "VPU", "CUDA cores" */
    const char *link;                 /* the scale-up interconnect: "ICI", "NVLink" */
    int64_t default_domain_chips;     /* link_domain_chips when 0 (a GPU: one 8-GPU server); 0: none */
};
const struct chip_vocab *chip_vocab(const struct chip_config *c);
/* The chips one link domain joins (link_domain_chips, else the kind's
 * default); 0: unknown. */
int64_t chip_link_domain(const struct chip_config *c);


#endif
