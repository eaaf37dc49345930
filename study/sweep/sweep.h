/* sweep.h — the front header of study/sweep/: design-space sweeps (the
 * spec, the points, the runner and its summary rows, the sweep stage's
 * typed entry) and the suite files that chain a study's stages.
 *
 * The room above (study/view) and calib/, api/, cli/ include this header,
 * never one inside the room; tests/layering.sh checks it. (opsgen/sweep.h
 * is another header: the parallel layouts a sweep enumerates.) What it
 * brings:
 *   sweep_stage.h     the sweep's typed entry: request, defaults, run
 *   sweep_run.h       running the points; a summary sweep in memory
 *   sweep_spec.h      the sweep spec file (docs/sweep-spec.md)
 *   suite_file.h      the suite file: a study's stages, one per line
 * No data structure of its own. */
#ifndef NPUSIM_STUDY_SWEEP_FRONT_H
#define NPUSIM_STUDY_SWEEP_FRONT_H

#include "study/sweep/sweep_stage.h"
#include "study/sweep/sweep_run.h"
#include "study/sweep/sweep_spec.h"
#include "study/sweep/suite_file.h"

#endif
