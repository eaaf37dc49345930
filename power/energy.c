/* energy.c — the per-operator energy pass (power.md §3, chipsim.md §8).
 *
 * For one op, in the reference's order: DVFS plan per component (§3.2),
 * time scaling (§3.3), regulator efficiency and the new execution time
 * (§3.4), dynamic energy (§3.7), static energy with power gating for SA, VU,
 * Vmem, ICI, HBM, other (§3.8; each may stretch its own component time, the
 * execution time stays frozen until the end, power Q15), regulator losses (§3.9),
 * final execution time and Bounded-by (§3.10), slack columns (§6).
 *
 * Main data structure: struct ctx, the op's working state (component times
 * indexed by COMP_*, plan, efficiencies, powers, utilisations) so that each
 * step is one small function. Every floating-point expression keeps the
 * reference's evaluation order, so energies match to the last bit; Python's
 * int/int true division is py_div. The reference's crash cases (division by
 * zero, failed assertions, NotImplementedError) are errors naming the op. */
#include "power/energy.h"

#include <math.h>
#include <string.h>

#include "base/pyfmt.h"    /* py_div */
#include "power/dvfs_tables.h"
#include "power/energy_memo.h"
#include "power/pg.h"
#include "base/checked.h"

struct plan {
    double V, f;
    int64_t scaling_ns;
};

struct ctx {
    struct op *op;
    size_t index;
    const struct chip_config *ch;
    const struct pg_strategy *pg;
    const struct profile *prof;
    enum dvfs_policy policy;
    bool tables;                 /* enable_dvfs: powers from the DVFS tables */
    double f0;
    int64_t t[NUM_COMP];         /* component times: sa, vu, vmem, hbm (mem), ici */
    int64_t exe;
    int64_t fixed;               /* power_op_fixed_ns: kept over the scaled components */
    struct plan plan[NUM_COMP];
    double eff[NUM_COMP];
    double pd[NUM_COMP], ps[NUM_COMP]; /* dynamic / static power as §3.5 gives them */
    bool time_overflow;          /* a time left the scale (ceil_i): the op fails once its energies are done */
    struct npu_err *e;
};

static double min1(double x) { return x < 1.0 ? x : 1.0; }
/* (int64_t)ceil(x) without the libm call (x86-64 without SSE4.1 has no
 * inline rounding): wherever the conversion is defined, truncation plus one
 * for a positive fraction is the ceiling; |x| >= 2^52 is already integral. */
/* Past 2^61 ns (73 years) a time is out of scale: ceil_i returns the bound
 * and sets c->time_overflow (so that sums of two such stay inside int64),
 * and the op fails once its energies are done (op_energy_uncached). */
#define ENERGY_NS_MAX 2305843009213693952.0   /* 2^61 */
#define ENERGY_IN_NS_MAX ((int64_t)1 << 52)
static int64_t ceil_i(struct ctx *c, double x)
{
    if (!(x < ENERGY_NS_MAX && x > -ENERGY_NS_MAX)) {
        c->time_overflow = true;
        return x < 0 ? -(int64_t)ENERGY_NS_MAX : (int64_t)ENERGY_NS_MAX;
    }
    int64_t t = (int64_t)x;
    return t + ((double)t < x);
}
static double ns_of_cycles(double cycles, double f0) { return cycles / f0; }

static int op_fail(const struct ctx *c, const char *msg)
{
    return npu_errf(c->e, "op %zu \"%s\" (strategy %s, DVFS %s): %s", c->index, c->op->name, c->pg->name,
                    dvfs_policy_name(c->policy), msg);
}

/* ---- §3.2 DVFS plan ---------------------------------------------------- */

/* Use all slack: f = f0 / (1 + ratio), clamped to [0.05, f0]. */
static double slowdown_freq(double ratio, double f0)
{
    if (ratio <= 0)
        return f0;
    double f = f0 / (1.0 + ratio);
    return f < 0.05 ? 0.05 : f > f0 ? f0 : f;
}

static void plan_none(struct ctx *c)
{
    /* power Q2: the "no DVFS" plan hard-codes 1.7 GHz; corrected: the chip clock. */
    double f = c->prof->rescale_time_to_1_7GHz ? 1.7 : c->f0;
    for (int k = 0; k < NUM_COMP; k++)
        c->plan[k] = (struct plan){0.7, f, 0};
}

static void plan_ideal(struct ctx *c)
{
    for (int k = 0; k < NUM_COMP; k++) {
        int64_t t = c->t[k];
        struct plan *p = &c->plan[k];
        if (t > 0) {
            int64_t extra = c->exe - t > 0 ? c->exe - t : 0;
            p->f = slowdown_freq(py_div(extra, t), c->f0);
            p->V = dvfs_pick_voltage(k, p->f);
        } else {
            /* Unused: minimum V; f 0.05 for the core clocks, 0 for HBM/ICI. */
            p->f = k == COMP_HBM || k == COMP_ICI ? 0.0 : 0.05;
            p->V = 0.45;
        }
        p->scaling_ns = 200;
    }
}

/* ---- §3.3 time scaling, §3.4 efficiency and exe ------------------------ */

static void scale_times(struct ctx *c)
{
    for (int k = 0; k < NUM_COMP; k++)
        if (c->t[k] > 0 && c->plan[k].f > 0)
            c->t[k] = ceil_i(c, (double)c->t[k] * c->f0 / c->plan[k].f);
}

