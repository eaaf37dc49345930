/* energy_stats.c — whole-run energy aggregation and re-read fix-ups (see energy_stats.h).
 *
 * Every sum runs over the ops in trace order, left to right, in the same
 * operand order as the reference, so that floating-point results agree to the
 * last bit; integer sums stay integers (int64) until the reference divides. */
#include "power/energy_stats.h"

#include <math.h>
#include <string.h>

#include "base/pyfmt.h"    /* py_div: Python int/int true division */

const char *const slack_names[NUM_SLACK] = { "sa", "vu", "hbm", "ici", "vmem" };


static bool has_einsum_stats(const struct op *op) { return op->stats_kind != STATS_BASE; }

/* The frequency a component ran at: its DVFS setting, or the chip clock when
 * unset (0), as the reference's `frequency_GHz or freq_GHz`. */
static double freq_or(double f, double f0) { return f != 0.0 ? f : f0; }

static int component_stats(const struct trace *t, const struct chip_config *chip,
                           struct energy_component_stats *c, struct npu_err *e)
{
    int64_t total = 0, sa_flops = 0;
    double peak_flops = 0.0;
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        const int64_t n = op->count;
        total += op->exe_ns * n;
        if (op->sa_ns > 0)
            sa_flops += op->flops * n;
        double f_sa = freq_or(op->dvfs[COMP_SA].freq_GHz, chip->freq_GHz);
        double f_vu = freq_or(op->dvfs[COMP_VU].freq_GHz, chip->freq_GHz);
        peak_flops += (double)op->sa_ns * f_sa * (double)chip->num_sa * (double)(chip->sa_dim * chip->sa_dim) *
                          2 * (double)n +
                      (double)op->vu_ns * f_vu * (double)chip->num_vu * (8 * 128) * (double)n;
        c->sa_time_ns += op->sa_ns * n;
        c->vu_time_ns += op->vu_ns * n;
        c->vmem_time_ns += op->vmem_ns * n;
        c->hbm_time_ns += op->mem_ns * n;
        c->ici_time_ns += op->ici_ns * n;
        c->flop_count += op->flops * n;
        c->hbm_bytes_accessed += op->bytes * n;
        c->ici_bytes_accessed += (op->ici_out_bytes + op->ici_in_bytes) * n;
        c->num_setpm_vu += op->num_setpm[COMP_VU] * n;
        c->num_setpm_sram += op->num_setpm[COMP_SRAM] * n;
        /* Per-op slack as the energy pass stored it (power.md §6). */
        for (int k = 0; k < NUM_SLACK; k++)
            c->dvfs_extra_time_ns[k] += op->dvfs_extra_ns[k] * n;
    }
    if (total <= 0)
        return npu_errf(e, "energy statistics: the total execution time is %lld ns; expected a positive time",
                        (long long)total);
    c->total_exe_time_ns = total;
    c->sa_temp_util = py_div(c->sa_time_ns, total);
    c->vu_temp_util = py_div(c->vu_time_ns, total);
    c->vmem_temp_util = py_div(c->vmem_time_ns, total);
    c->hbm_temp_util = py_div(c->hbm_time_ns, total);
    c->ici_temp_util = py_div(c->ici_time_ns, total);
    if (c->sa_time_ns > 0) {
        c->sa_spatial_util = (double)sa_flops / peak_flops;
        if (fabs(c->sa_spatial_util) > 1 + 1e-3)
            return npu_errf(e, "energy statistics: SA FLOPs %lld exceed the peak %.17g of the SA and VU busy "
                            "times (spatial utilisation %.6g > 1.001)", (long long)sa_flops, peak_flops,
                            c->sa_spatial_util);
    }
    c->tflops_per_sec = ((double)c->flop_count / 1e12) / ((double)total / 1e9);
    if (c->hbm_bytes_accessed > 0)
        c->flop_per_byte_hbm = py_div(c->flop_count, c->hbm_bytes_accessed);
    if (c->ici_bytes_accessed > 0)
        c->flop_per_byte_ici = py_div(c->flop_count, c->ici_bytes_accessed);

    /* Second pass: the weights need the totals. Sums of integers stay exact
     * (the reference's numpy means sum exactly representable values). */
    int64_t ein_b = 0, ein_k = 0, ein_n = 0, ein_m = 0, n_ein = 0;
    double vmem_MB = 0.0;
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        const int64_t n = op->count;
        double w = py_div(op->exe_ns * n, total);
        c->model_flops_util += op->flops_util * w;
        c->hbm_bw_util += op->hbm_bw_util * w;
        if (has_einsum_stats(op)) {
            ein_b += op->einsum_b * op->sa_ns * n;
            ein_k += op->einsum_k * op->sa_ns * n;
            ein_n += op->einsum_n * op->sa_ns * n;
            ein_m += op->einsum_m * op->sa_ns * n;
            n_ein++;
            vmem_MB += (double)op->max_vmem_demand_bytes / 1024 / 1024;
        } else {
            vmem_MB += 4;
        }
    }
    if (c->sa_time_ns > 0) {
        double sa = (double)c->sa_time_ns;
        c->avg_einsum_B = py_div(ein_b, c->sa_time_ns);
        /* power Q22: np.mean over the einsum ops, not the sum. */
        c->avg_einsum_K = n_ein ? (double)ein_k / (double)n_ein / sa : NAN;
        c->avg_einsum_N = n_ein ? (double)ein_n / (double)n_ein / sa : NAN;
        c->avg_einsum_M = n_ein ? (double)ein_m / (double)n_ein / sa : NAN;
    }
    c->avg_vmem_demand_MB = vmem_MB / (double)t->n;
    for (int k = 0; k < NUM_SLACK; k++) {
        int64_t busy = k == SLACK_SA ? c->sa_time_ns : k == SLACK_VU ? c->vu_time_ns
                     : k == SLACK_HBM ? c->hbm_time_ns : k == SLACK_ICI ? c->ici_time_ns : c->vmem_time_ns;
        c->dvfs_extra_ratio[k] = busy > 0 ? py_div(c->dvfs_extra_time_ns[k], busy) : 0.0;
    }
    c->slowdown = 1.0;
    return 0;
}

