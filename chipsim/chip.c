/* chip.c — the chip field table (defaults = reference ChipConfig) and derived rates. */
#include "chipsim/chip.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "traces/op.h"

#define I(k, d, fl, ...) FIELD(#k, FT_INT, offsetof(struct chip_config, k), d, NULL, fl, __VA_ARGS__)
#define D(k, d, fl, ...) FIELD(#k, FT_DOUBLE, offsetof(struct chip_config, k), d, NULL, fl, __VA_ARGS__)
#define B(k, d, ...) FIELD(#k, FT_BOOL, offsetof(struct chip_config, k), d, NULL, 0, __VA_ARGS__)
#define S(k, d, fl, ...) FIELD(#k, FT_STR, offsetof(struct chip_config, k), 0, d, fl, __VA_ARGS__)
/* Required, positive, non-negative; a rate (GB/s, GHz) is at least FIELD_RATE_MIN. */
enum { R = FF_REQUIRED | FF_POSITIVE, P = FF_POSITIVE, N = FF_NONNEG, RATE = FF_RATE };
/* "matrix_tflops.bf16", ...: one field per precision (traces/precision.h). */
#define PEAK_DOC_matrix_tflops "the matrix units (systolic arrays, tensor cores)"
#define PEAK_DOC_vector_tflops "the vector units (VPU, CUDA cores)"
#define PEAK_FIELD(unit, e, n, t, b, f)                                                                          \
    FIELD(#unit "." n, FT_DOUBLE, offsetof(struct chip_config, unit[PREC_##e]), 0, NULL, N | FF_EXT, .hi = 1e7, \
          .doc = "Dense " n " peak of " PEAK_DOC_##unit "; 0: not declared (docs/hardware.md says what runs "      \
                 "then). Physical profile only."),
/* Each kernel class: what it is and the size n its efficiency curve is read at. */
#define KC_DOC_gemm "matrix multiplications"
#define KC_DOC_gemv "matrix-vector products (at most 16 rows)"
#define KC_DOC_attention "attention kernels"
#define KC_DOC_decode_attention "decode attention kernels (a step's queries against the KV cache)"
#define KC_DOC_elementwise "elementwise vector ops"
#define KC_DOC_activation "activation functions"
#define KC_DOC_reduction "reductions and normalisations"
#define KC_DOC_softmax "softmaxes"
#define KC_DOC_collective "collective transfers over ICI and DCN (latency steps apart)"
#define KC_DOC_grouped_gemm "grouped matrix multiplications (a fused MoE kernel's experts, wider than a GEMV)"
#define KC_SIZE_gemm "MACs"
#define KC_SIZE_gemv "MACs"
#define KC_SIZE_attention "MACs"
#define KC_SIZE_decode_attention "MACs"
#define KC_SIZE_elementwise "elements"
#define KC_SIZE_activation "elements"
#define KC_SIZE_reduction "elements"
#define KC_SIZE_softmax "elements"
#define KC_SIZE_collective "bytes"
#define KC_SIZE_grouped_gemm "MACs"
/* e_max's default, its least value and what its doc adds: decode
 * attention, not declared (e_max 0), runs as gemv (chip_kernel_eff). */
