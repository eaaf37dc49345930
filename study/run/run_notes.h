/* run_notes.h — the lines a run's summary ends with that say what ran and
 * what it assumed: the profile, power-gating strategy, DVFS policy, number
 * formats and calibration, then each assumption that applies (matmuls at
 * 100% of the peak when no efficiency is set; tensor parallelism past the
 * chip's link domain priced at link speed), in the chip's own words
 * (chipsim/chip.h: chip_vocab). `npusim run`, `npusim power --out-dir`,
 * `npusim report` and the HTTP API print the same lines. */
#ifndef NPUSIM_STUDY_RUN_NOTES_H
#define NPUSIM_STUDY_RUN_NOTES_H

#include <stdio.h>

#include "study/run/config.h"
#include "traces/profile.h"

/* pg: the power-gating strategy the energy pass ran (a name or a file as
 * given; NULL: no energy pass); dvfs: its DVFS policy (NULL: "None"); t:
 * the timed trace (NULL: not at hand), whose kernel classes and formats the
 * "kernels" line names with the efficiency each ran at (physical profile). */
void run_notes_print(const struct loaded_config *c, const struct profile *prof, const char *pg, const char *dvfs,
                     const struct trace *t, FILE *out);

/* The calibration line's text into buf: the chip's calibration_source,
 * "none" without one, or "not applied under profile P (the chip's: ...)"
 * when the profile ignores it. Returns buf. `npusim serving` gives it in
 * summary.json's provenance. */
#define RUN_NOTES_CALIBRATION_MAX (FIELD_STR_MAX + 96)
const char *run_notes_calibration(const struct loaded_config *c, const struct profile *prof,
                                  char buf[RUN_NOTES_CALIBRATION_MAX]);

/* The kernel classes and formats t ran that a chip calibrated kernel by
 * kernel (some kernel_efficiency.* set) has no calibration for ("attention
 * fp8, elementwise bf16") into buf ("" when none; a chip with no kernel
 * calibration says "calibration none" or its end-to-end fit in the
 * summary instead; collectives, priced by the links, are never a gap);
 * whether there are any. The statistics JSON's
 * sim_config names every efficiency and overhead applied, and
 * calibration_source where they came from. */
bool run_notes_uncalibrated(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                            char *buf, size_t n);

#endif
