/* stats.c — per-phase aggregation of a timed trace (see stats.h). */
#include "power/stats.h"

#include <string.h>

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

void trace_stats_compute(const struct trace *t, enum phase ph, struct trace_stats *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        if (ph != PHASE_NONE && op->phase != ph)
            continue;
        int64_t x = op->exe_ns * op->count;
        s->static_energy_J += op_static_energy_J(op) * (double)op->count;
        s->dynamic_energy_J += op_dynamic_energy_J(op) * (double)op->count;
        if (strstr(op->description, "Pipeline")) {
            s->total_pp_time_ns += x;
            if (strstr(op->description, "ICI"))
                s->total_pp_ici_time_ns += x;
            if (strstr(op->description, "DCN"))
                s->total_pp_dcn_time_ns += x;
            continue;
        }
        int64_t compute = max64(op->sa_ns, op->vu_ns);
        s->total_execution_time_non_pp_ns += x;
        s->overlapped_compute_time_non_pp_ns += min64(compute, max64(op->mem_ns, op->ici_ns)) * op->count;
        switch (op->bounded_by) {
        case BOUND_COMPUTE:
            s->compute_only_time_non_pp_ns += (compute - max64(op->mem_ns, op->ici_ns)) * op->count;
            break;
        case BOUND_MEMORY:
            s->memory_only_time_non_pp_ns += (op->mem_ns - max64(compute, op->ici_ns)) * op->count;
            break;
        case BOUND_ICI: {
            int64_t d = op->ici_ns - compute;
            s->ici_bound_time_non_pp_ns += (d < 0 ? -d : d) * op->count;
            break;
        }
        case BOUND_NONE: break;
        }
    }
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
}
