/* system.h — datacenter-level configuration (reference SystemConfig) and the
 * one set of deployment defaults every carbon figure starts from.
 *
 * The system config (configs/systems/system_config.json) holds the
 * facility (PUE), its grid (carbon intensity) and how its chips are used:
 * the years they serve (lifetime_years: embodied carbon is amortised over
 * them) and the fraction of the time they serve work (duty_cycle; idle
 * otherwise). `npusim carbon`, a sweep's summary, `npusim fleet`, the HTTP
 * API and Python all take their defaults from here (carbon_defaults_of),
 * and each says which it used and where they came from
 * (carbon_defaults_line). docs/fleet.md gives the reasons for the values. */
#ifndef NPUSIM_SYSTEM_H
#define NPUSIM_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>

#include "traces/fields.h"
#include "traces/profile.h"

struct system_config {
    double PUE;
    double carbon_intensity_kgCO2_per_kWh;
    double lifetime_years;       /* npusim's own (FF_EXT) */
    double duty_cycle;           /* npusim's own (FF_EXT), in (0, 1] */
};

extern const struct field_table system_fields;
void system_config_default(struct system_config *s);

/* The reference carbon script's defaults (its --carbon_intensity,
 * --utilization and lifetime), used under the profile switch
 * carbon_script_defaults (docs/profile.md). */
#define CARBON_SCRIPT_CI_KG_PER_KWH 0.1352
#define CARBON_SCRIPT_DUTY_CYCLE 0.6
#define CARBON_SCRIPT_LIFETIME_YEARS 1.0

/* The defaults of one deployment, each with where it came from. */
enum { CD_CI, CD_LIFETIME, CD_DUTY, CD_PUE, CD_N };
struct carbon_defaults {
    double v[CD_N];              /* by the enum: kgCO2e/kWh, years, fraction, PUE */
    const char *from[CD_N];      /* a file, "--set", "built-in", or the profile */
};

/* The defaults of system config s, whose keys came from the files named in
 * sources (config.h: key -> file; NULL: "built-in"). Under the profile
 * switch carbon_script_defaults the lifetime and duty cycle are the
 * reference script's, and with script_ci (npusim carbon, which is that
 * script) its carbon intensity too. */
void carbon_defaults_of(const struct system_config *s, const cJSON *sources, const struct profile *p,
                        bool script_ci, struct carbon_defaults *d);

/* The line a command prints about the values it used, e.g.
 *   "carbon defaults from configs/systems/system_config.json: 0.5 kgCO2e/kWh,
 *    4 years, duty cycle 0.6, PUE 1.1"
 * text[i] is value i as printed (NULL: left out, e.g. PUE where each file
 * says its own); a value that came from elsewhere than most (an option:
 * from[i] "--ci") names its source after it. */
void carbon_defaults_line(const char *const text[CD_N], const char *const from[CD_N], char *buf, size_t n);

/* A default's number as a command prints it (%g). */
void carbon_default_text(double v, char *buf, size_t n);

#endif
