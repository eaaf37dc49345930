/* serving_hook.h — the serving engine's estimate of one deployment, as a
 * hook type. The engine lives above this floor (serving/) and the fleet
 * stage (study/stages) beneath it: the stage calls through the pointer its
 * front end sets (cli/ and api/ set serving_fleet_estimate, serving/fleet.h),
 * so a fleet deployment can be driven by a request rate through the serving
 * simulation instead of a duty cycle. No data structure but the result. */
#ifndef NPUSIM_STUDY_SERVING_HOOK_H
#define NPUSIM_STUDY_SERVING_HOOK_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "study/run/config.h"
#include "study/run/family.h"
#include "traces/profile.h"

/* One deployment served: `replicas` copies of the configs' replica. */
struct fleet_serving_out {
    double offered_rps, served_rps;    /* served: the offered rate, or what an overloaded run completed per second */
    bool overloaded;                   /* its queue grows over the run */
    double busy_fraction;              /* of the replicas' time in passes */
    double avg_power_W;                /* all the deployment's chips, idle time included (IT power) */
    double energy_per_request_J;
    double ttft_p99_ms, tpot_p99_ms;
    int64_t chips;                     /* all replicas' */
};

/* knobs: the deployment's "serving" object (the keys of POST /api/serving);
 * pg: the site's power-gating strategy (NULL or "NoPG": none). 0, or -1
 * with e naming the knob. */
typedef int (*fleet_serving_fn)(const struct family *fam, const struct loaded_config *c, const struct profile *prof,
                                const char *configs, const cJSON *knobs, int64_t replicas, const char *pg,
                                struct fleet_serving_out *out, struct npu_err *e);

#endif
