/* sweep_points.h — the points of a sweep, one at a time.
 *
 * A sweep is models x chips x field combinations (sweep spec "fields") x chip
 * counts x the family's parallel configurations x batch sizes, in that order
 * (the last one varies fastest; with no fields this is exactly the order of
 * the reference's sweep). The enumerator walks it like an odometer and never
 * builds the product: memory is one config per (model, chip), the parallel
 * configurations of the current chip count, and the groups still referenced
 * by points in flight. Main data structures: struct sweep_group, one model x
 * chip x field combination with its loaded config, shared by reference count
 * among its points; struct sweep_point, one configuration with its global
 * enumeration index (the same in every shard and for every -j). */
#ifndef NPUSIM_CLI_SWEEP_POINTS_H
#define NPUSIM_CLI_SWEEP_POINTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/config.h"
#include "cli/family.h"
#include "cli/sweep_spec.h"
#include "opsgen/sweep.h"

/* What to sweep (from the command line and/or a spec). */
struct sweep_plan {
    const char *configs, *workload;
    const char *const *models;
    int nmodels;
    const char *const *chips;          /* names or paths, as -c takes them */
    int nchips;
    struct spec_ints num_chips, batches;
    const struct spec_field *fields;
    int nfields;
    const char *spec_file;             /* names the source of field values in errors */
    long shard_k, shard_n;             /* process points with index % n == k (0-based k) */
};

struct sweep_group {
    atomic_int refs;
    struct loaded_config cfg;          /* fields applied; owns its cJSON only if `owned` */
    bool owned;
    const struct family *fam;
    const struct loaded_config *base;  /* the (model, chip) config without the fields */
    char invalid[512];                 /* non-empty: the field values do not load; every point is invalid */
    char version[64];                  /* chip name without "tpuv" (results tree file names) */
    char tag[1024];                    /* "+key=value..." for the results tree folder, or "" */
    char *field_csv;                   /* ",v1,v2" summary columns (owned) */
};

struct sweep_point {
    long index;                        /* global enumeration index */
    struct sweep_group *g;             /* holds a reference; release with sweep_group_release */
    struct parallel_cfg par;
    int64_t batch;
};

struct sweep_enum {
    const struct sweep_plan *plan;
    struct loaded_config *base;        /* [model * nchips + chip], loaded once */
    const struct family **fam;
    int mi, ci;
    int64_t combo, ncombos, ni, bi;
    size_t pi, npc;
    struct parallel_cfg *pcs;
    struct sweep_group *g;
    long index;
};

/* Loads every (model, chip) config and checks its family; errors (unknown
 * names, bad files, a family that cannot be swept) are fatal. */
int sweep_enum_init(struct sweep_enum *en, const struct sweep_plan *plan, struct npu_err *e);
/* 1 = *pt filled, 0 = done, -1 = error (a family's enumeration failed). */
int sweep_enum_next(struct sweep_enum *en, struct sweep_point *pt, struct npu_err *e);
void sweep_enum_free(struct sweep_enum *en);
/* The number of points this shard will process (runs the enumeration of
 * parallel configurations, not the points): for the progress line. */
long sweep_enum_count(const struct sweep_enum *en);
void sweep_group_release(struct sweep_group *g);

#endif
