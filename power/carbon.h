/* carbon.h — the carbon and energy model over a deployment lifetime (power.md §8).
 *
 * Plain numbers in, plain numbers out: the chip's idle power, a stats file's
 * per-strategy energy totals (struct carbon_energy) and the deployment knobs
 * (duty cycle u, carbon intensity, PUE, lifetime) give the per-file summary
 * (struct carbon_summary: idle/active/average/peak power, the 12 energy
 * shares, goodput) and, per lifetime, struct carbon_lifetime. Every formula is
 * evaluated in the reference's operand order so results agree bit for bit. */
#ifndef NPUSIM_CARBON_H
#define NPUSIM_CARBON_H

#include <stdbool.h>
#include <stdint.h>

#include "chipsim/chip.h"
#include "power/pg.h"

/* Component order of the energy shares: sa, vu, sram, ici, hbm, other. */
enum { CARBON_NCOMP = 6 };
extern const char *const carbon_comp_names[CARBON_NCOMP];

/* Library formulas (lifetime in years, power in W). */
double carbon_energy_kWh(double PUE, double lifetime_y, double power_W);
double carbon_work(double goodput, double lifetime_y);
/* kgCO2e per unit of work (the reference calls it "efficiency"). */
double carbon_per_unit(double goodput, double PUE, double lifetime_y, double ci, double power_W,
                       double embodied_kg);

/* A chip's idle power: the single-counted static sum (NoPG), or, under any
 * power-gating strategy, the magic 0.0897 of HBM static power plus "other"
 * (quirk power Q25). Per chip. */
double carbon_idle_power_W(const struct chip_config *c, bool power_gated);
/* A chip's idle power under a power-gating strategy: each component's
 * static power, times its gated power factor where the strategy gates it
 * (NULL, or nothing enabled: carbon_idle_power_W's ungated sum, bit for
 * bit). What a serving run's idle chips draw (serving/energy.h). */
double carbon_idle_power_pg_W(const struct chip_config *c, const struct pg_strategy *pg);

/* energy_stats[strategy] of one stats file. */
struct carbon_energy {
    double total_energy_J;
    double static_J[CARBON_NCOMP], dynamic_J[CARBON_NCOMP];
    double avg_power_W, peak_power_W;
    double slowdown;             /* component_stats.slowdown */
};

struct carbon_summary {
    double idle_power_W, avg_active_power_W, avg_power_W, peak_power_W;
    double idle_ratio, active_ratio;
    double static_ratio[CARBON_NCOMP], dynamic_ratio[CARBON_NCOMP];
    double goodput;              /* units per second, after the PG slowdown */
};

/* idle_W_per_chip from carbon_idle_power_W; u = duty cycle;
 * unit_per_sec = the workload's throughput (tokens, iterations or requests/s). */
void carbon_summarize(double idle_W_per_chip, int64_t num_chips, const struct carbon_energy *es,
                      double u, double unit_per_sec, struct carbon_summary *s);

struct carbon_lifetime {
    double carbon_eff;           /* units per kgCO2e */
    double total_kWh, idle_kWh, active_kWh, static_kWh, dynamic_kWh;
    double static_c_kWh[CARBON_NCOMP], dynamic_c_kWh[CARBON_NCOMP];
    double power_eff;            /* units per J (PUE included) */
    double embodied_fraction;    /* embodied / total, a fraction */
    double total_kg;
    double embodied_kg;
};

/* One lifetime L (whole years) for the summary s; embodied_kg = chip embodied
 * carbon x chips (0 for the "_zero_embodied" variant). */
void carbon_for_lifetime(const struct carbon_summary *s, double PUE, double ci, int64_t L,
                         double embodied_kg, struct carbon_lifetime *r);

#endif
