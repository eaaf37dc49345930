/* timeline.h — a timed trace as Chrome trace-event JSON (`--timeline` on
 * run and chipsim), which Perfetto (ui.perfetto.dev) and chrome://tracing
 * open: where the time goes, operator by operator.
 *
 * One process per phase (prefill, decode; "ops" for a trace without
 * phases), and in it one track of operators, back to back, then one track
 * per component (MXU, VPU, HBM, ICI) with the time that component is busy
 * in each operator, from the operator's start: the bound one fills its
 * operator, the others show their slack. An operator executed count times
 * (layers) is one slice of count x its time, "x32" in its name. Its args:
 * the operator type, count, time of one execution (ns), input and output
 * shapes, bound, FLOPs, bytes and its energy (J, when the energy pass
 * ran). Times are in microseconds, as the format wants, with nanosecond
 * decimals.
 *
 * No data structure of its own. */
#ifndef NPUSIM_TIMELINE_H
#define NPUSIM_TIMELINE_H

#include <cjson/cJSON.h>

#include "traces/op.h"

/* The JSON text (malloc'ed; NULL when out of memory). title names the run
 * in the metadata ("llama3-8b on tpuv5p"); provenance (taken, may be NULL)
 * goes there too (study/config.h config_provenance). */
char *timeline_json(const struct trace *t, const char *title, cJSON *provenance);

#endif