#define KC_EMAX(k, d, lo, note) d
#define KC_EMAX_LO(k, d, lo, note) lo
#define KC_EMAX_NOTE(k, d, lo, note) note
#define KC_E_gemm gemm, 1.0, 0.01, ""
#define KC_E_gemv gemv, 1.0, 0.01, ""
#define KC_E_attention attention, 1.0, 0.01, ""
#define KC_E_decode_attention decode_attention, 0.0, 0.0, " 0 (the default): a format without its own e runs as gemv, with every gemv field."
#define KC_E_elementwise elementwise, 1.0, 0.01, ""
#define KC_E_activation activation, 1.0, 0.01, ""
#define KC_E_reduction reduction, 1.0, 0.01, ""
#define KC_E_softmax softmax, 1.0, 0.01, ""
#define KC_E_collective collective, 1.0, 0.01, ""
#define KC_E_grouped_gemm grouped_gemm, 0.0, 0.0, " 0 (the default): a format without its own e runs as gemm, with every gemm field."
#define KC_APPLY(m, ...) m(__VA_ARGS__)
#define KC_E(m, k) KC_APPLY(m, KC_E_##k)
/* "kernel_efficiency.gemm.e_max", ".n_half", then one per precision. */
#define EFF_PREC_FIELD(k, e, n, t, b, f)                                                                  \
    FIELD("kernel_efficiency." #k "." n, FT_DOUBLE, offsetof(struct chip_config, kernel_eff[KC_##k].by_prec[PREC_##e]), \
          0, NULL, N | FF_EXT, .hi = 1.0, .doc = "e_max of " KC_DOC_##k " in " n " (0: e_max)."),
/* "kernel_efficiency.gemm.fp32_t0_ns": one fixed time per precision. */
#define EFF_T0_FIELD(k, e, n, t, b, f)                                                                       \
    FIELD("kernel_efficiency." #k "." n "_t0_ns", FT_DOUBLE,                                               \
          offsetof(struct chip_config, kernel_eff[KC_##k].t0_by_prec[PREC_##e]), 0, NULL, N | FF_EXT, .hi = 1e9, \
          .doc = "t0_ns of " KC_DOC_##k " in " n " (0: t0_ns)."),
#define EFF_FIELDS(k)                                                                                      \
    FIELD("kernel_efficiency." #k ".e_max", FT_DOUBLE, offsetof(struct chip_config, kernel_eff[KC_##k].e_max), \
          KC_E(KC_EMAX, k), NULL, FF_EXT, .lo = KC_E(KC_EMAX_LO, k), .hi = 1.0,                            \
          .doc = "The largest fraction of the roofline " KC_DOC_##k " reach: the time of one of n "         \
                 KC_SIZE_##k " is divided by e_max x n / (n + n_half). Physical profile only."              \
                 KC_E(KC_EMAX_NOTE, k)),                                                                   \
    FIELD("kernel_efficiency." #k ".n_half", FT_DOUBLE, offsetof(struct chip_config, kernel_eff[KC_##k].n_half), 0, \
          NULL, N | FF_EXT, .unit = KC_SIZE_##k,                                                           \
          .doc = "The size at which " KC_DOC_##k " reach half of e_max (0: every size reaches e_max)."),  \
    FIELD("kernel_efficiency." #k ".t0_ns", FT_DOUBLE, offsetof(struct chip_config, kernel_eff[KC_##k].t0_ns), 0, \
          NULL, N | FF_EXT, .hi = 1e9,                                                                     \
          .doc = "A fixed time added to each of the " KC_DOC_##k " (launch, synchronisation)."),          \
    PRECISION_LIST(EFF_PREC_FIELD, k)                                                                     \
    PRECISION_LIST(EFF_T0_FIELD, k)

/* Order = the reference class's field order (used for the sim_config dump).
 * "Unused" fields are read and kept, as the reference keeps them, but no
 * result depends on them. */
static const struct field_desc chip_field_list[] = {
    S(name, "5p", 0, .doc = "The chip's label in outputs."),
    I(num_sa, 8, R, .lo = 1, .hi = FIELD_UNITS_MAX, .doc = "Systolic arrays (matrix units) per chip."),
    I(num_vu, 6, R, .lo = 1, .hi = FIELD_UNITS_MAX,
      .doc = "Vector units per chip, each 8 x 128 lanes (a GPU: lanes / 1024)."),
    I(num_vu_ports, 6, R, .lo = 1, .hi = FIELD_UNITS_MAX,
      .doc = "Vector-memory ports; the vector memory's bandwidth is ports x 8 x 128 x 4 bytes per cycle."),
    D(hbm_bw_GBps, 2765.0, R | RATE, .doc = "HBM (main memory) bandwidth per chip."),
    I(hbm_latency_ns, 500, N, .doc = "The least time of an operator's HBM traffic."),
    I(vmem_size_MB, 128, R,
      .doc = "On-chip vector memory (VMEM, a GPU's L2) per chip: operators tile to fit it; also sizes its power."),
    D(freq_GHz, 1.75, R | RATE, .lo = FIELD_RATE_MIN, .hi = 1000, .doc = "Clock frequency of the compute units."),
    I(sa_dim, 128, R, .lo = 1, .hi = FIELD_UNITS_MAX,
      .doc = "Side of each systolic array (sa_dim x sa_dim multiply-accumulate cells)."),
    I(hbm_size_GB, 95, R, .doc = "HBM capacity per chip; a run whose footprint exceeds it is out of memory."),
    D(ici_bw_GBps, 200.0, R | RATE, .doc = "Inter-chip interconnect (ICI, NVLink) bandwidth per chip and torus axis: a collective over k axes gets k times it."),
    D(dcn_bw_GBps, 25.0, P | RATE, .doc = "Data-centre network bandwidth per chip, between pods."),
    D(pcie_bw_GBps, 32.0, P | RATE, .doc = "Host link bandwidth, used when the KV cache is swapped to host memory."),
    I(ici_latency_ns, 3330, N, .doc = "Latency of one step of an ICI collective: one over p chips takes at least p - 1 steps."),
    I(dcn_latency_ns, 3700, N, .doc = "Latency of one step of a DCN collective (training across pods)."),
    I(pcie_latency_ns, 400, N, .doc = "The least time of a KV-cache swap over the host link."),
    D(TDP_W, 350.0, N, .doc = "Thermal design power: the power cap when power_cap_W is 0."),
    D(min_power_W, 1.0, N, .doc = "Unused (the reference's ChipConfig)."),
    D(avg_power_W, 1.0, N, .doc = "Unused (the reference's ChipConfig)."),
    D(max_power_W, 331.0, N, .doc = "Unused (the reference's ChipConfig)."),
    D(HBM_GBps_per_W, 123.5, N, .doc = "Unused (the reference's ChipConfig)."),
    D(ICI_GBps_per_W, 56.583, N, .doc = "Unused (the reference's ChipConfig)."),
    S(ICI_topology, "TORUS_3D", 0, .one_of = "TORUS_2D|TORUS_3D",
      .doc = "Shape of the ICI network: it sets the bisection bandwidth of all-to-alls (DLRM, MoE) and how chips split over axes."),
    D(embodied_carbon_kgCO2, 585.0, N, .doc = "Carbon emitted making one chip (with its share of the board)."),
    B(use_vu_for_small_matmul, 1,
      .doc = "Run a matmul on the vector units when the systolic arrays would be over 4 times slower (small matmuls)."),
    D(static_power_W_per_sa, 1.35868996, N, .doc = "Leakage power of one systolic array."),
    D(static_power_W_per_vu, 0.475076728, N, .doc = "Leakage power of one vector unit."),
    D(static_power_vmem_W, 24.21353615, N, .doc = "Leakage power of the vector memory."),
    D(static_power_ici_W, 6.114104803, N, .doc = "Leakage power of the ICI links."),
    D(static_power_hbm_mc_W, 10.264041296, N, .doc = "Leakage power of the HBM memory controllers."),
    D(static_power_hbm_phy_W, 15.396061944, N, .doc = "Leakage power of the HBM physical interface."),
    D(static_power_other_W, 44.82811018, N, .doc = "Leakage power of everything else on the chip (never gated)."),
    D(dynamic_power_W_per_SA, 28.19413333, N, .doc = "Dynamic power of one systolic array while busy."),
    D(dynamic_power_W_per_VU, 2.65216, N, .doc = "Dynamic power of one vector unit while busy."),
    D(dynamic_power_vmem_W, 50.18368, N, .doc = "Dynamic power of the vector memory at full bandwidth."),
    D(dynamic_power_ici_W_per_GBps, 0.01767315271, N, .doc = "Dynamic ICI power per GB/s carried."),
    D(dynamic_power_hbm_W_per_GBps, 0.01261538462, N, .doc = "Dynamic HBM power per GB/s carried."),
    D(dynamic_power_other_W, 0.0, N,
      .doc = "Power drawn whenever the chip runs an operator, whatever its units do (clocks, schedulers, caches); "
             "the GPU presets fit it to measured serving power."),
    S(pg_config, "NoPG", 0, .doc = "Unused: the power-gating strategy comes from --pg (docs/power-gating.md)."),
    B(enable_dvfs, 0, .doc = "Take component powers from the voltage-frequency tables in the energy pass (the reference's DVFS tables)."),
    /* npusim's own: the power cap the physical profile throttles to (0: TDP_W),
     * the published idle power, and where those figures come from. */
    D(power_cap_W, 0.0, N | FF_EXT,
      .doc = "The power an operator may draw: above it its compute is slowed to fit (0: TDP_W). Physical profile only."),
    D(idle_power_W, 0.0, N | FF_EXT,
      .doc = "Published power of an idle chip, for fleets and carbon (0: the static powers' sum)."),
    S(power_data_source, "", FF_EXT, .doc = "Where the power figures come from (a citation)."),
    /* Calibration of the dynamic powers to a measured maximum (physical profile only). */
    D(dynamic_power_scale, 1.0, FF_EXT, .lo = 0.01, .hi = 10.0,
      .doc = "Multiplies the units' dynamic powers (not dynamic_power_other_W): to match a measured maximum, or "
             "1 - dynamic_power_other_W / (TDP_W - idle_power_W) on the fitted GPU presets. Physical profile only."),
    /* The achieved fraction of the MXU peak on large matmuls (physical profile only). */
    D(mxu_efficiency, 1.0, FF_EXT, .lo = 0.05, .hi = 1.0,
      .doc = "The achieved fraction of the systolic arrays' peak: every matrix-unit time is divided by it. "
             "Physical profile only."),
    S(calibration_source, "", FF_EXT, .doc = "Where mxu_efficiency (and a measured dynamic_power_scale) come from; power fits: power_data_source."),
    D(price_per_chip_hour_usd, 0.0, N | FF_EXT, .doc = "Rental price of one chip for an hour, for cost per token."),
    S(hardware_source, "", FF_EXT, .doc = "Where the chip's figures come from (datasheets, papers)."),
    S(process_node, "", FF_EXT, .doc = "Manufacturing process, as a label (\"TSMC N4\")."),
    D(die_area_mm2, 0.0, N | FF_EXT, .hi = 1e5, .doc = "Die area, as a label beside the embodied carbon."),
    S(embodied_carbon_source, "", FF_EXT, .doc = "Where embodied_carbon_kgCO2 comes from."),
    S(kind, "tpu", FF_EXT, .one_of = "tpu|nvidia_gpu|amd_gpu",
      .doc = "What the chip is: the words summaries and pages use for its parts (MXU and ICI on a TPU, tensor "
             "cores and NVLink on an NVIDIA GPU, matrix cores and Infinity Fabric on an AMD GPU)."),
    I(link_domain_chips, 0, N | FF_EXT, .hi = FIELD_UNITS_MAX,
      .doc = "Chips one ICI/NVLink domain joins at ici_bw_GBps (an 8-GPU server: 8; NVL72: 72). A "
             "collective group of more chips runs on the scale-out network at dcn_bw_GBps and "
             "dcn_latency_ns, and the run says so (0: not given; a GPU then assumes 8, a TPU no bound)."),
    I(kernel_launch_ns, 0, N | FF_EXT, .hi = 1e9,
      .doc = "Host time to launch one kernel outside a captured graph (driver and framework): a shorter "
             "kernel waits for its launch, so an op takes at least this (physical profile; 0: no gap)."),
    I(graph_kernel_ns, 0, N | FF_EXT, .hi = 1e9,
      .doc = "The same for a kernel inside a captured graph (CUDA Graphs, HIP graphs) (0: no gap)."),
    I(gemm_tile_m, 0, N | FF_EXT, .hi = 65536,
      .doc = "Rows of the output tile one SM or matrix unit computes at a time (a GPU's CTA tile, e.g. "
             "128): with gemm_tile_n, a GEMM runs in whole waves of num_sa tiles and the last wave's idle "
             "units are wasted, so a GEMM of few tiles reaches less of the peak (physical; 0: no waves)."),
    I(gemm_tile_n, 0, N | FF_EXT, .hi = 65536,
      .doc = "Columns of that output tile (e.g. 128 or 256; 0: no waves)."),
    /* npusim's own: tuned GEMM libraries split k over idle units when a
     * GEMM has fewer tiles than units (cuBLAS, TensorRT-LLM); others split
     * it into few pieces or none (ROCm/aiter PR 1092: an fp8 GEMM of 128 x
     * 1280 x 8192 on MI300X in 80.9 us untuned, 12.2 us tuned). */
    I(gemm_split_k_max, 0, N | FF_EXT, .hi = 65536,
      .doc = "The most pieces a GEMM of more than 16 rows splits k into when it has fewer output tiles than "
             "units (split-K): 0 as many as the idle units allow, as tuned libraries do; 1 none, one tile "
             "per unit and the rest idle; matrix-vector kernels of up to 16 rows always split (physical "
             "profile, with gemm_tile_m and gemm_tile_n)."),
    /* npusim's own: Blackwell's tensor cores take MXFP8/MXFP4/NVFP4 block
     * scales in the MMA itself (NVIDIA's Blackwell architecture: "micro-
     * tensor scaling"); Hopper promotes fp8 partial sums on the CUDA cores. */
    FIELD("matrix_block_scales", FT_BOOL, offsetof(struct chip_config, matrix_block_scales), 0, NULL, FF_EXT,
          .doc = "The matrix units apply block scales themselves (Blackwell's block-scaled MMA for MXFP8, MXFP4, "
                 "NVFP4): a block-scaled matmul moves its scales but does no rescaling on the vector units "
                 "(physical profile; false: the vector units rescale, as on Hopper)."),
    /* npusim's own: a GPU's MMA accumulates in registers (Hopper) or tensor
     * memory (Blackwell); chipsim charges the vector units for adding each
     * K chunk's partial sums, which binds a Blackwell fp4 matmul. */
    FIELD("matrix_accumulates", FT_BOOL, offsetof(struct chip_config, matrix_accumulates), 0, NULL, FF_EXT,
          .doc = "The matrix units keep a matmul's partial sums across K themselves (tensor cores accumulate in "
                 "registers or tensor memory): no vector-unit work per array operation (physical profile; "
                 "false: the vector units add each K chunk's partial sums, as chipsim models a TPU)."),
    I(step_overhead_ns, 0, N | FF_EXT, .hi = 1e10,
      .doc = "The serving framework's host time per forward pass (a prefill or one decode step: scheduling, "
             "sampling, synchronisation) the kernels do not hide (physical profile; 0: none)."),
    I(layer_overhead_ns, 0, N | FF_EXT, .hi = 1e9,
      .doc = "The same per transformer layer and forward pass (physical profile; 0: none)."),
    I(request_overhead_ns, 0, N | FF_EXT, .hi = 1e9,
      .doc = "The same per sequence in a forward pass (sampling, detokenisation, the scheduler's "
             "bookkeeping for each request), so a pass of B sequences adds B times this (physical "
             "profile; 0: none)."),
    /* npusim's own: NCCL's NVLS and the engines' one-shot and two-shot
     * all-reduce kernels reach every peer through NVSwitch in one hop;
     * NCCL's double binary trees take log2 p hops. */
    S(collective_algorithm, "ring", FF_EXT, .one_of = "ring|direct|tree",
      .doc = "How a collective pays its latency (physical profile): ring, one latency step "
             "(ici_latency_ns, or dcn_latency_ns past the link domain) for each of p - 1 steps a "
             "phase (a TPU torus); direct, the chips reach every peer in one hop (NVSwitch, a full "
             "mesh), so one step a phase inside the link domain: an all-gather or reduce-scatter "
             "pays one, an all-reduce two; tree, ceil(log2 p) steps a phase (NCCL's trees)."),
    I(collective_base_ns, 0, N | FF_EXT, .hi = 1e9,
      .doc = "Latency each phase of a collective pays once, whatever the group size (physical "
             "profile): the kernel's start and its protocol's handshake, NCCL's base latency; "
             "the steps of collective_algorithm add ici_latency_ns each. An all-gather or "
             "reduce-scatter has one phase, an all-reduce two. 0: none."),
    I(collective_direct_max_bytes, 0, N | FF_EXT, .hi = 1e12,
      .doc = "Collectives inside the link domain whose whole tensor (an all-reduce's input, an "
             "all-gather's output, a reduce-scatter's input) is at most this many bytes pay one latency "
             "step a phase, whatever collective_algorithm says (physical profile): the serving engines' "
             "custom all-reduce kernels (vLLM's, SGLang's and TensorRT-LLM's one-shot and two-shot) reach "
             "every peer through NVSwitch directly below a size (vLLM: 8 MiB on fully connected NVLink) "
             "and leave larger ones to NCCL. The GPU presets carry 8388608; 0: none (every "
             "collective as collective_algorithm says, as an engine without custom kernels runs them)."),
    S(graph_capture, "decode", FF_EXT, .one_of = "none|decode|all",
      .doc = "Which phases run as captured graphs, taking graph_kernel_ns per kernel instead of "
             "kernel_launch_ns: none, decode (vLLM and TensorRT-LLM capture the decode steps) or all."),
    /* Dense peaks per precision and kernel efficiencies (physical profile only). */
    FIELD("memory_levels", FT_MEM_LEVELS, offsetof(struct chip_config, memory_levels), 0, NULL, FF_EXT,
          .doc = "On-chip memory levels, innermost first, each {name, capacity_KiB per instance, fill_GBps "
                 "from the next level out}: operators tile to each level (docs/hardware.md)."),
    PRECISION_LIST(PEAK_FIELD, matrix_tflops)
    PRECISION_LIST(PEAK_FIELD, vector_tflops)
    KERNEL_CLASS_LIST(EFF_FIELDS)
};

const struct field_table chip_fields = {
    "chip", chip_field_list, sizeof chip_field_list / sizeof chip_field_list[0]
};

void chip_config_default(struct chip_config *c) { fields_set_defaults(&chip_fields, c); }

double chip_vmem_bw_GBps(const struct chip_config *c)
{
    return (double)c->num_vu_ports * c->freq_GHz * 8 * 128 * 4;
}

double chip_peak_sa_tflops(const struct chip_config *c)
{
    return (double)(c->num_sa * c->sa_dim * c->sa_dim * 2) * c->freq_GHz * 1e9 / 1e12;
}

double chip_peak_vu_tflops(const struct chip_config *c)
{
    return (double)(c->num_vu * 1024) * c->freq_GHz * 1e9 / 1e12;
}

double chip_peak_tflops(const struct chip_config *c)
{
    return chip_peak_sa_tflops(c) + chip_peak_vu_tflops(c);
}

double chip_sa_bw_GBps(const struct chip_config *c)
{
    return (double)((c->sa_dim + c->sa_dim) * 2 * c->num_sa) * c->freq_GHz;
}

double chip_vpu_bw_GBps(const struct chip_config *c)
{
    return (double)(128 * 8 * c->num_vu_ports) * c->freq_GHz;
}

int64_t chip_vu_speed(const struct chip_config *c) { return c->num_vu * 8 * 128; }

int64_t chip_vu_mult(const struct chip_config *c)
{
    return (int64_t)ceil((double)c->sa_dim / 128 * 8 * 2);
}

/* ---- precisions and efficiencies ---- */

static bool unit_has(const struct chip_config *c, enum chip_unit u, enum precision p)
{
    return chip_unit_peak_tflops(c, u, p) > 0;
}

static bool vector_declared(const struct chip_config *c)
{
    for (int p = 0; p < PREC_COUNT; p++)
        if (c->vector_tflops[p] > 0)
            return true;
    return false;
}

/* The rate of the unit's geometry, in the tables' convention (FMA = 2). */
static double geometry_tflops(const struct chip_config *c, enum chip_unit u)
{
    return u == UNIT_MATRIX ? chip_peak_sa_tflops(c) : 2 * chip_peak_vu_tflops(c);
}

double chip_unit_peak_tflops(const struct chip_config *c, enum chip_unit u, enum precision p)
{
    if (u == UNIT_MATRIX)
        return c->matrix_tflops[p] > 0 ? c->matrix_tflops[p] : p == PREC_BF16 ? geometry_tflops(c, u) : 0;
    return !vector_declared(c) ? geometry_tflops(c, u) : c->vector_tflops[p];
}

/* The narrowest format of the unit at least as wide as want (else the widest
 * narrower one), among formats of want's kind when same_kind; -1 if none. */
static int fallback_among(const struct chip_config *c, enum chip_unit u, enum precision p, bool same_kind)
{
    const struct precision_info *want = precision_info(p);
    int wider = -1, narrower = -1;
    for (int q = 0; q < PREC_COUNT; q++) {
        const struct precision_info *i = precision_info((enum precision)q);
        if (q == (int)p || !unit_has(c, u, (enum precision)q) || (same_kind && i->is_float != want->is_float))
            continue;
        if (i->bits < want->bits) {
            if (narrower < 0 || i->bits > precision_info((enum precision)narrower)->bits)
                narrower = q;
        } else if (wider < 0 || i->bits < precision_info((enum precision)wider)->bits) {
            wider = q;
        }
    }
    return wider >= 0 ? wider : narrower;
}

enum precision chip_unit_precision(const struct chip_config *c, enum chip_unit u, enum precision p)
{
    if (unit_has(c, u, p))
        return p;
    /* A float runs as a float (fp8 cannot be computed as int8); an integer
     * format as an integer one, else as a float. */
    int q = fallback_among(c, u, p, true);
    if (q < 0)
        q = fallback_among(c, u, p, false);
    return q >= 0 ? (enum precision)q : PREC_BF16;
}

double chip_unit_time_scale(const struct chip_config *c, enum chip_unit u, enum precision p)
{
    double peak = chip_unit_peak_tflops(c, u, p), geo = geometry_tflops(c, u);
    return peak > 0 && geo > 0 ? geo / peak : 1.0;
}

const struct kernel_efficiency *chip_kernel_eff(const struct chip_config *c, enum kernel_class k, int p)
{
    const struct kernel_efficiency *ke = &c->kernel_eff[k];
    /* decode attention without an e_max or an e for p: a matrix-vector
     * kernel like the others */
    if (k == KC_decode_attention && ke->e_max <= 0 && !(p >= 0 && ke->by_prec[p] > 0))
        return &c->kernel_eff[KC_gemv];
    /* a grouped GEMM without one: a GEMM like the others */
    if (k == KC_grouped_gemm && ke->e_max <= 0 && !(p >= 0 && ke->by_prec[p] > 0))
        return &c->kernel_eff[KC_gemm];
    return ke;
}

double chip_kernel_efficiency(const struct chip_config *c, enum kernel_class k, int p, double n)
{
    const struct kernel_efficiency *ke = chip_kernel_eff(c, k, p);
    double e = p >= 0 && ke->by_prec[p] > 0 ? ke->by_prec[p] : ke->e_max;
    if (ke->n_half > 0 && n >= 0)
        e *= n / (n + ke->n_half);
    /* A kernel of size 0 (or a curve far below its knee) still runs. */
    return e > 1e-6 ? e : 1e-6;
}

int64_t chip_launch_gap_ns(const struct chip_config *c, int ph)
{
    bool captured = !strcmp(c->graph_capture, "all") || (ph == PHASE_DECODE && !strcmp(c->graph_capture, "decode"));
    return captured ? c->graph_kernel_ns : c->kernel_launch_ns;
}

int64_t chip_op_time_ns(const struct chip_config *c, const struct op *op, int64_t slowest_ns)
{
    if (op->kernel_class < 0)
        return slowest_ns;
    /* A kernel shorter than its launch waits for it: the host launches
     * kernels ahead of the device, so the gap only shows when it is longer
     * (captured graphs launch with graph_kernel_ns). */
    double t0 = chip_kernel_t0_ns(c, (enum kernel_class)op->kernel_class, op->prec);
    int64_t exe = t0 > 0 ? (int64_t)ceil((double)slowest_ns + t0) : slowest_ns;
    int64_t gap = chip_launch_gap_ns(c, op->phase);
    return gap > exe ? gap : exe;
}

double chip_kernel_t0_ns(const struct chip_config *c, enum kernel_class k, int p)
{
    const struct kernel_efficiency *ke = &c->kernel_eff[k];
    if ((k == KC_decode_attention || k == KC_grouped_gemm) && ke->t0_ns <= 0 && !(p >= 0 && ke->t0_by_prec[p] > 0))
        ke = chip_kernel_eff(c, k, p);   /* no fixed time of its own: its curve's */
    return p >= 0 && ke->t0_by_prec[p] > 0 ? ke->t0_by_prec[p] : ke->t0_ns;
}

const char *kernel_class_name(enum kernel_class k)
{
    static const char *const names[KC_COUNT] = {
#define KERNEL_CLASS_NAME(k) #k,
        KERNEL_CLASS_LIST(KERNEL_CLASS_NAME)
#undef KERNEL_CLASS_NAME
    };
    return names[k];
}

/* One row per kind of chip (the kind field's values). */
static const struct chip_vocab chip_vocab_table[] = {
    { "tpu", false, "chip", "chips", "MXU", "MXU peak", "VPU", "ICI", 0 },
    { "nvidia_gpu", true, "GPU", "GPUs", "tensor cores", "tensor-core peak", "CUDA cores", "NVLink", 8 },
    { "amd_gpu", true, "GPU", "GPUs", "matrix cores", "matrix-core peak", "stream processors", "Infinity Fabric", 8 },
};

const struct chip_vocab *chip_vocab(const struct chip_config *c)
{
    for (size_t i = 0; i < sizeof chip_vocab_table / sizeof chip_vocab_table[0]; i++)
        if (!strcmp(c->kind, chip_vocab_table[i].kind))
            return &chip_vocab_table[i];
    return &chip_vocab_table[0];   /* the loader admits only the table's kinds */
}

int64_t chip_link_domain(const struct chip_config *c)
{
    return c->link_domain_chips > 0 ? c->link_domain_chips : chip_vocab(c)->default_domain_chips;
}
