/* fleet.h — a fleet deployment driven by a request rate through the serving
 * simulation (study/run/serving_hook.h): the deployment's replicas serve
 * the "serving" object's traffic (the keys of POST /api/serving; 2000
 * requests unless it says), and the run's average power (idle time
 * included), throughput, energy per request and tail latencies are the
 * deployment's. cli/ and api/ hand this function to the fleet stage. */
#ifndef NPUSIM_SERVING_FLEET_H
#define NPUSIM_SERVING_FLEET_H

#include "study/run/run.h"

int serving_fleet_estimate(const struct family *fam, const struct loaded_config *c, const struct profile *prof,
                           const char *configs, const cJSON *knobs, int64_t replicas, const char *pg,
                           struct fleet_serving_out *out, struct npu_err *e);

#endif
