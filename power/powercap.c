/* powercap.c — throttling ops to the chip's power cap (see powercap.h). */
#include "power/powercap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "power/energy.h"
#include "power/energy_memo.h"
#include "base/dmemo.h"

double power_cap_of(const struct chip_config *ch)
{
    return ch->power_cap_W > 0 ? ch->power_cap_W : ch->TDP_W;
}

/* Relative tolerance above the cap (rounding of the ns times). */
#define CAP_SLACK 1e-6

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* op with its core (SA, VU) times stretched by s >= 1 and the utilisations
 * that follow, into *out (a shallow copy: the strings stay op's). */
static void stretched(const struct profile *prof, const struct op *op, double s, struct op *out)
{
    *out = *op;
    out->sa_ns = (int64_t)ceil((double)op->sa_ns * s);
    out->vu_ns = (int64_t)ceil((double)op->vu_ns * s);
    out->exe_ns = max64(max64(max64(out->sa_ns, out->vu_ns), max64(op->mem_ns, op->ici_ns)), op->vmem_ns) +
                  (prof->chip_precisions_ignored ? 0 : power_op_fixed_ns(op));
    /* the utilisations the energy pass reads follow the time */
    out->flops_util = op->flops_util * (double)op->exe_ns / (double)out->exe_ns;
    out->hbm_bw_util = op->hbm_bw_util * (double)op->exe_ns / (double)out->exe_ns;
    out->bounded_by = BOUND_POWER;
}

struct cap_fn {
    const struct op *op;
    const struct chip_config *ch;
    const struct profile *prof;
    double cap_W;
    struct npu_err *e;
    bool failed;
};

/* Power of the op stretched by s, less the cap (W); GSL's function. */
static double over_cap(double s, void *arg)
{
    struct cap_fn *f = arg;
    struct op x;
    stretched(f->prof, f->op, s, &x);
    double ps_W, dyn_J;
    if (power_op_estimate(&x, f->ch, f->prof, &ps_W, &dyn_J, f->e)) {
        f->failed = true;
        return -1;   /* stops the search on the side where the cap holds */
    }
    return ps_W + dyn_J / ((double)x.exe_ns / 1e9) - f->cap_W;
}

/* The smallest stretch s of the core clock at which the op's power is at
 * most the cap: a root of over_cap(s) on [1, hi], found with GSL's Brent
 * solver. The power is not a closed form in s (the regulators' efficiency
 * follows the activity, which falls as the op stretches), and the ns
 * rounding makes it a step function: the result is the bracket's upper end,
 * where the cap holds. The bracket starts at the first-order solve
 * E_dyn / (cap - P_static) and 1% above it, doubling until the cap holds. */
static int cap_stretch(struct cap_fn *f, double first, double *s)
{
    /* The first-order solve leaves the power a little above the cap (the
     * regulators lose more at the lower activity): bracket just above it. */
    double lo = first > 1 ? first : 1, hi = lo * 1.01;
    for (int i = 0; i < 64 && over_cap(hi, f) > f->cap_W * CAP_SLACK && !f->failed; i++)
        lo = hi, hi *= 2;
    if (f->failed)
        return -1;
    /* GSL reports errors through return codes here, never by aborting (its
     * default handler): a bracket without a sign change just ends the search. */
    gsl_set_error_handler_off();
    gsl_function F = { over_cap, f };
    gsl_root_fsolver *solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!solver)
        return npu_errf(f->e, "out of memory (power cap root finder)");
    if (gsl_root_fsolver_set(solver, &F, lo, hi) != GSL_SUCCESS) {
        /* No sign change: both ends fit (take the first-order stretch), or
         * hi is within the slack above the cap (keep it). */
        if (over_cap(lo, f) <= f->cap_W * CAP_SLACK)
            hi = lo;
    } else {
        /* The power falls as s grows, so the bracket's upper end always
         * keeps the op under the cap. 1e-6 of the stretch is below the ns
         * rounding of any op worth capping. */
        for (int it = 0; it < 100 && !f->failed; it++) {
            if (gsl_root_fsolver_iterate(solver) != GSL_SUCCESS)
                break;
            double a = gsl_root_fsolver_x_lower(solver);
            hi = gsl_root_fsolver_x_upper(solver);
            if (gsl_root_test_interval(a, hi, 0, 1e-6) == GSL_SUCCESS)
                break;
        }
    }
    gsl_root_fsolver_free(solver);
    *s = hi;
    return f->failed ? -1 : 0;
}

