/* fam_diffusion.h — what the DiT and GLIGEN family entries share: their
 * output files (<base>.csv + <base>.json, opsgen.md §12.5), the summary and
 * the (m, 0, 0) torus-axis mapping of the reference's stable-diffusion sweeps.
 * Defined in fam_dit.c. */
#ifndef NPUSIM_STUDY_FAM_DIFFUSION_H
#define NPUSIM_STUDY_FAM_DIFFUSION_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "study/run/config.h"
#include "study/run/outputs.h"
#include "traces/op.h"

/* Writes <dir>/<base>.csv and <base>.json (statistics + sim, which it takes). */
int diffusion_write(const struct loaded_config *c, const struct profile *prof, const struct trace *t, int64_t mem_bytes,
                    cJSON *sim, const char *dir, const char *base, const struct output_sink *to,
                    struct npu_err *e);
void diffusion_summary(const struct loaded_config *c, const struct profile *prof, const struct trace *t, int64_t mem_bytes,
                       FILE *out);
struct family_capacity;
/* Fleet capacity: requests/s and the active power of all chips. */
int diffusion_capacity(const struct loaded_config *c, const struct profile *prof, const struct trace *t, int64_t mem_bytes,
                       struct family_capacity *cap, struct npu_err *e);
/* The family's prepare (study/run/family.h): maps parallelism to torus axes. */
bool diffusion_prepare(struct loaded_config *c, const struct profile *prof, char *why, size_t whylen);
/* Maps parallelism to (m, 0, 0) axes unless the config chose axes itself. */
void diffusion_auto_axes(struct loaded_config *c);

#endif