/* max(sa, vu, vmem, ici, mem) and the label of the first equal one in the
 * order sa, vu, vmem, mem, ici. */
static int64_t max_time(const struct ctx *c, enum bounded_by *bb)
{
    static const int order[] = {COMP_SA, COMP_VU, COMP_SRAM, COMP_HBM, COMP_ICI};
    static const enum bounded_by label[] = {BOUND_COMPUTE, BOUND_COMPUTE, BOUND_COMPUTE, BOUND_MEMORY, BOUND_ICI};
    int64_t x = c->t[COMP_SA];
    *bb = BOUND_COMPUTE;
    for (int i = 1; i < 5; i++)
        if (c->t[order[i]] > x)
            x = c->t[order[i]], *bb = label[i];
    return x;
}

static int efficiencies(struct ctx *c)
{
    enum bounded_by bb;
    int64_t exe_new = max_time(c, &bb);
    /* power Q3: activity of HBM/ICI/Vmem over the execution time before scaling. */
    int64_t base = c->prof->regulator_activity_unscaled_exe ? c->exe : exe_new;
    double prev_a = 0, prev_V = 0;
    if (base <= 0)
        return op_fail(c, "exe_ns: the scaled execution time is 0 and the regulator activity divides by it");
    for (int k = 0; k < NUM_COMP; k++) {
        double a = k == COMP_SA || k == COMP_VU ? min1(c->op->flops_util) : min1(py_div(c->t[k], base));
        double V = c->plan[k].V != 0.0 ? c->plan[k].V : 0.7;
        /* SA and VU share their activity, idle components theirs (0): the
         * same inputs as the previous component give its efficiency (the
         * table lookup only compares them, so 0.0 and -0.0 agree too). */
        if (k > 0 && a == prev_a && V == prev_V && c->plan[k].scaling_ns == c->plan[k - 1].scaling_ns) {
            c->eff[k] = c->eff[k - 1];
        } else if (dvfs_efficiency(c->policy == DVFS_NONE, c->plan[k].scaling_ns, V, a, &c->eff[k])) {
            return op_fail(c, "no regulator-efficiency row for this voltage, activity and scaling time");
        }
        prev_a = a, prev_V = V;
    }
    c->exe = exe_new + c->fixed;   /* with chipsim's fixed time and launch wait */
    c->op->bounded_by = bb;
    return 0;
}

/* ---- §3.5 powers, §3.6 utilisations ------------------------------------ */

/* The DVFS tables are TPU v5p's (power.md §3.4): their voltage and
 * frequency scaling applies to any chip, their watts do not. Each
 * component's table power is scaled by the chip's own power (per unit for
 * SA and VU, as the tables give them) over the table's at its
 * maximum-performance point, and the dynamic part by dynamic_power_scale. */
static void scale_tables_to_chip(struct ctx *c)
{
    const struct chip_config *ch = c->ch;
    const double chip_d[NUM_COMP] = {
        [COMP_SA] = ch->dynamic_power_W_per_SA, [COMP_VU] = ch->dynamic_power_W_per_VU,
        [COMP_SRAM] = ch->dynamic_power_vmem_W, [COMP_HBM] = ch->hbm_bw_GBps * ch->dynamic_power_hbm_W_per_GBps,
        [COMP_ICI] = ch->ici_bw_GBps * ch->dynamic_power_ici_W_per_GBps,
    };
    const double chip_s[NUM_COMP] = {
        [COMP_SA] = ch->static_power_W_per_sa, [COMP_VU] = ch->static_power_W_per_vu,
        [COMP_SRAM] = ch->static_power_vmem_W, [COMP_HBM] = ch->static_power_hbm_mc_W + ch->static_power_hbm_phy_W,
        [COMP_ICI] = ch->static_power_ici_W,
    };
    double scale = c->prof->dynamic_power_scale_ignored ? 1.0 : ch->dynamic_power_scale;
    for (int k = 0; k < NUM_COMP; k++) {
        double d_max, s_max;
        dvfs_table_power(k, true, 0, 0, &d_max, &s_max);
        c->pd[k] *= (d_max > 0 ? chip_d[k] / d_max : 1.0) * scale;
        c->ps[k] *= s_max > 0 ? chip_s[k] / s_max : 1.0;
    }
}

static void powers(struct ctx *c)
{
    const struct chip_config *ch = c->ch;
    if (c->tables) {
        for (int k = 0; k < NUM_COMP; k++)
            dvfs_table_power(k, c->policy == DVFS_NONE, c->plan[k].V, c->plan[k].f, &c->pd[k], &c->ps[k]);
        if (!c->prof->dvfs_tables_for_every_chip)
            scale_tables_to_chip(c);
        return;
    }
    c->pd[COMP_SA] = ch->dynamic_power_W_per_SA * (double)ch->num_sa;
    c->pd[COMP_VU] = ch->dynamic_power_W_per_VU * (double)ch->num_vu;
    c->pd[COMP_SRAM] = ch->dynamic_power_vmem_W;
    c->pd[COMP_HBM] = ch->hbm_bw_GBps * ch->dynamic_power_hbm_W_per_GBps;
    c->pd[COMP_ICI] = ch->ici_bw_GBps * ch->dynamic_power_ici_W_per_GBps;
    c->ps[COMP_SA] = ch->static_power_W_per_sa * (double)ch->num_sa;
    c->ps[COMP_VU] = ch->static_power_W_per_vu * (double)ch->num_vu;
    c->ps[COMP_SRAM] = ch->static_power_vmem_W;
    c->ps[COMP_HBM] = ch->static_power_hbm_mc_W + ch->static_power_hbm_phy_W;
    c->ps[COMP_ICI] = ch->static_power_ici_W;
    if (!c->prof->dynamic_power_scale_ignored)
        for (int k = 0; k < NUM_COMP; k++)
            c->pd[k] *= ch->dynamic_power_scale;
}

