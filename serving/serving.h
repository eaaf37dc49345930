/* serving.h — the front header of serving/, the request-level serving
 * engine (issue 42, `npusim serving`): what the floors above include.
 *
 * It grows in steps. Here now: the workload, the requests a run receives
 * (arrivals and lengths, seeded; workload.h), and the latency figures
 * (mean and percentiles; metrics.h). To come: the schedulers
 * (static, continuous, chunked prefill, disaggregated), the paged KV cache,
 * replicas and routing, iteration times through the chip model, and the
 * per-request outputs. */
#ifndef NPUSIM_SERVING_H
#define NPUSIM_SERVING_H

#include "serving/metrics.h"
#include "serving/workload.h"

#endif
