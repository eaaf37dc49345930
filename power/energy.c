/* energy.c — the default per-op energy pass (power.md §3, chipsim.md §8).
 *
 * Strategy NoPG, DVFS policy None, table powers off: every component gets the
 * plan {V 0.7, f 1.7 GHz, scaling 0}; component times are rescaled by
 * f_chip/1.7 (Q2), the regulator efficiency comes from the fixed table, the
 * execution time and Bounded-by are recomputed, and the 12 energy terms are
 * filled (SA/VU powers counted num_sa/num_vu times twice, Q19), each
 * component's terms inflated by 100/efficiency. Evaluation order follows the
 * reference so energies match to the last bit. */
#include "power/energy.h"

#include "chipsim/cs_internal.h" /* py_div */

#include <math.h>
#include <string.h>

#define PLAN_V 0.7
#define PLAN_F 1.7

/* T-EFF-FIXED (V 0.7, scaling time 0): first row with activity >= a. */
static double fixed_efficiency(double a)
{
    static const double act[] = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
    static const double eff[] = {67.0, 85.0, 86.0, 86.5, 87.0, 87.5, 88.0, 88.5, 89.0, 89.5, 90.0};
    for (size_t i = 0; i < sizeof act / sizeof act[0]; i++)
        if (act[i] >= a)
            return eff[i];
    return eff[sizeof eff / sizeof eff[0] - 1]; /* a <= 1 always (min'ed) */
}

static double min1(double x) { return x < 1.0 ? x : 1.0; }

/* Python int/int true division for the non-negative values seen here. */
static double idiv(int64_t a, int64_t b) { return py_div(a, b); }

static int64_t rescale(int64_t t, double f_chip, double f_plan)
{
    return t > 0 ? (int64_t)ceil((double)t * f_chip / f_plan) : t;
}

static int op_energy(struct op *op, size_t index, const struct chip_config *ch, const struct profile *prof,
                     struct npu_err *e)
{
    const double f0 = ch->freq_GHz;
    /* Q2: the "no DVFS" plan hard-codes 1.7 GHz; corrected: the chip clock. */
    const double fp = prof->rescale_time_to_1_7GHz ? PLAN_F : f0;
    if (op->exe_ns <= 0)
        return npu_errf(e, "op %zu \"%s\": exe_ns: expected a positive execution time for the energy pass, got %lld",
                        index, op->name, (long long)op->exe_ns);
    const int64_t exe_old = op->exe_ns;

    int64_t sa = rescale(op->sa_ns, f0, fp), vu = rescale(op->vu_ns, f0, fp);
    int64_t vm = rescale(op->vmem_ns, f0, fp), ici = rescale(op->ici_ns, f0, fp);
    int64_t mem = rescale(op->mem_ns, f0, fp);

    double eff[NUM_COMP];
    eff[COMP_SA] = fixed_efficiency(min1(op->flops_util));
    eff[COMP_VU] = fixed_efficiency(min1(op->flops_util));
    eff[COMP_HBM] = fixed_efficiency(min1(idiv(mem, exe_old)));
    eff[COMP_ICI] = fixed_efficiency(min1(idiv(ici, exe_old)));
    eff[COMP_SRAM] = fixed_efficiency(min1(idiv(vm, exe_old)));

    int64_t exe = sa;
    enum bounded_by bb = BOUND_COMPUTE;
    const int64_t ts[] = {vu, vm, mem, ici};
    const enum bounded_by lb[] = {BOUND_COMPUTE, BOUND_COMPUTE, BOUND_MEMORY, BOUND_ICI};
    for (int i = 0; i < 4; i++)
        if (ts[i] > exe)
            exe = ts[i], bb = lb[i];