/* SA/VU power per the whole block for energy: the table gives one unit, so
 * it is multiplied by the unit count; the config value already is the
 * block, and chipsim Q19 multiplies it by the count again. */
static bool times_units(const struct ctx *c) { return c->tables || c->prof->sa_vu_power_times_units_twice; }

static double plan_freq(const struct ctx *c, int k) { return c->plan[k].f > 0 ? c->plan[k].f : c->f0; }

static double util_sa(const struct ctx *c)
{
    int64_t sa = c->t[COMP_SA];
    if (sa <= 0)
        return 0;
    double peak = (double)(2 * c->ch->sa_dim * c->ch->sa_dim) * (plan_freq(c, COMP_SA) * 1e9) * (double)c->ch->num_sa;
    return min1((py_div(c->op->flops, sa) * 1e9) / peak);
}

static int util_vu(const struct ctx *c, double *u)
{
    int64_t vu = c->t[COMP_VU];
    double peak = (double)1024 * (plan_freq(c, COMP_VU) * 1e9) * (double)c->ch->num_vu;
    *u = 0;
    if (c->op->type == OP_MXU) {
        if (vu <= 0 && c->ch->matrix_accumulates && !c->prof->chip_precisions_ignored)
            return 0;   /* the matrix units accumulated: no vector work, no vector energy */
        if (vu <= 0) /* power Q17: the reference divides by the VPU time unguarded */
            return op_fail(c, "vu_ns: an MXU op needs a positive VPU time (the VPU utilisation divides by it)");
        *u = min1((py_div(c->op->flops, 8) / (double)vu * 1e9) / peak);
    } else if (peak > 0 && vu > 0) {
        *u = min1((py_div(c->op->flops, vu) * 1e9) / peak);
    }
    return 0;
}

/* ---- §3.7 dynamic energy ------------------------------------------------ */

static int dynamic_energy(struct ctx *c)
{
    double u_sa = util_sa(c), u_vu;
    if (util_vu(c, &u_vu))
        return -1;
    double *d = c->op->dynamic_J;
    double nsa = (double)c->ch->num_sa, nvu = (double)c->ch->num_vu;
    if (times_units(c)) {
        d[EN_SA] = c->pd[COMP_SA] * (double)c->t[COMP_SA] * nsa / 1e9 * u_sa;
        d[EN_VU] = c->pd[COMP_VU] * (double)c->t[COMP_VU] * nvu / 1e9 * u_vu;
    } else {
        d[EN_SA] = c->pd[COMP_SA] * (double)c->t[COMP_SA] / 1e9 * u_sa;
        d[EN_VU] = c->pd[COMP_VU] * (double)c->t[COMP_VU] / 1e9 * u_vu;
    }
    d[EN_SRAM] = c->pd[COMP_SRAM] * (double)c->t[COMP_SRAM] / 1e9;
    d[EN_ICI] = c->pd[COMP_ICI] * (double)c->t[COMP_ICI] / 1e9;
    d[EN_HBM] = c->pd[COMP_HBM] * (double)c->t[COMP_HBM] / 1e9;
    d[EN_OTHER] = c->ch->dynamic_power_other_W * (double)c->exe / 1e9;
    return 0;
}

/* ---- §3.8 static energy with power gating ------------------------------ */

static bool has_tile_stats(const struct op *op) { return op->stats_kind != STATS_BASE; }

static int unsupported(const struct ctx *c, const char *comp, const struct pg_component *g)
{
    static const char *const temporal[] = {"?", "INSTRUCTION", "OPERATOR", "APPLICATION"};
    static const char *const spatial[] = {"?", "fine (PE/ALU/REGISTER_SIZE/LINK)", "PARTITION", "COMPONENT"};
    char what[160];
    snprintf(what, sizeof what, "%s power gating with %s temporal and %s spatial granularity is not implemented",
             comp, temporal[g->temporal], spatial[g->spatial]);
    return op_fail(c, what);
}

