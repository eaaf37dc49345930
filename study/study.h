/* study.h — the library's front door: what a caller that is not the command
 * line (a test, the Python package, an HTTP server) includes to simulate.
 *
 *   one configuration   config_load (config.h) -> family_find (family.h) ->
 *                       pipeline_run (pipeline.h): generate, time (ns), cap
 *                       the power (W), energy pass (J); fam->write and
 *                       fam->summary give its files and its summary
 *   a sweep             sweep_stage_run (sweep_stage.h): a typed request,
 *                       sweep_request_default; one summary row or
 *                       results-tree folder per point
 *   stages over a tree  energy_run, carbon_run, slo_run, fleet_run
 *                       (study/stages/stages.h): a typed request each, with
 *                       its X_request_default, and a struct stage_io
 *                       (held results, progress, the stop flag)
 *   one operator        op_predict (op_predict.h): time, throughput and bound
 *                       on a chip; op_table_read for a measurement file
 *   stage to stage      struct results (results.h): what one stage wrote,
 *                       handed to the next in memory
 *
 * Every call returns 0 or -1 with a struct npu_err (base/err.h) naming
 * the file, the field and what was expected; none prints, except warnings
 * on stderr that the command line also shows. Units are in the names. */
#ifndef NPUSIM_STUDY_H
#define NPUSIM_STUDY_H

#include "study/run/run.h"
#include "study/stages/stages.h"
#include "study/sweep/sweep.h"
#include "study/view/view.h"

#endif
