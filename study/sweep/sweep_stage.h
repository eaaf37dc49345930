/* sweep_stage.h — the sweep's typed entry (issue 40 item 1): `npusim sweep`,
 * `npusim suite` and any other caller hand a struct sweep_request of values
 * and get a struct sweep_done back. The stage loads the spec, builds the
 * plan (sweep_points.h), checks the request, picks the energy pass, names
 * and stages its outputs (the results tree's staging folder beside it,
 * locked, a dead run's removed first; each configuration published whole
 * as it finishes; the summary written through a temporary, a killed run's
 * removed first) and runs it (sweep_run.h). What to print is the caller's:
 * the counts, where the results went, the carbon note, the invariants
 * warning, the interrupt line (cli/cmd_sweep.c prints them).
 *
 * The process's environment is the caller's too: which shard an MPI rank or
 * a SLURM array task runs (the request names the shard) and the merge of
 * the ranks' summaries (cli/cmd_sweep.c).
 *
 * Main data structures: struct sweep_request (what to sweep, values only)
 * and struct sweep_done (what the run did). */
#ifndef NPUSIM_STUDY_SWEEP_STAGE_H
#define NPUSIM_STUDY_SWEEP_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "power/invariants.h"
#include "study/stages/stages.h"
#include "study/sweep/sweep_points.h"
#include "study/sweep/sweep_run.h"
#include "traces/profile.h"

/* The parallelism degree filters, in sweep_plan's only[] order. */
enum { SWEEP_DEG_DP, SWEEP_DEG_TP, SWEEP_DEG_PP, SWEEP_DEG_EP, SWEEP_DEG_N };

struct sweep_request {
    /* What to sweep; a list left empty (count 0) is the spec's. Strings and
     * arrays are the caller's, alive during the call. */
    const char *const *models;         /* -m: model configs */
    int nmodels;
    const char *const *chips;          /* -c: chip versions ("5p") or chip names ("h100") */
    int nchips;
    const int64_t *num_chips;          /* --num-chips: chip counts */
    int nnum_chips;
    const int64_t *batch_sizes;        /* -b: global batch sizes */
    int nbatch_sizes;
    const char *workload;              /* -w: "inference" or "training"; NULL: the spec's, else inference */
    const char *spec_file;             /* --spec SPEC.json (docs/sweep-spec.md), or NULL */
    int64_t seq_in_tokens, seq_out_tokens;   /* --seqlen IN_OUT; 0: the model's (both or neither) */
    /* --dp, --tp, --pp, --ep: only the points whose degree is one of these
     * (ndegrees 0: any) */
    int64_t degrees[SWEEP_DEG_N][SWEEP_ONLY_MAX];
    int ndegrees[SWEEP_DEG_N];
    /* What to write */
    const char *out;                   /* -o: the results tree; NULL: ./results, none with a summary */
    const char *summary;               /* --summary FILE.csv: one row per configuration, or NULL */
    bool shard_given;                  /* --shard K/N: only points with index % N == K - 1 */
    long shard_k, shard_n;             /* 1 <= shard_k <= shard_n */
    /* The summary's energy pass and carbon columns */
    const char *pg;                    /* --pg strategy; NULL with dvfs NULL: the plain NoPG pass */
    const char *dvfs;                  /* --dvfs policy; NULL: None */
    double ci_kgCO2_per_kWh;           /* --ci; NAN: the system config's */
    double util;                       /* --util duty cycle in (0, 1]; 0: the system config's */
    double lifetime_years;             /* --lifetime; 0: the system config's */
    bool skip_existing;                /* leave configurations whose files are there */
    bool dry_run;                      /* simulate every valid configuration, write nothing */
    bool stats;                        /* measure the peak RSS (done->peak_rss_KiB) */
    const char *configs;               /* --configs DIR, or NULL */
    bool only_configs;                 /* names resolve in configs alone (a server's requests) */
    const struct profile *prof;        /* --profile */
    long jobs;                         /* -j threads; 0: every core */
    /* Bounds for a caller that serves others (the HTTP API) */
    long max_points;                   /* a sweep of more points is refused before it runs; 0: any */
    double deadline_s;                 /* CLOCK_MONOTONIC seconds past which the sweep stops with an
                                        * error; 0: none */
};

struct sweep_done {
    struct sweep_count cnt;            /* simulated, invalid, already present, failed */
    long published;                    /* configurations published into the tree */
    const char *out;                   /* the results tree (r->out or "results"); NULL: none */
    const char *summary;               /* r->summary */
    bool rows;                         /* summary rows were formed (a summary, not a dry run) */
    long violating;                    /* simulated points violating a physical invariant ... */
    char first_warn[INVARIANT_LEN + 200];      /* ... the first of them, in point order */
    char carbon_note[SWEEP_CARBON_NOTE_MAX];   /* the first row's carbon inputs and their sources */
    bool carbon_varies;                /* a later row's differ */
    int signal;                        /* non-zero: *io->stop stopped the sweep (the signal's number) */
    bool request_error;                /* the error is the request's (a usage error) */
    long peak_rss_KiB;                 /* with r->stats, else -1 */
};

/* THE defaults: every list the spec's, workload inference, no shard, the
 * plain energy pass, carbon inputs the system config's, every core, the
 * default profile, no bound. */
struct sweep_request sweep_request_default(void);

/* Checks the request's values that need no file: 0, or -1 with e naming
 * the option as the command line spells it ("--tp ..."). */
int sweep_request_check(const struct sweep_request *r, struct npu_err *e);

/* Runs the sweep (see above). io->out (may be NULL) keeps the tree's
 * statistics for a suite's later stages; io->stop stops it between points
 * (done->signal; the tree keeps the configurations finished, the summary
 * is not written); io->progress reports the points done. 0, or -1 with e
 * (done->request_error when the request is at fault). */
int sweep_stage_run(const struct sweep_request *r, const struct stage_io *io, struct sweep_done *done,
                    struct npu_err *e);

#endif