static int sa_static(struct ctx *c, double *E)
{
    const struct pg_component *g = &c->pg->sa;
    const double f0 = c->f0;
    double ps = c->ps[COMP_SA];
    if (times_units(c))
        ps *= (double)c->ch->num_sa;
    const double pg = ps * pg_gated_factor(g);
    const int64_t exe = c->exe;
    if (!g->enabled) {
        *E = ps * (double)exe / 1e9;
        return 0;
    }
    int64_t *sa = &c->t[COMP_SA];
    int64_t I = 0;
    if (*sa > 0) {
        /* Worst case: idle intervals spread evenly over the op (power Q5: 0 only if
         * exe <= 1; corrected: 0, no gating, when the SA is busy all along). */
        I = ceil_i(c, (double)(c->prof->pg_never_idle_test_dead ? exe - 1 : exe - *sa) /
                   py_div(*sa, c->ch->sa_dim));
        if (I == 0) {
            *E = ps * (double)exe / 1e9;
            return 0;
        }
    }
    const double u = util_sa(c);
    const double d = ns_of_cycles(g->delay_cycles, f0);
    if (*sa > 0 && g->temporal == PG_INSTRUCTION && g->spatial == PG_FINE) {
        if (!has_tile_stats(c->op)) /* power Q18: the reference asserts einsum/FA statistics */
            return op_fail(c, "num_mxu_ops: PE-level SA power gating needs the tile statistics of an einsum, conv or "
                              "flash-attention op");
        const double dpe = ns_of_cycles(g->pe_delay_cycles, f0);
        int64_t o1 = ceil_i(c, py_div(*sa, c->ch->sa_dim) * dpe);
        int64_t o2 = ceil_i(c, (double)c->op->num_sa_ops * dpe);
        *sa += o1 < o2 ? o1 : o2;
    } else if (*sa > 0 && g->temporal == PG_INSTRUCTION && g->spatial == PG_COMPONENT) {
        if ((double)I > 4 * d)
            *sa += ceil_i(c, (double)ceil_i(c, d) * py_div(*sa, c->ch->sa_dim));
    }
    const int64_t t = *sa, X = exe > t ? exe : t;
    if (g->temporal == PG_INSTRUCTION && g->spatial == PG_COMPONENT) {
        if (t > 0 && (double)I < 2 * d)
            *E = ps * (double)X / 1e9;
        else
            *E = pg * (double)(X - t) / 1e9 + ps * (double)t / 1e9;
    } else if (g->temporal == PG_INSTRUCTION && g->spatial == PG_FINE) {
        *E = (pg * (double)t / 1e9 * (1 - u) + pg * (double)(X - t) / 1e9) + ps * (double)t / 1e9 * u;
    } else if (g->temporal == PG_OPERATOR && g->spatial == PG_COMPONENT) {
        *E = c->op->type == OP_MXU ? ps * (double)X / 1e9 : 0.0;
    } else if (g->temporal == PG_OPERATOR && g->spatial == PG_FINE) {
        *E = ps * (double)X / 1e9 * u;
    } else {
        return unsupported(c, "SA", g);
    }
    return 0;
}

/* Python's round() of a positive double: half to even. */
static int64_t round_half_even(double x) { return (int64_t)nearbyint(x); }

static int vu_static(struct ctx *c, double *E)
{
    const struct pg_component *g = &c->pg->vu;
    const double f0 = c->f0;
    double ps = c->ps[COMP_VU];
    if (times_units(c))
        ps *= (double)c->ch->num_vu;
    const double pg = ps * pg_gated_factor(g);
    const int64_t exe = c->exe;
    if (!g->enabled) {
        *E = ps * (double)exe / 1e9;
        return 0;
    }
    int64_t *vu = &c->t[COMP_VU];
    int64_t I = 0;
    if (*vu > 0) {
        I = ceil_i(c, py_div(c->prof->pg_never_idle_test_dead ? exe - 1 : exe - *vu, *vu));   /* power Q5 */
        if (I == 0) {
            *E = ps * (double)exe / 1e9;
            return 0;
        }
    }
    double u;
    if (util_vu(c, &u))
        return -1;
    const double d = ns_of_cycles(g->delay_cycles, f0);
    /* power Q7: the HW idle-detect overhead multiplies the VU time by 1 + ceil(d). */
    if (g->temporal == PG_INSTRUCTION && g->policy == PG_HW && (double)I > 4 * d)
        *vu = ck_add(*vu, ck_mul(ceil_i(c, d), *vu, &c->time_overflow), &c->time_overflow);
    const int64_t t = *vu, X = exe > t ? exe : t;
    if (g->temporal == PG_INSTRUCTION && g->spatial == PG_COMPONENT) {
        /* power Q6: I = 0 for an idle VU also falls under "interval too short". */
        bool too_short = (double)I < 2 * d && (t > 0 || c->prof->vu_hw_idle_never_gated);
        if (g->policy == PG_HW && too_short)
            *E = ps * (double)X / 1e9;
        else
            *E = pg * (double)(X - t) / 1e9 + ps * (double)t / 1e9;
        if (g->policy == PG_SW) {
            int64_t n;
            if (X == t)
                n = 0;
            else if (t == 0)
                n = 1;
            else {
                /* power Q21: banker's rounding; 32 cycles of break-even written as ns.
                 * Corrected: half up, and 32 cycles at the chip's clock. */
                int64_t a, b;
                if (c->prof->pg_setpm_rounding_cycles_as_ns) {
                    a = round_half_even(py_div(X, I));
                    b = (X - t) / 32;
                } else {
                    a = (int64_t)floor(py_div(X, I) + 0.5);
                    b = (int64_t)floor((double)(X - t) / (32.0 / f0));
                }
                n = a < b ? a : b;
            }
            c->op->num_setpm[COMP_VU] = n;
        }
    } else if (g->temporal == PG_INSTRUCTION && g->spatial == PG_FINE) {
        *E = (pg * (double)t / 1e9 * (1 - u) + pg * (double)(X - t) / 1e9) + ps * (double)t / 1e9 * u;
    } else if (g->temporal == PG_OPERATOR && g->spatial == PG_COMPONENT) {
        *E = t > 0 ? ps * (double)X / 1e9 : 0.0;
    } else if (g->temporal == PG_OPERATOR && g->spatial == PG_FINE) {
        *E = ps * (double)X / 1e9 * u;
    } else {
        return unsupported(c, "VU", g);
    }
    return 0;
}

