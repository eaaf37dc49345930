/* dvfs_tables.h — the DVFS data of power.md §3.2, §3.4, §3.5 and §13.
 *
 * Four kinds of table, all TPUv5p / 7 nm numbers used for every chip (power Q4):
 * voltage -> max frequency (to pick a voltage for a planned frequency),
 * per-component power points (V, x, static W, dynamic W; x is GHz for
 * SA/VU/SRAM and GB/s for HBM/ICI; SA/VU per unit), and the regulator
 * efficiency tables (fixed and DVFS). Components are indexed by COMP_*. */
#ifndef NPUSIM_DVFS_TABLES_H
#define NPUSIM_DVFS_TABLES_H

#include <stdbool.h>
#include <stdint.h>

/* Voltage for frequency f (GHz) from the component's V-f table: 0 if f <= 0,
 * else the lowest voltage whose max frequency is >= f (the top one above). */
double dvfs_pick_voltage(int comp, double f_GHz);

/* Powers from the component's table for a plan (policy None, V, f):
 * None, or neither V nor f set, gives the max-performance point; otherwise
 * the voltage group nearest V, its point nearest the target x, dynamic power
 * scaled linearly to the target. SA/VU values are for one unit. */
void dvfs_table_power(int comp, bool policy_none, double V, double f_GHz, double *dyn_W,
                      double *static_W);

/* Regulator efficiency (%): fixed table (policy None) or DVFS table; rows of
 * the scaling time, voltage snapped up, smallest activity >= a. Returns -1
 * when no row matches. */
int dvfs_efficiency(bool fixed, int64_t scaling_ns, double V, double activity, double *eff_pct);

#endif
