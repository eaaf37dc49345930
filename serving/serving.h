/* serving.h — the front header of serving/, the request-level serving
 * engine (`npusim serving`): what the floors above include.
 *
 *   workload.h   the requests a run receives: arrivals and lengths, seeded
 *   trace_in.h   request traces and length tables read from CSV or JSONL
 *   step.h       one pass's time from the chip model, memoized
 *   engine.h     the event loop: routing, schedulers, paged KV cache
 *   summary.h    the latencies and counts measured, summary.json's keys
 *   metrics.h    a latency's mean and percentiles
 *   energy.h     the run's energy, power and carbon, each request's share
 *   outputs.h    requests.csv, iterations.csv, summary.json: all or none
 *   simulate.h   one simulation end to end
 *   capacity.h   an SLO, and the highest rate that meets it
 *   request.h    the knobs every front end fills, checked into a spec
 *   sweep.h      a sweep of serving runs and the pick at an SLO
 *   fleet.h      a fleet deployment driven by a request rate
 *   timeline.h   a run as Chrome trace JSON
 * No data structure of its own. */
#ifndef NPUSIM_SERVING_H
#define NPUSIM_SERVING_H

#include "serving/capacity.h"
#include "serving/energy.h"
#include "serving/fleet.h"
#include "serving/engine.h"
#include "serving/metrics.h"
#include "serving/outputs.h"
#include "serving/request.h"
#include "serving/simulate.h"
#include "serving/step.h"
#include "serving/summary.h"
#include "serving/sweep.h"
#include "serving/timeline.h"
#include "serving/trace_in.h"
#include "serving/workload.h"

#endif