    const int64_t F = op->flops;
    double u_sa = 0.0, u_vu = 0.0;
    if (sa > 0)
        u_sa = min1((idiv(F, sa) * 1e9) / ((double)(2 * ch->sa_dim * ch->sa_dim) * (PLAN_F * 1e9) * (double)ch->num_sa));
    const double vu_peak = (double)1024 * (PLAN_F * 1e9) * (double)ch->num_vu;
    if (op->type == OP_MXU) {
        if (vu <= 0)
            return npu_errf(e, "op %zu \"%s\": vu_ns: expected a positive VPU time for an MXU op in the energy "
                            "pass, got %lld", index, op->name, (long long)vu);
        u_vu = min1((idiv(F, 8) / (double)vu * 1e9) / vu_peak);
    } else if (vu > 0) {
        u_vu = min1((idiv(F, vu) * 1e9) / vu_peak);
    }

    /* Q19: per-unit SA/VU powers are multiplied by the unit count twice. */
    const bool twice = prof->sa_vu_power_times_units_twice;
    const double nsa = (double)ch->num_sa, nvu = (double)ch->num_vu;
    double *d = op->dynamic_J, *s = op->static_J;
    double pd_sa = ch->dynamic_power_W_per_SA * nsa, pd_vu = ch->dynamic_power_W_per_VU * nvu;
    d[EN_SA] = (twice ? pd_sa * (double)sa * nsa : pd_sa * (double)sa) / 1e9 * u_sa;
    d[EN_VU] = (twice ? pd_vu * (double)vu * nvu : pd_vu * (double)vu) / 1e9 * u_vu;
    d[EN_SRAM] = ch->dynamic_power_vmem_W * (double)vm / 1e9;
    d[EN_ICI] = (ch->ici_bw_GBps * ch->dynamic_power_ici_W_per_GBps) * (double)ici / 1e9;
    d[EN_HBM] = (ch->hbm_bw_GBps * ch->dynamic_power_hbm_W_per_GBps) * (double)mem / 1e9;
    d[EN_OTHER] = ch->dynamic_power_other_W * (double)exe / 1e9;

    double ps_sa = ch->static_power_W_per_sa * nsa, ps_vu = ch->static_power_W_per_vu * nvu;
    if (twice) {
        ps_sa *= nsa;
        ps_vu *= nvu;
    }
    s[EN_SA] = ps_sa * (double)exe / 1e9;
    s[EN_VU] = ps_vu * (double)exe / 1e9;
    s[EN_SRAM] = ch->static_power_vmem_W * (double)exe / 1e9;
    s[EN_ICI] = ch->static_power_ici_W * (double)exe / 1e9;
    s[EN_HBM] = (ch->static_power_hbm_mc_W + ch->static_power_hbm_phy_W) * (double)exe / 1e9;
    s[EN_OTHER] = ch->static_power_other_W * (double)exe / 1e9;

    static const int en_of_comp[NUM_COMP] = {EN_SA, EN_VU, EN_SRAM, EN_HBM, EN_ICI};
    for (int c = 0; c < NUM_COMP; c++) {
        double k = 100 / eff[c];
        s[en_of_comp[c]] *= k;
        d[en_of_comp[c]] *= k;
        struct op_dvfs *v = &op->dvfs[c];
        strcpy(v->policy, "None");
        v->voltage_V = PLAN_V;
        v->freq_GHz = fp;
        v->scaling_time_ns = 0;
        v->efficiency_pct = eff[c];
    }
    memset(op->num_setpm, 0, sizeof op->num_setpm);

    op->sa_ns = sa;
    op->vu_ns = vu;
    op->vmem_ns = vm;
    op->ici_ns = ici;
    op->mem_ns = mem;
    op->exe_ns = exe;
    op->bounded_by = bb;
    op->energy_done = true;
    return 0;
}

int power_default_pass(struct trace *t, const struct chip_config *chip, const struct profile *prof,
                       struct npu_err *e)
{
    for (size_t i = 0; i < t->n; i++)
        if (op_energy(&t->ops[i], i, chip, prof, e))
            return -1;
    return 0;
}
