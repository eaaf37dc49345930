/* energy_stage.h — the energy stage behind `npusim energy` (power.md §7,
 * §10): every statistics file of a sweep's results tree re-read, its ops
 * re-classified, the energy pass run once per power-gating strategy, the
 * outputs staged under RESULTS_<dvfs> and published all or nothing (see
 * energy_stage.c). The command line, a suite, the HTTP API and Python all
 * call the one typed entry energy_run.
 *
 * Main data structures: struct energy_request (what to compute: values
 * only, THE defaults in energy_request_default) and struct energy_done
 * (what a run wrote and what the caller should say). */
#ifndef NPUSIM_STUDY_ENERGY_STAGE_H
#define NPUSIM_STUDY_ENERGY_STAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "study/stages/stage_io.h"
#include "traces/profile.h"

#define ENERGY_MAX_PG 64

/* What to compute. Strings and lists are borrowed from the caller, who
 * keeps them alive during the call. */
struct energy_request {
    const char *results;                  /* --results: the sweep's results tree (required) */
    const char *const *models;            /* --models: model folder names (required) */
    int nmodels;
    const char *const *versions;          /* --versions: chip versions, e.g. "5p" (required) */
    int nversions;
    const char *workload;                 /* "inference" (default) or "training" */
    const char *const *pgs;               /* --pg: power-gating strategies, NoPG first (slowdowns are
                                           * relative to it), at most ENERGY_MAX_PG, none twice */
    int npgs;
    const char *dvfs;                     /* --dvfs: DVFS policy "None" (default) or "Ideal" */
    const char *configs;                  /* --configs: where strategy files (pg/) are looked up first; NULL */
    const struct profile *prof;           /* --profile (default: profile_default()) */
    long jobs;                            /* -j: threads; 0 = every core */
};

/* The defaults: workload inference, strategies NoPG,Base,HW,Full,Ideal, dvfs
 * None, the default profile, every core; no results, models or versions. */
struct energy_request energy_request_default(void);

/* What a run wrote, and what its caller should say. */
struct energy_done {
    char out_root[4096];      /* RESULTS_<dvfs>: where the outputs are (or would be) */
    size_t files;             /* statistics files written, each with one CSV per strategy */
    int strategies;
    /* The models and versions named that have no results: one line each,
     * "no <workload> results for <model> v<V> under <results> (skipped)\n",
     * malloc'ed (NULL: none); the caller prints and frees it. */
    char *missing;
    /* No model and version named has any results: nothing written. The
     * caller decides whether that is an error (a typo or the wrong tree) or
     * a warning (in a suite, or under the profile switch
     * stage_without_results_warns). */
    bool nothing_found;
    /* The error is the request's (a value checked before any work, named by
     * its option, e.g. "--pg ..."): the command line shows it as a usage
     * error. */
    bool request_error;
};

/* Checks r (NoPG first, no strategy twice, every strategy found, the dvfs
 * policy known, the results folder named by its own name) and runs the
 * stage: every statistics file of r's models and versions under
 * r->results, on r->jobs threads, its outputs published under
 * RESULTS_<dvfs> when all succeeded. io may hand a suite's results in
 * memory (io->in, io->out), progress hooks and a stop flag. 0 (done filled;
 * done->missing to be freed), or -1 with e (nothing of this run left on
 * disk or in io->out; done->missing may still hold lines). */
int energy_run(const struct energy_request *r, const struct stage_io *io, struct energy_done *done,
               struct npu_err *e);

#endif
