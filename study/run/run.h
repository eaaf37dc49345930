/* run.h — the front header of study/run/: running one configuration (its
 * config, the model families, the pipeline that generates, times, caps and
 * prices a trace, its output files and statistics) and the pieces the rooms
 * above share (the ordered thread pool, results held in memory, progress).
 *
 * The rooms above (study/stages, sweep, view) and calib/, api/, cli/
 * include this header, never one inside the room; tests/layering.sh checks
 * it. What it brings:
 *   config.h          finding, merging and loading a run's JSON configs
 *   family.h          one entry per model family and workload
 *   pipeline.h        one configuration end to end (generate, time, cap, energy)
 *   outputs.h         a command's output files, written all or nothing
 *   report.h          end-to-end statistics of an LLM inference run
 *   run_notes.h       the lines a run's summary ends with (what ran, assumed)
 *   op_predict.h      one operator predicted on a chip (`npusim op`)
 *   pyjson.h          JSON printed as Python's json.dump(indent=4) prints it
 *   results.h         what one stage produced, held in memory for the next
 *   ordered_pool.h    tasks on N threads, results consumed in order
 *   stage_progress.h  how a long stage reports how far it is
 *   serving_hook.h    the serving engine's estimate of a deployment, as a hook
 *   study/hf/hf.h     (the room below) a Hugging Face config.json as a model config
 * No data structure of its own. */
#ifndef NPUSIM_STUDY_RUN_FRONT_H
#define NPUSIM_STUDY_RUN_FRONT_H

#include "study/run/config.h"
#include "study/run/family.h"
#include "study/run/pipeline.h"
#include "study/run/outputs.h"
#include "study/run/report.h"
#include "study/run/run_notes.h"
#include "study/run/op_predict.h"
#include "study/run/pyjson.h"
#include "study/run/results.h"
#include "study/run/ordered_pool.h"
#include "study/run/serving_hook.h"
#include "study/hf/hf.h"
#include "study/run/stage_progress.h"

#endif
