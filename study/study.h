/* study.h — the library's front door: what a caller that is not the command
 * line (a test, the Python package, an HTTP server) includes to simulate.
 *
 *   one configuration   config_load (config.h) -> family_find (family.h) ->
 *                       pipeline_run (pipeline.h): generate, time (ns), cap
 *                       the power (W), energy pass (J); fam->write and
 *                       fam->summary give its files and its summary
 *   a sweep             sweep_enum_init (sweep_points.h) + run_points
 *                       (sweep_run.h), one summary row or results-tree
 *                       folder per point
 *   stages over a tree  energy_run (energy_stage.h), carbon_run
 *                       (carbon_stage.h): a typed request each, with
 *                       X_request_default; slo_run (slo_stage.h),
 *                       fleet_parse + fleet_evaluate (fleet_stage.h)
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

#include "study/stages/carbon_stage.h"
#include "study/run/config.h"
#include "study/stages/energy_stage.h"
#include "study/run/family.h"
#include "study/stages/fleet_stage.h"
#include "study/run/op_predict.h"
#include "study/run/pipeline.h"
#include "study/run/results.h"
#include "study/stages/slo_stage.h"
#include "study/sweep/sweep_run.h"

#endif
