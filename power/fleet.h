/* fleet.h — annual energy and carbon of deployed accelerators (docs/fleet.md).
 *
 * A deployment is `replicas` identical copies of one configuration (model,
 * chip, chip count, parallelism, batch). The simulator gives its capacity
 * (units per second when busy all the time) and the power it then draws; the
 * load sets the duty cycle, idle time draws idle power. Annual energy,
 * operational carbon (energy x PUE x carbon intensity) and embodied carbon
 * (amortised over the lifetime) follow. All inputs and results are plain
 * numbers: struct fleet_in -> struct fleet_out. */
#ifndef NPUSIM_FLEET_H
#define NPUSIM_FLEET_H

#include <stdbool.h>
#include <stdint.h>

#include "chipsim/chip.h"

#define HOURS_PER_YEAR (365.0 * 24.0)

struct fleet_in {
    double capacity_per_s;       /* units/s of ONE replica at 100 % duty */
    double active_power_W;       /* ONE replica (all its chips) at 100 % duty */
    double idle_power_W;         /* ONE replica (all its chips) idle */
    int64_t num_chips;           /* chips of one replica */
    int64_t replicas;
    double load_per_s;           /* offered load in units/s; < 0: use duty_cycle */
    double duty_cycle;           /* in [0, 1] when load_per_s < 0 */
    double pue;
    double carbon_intensity_kg_per_kWh;
    double lifetime_years;
    double embodied_kg_per_chip;
};

struct fleet_out {
    double utilisation;          /* duty cycle actually used, <= 1 */
    bool overloaded;             /* load above the capacity of all replicas */
    int64_t replicas_needed;     /* replicas the load needs at 100 % duty (>= 1) */
    double avg_power_W;          /* all replicas, IT power (before PUE) */
    double annual_energy_MWh;    /* facility energy: x PUE */
    double operational_tCO2e;    /* per year */
    double embodied_tCO2e;       /* per year: all chips' embodied carbon / lifetime */
    double total_tCO2e;          /* per year */
    double units_per_year;       /* work served: utilisation x capacity of all replicas x seconds a year */
    double facility_energy_per_unit_J;    /* facility energy per unit served (PUE included); 0 when none is */
    double kgCO2e_per_unit;      /* (operational + embodied) per unit served; 0 when none is */
};

void fleet_estimate(const struct fleet_in *in, struct fleet_out *out);

#endif
