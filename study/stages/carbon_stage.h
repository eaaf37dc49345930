/* carbon_stage.h — the carbon and energy stage behind `npusim carbon`
 * (power.md §8, §10): reads every energy stats file of the requested models
 * and versions under a raw_<dvfs> tree and writes, per carbon intensity, the
 * file back with the deployment-level keys added, all or nothing. The
 * command line, a suite, the HTTP API and Python all call the one typed
 * entry carbon_run.
 *
 * Main data structures: struct carbon_request (what to compute: values
 * only; the intensity, duty cycle and lifetime not given are the system
 * config's) and struct carbon_done (what a run wrote, and which values it
 * used from where). */
#ifndef NPUSIM_STUDY_CARBON_STAGE_H
#define NPUSIM_STUDY_CARBON_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "study/stages/stage_io.h"
#include "traces/profile.h"

#define CARBON_MAX_ITEMS 64

/* What to compute. Strings and lists are borrowed from the caller, who
 * keeps them alive during the call. A model, version, intensity or
 * lifetime named twice counts once. */
struct carbon_request {
    const char *results;                      /* --results: a raw_<dvfs> tree from the energy stage (required) */
    const char *const *models;                /* --models (required), at most CARBON_MAX_ITEMS */
    int nmodels;
    const char *const *versions;              /* --versions (required), at most CARBON_MAX_ITEMS */
    int nversions;
    const char *workload;                     /* "inference" (default) or "training" */
    const char *pg;                           /* --pg: the strategy whose energy_stats are used (required) */
    const char *dvfs;                         /* --dvfs: names the output folder only (default "None") */
    double ci_kgCO2e_per_kWh[CARBON_MAX_ITEMS];   /* --ci: carbon intensities; nci 0: the system config's */
    int nci;
    double duty_cycle;                        /* --util, in (0, 1]; NAN: the system config's */
    int64_t lifetime_years[CARBON_MAX_ITEMS]; /* --lifetime: whole years; nlifetimes 0: the system config's */
    int nlifetimes;
    const char *configs;                      /* --configs: where the system config is looked for first; NULL */
    const struct profile *prof;               /* --profile (default: profile_default()) */
    long jobs;                                /* -j: threads; 0 = every core */
};

/* The defaults: workload inference, dvfs None, the intensity, duty cycle
 * and lifetime the system config's, the default profile, every core; no
 * results, models, versions or strategy. */
struct carbon_request carbon_request_default(void);

/* One value's check (the ranges are the system config fields', so an option
 * stops where a system file does): 0, or -1 with e naming --ci, --util or
 * --lifetime and the value as text (NULL: the number as printed). The
 * request's check runs them all; the command line runs them as it reads
 * each option, to name the value as the user spelt it. */
int carbon_ci_check(double ci_kgCO2e_per_kWh, const char *text, struct npu_err *e);
int carbon_duty_cycle_check(double duty_cycle, const char *text, struct npu_err *e);
int carbon_lifetime_check(int64_t years, const char *text, struct npu_err *e);

/* What a run wrote: files under <root>/carbon_<pg>/dvfs_<dvfs>/. */
struct carbon_done {
    char root[4096];      /* the folder holding raw_<dvfs> */
    int files;
    /* The values used and where each came from, e.g. "carbon defaults from
     * configs/systems/system_config.json: 0.5 kgCO2e/kWh, 4 years, duty
     * cycle 0.6" (power/system.h carbon_defaults_line), for the caller to say. */
    char said[2048];
    /* The error is the request's (a value, the system config its defaults
     * come from, or the results folder, found before any work): the
     * command line shows it as a usage error. */
    bool request_error;
};

/* Checks r, takes the defaults it leaves to the system config (r->configs,
 * r->prof), and runs the stage over the folder r->results: 0, or -1 with e
 * (nothing written). Warnings about models skipped go to stderr. */
int carbon_run(const struct carbon_request *r, const struct stage_io *io, struct carbon_done *done,
               struct npu_err *e);

#endif