static int vmem_static(struct ctx *c, double *E)
{
    const struct pg_component *g = &c->pg->vmem;
    const double ps = c->ps[COMP_SRAM], pg = ps * pg_gated_factor(g);
    const int64_t exe = c->exe;
    if (!g->enabled) {
        *E = ps * (double)exe / 1e9;
        return 0;
    }
    const int64_t gran = g->spatial == PG_FINE ? 4096 : g->partition_size_bytes;
    const int64_t vb = c->ch->vmem_size_MB * 1024 * 1024;
    double util;
    if (c->op->type == OP_MXU) {
        if (!has_tile_stats(c->op)) /* power Q18 */
            return op_fail(c, "max_vmem_demand_bytes: Vmem power gating of an MXU op needs the tile statistics of an "
                              "einsum, conv or flash-attention op");
        util = min1(py_div(c->op->max_vmem_demand_bytes, vb));
    } else if (c->prof->pg_vmem_fixed_4MB) {
        util = py_div(4, c->ch->vmem_size_MB); /* power Q10: a fixed 4 MB for ops without reuse */
    } else {   /* the bytes the op streams, at most the whole Vmem */
        util = min1((double)c->op->bytes / (double)vb);
    }
    util = py_div(ceil_i(c, util * (double)vb / (double)gran) * gran, vb);
    int64_t X = exe;
    if (g->policy == PG_HW) { /* power Q9: only the energy window grows; corrected: the Vmem time too */
        int64_t wake = ceil_i(c, (double)exe / ns_of_cycles(g->drowsy_period_cycles, c->f0) *
                              ns_of_cycles(g->delay_cycles, c->f0));
        X += wake;
        if (!c->prof->pg_vmem_drowsy_window_only)
            c->t[COMP_SRAM] = ck_add(c->t[COMP_SRAM], wake, &c->time_overflow);
    }
    const int64_t t = c->t[COMP_SRAM];
    if (g->voltage != PG_TWO_LEVEL || g->temporal == PG_APPLICATION || g->spatial == PG_COMPONENT)
        return unsupported(c, g->voltage != PG_TWO_LEVEL ? "Vmem (multi-level voltage)" : "Vmem", g);
    *E = (pg * (double)t / 1e9 * (1 - util) + pg * (double)(X - t) / 1e9) + ps * (double)t / 1e9 * util;
    if (g->temporal == PG_INSTRUCTION && g->spatial == PG_FINE && g->policy == PG_SW)
        c->op->num_setpm[COMP_SRAM] = 1; /* one tile size per op */
    return 0;
}

static int ici_static(struct ctx *c, double *E)
{
    const struct pg_component *g = &c->pg->ici;
    const double ps = c->ps[COMP_ICI], pg = ps * pg_gated_factor(g);
    const int64_t exe = c->exe;
    if (!g->enabled) {
        *E = ps * (double)exe / 1e9;
        return 0;
    }
    int64_t *ici = &c->t[COMP_ICI];
    if (*ici > 0) /* wake and sleep once per op; the policy field is ignored (power Q8) */
        *ici += ceil_i(c, 2 * ns_of_cycles(g->delay_cycles, c->f0));
    const int64_t t = *ici, X = exe > t ? exe : t;
    if (g->temporal == PG_INSTRUCTION && g->spatial == PG_COMPONENT)
        *E = pg * (double)(X - t) / 1e9 + ps * (double)t / 1e9;
    else if (g->temporal == PG_OPERATOR && g->spatial == PG_COMPONENT)
        *E = t > 0 ? ps * (double)X / 1e9 : pg * (double)X / 1e9;
    else
        return unsupported(c, "ICI", g);
    return 0;
}

