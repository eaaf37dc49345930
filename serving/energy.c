/* energy.c — a serving run's energy, power and carbon (see energy.h). */
#include "serving/energy.h"

#include "serving/summary.h"

#include <math.h>
#include <string.h>

static double per(double x, double n) { return n > 0 ? x / n : NAN; }

void serving_energy_of(const struct serving_totals *t, int64_t chips, int64_t completed, int64_t output_tokens,
                       const struct serving_carbon *k, struct serving_energy *out)
{
    double dur_s = (double)t->end_ns / 1e9, total = t->pass_energy_J + t->idle_energy_J;
    double life_s = k->lifetime_years * 365 * 24 * 3600;
    *out = (struct serving_energy){ .total_J = total, .idle_J = t->idle_energy_J };
    out->per_request_J = per(total, (double)completed);
    out->per_output_token_J = per(total, (double)output_tokens);
    out->avg_power_W_per_chip = per(total, (double)chips * dur_s);
    out->peak_power_W_per_chip = t->peak_W;
    out->operational_kg = total / 3.6e6 * k->PUE * k->ci_kg_per_kWh;
    out->embodied_kg = life_s > 0 ? k->embodied_kg_per_chip * (double)chips * dur_s / life_s : 0;
    double kg = out->operational_kg + out->embodied_kg;
    out->carbon_per_request_g = per(kg * 1e3, (double)completed);
    out->carbon_per_million_tokens_kg = per(kg * 1e6, (double)output_tokens);
}

double serving_request_energy_J(double pass_share_J, double e2e_s, double idle_J, double e2e_sum_s)
{
    return pass_share_J + (e2e_sum_s > 0 ? idle_J * e2e_s / e2e_sum_s : 0);
}

static void add(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

void serving_energy_json(const struct serving_energy *x, const struct serving_carbon *k, cJSON *o)
{
    add(o, "energy_J", x->total_J);
    add(o, "energy_per_request_J", x->per_request_J);
    add(o, "energy_per_output_token_J", x->per_output_token_J);
    add(o, "avg_power_W_per_chip", x->avg_power_W_per_chip);
    add(o, "peak_power_W_per_chip", x->peak_power_W_per_chip);
    add(o, "carbon_per_request_g", x->carbon_per_request_g);
    add(o, "carbon_per_million_tokens_kg", x->carbon_per_million_tokens_kg);
    cJSON *c = cJSON_AddObjectToObject(o, "carbon");
    add(c, "operational_kg", x->operational_kg);
    add(c, "embodied_kg", x->embodied_kg);
    add(c, "idle_energy_J", x->idle_J);
    add(c, "carbon_intensity_kg_per_kWh", k->ci_kg_per_kWh);
    add(c, "PUE", k->PUE);
    add(c, "lifetime_years", k->lifetime_years);
    add(c, "embodied_kg_per_chip", k->embodied_kg_per_chip);
}

void serving_pg_json(const char *strategy, int dvfs, const struct serving_pool *p, const struct serving_totals *t,
                     double energy_J, const cJSON *base, cJSON *o)
{
    cJSON *g = cJSON_AddObjectToObject(o, "pg");
    cJSON_AddStringToObject(g, "strategy", strategy);
    cJSON_AddStringToObject(g, "dvfs", dvfs_policy_name((enum dvfs_policy)dvfs));
    cJSON_AddNumberToObject(g, "wakeups", (double)t->wakeups);
    cJSON_AddNumberToObject(g, "wakeup_delay_ns", (double)p->wake_ns);
    cJSON_AddNumberToObject(g, "idle_power_W_per_chip", p->gating ? p->gated_W : p->idle_W);
    if (!base) {
        cJSON_AddNumberToObject(g, "energy_saved_pct", 0);
        return;
    }
    double e0 = serving_summary_num(base, NULL, "energy_J");
    if (isfinite(e0) && e0 > 0)
        cJSON_AddNumberToObject(g, "energy_saved_pct", 100 * (1 - energy_J / e0));
    cJSON_AddNumberToObject(g, "baseline_energy_J", e0);
    cJSON *paid = cJSON_AddObjectToObject(g, "latency_paid_ms");
    static const struct { const char *k, *metric, *stat; } lat[] = {
        { "ttft_p50", "ttft_ms", "p50" }, { "ttft_p99", "ttft_ms", "p99" },
        { "tpot_p50", "tpot_ms", "p50" }, { "tpot_p99", "tpot_ms", "p99" },
    };
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
        double d = serving_summary_num(o, lat[i].metric, lat[i].stat) - serving_summary_num(base, lat[i].metric, lat[i].stat);
        if (isfinite(d))
            cJSON_AddNumberToObject(paid, lat[i].k, d);
    }
}
