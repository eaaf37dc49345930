/* stages.h — the front header of study/stages/: the stages over results
 * trees behind `npusim energy`, `carbon`, `slo` and `fleet`, each a typed
 * request with its defaults and one run function, and what they share.
 *
 * The rooms above (study/sweep, view) and calib/, api/, cli/ include this
 * header, never one inside the room; tests/layering.sh checks it. What it
 * brings:
 *   energy_stage.h    per-operator energy of a sweep's tree, per strategy
 *   carbon_stage.h    power, energy and carbon figures per intensity
 *   slo_stage.h       the SLO analyses: the best configuration per SLO
 *   fleet_stage.h     a fleet's annual energy and carbon
 *   stage_io.h        what a caller hands a stage beside its request
 *   results_tree.h    reading a results tree's statistics files
 *   staging.h         outputs staged and published all or nothing
 * No data structure of its own. */
#ifndef NPUSIM_STUDY_STAGES_FRONT_H
#define NPUSIM_STUDY_STAGES_FRONT_H

#include "study/stages/energy_stage.h"
#include "study/stages/carbon_stage.h"
#include "study/stages/slo_stage.h"
#include "study/stages/fleet_stage.h"
#include "study/stages/stage_io.h"
#include "study/stages/results_tree.h"
#include "study/stages/staging.h"

#endif
