/* energy.h — a serving run's energy, power and carbon, and each request's
 * share of the energy.
 *
 * The engine (engine.h, struct serving_totals) sums the energy of every
 * chip: each pass's operators (the energy pass's static and dynamic terms),
 * the chips' idle power for the rest of each pass (the host's time, the
 * other pipeline stages', KV moves) and for the gaps between passes, from
 * time 0 to the last event. A request takes its token share of every pass
 * it was in (pass energy x its tokens in the pass / the pass's tokens) and
 * a share of the gaps' energy by its time in the system (its end-to-end time
 * over the sum of all of them), so the requests' energies add up to the
 * total. Carbon: operational = energy (kWh) x PUE x carbon intensity;
 * embodied = each chip's embodied carbon x chips x the run's duration over
 * the lifetime (365-day years, as power/carbon.h): the chip-seconds used.
 * Rejected requests take nothing: per-request figures divide by the
 * completed ones.
 *
 * Main data structures: struct serving_carbon (the deployment's figures,
 * from power/system.h's defaults) and struct serving_energy (the results). */
#ifndef NPUSIM_SERVING_ENERGY_H
#define NPUSIM_SERVING_ENERGY_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "chipsim/chip.h"
#include "power/pg.h"
#include "serving/engine.h"

struct serving_carbon {
    double ci_kg_per_kWh, PUE, lifetime_years;
    double embodied_kg_per_chip;
};

struct serving_energy {
    double total_J, idle_J;
    double per_request_J, per_output_token_J;
    double avg_power_W_per_chip, peak_power_W_per_chip;
    double operational_kg, embodied_kg;
    double carbon_per_request_g, carbon_per_million_tokens_kg;
};

/* chips: all the deployment's; e2e_sum_s: the completed requests' times in
 * the system, summed (for the shares). NAN where a count is 0. */
void serving_energy_of(const struct serving_totals *t, int64_t chips, int64_t completed, int64_t output_tokens,
                       const struct serving_carbon *k, struct serving_energy *out);

/* One request's energy: its passes' share plus its time share of the gaps. */
double serving_request_energy_J(double pass_share_J, double e2e_s, double idle_J, double e2e_sum_s);

/* Adds the energy and carbon keys to a summary object. */
void serving_energy_json(const struct serving_energy *x, const struct serving_carbon *k, cJSON *o);

/* summary.json's "pg" object: strategy and DVFS policy, wake-ups and their
 * delay, a chip's idle power (gated, when the strategy gates), and against
 * base (the NoPG, no-DVFS run of the same requests; NULL: none, 0 saved)
 * energy_saved_pct, baseline_energy_J and latency_paid_ms (TTFT and TPOT
 * p50 and p99, this run's minus base's). p: the first pool. */
void serving_pg_json(const char *strategy, int dvfs, const struct serving_pool *p, const struct serving_totals *t,
                     double energy_J, const cJSON *base, cJSON *o);

#endif
