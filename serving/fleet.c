/* fleet.c — a fleet deployment served through the serving simulation (see
 * fleet.h). */
#include "serving/fleet.h"

#include "serving/summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serving/request.h"

int serving_fleet_estimate(const struct family *fam, const struct loaded_config *c, const struct profile *prof,
                           const char *configs, const cJSON *knobs, int64_t replicas, const char *pg,
                           struct fleet_serving_out *out, struct npu_err *e)
{
    struct serving_knobs k;
    char bufs[SK_N][48], why[1200], rep[32];
    if (serving_knobs_from_json(knobs, &k, bufs, why, sizeof why))
        return npu_errf(e, "serving: %s", why);
    const cJSON *x;
    cJSON_ArrayForEach(x, knobs)
        if (serving_knob_find(x->string) < 0 && !serving_knob_run_switch(x->string))
            return npu_errf(e, "serving: unknown key \"%.60s\" (expected the keys of POST /api/serving: rate, "
                               "requests, lengths, scheduler, ...; the replicas and parallelism are the deployment's)",
                            x->string);
    if (k.v[SK_REPLICAS] || k.find_rate || k.v[SK_TRACE] || k.v[SK_DURATION])
        return npu_errf(e, "serving: \"replicas\" is the deployment's, and \"find_rate\", \"trace\" and "
                           "\"duration\" do not apply to a fleet");
    snprintf(rep, sizeof rep, "%lld", (long long)replicas);
    k.v[SK_REPLICAS] = rep;
    if (!k.v[SK_REQUESTS])
        k.v[SK_REQUESTS] = "2000";
    if (pg && pg[0] && strcmp(pg, "NoPG") && !k.v[SK_PG])
        k.v[SK_PG] = pg;
    struct serving_build *b = malloc(sizeof *b);
    if (!b)
        return npu_errf(e, "out of memory");
    cJSON *sum = NULL;
    int rc = serving_build(&k, fam, c, prof, configs, b, why, sizeof why) ? npu_errf(e, "serving: %s", why) : 0;
    if (!rc) {
        b->spec.pg_compare = false;
        rc = serving_simulate(&b->spec, &sum, e) ? -1 : 0;
        out->offered_rps = b->spec.w.arrivals.kind == ARRIVAL_OFFLINE || b->spec.w.arrivals.kind == ARRIVAL_CLOSED
                               ? NAN : b->spec.w.arrivals.rate_rps;
        serving_build_free(b);
    }
    free(b);
    if (rc)
        return -1;
    double chips = serving_summary_num(sum, "setting", "chips");
    out->chips = (int64_t)chips;
    /* Overloaded when its queue grows over the run: the mean wait before a
     * first pass above 5% of the arrivals' span (a stable queue waits for
     * a few passes, a growing one for half the backlog the span builds).
     * Then it serves what it completed per second; else the offered rate
     * (completed over the whole run would count the drain after the last
     * arrival as lost time). */
    double span = serving_summary_num(sum, NULL, "requests") / out->offered_rps;
    out->overloaded = isfinite(span) && serving_summary_num(sum, "queue_s", "mean") > 0.05 * span;
    out->served_rps = out->overloaded || !isfinite(out->offered_rps) ? serving_summary_num(sum, NULL, "request_throughput_rps")
                                                                     : out->offered_rps;
    out->busy_fraction = serving_summary_num(sum, "setting", "busy_fraction");
    out->avg_power_W = serving_summary_num(sum, NULL, "avg_power_W_per_chip") * chips;
    out->energy_per_request_J = serving_summary_num(sum, NULL, "energy_per_request_J");
    out->ttft_p99_ms = serving_summary_num(sum, "ttft_ms", "p99");
    out->tpot_p99_ms = serving_summary_num(sum, "tpot_ms", "p99");
    if (isnan(out->offered_rps))
        out->offered_rps = out->served_rps;
    cJSON_Delete(sum);
    return 0;
}