/* The stretch an op needs depends on what its energy depends on and on the
 * chip, cap and profile of the estimate: the energy memo's key under
 * power_op_estimate's setting, just begun, names all of it. A sweep caps the
 * same ops point after point, and a repeat takes the stored stretch instead
 * of solving again (base/dmemo.h). */
DMEMO(stretch_memo, struct energy_key, double, 10)

/* cap_stretch through the memo. */
static int cap_stretch_memo(struct cap_fn *f, double first, double *s)
{
    struct energy_key k;
    uint64_t h = energy_key_of(f->op, &k);
    const double *hit = k.gen ? stretch_memo_get(&k, h) : NULL;
    if (hit) {
        *s = *hit;
        return 0;
    }
    if (cap_stretch(f, first, s))
        return -1;
    double *put = k.gen ? stretch_memo_put(&k, h) : NULL;
    if (put)
        *put = *s;
    return 0;
}

static int cap_op(struct op *op, const struct chip_config *ch, const struct profile *prof, double cap_W,
                  size_t index, struct npu_err *e)
{
    if (op->exe_ns <= 0)
        return 0;   /* no time, no power */
    double ps_W, dyn_J;
    if (power_op_estimate(op, ch, prof, &ps_W, &dyn_J, e))
        return -1;
    if (ps_W + dyn_J / ((double)op->exe_ns / 1e9) <= cap_W * (1 + CAP_SLACK))
        return 0;
    /* The static power, and "other", which runs whatever the clock: a floor no stretch lowers. */
    if (ps_W + ch->dynamic_power_other_W >= cap_W) {
        char other[96] = "";
        if (ch->dynamic_power_other_W > 0)
            snprintf(other, sizeof other, " plus \"dynamic_power_other_W\" %.6g W", ch->dynamic_power_other_W);
        return npu_errf(e, "op %zu \"%s\": chip \"power_cap_W\"/\"TDP_W\" %.6g W is below the chip's "
                           "static power %.6g W%s: no clock can keep it under the cap",
                        index, op->name, cap_W, ps_W, other);
    }
    int64_t core = max64(op->sa_ns, op->vu_ns);
    if (core <= 0)
        return 0;   /* HBM or ICI power does not follow the core clock */
    struct cap_fn f = { op, ch, prof, cap_W, e, false };
    double s = 1;
    if (cap_stretch_memo(&f, dyn_J / (cap_W - ps_W) * 1e9 / (double)core, &s))
        return -1;
    struct op x;
    stretched(prof, op, s, &x);
    op->sa_ns = x.sa_ns;
    op->vu_ns = x.vu_ns;
    op->exe_ns = x.exe_ns;
    op->flops_util = x.flops_util;
    op->hbm_bw_util = x.hbm_bw_util;
    op->bounded_by = BOUND_POWER;
    return 0;
}

int power_cap_pass(struct trace *t, const struct chip_config *ch, const struct profile *prof,
                   struct npu_err *e)
{
    double cap = power_cap_of(ch);
    if (prof->no_power_cap || !(cap > 0))
        return 0;
    /* The estimate of the energy pass that follows (power_default_pass). */
    if (!prof->inline_energy_chipsim_types)
        power_reclassify_ops(t);
    for (size_t i = 0; i < t->n; i++)
        if (cap_op(&t->ops[i], ch, prof, cap, i, e))
            return -1;
    return 0;
}
