/* slo_stage.h — the SLO stage behind `npusim slo` (power.md §9, §10): over a
 * carbon results tree, per model (and LLM inference phase), the latency SLO
 * from the TPUv5p reference configuration and, per SLO scale and chip
 * version, the minimum-chip, throughput-, energy- and cost-optimal
 * configurations (power/slo.h), as one JSON object per model and phase.
 *
 * Main data structure: struct slo_opts, the stage's parameters. */
#ifndef NPUSIM_STUDY_SLO_STAGE_H
#define NPUSIM_STUDY_SLO_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "traces/profile.h"

#define SLO_MAX_ITEMS 64

struct slo_opts {
    const char *results, *out, *workload;   /* results: .../carbon_<PG>/dvfs_<D>/CI<ci>/UTIL<u> */
    char *models[SLO_MAX_ITEMS], *versions[SLO_MAX_ITEMS];
    int nmodels, nversions;
    int64_t scales[SLO_MAX_ITEMS];          /* SLO multiples */
    int nscales;
    int64_t max_chips, multiple;            /* chips considered at most; the 1x SLO in reference latencies */
    char *bufs[3];                          /* the command line's copies the lists point into */
    const struct profile *prof;             /* absolute_output_paths: the *stats_file keys as the
                                             * reference names them; else the file read, relative */
    bool suite;                             /* run by npusim suite: a version without results is
                                             * a warning (its sweeps found none), not an error */
};

/* The analysis of one model and phase ("" for single-file workloads, else
 * "prefill" or "decode"): *text gets its file's text (malloc'ed), or NULL
 * when the model is skipped (warned on stderr: unknown class, no results
 * folder, no reference configuration, no price). 0, or -1 with e: a
 * statistics file that does not read as one, or lacks the energy a choice
 * needs. */
int slo_analyse(const struct slo_opts *o, const char *model, const char *phase, char **text, struct npu_err *e);

/* What a run wrote. */
struct slo_done {
    int written, analyses;
};
/* Every analysis of o, written under o->out all together
 * (<model>/<workload>[-<phase>].json); a skipped one writes nothing. 0, or
 * -1 with e (nothing written): a bad statistics file, or a version named
 * that no analysed model has results for. */
int slo_run(const struct slo_opts *o, struct slo_done *done, struct npu_err *e);

#endif
