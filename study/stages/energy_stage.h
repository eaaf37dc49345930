/* energy_stage.h — the energy stage behind `npusim energy` (power.md §7,
 * §10): every statistics file of a sweep's results tree re-read, its ops
 * re-classified, the energy pass run once per power-gating strategy, the
 * outputs staged and published all or nothing (see energy_stage.c).
 *
 * Main data structures: struct energy_opts (the stage's parameters) and
 * struct job (one statistics file). */
#ifndef NPUSIM_STUDY_ENERGY_STAGE_H
#define NPUSIM_STUDY_ENERGY_STAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/lists.h"
#include "power/pg.h"
#include "base/err.h"
#include "traces/profile.h"
#include "base/strbuf.h"
#include "study/run/stage_progress.h"

struct results;

#define MAX_PG 64

struct energy_opts {
    const char *configs, *results, *workload, *dvfs_str;
    struct list models, versions, pgs;
    struct pg_strategy pg[MAX_PG];
    enum dvfs_policy dvfs;
    const struct profile *prof;
    char out_root[4096];     /* RESULTS_<dvfs> */
    char staging[4096];      /* RESULTS_<dvfs>.tmp.<pid>.<n>, "" until created */
    long jobs;               /* -j: threads (default: every core) */
    /* A suite's results in memory (study/run/results.h), each may be NULL: the
     * sweep's statistics, taken instead of reading results/<rel> when held;
     * and where the outputs' trees go for the carbon stage. */
    struct results *in, *out;
    struct stage_progress progress;   /* statistics files done (the total is not known ahead) */
    bool quiet;                       /* --quiet: the caller shows no progress */
    /* The warnings about models and versions without results (a growing
     * strbuf the caller sets up), printed by the caller at the end: when
     * none has any, its error says it alone. */
    struct strbuf missing;
};

/* One statistics file: DIR/<rel>.json and .csv; outputs under <out_root>/<rel>. */
struct job {
    char rel[1024];          /* "<model>/<pstr>/<workload>-v<V>[_phase]" */
};

struct jobs {
    struct job *j;
    size_t n, cap;
};

/* Discovers the statistics files (into js) and runs every job on o->jobs
 * threads into the staging folder. 0, or -1 with e. */
int energy_run_jobs(struct energy_opts *o, struct jobs *js, struct npu_err *e);
/* Publishes the staged outputs under o->out_root. 0, or -1 with e (then
 * o->out holds nothing of this run). */
int energy_commit(struct energy_opts *o, struct npu_err *e);

#endif