static int hbm_static(struct ctx *c, double *E)
{
    const struct pg_component *g = &c->pg->hbm;
    const double ps = c->ps[COMP_HBM], pg = ps * pg_gated_factor(g);
    const int64_t exe = c->exe;
    if (!g->enabled) {
        *E = ps * (double)exe / 1e9;
        return 0;
    }
    int64_t *mem = &c->t[COMP_HBM];
    if (*mem <= 0) /* power Q11 */
        return op_fail(c, "mem_ns: HBM power gating needs a positive HBM time (the burst model divides by it)");
    /* One 4 MiB DMA burst (ns), or the whole transfer when smaller. */
    const double A = c->op->bytes < 4 * 1024 * 1024 ? (double)*mem
                   : 4 * 1024 * 1024 / (c->ch->hbm_bw_GBps * 1024 * 1024 * 1024) * 1e9;
    const int64_t N = ceil_i(c, (double)*mem / A);
    const int64_t idle = ceil_i(c, py_div(exe, N) - A);
    const double d = ns_of_cycles(g->delay_cycles, c->f0);
    const int64_t bet = c->ch->hbm_latency_ns * 2 + ceil_i(c, d) * 4;
    const int64_t threshold = g->policy == PG_SW ? bet : 4 * bet;
    if (idle >= threshold) {
        if (g->policy == PG_HW && !c->prof->pg_hbm_wake_after_energy) {
            /* the wake-ups are HBM time at full power (power Q12 adds them after the energy) */
            *mem += ceil_i(c, d * (double)N);
            const int64_t X = exe > *mem ? exe : *mem;
            *E = pg * (double)(X - *mem) / 1e9 + (double)*mem / 1e9 * ps;
            return 0;
        }
        *E = pg * (double)(exe - *mem) / 1e9 + (double)*mem / 1e9 * ps;
        if (g->policy == PG_HW) /* power Q12: after the energy, and never powered */
            *mem += ceil_i(c, d * (double)N);
    } else {
        *E = ps * (double)exe / 1e9;
    }
    return 0;
}

/* The energy slot of each component (COMP_* order). */
static const int en_of_comp[NUM_COMP] = {EN_SA, EN_VU, EN_SRAM, EN_HBM, EN_ICI};

/* power Q15 corrected: when an overhead lengthens the op past exe0 (the time the
 * static energies covered), every other component and "other" stay on for
 * the added time: gated where its strategy gates it, else at full static
 * power; regulator losses as for the rest of its energy. */
static void static_over_added_time(struct ctx *c, int64_t exe0)
{
    const struct pg_component *g[NUM_COMP] = {&c->pg->sa, &c->pg->vu, &c->pg->vmem, &c->pg->hbm, &c->pg->ici};
    for (int k = 0; k < NUM_COMP; k++) {
        const int64_t from = c->t[k] > exe0 ? c->t[k] : exe0;
        if (c->exe <= from)
            continue;
        double ps = c->ps[k];
        if ((k == COMP_SA || k == COMP_VU) && times_units(c))
            ps *= (double)(k == COMP_SA ? c->ch->num_sa : c->ch->num_vu);
        if (g[k]->enabled)
            ps *= pg_gated_factor(g[k]);
        c->op->static_J[en_of_comp[k]] += ps * (double)(c->exe - from) / 1e9 * (100.0 / c->eff[k]);
    }
    c->op->static_J[EN_OTHER] += c->ch->static_power_other_W * (double)(c->exe - exe0) / 1e9;
}

static int static_energy(struct ctx *c)
{
    double *s = c->op->static_J;
    if (sa_static(c, &s[EN_SA]) || vu_static(c, &s[EN_VU]) || vmem_static(c, &s[EN_SRAM]) ||
        ici_static(c, &s[EN_ICI]) || hbm_static(c, &s[EN_HBM]))
        return -1;
    if (c->pg->other.enabled)
        return op_fail(c, "power gating of \"other\" is not supported (other_PG_enabled must be false)");
    s[EN_OTHER] = c->ch->static_power_other_W * (double)c->exe / 1e9;
    return 0;
}

/* ---- the pass ------------------------------------------------------------ */

int64_t power_op_fixed_ns(const struct op *op)
{
    int64_t slowest = op->sa_ns;
    const int64_t t[] = { op->vu_ns, op->vmem_ns, op->mem_ns, op->ici_ns };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        slowest = t[i] > slowest ? t[i] : slowest;
    return op->exe_ns > slowest ? op->exe_ns - slowest : 0;
}

