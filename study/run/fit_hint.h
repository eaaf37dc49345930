/* fit_hint.h — the "to fit" line of a run that is out of memory: the least
 * change to its configuration whose per-chip footprint fits in the chip's
 * HBM, found by asking the family's own footprint formula of each candidate
 * in turn, and printed as the options that make it
 * (`to fit        --set zero_stage=3 --set remat=full (61.20 GiB per chip)`).
 *
 * Candidates, least disruptive first: for training, ZeRO sharding over the
 * data-parallel replicas and full rematerialisation (same chips); then
 * tensor parallelism doubled with the chips (2x to 64x, while it divides
 * the heads). Running the printed options gives the printed footprint (a
 * CLI test holds it to that). No data structure beyond the candidate table. */
#ifndef NPUSIM_STUDY_FIT_HINT_H
#define NPUSIM_STUDY_FIT_HINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "study/run/config.h"
#include "traces/profile.h"

/* The largest per-chip footprint of m's phases in GiB; desc gets them as
 * text ("prefill 66.64 GiB, decode 66.41 GiB" or "61.20 GiB"). */
typedef double (*fit_mem_fn)(const struct model_config *m, const struct profile *prof, const void *arg,
                             char *desc, size_t n);

/* A family with one footprint formula (training, DiT): fit_mem_one with arg
 * pointing to a struct fit_bytes. */
struct fit_bytes {
    int64_t (*fn)(const struct model_config *m, const struct profile *prof);
};
double fit_mem_one(const struct model_config *m, const struct profile *prof, const void *arg, char *desc, size_t n);

/* Prints the line for c (the training candidates only when training), or
 * says what else could fit when no candidate does. */
void fit_hint(const struct loaded_config *c, const struct profile *prof, fit_mem_fn mem, const void *arg,
              bool training, FILE *out);

#endif
