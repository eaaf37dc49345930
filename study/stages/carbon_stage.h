/* carbon_stage.h — the carbon and energy stage behind `npusim carbon`
 * (power.md §8, §10): reads every energy stats file of the requested models
 * and versions under a raw_<dvfs> tree and writes, per carbon intensity, the
 * file back with the deployment-level keys added, all or nothing.
 *
 * Main data structure: struct carbon_opts, the stage's parameters. */
#ifndef NPUSIM_STUDY_CARBON_STAGE_H
#define NPUSIM_STUDY_CARBON_STAGE_H

#include <stdint.h>

#include "study/run/stage_progress.h"
#include "base/err.h"

struct results;

#define MAX_ITEMS 64

struct carbon_opts {
    const char *results, *workload, *pg, *dvfs;
    char *models[MAX_ITEMS], *versions[MAX_ITEMS];
    int nmodels, nversions;
    double ci[MAX_ITEMS];
    int nci;
    double util;
    int64_t life[MAX_ITEMS];
    int nlife;
    long jobs; /* -j: threads (default: every core) */
    char *bufs[4];
    struct results *in;        /* a suite's energy outputs in memory (study/run/results.h), or NULL */
    struct stage_progress progress;   /* statistics files done */
};

/* What a run wrote: files under <root>/carbon_<pg>/dvfs_<dvfs>/. */
struct carbon_done {
    char root[4096];   /* the folder holding raw_<dvfs> */
    int files;
};
/* Runs the stage over the folder o->results (cmd_carbon.c has parsed and
 * checked o): 0, or -1 with e (nothing written). */
int carbon_run(const struct carbon_opts *o, struct carbon_done *done, struct npu_err *e);

#endif
