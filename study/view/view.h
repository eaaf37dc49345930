/* view.h — the front header of study/view/: what people look at, the
 * reports of a run, a tree and a sweep, their charts, the roofline and the
 * timeline.
 *
 * calib/, api/ and cli/ include this header, never one inside the room;
 * tests/layering.sh checks it. What it brings:
 *   report_run.h      a report of one configuration simulated here
 *   report_tree.h     many runs read back from files as one report
 *   report_files.h    the runs a results tree or output folder holds
 *   report_sweep.h    a sweep's summary CSV as a report
 *   report_serving.h  a serving run's folder as a report
 *   chart.h           stacked bar charts as SVG
 *   roofline.h        a chip's roofline as SVG (`npusim roofline`)
 *   timeline.h        a timed trace as Chrome trace-event JSON
 * No data structure of its own. */
#ifndef NPUSIM_STUDY_VIEW_FRONT_H
#define NPUSIM_STUDY_VIEW_FRONT_H

#include "study/view/report_run.h"
#include "study/view/report_tree.h"
#include "study/view/report_files.h"
#include "study/view/report_sweep.h"
#include "study/view/report_serving.h"
#include "study/view/chart.h"
#include "study/view/roofline.h"
#include "study/view/timeline.h"

#endif
