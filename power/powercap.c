/* powercap.c — throttling ops to the chip's power cap (see powercap.h). */
#include "power/powercap.h"

#include <math.h>

#include "power/energy.h"

double power_cap_of(const struct chip_config *ch)
{
    return ch->power_cap_W > 0 ? ch->power_cap_W : ch->TDP_W;
}

/* Sixteen rounds at most: the regulator efficiency follows the activity, which
 * falls as the op stretches, so one solve can leave it a hair above the cap. */
#define CAP_ROUNDS 16
/* Relative tolerance above the cap (rounding of the ns times). */
#define CAP_SLACK 1e-6

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static int cap_op(struct op *op, const struct chip_config *ch, const struct profile *prof, double cap_W,
                  size_t index, struct npu_err *e)
{
    if (op->exe_ns <= 0)
        return 0;   /* no time, no power */
    for (int round = 0; round < CAP_ROUNDS; round++) {
        double ps_W, dyn_J;
        if (power_op_estimate(op, ch, prof, &ps_W, &dyn_J, e))
            return -1;
        double exe_s = (double)op->exe_ns / 1e9;
        if (ps_W + dyn_J / exe_s <= cap_W * (1 + CAP_SLACK))
            return 0;
        if (ps_W >= cap_W)
            return npu_errf(e, "op %zu \"%s\": chip \"power_cap_W\"/\"TDP_W\" %.6g W is below the chip's "
                               "static power %.6g W: no clock can keep it under the cap",
                            index, op->name, cap_W, ps_W);
        int64_t core = max64(op->sa_ns, op->vu_ns);
        if (core <= 0)
            return 0;   /* HBM or ICI power does not follow the core clock */
        int64_t want_ns = (int64_t)ceil(dyn_J / (cap_W - ps_W) * 1e9);
        if (want_ns <= op->exe_ns)
            want_ns = op->exe_ns + 1;
        double s = (double)want_ns / (double)core;
        int64_t old = op->exe_ns;
        op->sa_ns = (int64_t)ceil((double)op->sa_ns * s);
        op->vu_ns = (int64_t)ceil((double)op->vu_ns * s);
        op->exe_ns = max64(max64(max64(op->sa_ns, op->vu_ns), max64(op->mem_ns, op->ici_ns)), op->vmem_ns);
        op->flops_util *= (double)old / (double)op->exe_ns;
        op->hbm_bw_util *= (double)old / (double)op->exe_ns;
        op->bounded_by = BOUND_POWER;
    }
    return 0;
}

int power_cap_pass(struct trace *t, const struct chip_config *ch, const struct profile *prof,
                   struct npu_err *e)
{
    double cap = power_cap_of(ch);
    if (prof->no_power_cap || !(cap > 0))
        return 0;
    for (size_t i = 0; i < t->n; i++)
        if (cap_op(&t->ops[i], ch, prof, cap, i, e))
            return -1;
    return 0;
}
