/* carbon.c — the §8 carbon formulas (see carbon.h). The operand order of every
 * product follows the reference so that the outputs agree to the last bit:
 * e.g. hours = (L*365)*24 and kWh = (P/1000 * hours) * PUE. */
#include "power/carbon.h"

#include <math.h>

const char *const carbon_comp_names[CARBON_NCOMP] = { "sa", "vu", "sram", "ici", "hbm", "other" };

double carbon_energy_kWh(double PUE, double lifetime_y, double power_W)
{
    double hours = lifetime_y * 365 * 24;
    return power_W / 1000 * hours * PUE;
}

static double carbon_operational_kg(double PUE, double ci, double lifetime_y, double power_W)
{
    return carbon_energy_kWh(PUE, lifetime_y, power_W) * ci;
}

static double carbon_total_kg(double PUE, double ci, double lifetime_y, double power_W, double embodied_kg)
{
    return carbon_operational_kg(PUE, ci, lifetime_y, power_W) + embodied_kg;
}

double carbon_work(double goodput, double lifetime_y)
{
    double seconds = lifetime_y * 365 * 24 * 3600;
    return goodput * seconds;
}

static double carbon_power_eff(double goodput, double PUE, double power_W) { return goodput / (PUE * power_W); }

double carbon_per_unit(double goodput, double PUE, double lifetime_y, double ci, double power_W,
                       double embodied_kg)
{
    return carbon_total_kg(PUE, ci, lifetime_y, power_W, embodied_kg) / carbon_work(goodput, lifetime_y);
}

double carbon_idle_power_W(const struct chip_config *c, bool power_gated)
{
    double hbm = c->static_power_hbm_mc_W + c->static_power_hbm_phy_W;
    if (power_gated)
        return hbm * 0.0897 + c->static_power_other_W;
    /* SA and VU counted once here, unlike the energy model (quirk power Q1). */
    return carbon_idle_power_pg_W(c, NULL);
}

double carbon_idle_power_pg_W(const struct chip_config *c, const struct pg_strategy *pg)
{
    const struct { double W; const struct pg_component *g; } parts[] = {
        { c->static_power_W_per_sa * (double)c->num_sa, pg ? &pg->sa : NULL },
        { c->static_power_W_per_vu * (double)c->num_vu, pg ? &pg->vu : NULL },
        { c->static_power_vmem_W, pg ? &pg->vmem : NULL },
        { c->static_power_ici_W, pg ? &pg->ici : NULL },
        { c->static_power_hbm_mc_W + c->static_power_hbm_phy_W, pg ? &pg->hbm : NULL },
        { c->static_power_other_W, pg ? &pg->other : NULL },
    };
    double W = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        W += parts[i].W * (parts[i].g && parts[i].g->enabled && parts[i].g->n_levels > 0
                               ? pg_gated_factor(parts[i].g) : 1.0);
    return W;
}


void carbon_summarize(double idle_W_per_chip, int64_t num_chips, const struct carbon_energy *es,
                      double u, double unit_per_sec, struct carbon_summary *s)
{
    double n = (double)num_chips;
    s->idle_ratio = 1 - u;
    s->active_ratio = u;
    s->idle_power_W = idle_W_per_chip * n;
    s->avg_active_power_W = es->avg_power_W * n;
    s->avg_power_W = s->idle_ratio * s->idle_power_W + u * s->avg_active_power_W;
    s->peak_power_W = es->peak_power_W * n;
    for (int c = 0; c < CARBON_NCOMP; c++) {
        s->static_ratio[c] = es->static_J[c] / es->total_energy_J;
        s->dynamic_ratio[c] = es->dynamic_J[c] / es->total_energy_J;
    }
    s->goodput = unit_per_sec / es->slowdown;
}

void carbon_for_lifetime(const struct carbon_summary *s, double PUE, double ci, int64_t L,
                         double embodied_kg, struct carbon_lifetime *r)
{
    double Ly = (double)L, u = s->active_ratio;
    double good = s->goodput * u;
    r->carbon_eff = 1 / carbon_per_unit(good, PUE, Ly, ci, s->avg_power_W, embodied_kg);
    r->power_eff = carbon_power_eff(good, PUE, s->avg_power_W);
    r->total_kg = carbon_total_kg(PUE, ci, Ly, s->avg_power_W, embodied_kg);
    r->total_kWh = carbon_energy_kWh(PUE, Ly, s->avg_power_W);
    r->idle_kWh = carbon_energy_kWh(PUE, Ly * s->idle_ratio, s->idle_power_W);
    r->active_kWh = carbon_energy_kWh(PUE, Ly * u, s->avg_active_power_W);
    /* The component split is of the active energy only. */
    r->static_kWh = r->dynamic_kWh = 0;
    for (int c = 0; c < CARBON_NCOMP; c++) {
        r->static_c_kWh[c] = r->active_kWh * s->static_ratio[c];
        r->dynamic_c_kWh[c] = r->active_kWh * s->dynamic_ratio[c];
    }
    /* Left-to-right sums, as the reference writes them (0 + x is exact). */
    for (int c = 0; c < CARBON_NCOMP; c++) {
        r->static_kWh = c ? r->static_kWh + r->static_c_kWh[c] : r->static_c_kWh[c];
        r->dynamic_kWh = c ? r->dynamic_kWh + r->dynamic_c_kWh[c] : r->dynamic_c_kWh[c];
    }
    r->embodied_fraction = embodied_kg / r->total_kg;
    r->embodied_kg = embodied_kg;
}
