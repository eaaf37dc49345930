/* sweep_run.h — running a sweep's points: the per-point worker on the
 * ordered pool (generate, time, write or summarise), the summary file, the
 * closing counts, and the MPI merge (used by cmd_sweep.c).
 *
 * Main data structures: struct sweep_opts (what every point shares) and
 * struct sweep_ctx (the running sweep: enumerator, counts, first error,
 * held rows of a bundle). */
#ifndef NPUSIM_CLI_SWEEP_RUN_H
#define NPUSIM_CLI_SWEEP_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "traces/strbuf.h"
#include "cli/progress.h"
#include "study/outputs.h"
#include "study/sweep_points.h"
#include "power/invariants.h"
#include "power/pg.h"
#include "traces/atomic.h"
#include "traces/profile.h"

struct sweep_opts {
    const char *out, *summary, *seqlen, *pg_name, *dvfs_name;
    int64_t seq_in, seq_out;
    bool tree, skip_existing, dry_run, fatal_errors;
    const struct profile *prof;
    struct pg_strategy pg;
    enum dvfs_policy dvfs;
    bool custom_energy;
    double ci, util, lifetime;
    bool ci_given;
    /* A results tree is written here, beside out, and published whole at
     * the end (study/staging.h): a sweep that fails leaves out as it was. */
    char stage[4200];
    struct output_sink sink;     /* how the points' files are written (staged; kept for a suite) */
};

struct sweep_count {
    long simulated, invalid, existing, errors, done;
};

struct sweep_ctx {
    const struct sweep_opts *o;
    struct sweep_enum en;
    struct sweep_count cnt;
    struct npu_err err;          /* the fatal error, if any */
    bool failed;
    FILE *summary;
    struct progress prog;
    bool want_row;
    long violating;              /* simulated points violating a physical invariant */
    char first_warn[INVARIANT_LEN + 200];   /* the first of them, in point order */
    long held_bundle;            /* the bundle whose rows are held */
    struct strbuf held[SWEEP_BUNDLE_MAX];   /* [pos], pos >= 1: rows of a bundle's later
                                              * combinations, held until the bundle ends */
};

struct sweep_spec;

/* Runs every point of the plan's shard on jobs threads through the ordered
 * pool; x->failed and x->err on failure. */
void run_points(struct sweep_ctx *x, const struct sweep_plan *plan, long jobs);
/* Opens x->o->summary (atomic) and writes the header; 0 or a usage error. */
int open_summary(struct sweep_ctx *x, struct atomic_file *af, const struct sweep_spec *spec);
/* Under mpirun: the ranks' max rc and summed counts; rank 0 merges the
 * per-rank summaries into final_summary. Returns the new rc. */
int mpi_finish(struct sweep_ctx *x, const char *final_summary, const char *rank_summary, int rc);
/* The closing stderr lines: counts, and the invariants warning. */
void report_counts(const struct sweep_ctx *x);
/* Frees what x holds (enumerator, held rows). */
void sweep_ctx_free(struct sweep_ctx *x);

#endif
