/* energy_stats.h — the energy stage's whole-run aggregation (power.md §7).
 *
 * After the per-operator energy pass has run over a trace for one
 * power-gating strategy, energy_stats_compute() sums it the way the
 * reference's energy stage does: count-weighted energies per component
 * (static, dynamic, both), average powers over the summed execution time, the
 * peak per-op power, and the component_stats block (busy times, temporal and
 * spatial utilisation, traffic, weighted utilisations, average einsum sizes,
 * DVFS slack). Slowdown against NoPG is a second step, because it needs the
 * NoPG result of the same trace.
 *
 * Main data structure: struct energy_stats, plain numbers; which of them the
 * reference writes as Python ints rather than floats is recorded next to the
 * field, so the JSON builder (study/stages/energy_stage.c) can print them the same way.
 */
#ifndef NPUSIM_ENERGY_STATS_H
#define NPUSIM_ENERGY_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "chipsim/chip.h"
#include "base/err.h"
#include "traces/op.h"

/* Names of the DVFS slack components (SLACK_* in traces/op.h): "sa", "vu", "hbm", "ici", "vmem". */
extern const char *const slack_names[NUM_SLACK];

struct energy_component_stats {
    int64_t total_exe_time_ns;
    int64_t sa_time_ns, vu_time_ns, vmem_time_ns, hbm_time_ns, ici_time_ns;
    double sa_temp_util, vu_temp_util, vmem_temp_util, hbm_temp_util, ici_temp_util;
    double sa_spatial_util;          /* int 0 in the reference when no SA time */
    int64_t flop_count, hbm_bytes_accessed, ici_bytes_accessed;
    double tflops_per_sec;
    double flop_per_byte_hbm;        /* 0 when no HBM bytes (the reference divides by zero) */
    double flop_per_byte_ici;        /* int 0 when no ICI bytes */
    double model_flops_util, hbm_bw_util;
    /* Weighted by SA time. B is a sum over einsum ops; K, N and M use the mean
     * instead of the sum (quirk power Q22), so they come out 1/n_einsum as large.
     * All int 0 when there is no SA time; K/N/M NaN when no op has einsum stats. */
    double avg_einsum_B, avg_einsum_K, avg_einsum_N, avg_einsum_M;
    double avg_vmem_demand_MB;       /* mean over all ops; 4 for ops without einsum stats */
    int64_t dvfs_extra_time_ns[NUM_SLACK];
    double dvfs_extra_ratio[NUM_SLACK];
    double slowdown;                 /* total_exe_time_ns / NoPG's; see energy_stats_set_slowdown */
    int64_t num_setpm_vu, num_setpm_sram;
};

struct energy_stats {
    /* Indexed by EN_* (traces/op.h); the JSON order is sa, vu, sram, ici, hbm, other. */
    double total_energy_J, energy_J[NUM_EN];
    double total_static_energy_J, static_energy_J[NUM_EN];
    double total_dynamic_energy_J, dynamic_energy_J[NUM_EN];
    double peak_power_W;             /* max per-op total power, not weighted */
    double avg_power_W;
    double avg_static_power_W, avg_static_power_W_c[NUM_EN];
    double avg_dynamic_power_W, avg_dynamic_power_W_c[NUM_EN];
    struct energy_component_stats comp;
};

/* Aggregates a trace after the energy pass. chip gives the peak rates (units,
 * sa_dim, the clock for components without a DVFS frequency). Errors: an
 * empty trace or zero total time (the reference divides by zero), SA FLOPs
 * above 1.001 x the peak (the reference's assertion). slowdown is set to 1. */
int energy_stats_compute(const struct trace *t, const struct chip_config *chip, struct energy_stats *s,
                         struct npu_err *e);

/* slowdown = s.total_exe_time_ns / nopg.total_exe_time_ns (Python true division). */
void energy_stats_set_slowdown(struct energy_stats *s, const struct energy_stats *nopg);



#endif