static int op_energy_uncached(struct op *op, size_t index, const struct chip_config *ch,
                              const struct pg_strategy *pg, enum dvfs_policy policy, bool tables,
                              const struct profile *prof, int64_t *exe_scaled_ns, struct npu_err *e)
{
    struct ctx c = {.op = op, .index = index, .ch = ch, .pg = pg, .prof = prof, .policy = policy,
                    .tables = tables, .f0 = ch->freq_GHz, .exe = op->exe_ns, .e = e};
    c.fixed = prof->chip_precisions_ignored ? 0 : power_op_fixed_ns(op);
    c.t[COMP_SA] = op->sa_ns;
    c.t[COMP_VU] = op->vu_ns;
    c.t[COMP_SRAM] = op->vmem_ns;
    c.t[COMP_HBM] = op->mem_ns;
    c.t[COMP_ICI] = op->ici_ns;
    bool power_bound = op->bounded_by == BOUND_POWER;   /* throttled by the power cap (powercap.c) */
    if (c.exe <= 0)
        return op_fail(&c, "exe_ns: expected a positive execution time (the energy pass divides by it)");
    /* Times scale by f0/f (up to 20000x) and gain delays: from 2^52 ns (52
     * days for one op) on, that could leave int64. */
    for (int k = 0; k < NUM_COMP; k++)
        if (c.t[k] > ENERGY_IN_NS_MAX || c.exe > ENERGY_IN_NS_MAX)
            return op_fail(&c, "exe_ns: expected op times of at most 2^52 ns (52 days)");
    if (policy == DVFS_IDEAL)
        plan_ideal(&c);
    else
        plan_none(&c);
    scale_times(&c);
    memset(op->num_setpm, 0, sizeof op->num_setpm);
    if (efficiencies(&c))
        return -1;
    powers(&c);
    if (dynamic_energy(&c) || static_energy(&c))
        return -1;
    if (c.time_overflow)
        return op_fail(&c, "times exceed 2^61 ns after DVFS scaling and power-gating delays: the chip's "
                           "frequency, the strategy's delays or the op's times are out of scale");
    const char *pname = dvfs_policy_name(policy);
    const size_t plen = strlen(pname) + 1;
    _Static_assert(sizeof op->dvfs[0].policy >= sizeof "Ideal", "policy names fit");
    for (int k = 0; k < NUM_COMP; k++) {
        op->static_J[en_of_comp[k]] *= 100.0 / c.eff[k];
        op->dynamic_J[en_of_comp[k]] *= 100.0 / c.eff[k];
        struct op_dvfs *v = &op->dvfs[k];
        memcpy(v->policy, pname, plen);
        v->voltage_V = c.plan[k].V;
        v->freq_GHz = c.plan[k].f;
        v->scaling_time_ns = c.plan[k].scaling_ns;
        v->efficiency_pct = c.eff[k];
    }
    /* §3.10: overheads may now push the execution time up. */
    static const int order[] = {COMP_SA, COMP_VU, COMP_SRAM, COMP_HBM, COMP_ICI};
    static const enum bounded_by label[] = {BOUND_COMPUTE, BOUND_COMPUTE, BOUND_COMPUTE, BOUND_MEMORY, BOUND_ICI};
    const int64_t exe0 = c.exe;
    for (int i = 0; i < 5; i++)
        if (c.t[order[i]] > c.exe)
            c.exe = c.t[order[i]], op->bounded_by = label[i];
    if (c.exe > exe0 && !prof->pg_static_frozen_exe)
        static_over_added_time(&c, exe0);
    op->sa_ns = c.t[COMP_SA];
    op->vu_ns = c.t[COMP_VU];
    op->vmem_ns = c.t[COMP_SRAM];
    op->mem_ns = c.t[COMP_HBM];
    op->ici_ns = c.t[COMP_ICI];
    op->exe_ns = c.exe;
    if (power_bound && op->bounded_by == BOUND_COMPUTE)
        op->bounded_by = BOUND_POWER;
    *exe_scaled_ns = exe0;
    op->energy_done = true;
    return 0;
}

/* power Q20: chipsim's utilisations, at the time the overheads of §3.10
 * lengthened the op to from exe_scaled_ns (its time after DVFS scaling).
 * The utilisations are the op's own, no input of the pass (hbm_bw_util is
 * not in the memo's key): done after a memo hit as after the pass, with
 * the same expression, so a hit gives the bits a fresh pass gives. */
static void refresh_utils(struct op *op, int64_t exe_scaled_ns, const struct profile *prof)
{
    if (op->exe_ns != exe_scaled_ns && !prof->pg_utils_not_refreshed) {
        op->flops_util *= (double)exe_scaled_ns / (double)op->exe_ns;
        op->hbm_bw_util *= (double)exe_scaled_ns / (double)op->exe_ns;
    }
}

/* The pass's setting is the one energy_memo_begin was given: a repeat of an
 * op's timed fields takes the stored result (failures are never stored). */
static int op_energy(struct op *op, size_t index, const struct chip_config *ch, const struct pg_strategy *pg,
                     enum dvfs_policy policy, bool tables, const struct profile *prof, struct npu_err *e)
{
    struct energy_key k;
    uint64_t h = energy_key_of(op, &k);
    int64_t exe_scaled_ns;
    if (energy_memo_get(&k, h, op, &exe_scaled_ns)) {
        refresh_utils(op, exe_scaled_ns, prof);
        return 0;
    }
    if (op_energy_uncached(op, index, ch, pg, policy, tables, prof, &exe_scaled_ns, e))
        return -1;
    energy_memo_put(&k, h, op, exe_scaled_ns);
    refresh_utils(op, exe_scaled_ns, prof);
    return 0;
}

/* §6: slack of each component against the final execution time. */
static void fill_slack(struct op *op)
{
    const int64_t t[NUM_SLACK] = {op->sa_ns, op->vu_ns, op->mem_ns, op->ici_ns, op->vmem_ns};
    for (int k = 0; k < NUM_SLACK; k++) {
        int64_t extra = t[k] > 0 && op->exe_ns > t[k] ? op->exe_ns - t[k] : 0;
        op->dvfs_extra_ns[k] = extra;
        op->dvfs_extra_ratio[k] = t[k] > 0 ? py_div(extra, t[k]) : 0.0;
    }
    op->has_slack = true;
}

int power_energy_pass(struct trace *t, const struct chip_config *chip, const struct pg_strategy *pg,
                      int dvfs_policy, const struct profile *prof, struct npu_err *e)
{
    enum dvfs_policy p = dvfs_policy == DVFS_IDEAL ? DVFS_IDEAL : DVFS_NONE;
    energy_memo_begin(chip, pg, (int)p, p != DVFS_NONE, prof);
    for (size_t i = 0; i < t->n; i++) {
        if (op_energy(&t->ops[i], i, chip, pg, p, p != DVFS_NONE, prof, e))
            return -1;
        fill_slack(&t->ops[i]);
    }
    return 0;
}

