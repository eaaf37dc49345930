/* sweep_run.h — running a sweep's points: the per-point worker on the
 * ordered pool (generate, time, write or summarise) and the summary file
 * (sweep_stage.c builds the plan, stages the outputs and runs it here;
 * cli/cmd_sweep.c reports, and merges an MPI run's summaries).
 *
 * Main data structures: struct sweep_opts (what every point shares) and
 * struct sweep_ctx (the running sweep: enumerator, counts, first error,
 * held rows of a bundle). */
#ifndef NPUSIM_STUDY_SWEEP_RUN_H
#define NPUSIM_STUDY_SWEEP_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/strbuf.h"
#include "study/run/run.h"
#include "study/sweep/sweep_points.h"
#include "power/invariants.h"
#include "power/pg.h"
#include "base/atomic.h"
#include "traces/profile.h"

struct sweep_opts {
    const char *out, *summary;
    int64_t seq_in, seq_out;     /* 0: the model's sequence lengths */
    bool tree, skip_existing, dry_run, fatal_errors;
    const struct profile *prof;
    struct pg_strategy pg;
    enum dvfs_policy dvfs;
    bool custom_energy;
    double ci, util, lifetime;   /* util, lifetime 0: the system config's (power/system.h) */
    bool ci_given;
    /* A results tree is written here, beside out, and each configuration
     * is published from it as it finishes, its folder swapped in whole
     * (study/stages/staging.h: staging_publish_set): a sweep that fails or is
     * interrupted leaves out with whole configurations only, and what it
     * had not finished is dropped with this folder. */
    char stage[4200];
    struct output_sink sink;     /* how the points' files are written (staged; kept for a suite) */
};

/* Progress of a running sweep (stage_progress.h): begin gets the number of
 * points (counting them costs a pass over the plan), update the points done
 * so far after each. */

/* The last line of a shard's summary: "#shard K/N points P" (merge checks
 * that the shards are 1..N of one sweep of P points). */
#define SUMMARY_SHARD_MARK "#shard "

struct sweep_count {
    long simulated, invalid, existing, errors, done;
};

#define SWEEP_CARBON_NOTE_MAX 1024
struct sweep_ctx {
    const struct sweep_opts *o;
    struct sweep_enum en;
    struct sweep_count cnt;
    struct npu_err err;          /* the fatal error, if any */
    bool failed;
    FILE *summary;
    struct stage_progress progress;
    bool want_row;
    long violating;              /* simulated points violating a physical invariant */
    char first_warn[INVARIANT_LEN + 200];   /* the first of them, in point order */
    char carbon_note[SWEEP_CARBON_NOTE_MAX];   /* the first row's carbon inputs and their sources */
    bool carbon_varies;          /* a later row's differ */
    const volatile sig_atomic_t *cancel;   /* non-zero: stop before the next point (a
                                             * signal's flag, cli/interrupt.h), or NULL */
    bool interrupted;            /* stopped by *cancel */
    long published;              /* configurations published into the tree */
    double deadline_s;           /* CLOCK_MONOTONIC seconds past which the sweep stops with
                                  * an error (0: none; the HTTP API's time per request) */
    long held_bundle;            /* the bundle whose rows are held */
    struct strbuf held[SWEEP_BUNDLE_MAX];   /* [pos], pos >= 1: rows of a bundle's later
                                              * combinations, held until the bundle ends */
};

struct sweep_spec;

/* Runs every point of the plan's shard on jobs threads through the ordered
 * pool; x->failed and x->err on failure. With a results tree, each point's
 * files are published as the point is consumed, in point order. *x->cancel
 * stops it between points (x->interrupted, x->failed): the points under way
 * finish or are dropped, none is left half-published. */
void run_points(struct sweep_ctx *x, const struct sweep_plan *plan, long jobs);
/* Opens x->o->summary (atomic) and writes the header; 0, or -1 with e
 * (a write error sets x->failed and x->err). */
int open_summary(struct sweep_ctx *x, struct atomic_file *af, const struct sweep_spec *spec, struct npu_err *e);
/* A summary sweep of a spec into memory (the HTTP API's /api/sweep): the
 * summary CSV `npusim sweep --spec --summary` writes, on one thread. A
 * sweep of more than max_points points is refused before it runs (the
 * message gives the count); one that runs past deadline_s (CLOCK_MONOTONIC
 * seconds, 0: none) stops with an error. *csv is malloc'ed; counts in *cnt;
 * the line naming the carbon inputs of its summary columns in carbon_note. */
int sweep_summary_text(const struct sweep_spec *spec, const char *configs, bool only_configs,
                       const struct profile *prof, long max_points, double deadline_s, char **csv, struct sweep_count *cnt,
                       char carbon_note[SWEEP_CARBON_NOTE_MAX], struct npu_err *e);
/* Frees what x holds (enumerator, held rows). */
void sweep_ctx_free(struct sweep_ctx *x);

#endif
