/* pg.h — power-gating strategies and DVFS policies (power.md §3.1, §4).
 *
 * A strategy is data: the parameters of power.md §4.1 (per component: enabled,
 * policy, temporal/spatial granularity, power-level factors, wake-up delays).
 * The reference's named strategies (NoPG, Base, HW, Full, Ideal,
 * ideal_inst_component, ideal_op_component) ship as JSON files in
 * configs/pg/ and, identically, as a table built into the library; the
 * suffixes "_vary_PG_delay_<k>" and "_vary_Vth_<a>_<b>" modify a named base;
 * a path to a JSON file defines a user strategy (docs/power-gating.md). */
#ifndef NPUSIM_PG_H
#define NPUSIM_PG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "traces/profile.h"

enum pg_temporal { PG_INSTRUCTION = 1, PG_OPERATOR = 2, PG_APPLICATION = 3 };
/* Spatial granularity: one enum for all components; the names differ per
 * component in the reference and in the JSON files: SA PE / VU ALU / Vmem
 * REGISTER_SIZE / ICI LINK = PG_FINE, PARTITION, COMPONENT. */
enum pg_spatial { PG_FINE = 1, PG_PARTITION = 2, PG_COMPONENT = 3 };
enum pg_policy { PG_HW = 1, PG_SW = 2 };
enum pg_voltage { PG_TWO_LEVEL = 1, PG_MULTI_LEVEL = 2 };

#define PG_MAX_LEVELS 8

/* One component's gating parameters (fields a component lacks stay at their
 * defaults and are ignored). */
struct pg_component {
    bool enabled;
    enum pg_policy policy;
    enum pg_temporal temporal;
    enum pg_spatial spatial;
    enum pg_voltage voltage;          /* vmem only */
    int n_levels;                     /* *_power_level_factors: power at each level, */
    double levels[PG_MAX_LEVELS];     /* highest first; the last one is the gated power */
    int n_shape;                      /* sa/vu_partition_shapes (never used by the model) */
    int64_t shape[PG_MAX_LEVELS];
    double delay_cycles;              /* sa_pg / vu_pg / vmem_partition_pg / ici_pg / hbm_pg delay */
    double pe_delay_cycles;           /* SA PE-level delay */
    double drowsy_period_cycles;      /* vmem HW drowsy period */
    int64_t partition_size_bytes;     /* vmem partition */
};

struct pg_strategy {
    char name[128];
    struct pg_component sa, vu, vmem, ici, hbm, other;
    int64_t hbm_refresh_interval_ns, hbm_refresh_delay_ns; /* never used by the model */
};

/* Gated power / static power: the last power-level factor. */
static inline double pg_gated_factor(const struct pg_component *c) { return c->levels[c->n_levels - 1]; }

/* The wake-up delay of a gated chip, ns rounded up: the slowest enabled
 * component's delay_cycles at freq_GHz (0 with none enabled, no strategy
 * or no clock). What a serving pass after gated idle time waits. */
int64_t pg_wake_ns(const struct pg_strategy *pg, double freq_GHz);

/* The §4.1 defaults (every component disabled; name "PowerGatingConfig"). */
void pg_strategy_default(struct pg_strategy *s);

/* Resolves a strategy: a named one (with optional suffixes, §4.2-4.3) from
 * <configs_dir>/pg/<base>.json when that file exists, else from the built-in
 * table (configs_dir may be NULL); or, for a name containing '/' or ending in
 * ".json", that JSON file. Errors name the strategy/file and the field.
 * Under prof->pg_strategy_quirks names match as the reference matches them
 * and the suffixes change what it changes (power Q13, power Q14; docs/profile.md). */
int pg_strategy_lookup(const char *name, const char *configs_dir, const struct profile *prof,
                       struct pg_strategy *out, struct npu_err *e);

/* Reads a strategy JSON text over the §4.1 defaults; `what` names it in errors. */
int pg_strategy_from_json_text(const char *text, const char *what, struct pg_strategy *out,
                               struct npu_err *e);

/* Writes s as a strategy JSON file (every field, in the reference's order). */
int pg_strategy_write_json(const struct pg_strategy *s, FILE *f);

/* The strategy file's fields, for the configuration reference (npusim
 * fields, docs/configs.md): i from 0 to pg_field_count() - 1, in file order. */
struct pg_field_doc {
    const char *key, *type, *unit, *doc;
    char allowed[128];   /* the values a file may give it */
};
int pg_field_count(void);
void pg_field_describe(int i, struct pg_field_doc *out);
/* Field i's value in s as JSON text (pg_strategy_default's: its default). */
void pg_field_write(int i, const struct pg_strategy *s, FILE *f);

/* The built-in named strategies (base names without suffixes). */
int pg_builtin_count(void);
const struct pg_strategy *pg_builtin(int i);

/* true when two strategies are field-for-field equal (doubles bit for bit, so
 * that the energy memo never takes one for another that computes differently). */
bool pg_strategy_equal(const struct pg_strategy *a, const struct pg_strategy *b);

enum dvfs_policy { DVFS_NONE, DVFS_IDEAL };
/* "None" or "Ideal", optionally "<Policy>_<x>" (x must be a number; ignored
 * as in the reference). The reference's other policies (DVFSC, Custom,
 * PerfDegrad) are named but unimplemented: an error. */
int dvfs_policy_parse(const char *s, enum dvfs_policy *out, struct npu_err *e);
const char *dvfs_policy_name(enum dvfs_policy p);

#endif