int power_default_pass(struct trace *t, const struct chip_config *chip, const struct profile *prof,
                       struct npu_err *e)
{
    struct pg_strategy nopg;
    struct npu_err ignored;
    pg_strategy_lookup("NoPG", NULL, prof, &nopg, &ignored);
    /* Each op typed by the unit it ran on, as the energy stage types it:
     * the run's energy is then the NoPG strategy's. */
    if (!prof->inline_energy_chipsim_types)
        power_reclassify_ops(t);
    energy_memo_begin(chip, &nopg, (int)DVFS_NONE, chip->enable_dvfs, prof);
    for (size_t i = 0; i < t->n; i++)
        if (op_energy(&t->ops[i], i, chip, &nopg, DVFS_NONE, chip->enable_dvfs, prof, e))
            return -1;
    return 0;
}

int power_op_estimate(const struct op *op, const struct chip_config *ch, const struct profile *prof,
                      double *static_W, double *dynamic_J, struct npu_err *e)
{
    /* NoPG looked up once per thread and profile (the profile decides some
     * of its fields); the estimate goes through the energy memo under the
     * default pass's own setting, so the pass that follows
     * (power_default_pass) finds these ops already computed. */
    static _Thread_local struct {
        const struct profile *prof;   /* NULL: not looked up yet */
        struct pg_strategy pg;
    } nopg_of;
    if (nopg_of.prof != prof) {
        struct npu_err ignored;
        pg_strategy_lookup("NoPG", NULL, prof, &nopg_of.pg, &ignored);
        nopg_of.prof = prof;
    }
    const struct pg_strategy *nopg = &nopg_of.pg;
    energy_memo_begin(ch, nopg, (int)DVFS_NONE, ch->enable_dvfs, prof);
    struct op x = *op;   /* the pass writes numbers only: a shallow copy is enough */
    if (op_energy(&x, 0, ch, nopg, DVFS_NONE, ch->enable_dvfs, prof, e))
        return -1;
    double s = 0, d = 0;
    for (int k = 0; k < NUM_EN; k++)
        s += x.static_J[k], d += x.dynamic_J[k];
    *static_W = x.exe_ns > 0 ? s / ((double)x.exe_ns / 1e9) : 0.0;
    *dynamic_J = d;
    return 0;
}

static const struct {
    const char *opcode;
    enum opcode_type type;
} opcode_classes[] = {
    { "Conv2D", OPC_CONV2D },
    { "Einsum", OPC_EINSUM }, { "MatMul", OPC_EINSUM }, { "BatchMatMulV2", OPC_EINSUM },
    { "FlashAttention", OPC_FLASH_ATTENTION },
    { "LayerNorm", OPC_ELEMENTWISE }, { "GroupNorm", OPC_ELEMENTWISE }, { "RMSNorm", OPC_ELEMENTWISE },
    { "Softmax", OPC_ELEMENTWISE }, { "Add", OPC_ELEMENTWISE }, { "Mul", OPC_ELEMENTWISE },
    { "Abs", OPC_ELEMENTWISE }, { "Pointwise Mul.", OPC_ELEMENTWISE },
    { "Upsample", OPC_UP_DOWN_SAMPLE }, { "AvgPool2d", OPC_UP_DOWN_SAMPLE },
    { "ReduceScatter", OPC_COLLECTIVE_REDUCE }, { "AllReduce", OPC_COLLECTIVE_REDUCE },
    { "AllGather", OPC_COLLECTIVE_NO_COMPUTE }, { "InterChipCommInput", OPC_COLLECTIVE_NO_COMPUTE },
    { "InterChipCommOutput", OPC_COLLECTIVE_NO_COMPUTE }, { "AllToAll", OPC_COLLECTIVE_NO_COMPUTE },
    { "EmbeddingBag", OPC_EMBEDDING_BAG },
};

/* The first letters compared before the names: the physical profile
 * reclassifies every op of every pass (power_reclassify_ops), where a
 * strcmp per row of the table cost 4% of a summary sweep's instructions. */
static enum opcode_type opcode_class(const char *s)
{
    for (size_t i = 0; s && i < sizeof opcode_classes / sizeof opcode_classes[0]; i++)
        if (s[0] == opcode_classes[i].opcode[0] && strcmp(s, opcode_classes[i].opcode) == 0)
            return opcode_classes[i].type;
    return OPC_OTHER;
}

void power_reclassify_ops(struct trace *t)
{
    for (size_t i = 0; i < t->n; i++) {
        struct op *op = &t->ops[i];
        if (op->sa_ns > 0)
            op->type = OP_MXU;
        else if (op->vu_ns > 0)
            op->type = OP_VPU;
        enum opcode_type oc = opcode_class(op->parsed_op_type);
        if (oc == OPC_OTHER)
            oc = opcode_class(op->opcode);
        op->opcode_type = oc;
        op->stats_kind = oc == OPC_EINSUM || oc == OPC_CONV2D ? STATS_EINSUM
                       : oc == OPC_FLASH_ATTENTION ? STATS_FA : STATS_BASE;
        /* Cells the class does not read from the CSV keep the reference's
         * defaults when written again. */
        if (op->stats_kind == STATS_BASE)
            op->num_sa_ops = 0;
        if (op->stats_kind != STATS_FA)
            op->vu_softmax_ns = 0;
    }
}
