/* slo_stage.h — the SLO stage behind `npusim slo` (power.md §9, §10): over a
 * carbon results tree, per model (and LLM inference phase), the latency SLO
 * from the TPUv5p reference configuration and, per SLO scale and chip
 * version, the minimum-chip, throughput-, energy- and cost-optimal
 * configurations (power/slo.h), as one JSON object per model and phase.
 *
 * One typed entry, slo_run, for the command line, npusim suite and any
 * other caller: a request of values (slo_request_default gives the
 * defaults), its checks here (slo_request_check), what the run wrote back.
 *
 * Main data structure: struct slo_request, what to analyse. */
#ifndef NPUSIM_STUDY_SLO_STAGE_H
#define NPUSIM_STUDY_SLO_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "study/stages/stage_io.h"
#include "traces/profile.h"

#define SLO_MAX_ITEMS 64

/* What to analyse: values only, the strings borrowed from the caller. */
struct slo_request {
    const char *results_dir;                 /* .../carbon_<PG>/dvfs_<D>/CI<ci>/UTIL<u> (--results) */
    const char *out_dir;                     /* where the analyses go (--out) */
    const char *workload;                    /* "inference" or "training" (--workload) */
    const char *models[SLO_MAX_ITEMS];       /* --models */
    int nmodels;                             /* 0: none given; below 0: not a list (an error) */
    const char *versions[SLO_MAX_ITEMS];     /* chip versions (--versions) */
    int nversions;                           /* as nmodels */
    int64_t slo_scales[SLO_MAX_ITEMS];       /* SLO multiples (--slo-scales) */
    int nscales;
    int64_t max_num_chips;                   /* configurations with more chips are ignored (--max-num-chips) */
    int64_t slo_multiple;                    /* the 1x SLO in reference latencies (--default-slo-multiple) */
    const char *configs;                     /* --configs: taken for symmetry (the results carry their
                                              * configs); may be NULL */
    const struct profile *prof;              /* absolute_output_paths: the *stats_file keys as the
                                              * reference names them; else the file read, relative.
                                              * NULL: profile_default() */
};

/* The defaults: workload inference, scales 1,2,3,4,5,6, at most INT_MAX
 * chips, multiple 1, the default profile; no folders, models or versions. */
struct slo_request slo_request_default(void);

/* The request's values, each error naming its option as the command line
 * spells it: the workload, the numbers' ranges, the folders, models and
 * versions given, and --results a folder holding at least one of the models
 * (a tree holding none is the wrong tree, or the wrong level of it; a model
 * missing among others is skipped with a warning, as the reference does).
 * 0, or -1 with e. */
int slo_request_check(const struct slo_request *r, struct npu_err *e);

/* The analysis of one model and phase ("" for single-file workloads, else
 * "prefill" or "decode"): *text gets its file's text (malloc'ed), or NULL
 * when the model is skipped (warned on stderr: unknown class, no results
 * folder, no reference configuration, no price). 0, or -1 with e: a
 * statistics file that does not read as one, or lacks the energy a choice
 * needs. r is taken as checked. */
int slo_analyse(const struct slo_request *r, const char *model, const char *phase, char **text, struct npu_err *e);

/* What a run wrote. */
struct slo_done {
    int written, analyses;
};
/* Every analysis of r, written under r->out_dir all together
 * (<model>/<workload>[-<phase>].json); a skipped one writes nothing. The
 * warnings (a model skipped, a version without results) go to stderr. io:
 * io->suite makes a version no model has results for a warning (the
 * suite's sweeps said what they found); the rest of io is not used. 0, or
 * -1 with e (nothing written): a request slo_request_check refuses, a bad
 * statistics file, or a version named that no analysed model has results
 * for. */
int slo_run(const struct slo_request *r, const struct stage_io *io, struct slo_done *done, struct npu_err *e);

#endif
