/* pg.h — power-gating strategies and DVFS policies (power.md §3.2, §4).
 *
 * A strategy is data: the parameters of power.md §4.1 (per component: enabled,
 * policy, temporal/spatial granularity, power-level factors, wake-up delays).
 * The reference's named strategies (NoPG, Base, HW, Full, Ideal,
 * ideal_inst_component, ideal_op_component) ship as JSON files in
 * configs/pg/; the suffixes "_vary_PG_delay_<k>" and "_vary_Vth_<a>_<b>"
 * modify a named base; a path to a JSON file defines a user strategy. */
#ifndef NPUSIM_PG_H
#define NPUSIM_PG_H

#include <stdbool.h>
#include <stdint.h>

#include "traces/err.h"

enum pg_temporal { PG_INSTRUCTION = 1, PG_OPERATOR = 2, PG_APPLICATION = 3 };
/* Spatial granularity: one enum for all components (PE/ALU/REGISTER_SIZE/LINK = 1,
 * PARTITION = 2, COMPONENT = 3); the names differ per component in the reference. */
enum pg_spatial { PG_FINE = 1, PG_PARTITION = 2, PG_COMPONENT = 3 };
enum pg_policy { PG_HW = 1, PG_SW = 2 };
enum pg_voltage { PG_TWO_LEVEL = 1, PG_MULTI_LEVEL = 2 };

/* One component's gating parameters. */
struct pg_component {
    bool enabled;
    enum pg_policy policy;
    enum pg_temporal temporal;
    enum pg_spatial spatial;
    enum pg_voltage voltage;          /* vmem only */
    double gated_factor;              /* last power-level factor: gated power / static power */
    double delay_cycles;              /* sa_pg / vu_pg / vmem_partition_pg / ici_pg / hbm_pg delay */
    double pe_delay_cycles;           /* SA PE-level delay */
    double drowsy_period_cycles;      /* vmem HW drowsy period */
    int64_t partition_size_bytes;     /* vmem partition */
};

struct pg_strategy {
    char name[128];
    struct pg_component sa, vu, vmem, ici, hbm, other;
};

/* Resolves a strategy: a named one (with optional suffixes) from
 * <configs_dir>/pg/<base>.json (configs_dir NULL: the built-in copies), or a
 * path to a JSON file. Errors name the strategy/file and the field. */
int pg_strategy_lookup(const char *name, const char *configs_dir, struct pg_strategy *out,
                       struct npu_err *e);

enum dvfs_policy { DVFS_NONE, DVFS_IDEAL };
/* "None" or "Ideal" (optionally "<Policy>_<x>", x ignored as in the reference). */
int dvfs_policy_parse(const char *s, enum dvfs_policy *out, struct npu_err *e);
const char *dvfs_policy_name(enum dvfs_policy p);

#endif
