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
 * among its points; struct sweep_point, one (parallel config, batch) with
 * its members: the combinations of its bundle (below; one without bundles),
 * each with its global enumeration index (the same in every shard and for
 * every -j).
 *
 * Bundles (plan.bundle_max > 1, summary sweeps): consecutive field
 * combinations of one (model, chip) whose configs give the family's
 * generator the same inputs (the model config and the chip's link
 * parameters, opsgen.h; e.g. a sweep of hbm_bw_GBps, num_sa or freq_GHz)
 * form one bundle, and a point then carries the same (parallel config,
 * batch) of every combination of its bundle: one trace serves them all. The
 * rows of the later combinations come `members` x (points per combination)
 * positions later in the enumeration, so whoever writes them in order holds
 * them back until the bundle ends; a bundle is cut short so that at most
 * SWEEP_BUNDLE_HELD such rows are ever held. */
#ifndef NPUSIM_STUDY_SWEEP_POINTS_H
#define NPUSIM_STUDY_SWEEP_POINTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "study/run/run.h"
#include "study/sweep/sweep_spec.h"
#include "opsgen/sweep.h"

#define SWEEP_ONLY_MAX 64

/* What to sweep (from the command line and/or a spec). */
struct sweep_plan {
    const char *configs, *workload;
    bool only_configs;                 /* names resolve in configs alone (config_request's only_dir) */
    const char *const *models;
    int nmodels;
    const char *const *chips;          /* names or paths, as -c takes them */
    int nchips;
    struct spec_ints num_chips, batches;
    const struct spec_field *fields;
    int nfields;
    const char *spec_file;             /* names the source of field values in errors */
    long shard_k, shard_n;             /* process points with index % n == k (0-based k) */
    int bundle_max;                    /* combinations per bundle, 1..SWEEP_BUNDLE_MAX (0 = 1) */
    /* --dp, --tp, --pp, --ep: only the enumerated points whose degree is one
     * of these (nonly 0: any); indices count the points kept. */
    int64_t only[4][SWEEP_ONLY_MAX];
    int nonly[4];
};

#define SWEEP_BUNDLE_MAX 16
#define SWEEP_BUNDLE_HELD 16384

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

/* One combination's point of a bundle. */
struct sweep_member {
    long index;                        /* global enumeration index */
    struct sweep_group *g;             /* holds a reference; release with sweep_group_release */
    int pos;                           /* place of g in its bundle, 0 = the first combination */
};

/* The same (parallel config, batch) of every combination of a bundle that
 * falls in this shard (at least one; exactly one without bundles). All
 * members' configs give the generator the same inputs. */
struct sweep_point {
    struct sweep_member m[SWEEP_BUNDLE_MAX];
    int n;
    long bundle;                       /* serial number of the bundle, from 0 */
    struct parallel_cfg par;
    int64_t batch;
};

/* Releases the group references of every member. */
void sweep_point_release(struct sweep_point *pt);

struct sweep_enum {
    const struct sweep_plan *plan;
    struct loaded_config *base;        /* [model * nchips + chip], loaded once */
    const struct family **fam;
    int mi, ci;
    int64_t combo, ncombos, ni, bi;
    size_t pi, npc;
    struct parallel_cfg *pcs;
    struct sweep_group *bundle[SWEEP_BUNDLE_MAX];   /* the current bundle; [0] leads it */
    int nbundle;
    long serial;                       /* of the current bundle */
    long start;                        /* global index of the leader's first point */
    long off;                          /* the next point's offset within a combination */
    long inner;                        /* points per combination of the current bundle */
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
/* The points of the whole sweep, every shard's (the indices run 0 .. total-1). */
long sweep_enum_total(const struct sweep_enum *en);

#endif
