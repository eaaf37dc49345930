/* pipeline.h — one configuration end to end: the family's generator, chipsim,
 * the power cap and the default energy pass; the LLM families' output files
 * and their fleet capacity; the invariant warnings of a whole trace. */
#ifndef NPUSIM_STUDY_PIPELINE_H
#define NPUSIM_STUDY_PIPELINE_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "study/run/config.h"
#include "study/run/outputs.h"
#include "study/run/report.h"
#include "base/err.h"
#include "traces/op.h"
#include "traces/profile.h"

struct family;
/* The family's generator; errors name the file of the offending field. */
int family_generate(const struct family *fam, const struct loaded_config *c,
                    const struct profile *prof, struct trace *t, struct npu_err *e);
/* generate -> chipsim (-> default energy pass). */
int pipeline_run(const struct family *fam, const struct loaded_config *c, const struct profile *prof,
                 bool energy, struct trace *t, struct npu_err *e);

struct family_capacity;
/* The physical invariants of a whole timed trace (power/invariants.h),
 * printed as "npusim run: warning: ..." lines on stderr (the summaries of the
 * families without per-phase statistics). */
void summary_warnings(const struct loaded_config *c, const struct profile *prof, const struct trace *t);
void llm_capacity_from_report(const struct model_config *m, const struct llm_report *r,
                              struct family_capacity *cap);
int llm_family_capacity(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                        llm_mem_fn mem, struct family_capacity *cap, struct npu_err *e);

/* The human summary of an LLM-inference run (`npusim run`): the setting
 * (with the expert parallelism when with_ep), then the report's lines.
 * mem: the phase footprint (NULL: the LLM formula). */
void llm_family_summary(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                        llm_mem_fn mem, bool with_ep, FILE *out);

/* A family's LLM-inference outputs: the run files, or (sweep) the reference's
 * results-tree files with num_pods, batch_size_per_pod and layers_per_pp_stage
 * added to sim_config. mem: the phase footprint (NULL: the LLM formula). */
int write_llm_family_outputs(const struct loaded_config *c, const struct profile *prof,
                             const struct trace *t, const char *dir, const char *base, bool sweep,
                             llm_mem_fn mem, const struct output_sink *to, struct npu_err *e);

#endif
