/* chip.c — the chip field table (defaults = reference ChipConfig) and derived rates. */
#include "chipsim/chip.h"

#include <math.h>
#include <stddef.h>

#define I(k, d, fl, ...) FIELD(#k, FT_INT, offsetof(struct chip_config, k), d, NULL, fl, __VA_ARGS__)
#define D(k, d, fl, ...) FIELD(#k, FT_DOUBLE, offsetof(struct chip_config, k), d, NULL, fl, __VA_ARGS__)
#define B(k, d) FIELD(#k, FT_BOOL, offsetof(struct chip_config, k), d, NULL, 0)
#define S(k, d, fl, ...) FIELD(#k, FT_STR, offsetof(struct chip_config, k), 0, d, fl, __VA_ARGS__)
/* Required, positive, non-negative; a rate (GB/s, GHz) is at least FIELD_RATE_MIN. */
enum { R = FF_REQUIRED | FF_POSITIVE, P = FF_POSITIVE, N = FF_NONNEG, RATE = FF_RATE };
/* "matrix_tflops.bf16", ...: one field per precision (traces/precision.h). */
#define PEAK_FIELD(unit, e, n, t, b, f) \
    FIELD(#unit "." n, FT_DOUBLE, offsetof(struct chip_config, unit[PREC_##e]), 0, NULL, N | FF_EXT, .hi = 1e7),
/* "kernel_efficiency.gemm.e_max", ".n_half", then one per precision. */
#define EFF_PREC_FIELD(k, e, n, t, b, f)                                                                  \
    FIELD("kernel_efficiency." #k "." n, FT_DOUBLE, offsetof(struct chip_config, kernel_eff[KC_##k].by_prec[PREC_##e]), \
          0, NULL, N | FF_EXT, .hi = 1.0),
/* "kernel_efficiency.gemm.fp32_t0_ns": one fixed time per precision. */
#define EFF_T0_FIELD(k, e, n, t, b, f)                                                                       \
    FIELD("kernel_efficiency." #k "." n "_t0_ns", FT_DOUBLE,                                               \
          offsetof(struct chip_config, kernel_eff[KC_##k].t0_by_prec[PREC_##e]), 0, NULL, N | FF_EXT, .hi = 1e9),
#define EFF_FIELDS(k)                                                                                      \
    FIELD("kernel_efficiency." #k ".e_max", FT_DOUBLE, offsetof(struct chip_config, kernel_eff[KC_##k].e_max), 1.0, \
          NULL, FF_EXT, .lo = 0.01, .hi = 1.0),                                                            \
    FIELD("kernel_efficiency." #k ".n_half", FT_DOUBLE, offsetof(struct chip_config, kernel_eff[KC_##k].n_half), 0, \
          NULL, N | FF_EXT),                                                                               \
    FIELD("kernel_efficiency." #k ".t0_ns", FT_DOUBLE, offsetof(struct chip_config, kernel_eff[KC_##k].t0_ns), 0, \
          NULL, N | FF_EXT, .hi = 1e9),                                                                    \
    PRECISION_LIST(EFF_PREC_FIELD, k)                                                                     \
    PRECISION_LIST(EFF_T0_FIELD, k)

/* Order = the reference class's field order (used for the sim_config dump). */
static const struct field_desc chip_field_list[] = {
    S(name, "5p", 0),
    I(num_sa, 8, R, .lo = 1, .hi = FIELD_UNITS_MAX), I(num_vu, 6, R, .lo = 1, .hi = FIELD_UNITS_MAX),
    I(num_vu_ports, 6, R, .lo = 1, .hi = FIELD_UNITS_MAX),
    D(hbm_bw_GBps, 2765.0, R | RATE), I(hbm_latency_ns, 500, N), I(vmem_size_MB, 128, R),
    D(freq_GHz, 1.75, R | RATE, .lo = FIELD_RATE_MIN, .hi = 1000), I(sa_dim, 128, R, .lo = 1, .hi = FIELD_UNITS_MAX), I(hbm_size_GB, 95, R),
    D(ici_bw_GBps, 200.0, R | RATE), D(dcn_bw_GBps, 25.0, P | RATE), D(pcie_bw_GBps, 32.0, P | RATE),
    I(ici_latency_ns, 3330, N), I(dcn_latency_ns, 3700, N), I(pcie_latency_ns, 400, N),
    D(TDP_W, 350.0, N), D(min_power_W, 1.0, N), D(avg_power_W, 1.0, N), D(max_power_W, 331.0, N),
    D(HBM_GBps_per_W, 123.5, N), D(ICI_GBps_per_W, 56.583, N),
    S(ICI_topology, "TORUS_3D", 0, .one_of = "TORUS_2D|TORUS_3D"),
    D(embodied_carbon_kgCO2, 585.0, N),
    B(use_vu_for_small_matmul, 1),
    D(static_power_W_per_sa, 1.35868996, N), D(static_power_W_per_vu, 0.475076728, N),
    D(static_power_vmem_W, 24.21353615, N), D(static_power_ici_W, 6.114104803, N),
    D(static_power_hbm_mc_W, 10.264041296, N), D(static_power_hbm_phy_W, 15.396061944, N),
    D(static_power_other_W, 44.82811018, N),
    D(dynamic_power_W_per_SA, 28.19413333, N), D(dynamic_power_W_per_VU, 2.65216, N),
    D(dynamic_power_vmem_W, 50.18368, N), D(dynamic_power_ici_W_per_GBps, 0.01767315271, N),
    D(dynamic_power_hbm_W_per_GBps, 0.01261538462, N), D(dynamic_power_other_W, 0.0, N),
    S(pg_config, "NoPG", 0),
    B(enable_dvfs, 0),
    /* npusim's own: the power cap the physical profile throttles to (0: TDP_W),
     * the published idle power, and where those figures come from. */
    D(power_cap_W, 0.0, N | FF_EXT), D(idle_power_W, 0.0, N | FF_EXT),
    S(power_data_source, "", FF_EXT),
    /* Calibration of the dynamic powers to a measured maximum (physical profile only). */
    D(dynamic_power_scale, 1.0, FF_EXT, .lo = 0.01, .hi = 10.0),
    /* The achieved fraction of the MXU peak on large matmuls (physical profile only). */
    D(mxu_efficiency, 1.0, FF_EXT, .lo = 0.05, .hi = 1.0),
    S(calibration_source, "", FF_EXT),
    D(price_per_chip_hour_usd, 0.0, N | FF_EXT),
    S(hardware_source, "", FF_EXT),
    S(process_node, "", FF_EXT), D(die_area_mm2, 0.0, N | FF_EXT, .hi = 1e5), S(embodied_carbon_source, "", FF_EXT),
    /* Dense peaks per precision and kernel efficiencies (physical profile only). */
    FIELD("memory_levels", FT_MEM_LEVELS, offsetof(struct chip_config, memory_levels), 0, NULL, FF_EXT),
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

double chip_kernel_efficiency(const struct chip_config *c, enum kernel_class k, int p, double n)
{
    const struct kernel_efficiency *ke = &c->kernel_eff[k];
    double e = p >= 0 && ke->by_prec[p] > 0 ? ke->by_prec[p] : ke->e_max;
    if (ke->n_half > 0 && n >= 0)
        e *= n / (n + ke->n_half);
    /* A kernel of size 0 (or a curve far below its knee) still runs. */
    return e > 1e-6 ? e : 1e-6;
}

double chip_kernel_t0_ns(const struct chip_config *c, enum kernel_class k, int p)
{
    const struct kernel_efficiency *ke = &c->kernel_eff[k];
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
