/* family.h — one entry per model family and workload: how to generate it,
 * sweep it and report it.
 *
 * `npusim run`, the stage commands and `npusim sweep` are generic: they pick
 * the family whose matches() accepts the model config and workload, then call
 * its functions. Adding a family is one struct family in its own study/fam_*.c
 * file and one line in the table of family.c. */
#ifndef NPUSIM_STUDY_FAMILY_H
#define NPUSIM_STUDY_FAMILY_H

#include <stdbool.h>
#include <stdio.h>

#include "study/run/config.h"
#include "study/run/outputs.h"
#include "study/run/report.h"
#include "opsgen/sweep.h"
#include "traces/op.h"
#include "traces/profile.h"

/* A deployment's throughput when busy all the time, and the power it then
 * draws (all chips, after the energy pass), for fleet estimates. */
struct family_capacity {
    const char *unit;            /* "output tokens", "requests", "iterations" */
    double units_per_sec;
    double active_power_W;       /* all chips while serving at capacity */
    /* The footprint per chip and the family's out-of-memory verdict (the
     * statistics JSON's mem_footprint_GB and out_of_memory), for the sweep
     * summary's memory columns: every family with a footprint sets has_mem. */
    bool has_mem, oom;
    double mem_GiB;
};

struct family {
    const char *name;      /* e.g. "llama inference" */
    const char *example;   /* an example command line */
    /* True if this family simulates model m under workload ("inference", "training"). */
    bool (*matches)(const struct model_config *m, const char *workload);
    /* Family-specific config defaults applied after loading (may be NULL), e.g. a
     * model class that overrides a chip default. */
    void (*adjust)(struct loaded_config *c);
    /* The untimed trace (phases and timing groups set) from the model config
     * and the chip's link parameters (config_links) alone: sweep bundles
     * (sweep_points.h) share one trace among chips equal in those. Before it,
     * check (may be NULL) and, for a strict config, the model's strict field
     * checks (opsgen_check_strict) when strict_fields is set. Sets *ovf when
     * a size of the trace left int64 (opsgen.h), which family_generate
     * turns into an error. */
    int (*gen)(const struct model_config *m, const struct opsgen_links *l, const struct profile *prof,
               struct trace *t, bool *ovf, struct npu_err *e);
    bool strict_fields;
    int (*check)(const struct loaded_config *c, struct npu_err *e);
    /* Writes the outputs of a timed trace as <dir>/<base>...; `sweep` selects the
     * reference results-tree files, otherwise the `npusim run` files. All files
     * appear together or none (write_outputs in cli.h). */
    int (*write)(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                 const char *dir, const char *base, bool sweep, const struct output_sink *to,
                 struct npu_err *e);
    /* A short human summary of a timed trace. */
    void (*summary)(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                    FILE *out);
    /* Sweep: the parallel configurations for num_chips, in the reference's
     * order (opsgen/sweep.h: they depend on num_chips alone). */
    int (*enumerate)(int64_t num_chips, struct parallel_cfg **out, size_t *n, struct npu_err *e);
    /* Sweep: the results-tree folder name of a point ("dp1-tp4-...-bs8"). */
    void (*pstr)(const struct parallel_cfg *p, int64_t gbs, char *buf, size_t n);
    /* Sweep: validates a point whose parallelism and batch are applied
     * (false + why = skip it) and maps parallelism to torus axes. Reads what
     * generate reads (and the chip's name): one verdict serves a bundle. */
    bool (*prepare)(struct loaded_config *c, const struct profile *prof, char *why, size_t whylen);
    /* Sweep summary: the LLM statistics (TTFT, TPOT, memory, OOM) of a timed
     * trace; NULL for families that are not LLM inference. A family that has
     * it computes its capacity from this report (llm_capacity_from_report),
     * so the summary derives both from one report. */
    int (*llm_stats)(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                     struct llm_report *r, struct npu_err *e);
    /* Fleet: capacity and active power of a timed trace (after the energy pass). */
    int (*capacity)(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                    struct family_capacity *cap, struct npu_err *e);
    /* Serving (serving/): the attention core of one pass, whose cost follows
     * each request's context, and the parts of a replica's footprint (its KV
     * cache's room and block size); both NULL for a family not served. */
    int (*step_attention)(const struct model_config *m, const struct opsgen_links *l, const struct profile *prof,
                          const struct opsgen_step_attn *a, struct trace *out, bool *ovf, struct npu_err *e);
    void (*mem_parts)(bool *ovf, const struct model_config *m, const struct profile *prof,
                      struct opsgen_llm_mem_parts *p);
};

/* The family for a model and workload, or NULL (then families_list() helps the message). */
const struct family *family_find(const struct model_config *m, const char *workload);
/* "llama inference, llama training, ..." */
const char *families_list(void);
/* The global batch (0: the config's) split over the parallel degrees as
 * --batch does, then the family's config adjustments (fam->adjust): what
 * every front end does after loading a configuration. */
void family_apply_batch(struct loaded_config *c, const struct family *fam, int64_t batch);

extern const struct family fam_llm_inference, fam_llm_training, fam_deepseek, fam_dlrm, fam_dit,
    fam_gligen;

#endif
