/* stats.c — per-phase aggregation of a timed trace (see stats.h). */
#include "study/run/stats.h"

#include <string.h>

#include "base/checked.h"

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

int trace_stats_compute(const struct trace *t, enum phase ph, struct trace_stats *s, struct npu_err *e)
{
    memset(s, 0, sizeof *s);
    /* Times are int64 ns: a count-weighted sum past 2^63 ns (292 years) is
     * an error, not a wrapped number (checked.h). */
    bool ovf = false;
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        if (ph != PHASE_NONE && op->phase != ph)
            continue;
        int64_t n = op->count;
        int64_t x = ck_mul(op->exe_ns, n, &ovf);
        s->static_energy_J += op_static_energy_J(op) * (double)op->count;
        s->dynamic_energy_J += op_dynamic_energy_J(op) * (double)op->count;
        if (strstr(op->description, "Pipeline")) {
            s->total_pp_time_ns = ck_add(s->total_pp_time_ns, x, &ovf);
            if (strstr(op->description, "ICI"))
                s->total_pp_ici_time_ns = ck_add(s->total_pp_ici_time_ns, x, &ovf);
            if (strstr(op->description, "DCN"))
                s->total_pp_dcn_time_ns = ck_add(s->total_pp_dcn_time_ns, x, &ovf);
            continue;
        }
        int64_t compute = max64(op->sa_ns, op->vu_ns);
        int64_t other = max64(op->mem_ns, op->ici_ns);
        s->total_execution_time_non_pp_ns = ck_add(s->total_execution_time_non_pp_ns, x, &ovf);
        s->overlapped_compute_time_non_pp_ns =
            ck_add(s->overlapped_compute_time_non_pp_ns, ck_mul(min64(compute, other), n, &ovf), &ovf);
        switch (op->bounded_by) {
        case BOUND_POWER:
            /* A throttled clock leaves the op compute-bound. */
            s->power_capped_time_ns = ck_add(s->power_capped_time_ns, x, &ovf);
            __attribute__((fallthrough));
        case BOUND_COMPUTE:
            s->compute_only_time_non_pp_ns =
                ck_add(s->compute_only_time_non_pp_ns, ck_mul(compute - other, n, &ovf), &ovf);
            break;
        case BOUND_MEMORY:
            s->memory_only_time_non_pp_ns = ck_add(
                s->memory_only_time_non_pp_ns, ck_mul(op->mem_ns - max64(compute, op->ici_ns), n, &ovf), &ovf);
            break;
        case BOUND_ICI: {
            int64_t d = op->ici_ns - compute;
            s->ici_bound_time_non_pp_ns = ck_add(s->ici_bound_time_non_pp_ns, ck_mul(d < 0 ? -d : d, n, &ovf), &ovf);
            break;
        }
        case BOUND_NONE: break;
        }
    }
    if (ovf)
        return npu_errf(e, "%s time: the count-weighted sum of op times exceeds 2^63 ns (292 years): "
                           "the config's sizes, counts or rates are out of scale",
                        ph == PHASE_NONE ? "total" : phase_name(ph));
    s->total_execution_time_chip_ns = max64(s->total_execution_time_non_pp_ns, s->total_pp_ici_time_ns);
    s->overlapped_compute_time_chip_ns = s->overlapped_compute_time_non_pp_ns;
    s->compute_only_time_chip_ns = s->compute_only_time_non_pp_ns;
    s->memory_only_time_chip_ns = s->memory_only_time_non_pp_ns;
    if (s->total_pp_time_ns > s->total_execution_time_non_pp_ns) {
        s->ici_bound_time_chip_ns = s->total_pp_time_ns -
            (s->total_execution_time_non_pp_ns - s->ici_bound_time_non_pp_ns);
        s->bounded_by_pp_chip = true;
    } else {
        s->ici_bound_time_chip_ns = s->ici_bound_time_non_pp_ns;
        s->bounded_by_pp_chip = false;
    }
    return 0;
}