int energy_stats_compute(const struct trace *t, const struct chip_config *chip, struct energy_stats *s,
                         struct npu_err *e)
{
    memset(s, 0, sizeof *s);
    if (t->n == 0)
        return npu_errf(e, "energy statistics: the trace has no operators");
    int64_t total_ns = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        const double n = (double)op->count;
        s->total_energy_J += op_total_energy_J(op) * n;
        s->total_static_energy_J += op_static_energy_J(op) * n;
        s->total_dynamic_energy_J += op_dynamic_energy_J(op) * n;
        for (int c = 0; c < NUM_EN; c++) {
            s->energy_J[c] += (op->static_J[c] + op->dynamic_J[c]) * n;
            s->static_energy_J[c] += op->static_J[c] * n;
            s->dynamic_energy_J[c] += op->dynamic_J[c] * n;
        }
        /* total_power_W: -1 for a zero-time op, as the reference's property. */
        double p = op->exe_ns == 0 ? -1.0 : op_total_energy_J(op) / (double)op->exe_ns * 1e9;
        if (i == 0 || p > s->peak_power_W)
            s->peak_power_W = p;
        total_ns += op->exe_ns * op->count;
    }
    if (component_stats(t, chip, &s->comp, e))
        return -1;
    const double T = (double)total_ns / 1e9;
    s->avg_power_W = s->total_energy_J / T;
    s->avg_static_power_W = s->total_static_energy_J / T;
    s->avg_dynamic_power_W = s->total_dynamic_energy_J / T;
    for (int c = 0; c < NUM_EN; c++) {
        s->avg_static_power_W_c[c] = s->static_energy_J[c] / T;
        s->avg_dynamic_power_W_c[c] = s->dynamic_energy_J[c] / T;
    }
    return 0;
}

void energy_stats_set_slowdown(struct energy_stats *s, const struct energy_stats *nopg)
{
    s->comp.slowdown = py_div(s->comp.total_exe_time_ns, nopg->comp.total_exe_time_ns);
}

/* The reference's opcode classes (OpcodeType.from_opcode), as data. */
