/* fleet.c — deployment energy and carbon per year (see fleet.h). */
#include "power/fleet.h"

#include <math.h>

#include "base/checked.h"

void fleet_estimate(const struct fleet_in *in, struct fleet_out *out)
{
    double capacity = in->capacity_per_s * (double)in->replicas;
    double u = in->load_per_s >= 0 ? (capacity > 0 ? in->load_per_s / capacity : 1.0) : in->duty_cycle;
    out->overloaded = u > 1.0;
    out->utilisation = u > 1.0 ? 1.0 : u;
    out->replicas_needed = 1;
    if (in->load_per_s >= 0 && in->capacity_per_s > 0) {
        bool ovf = false;   /* a load past int64 replicas: the most there are */
        int64_t need = ck_ceil(in->load_per_s / in->capacity_per_s, &ovf);
        out->replicas_needed = need < 1 ? 1 : need;
    }
    double per_replica_W = out->utilisation * in->active_power_W +
                           (1.0 - out->utilisation) * in->idle_power_W;
    out->avg_power_W = per_replica_W * (double)in->replicas;
    out->annual_energy_MWh = out->avg_power_W * in->pue * HOURS_PER_YEAR / 1e6;
    /* kgCO2e per kWh is tCO2e per MWh. */
    out->operational_tCO2e = out->annual_energy_MWh * in->carbon_intensity_kg_per_kWh;
    out->embodied_tCO2e = (double)(in->replicas * in->num_chips) * in->embodied_kg_per_chip / 1000.0 /
                          in->lifetime_years;
    out->total_tCO2e = out->operational_tCO2e + out->embodied_tCO2e;
    /* Per unit of work served: the sweep's carbon per unit for one replica
     * (power/carbon.h carbon_per_unit: lifetime carbon over lifetime work). */
    out->units_per_year = out->utilisation * capacity * HOURS_PER_YEAR * 3600.0;
    bool served = out->units_per_year > 0;
    out->facility_energy_per_unit_J = served ? out->annual_energy_MWh * 3.6e9 / out->units_per_year : 0;
    out->kgCO2e_per_unit = served ? out->total_tCO2e * 1000.0 / out->units_per_year : 0;
}
