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
 * given; NULL: no energy pass); dvfs: its DVFS policy (NULL: "None"). */
void run_notes_print(const struct loaded_config *c, const struct profile *prof, const char *pg, const char *dvfs,
                     FILE *out);

#endif
