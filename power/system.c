/* system.c — the system field table (PUE, carbon intensity, lifetime, duty
 * cycle) and the carbon defaults taken from it (see system.h). */
#include "power/system.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const struct field_desc system_field_list[] = {
    /* PUE is total facility power over IT power: at least 1 (1.0 is a perfect facility). */
    FIELD("PUE", FT_DOUBLE, offsetof(struct system_config, PUE), 1.1, NULL, FF_POSITIVE, .lo = 1, .hi = 100,
          .doc = "Power usage effectiveness: the facility's power over its chips' (1: no cooling or losses)."),
    FIELD("carbon_intensity_kgCO2_per_kWh", FT_DOUBLE,
          offsetof(struct system_config, carbon_intensity_kgCO2_per_kWh), 0.5, NULL, FF_NONNEG, .lo = 0, .hi = 100,
          .doc = "Carbon emitted per kWh of the grid that powers the facility (operational carbon); the "
                 "default of npusim carbon, a sweep's summary and npusim fleet."),
    FIELD("lifetime_years", FT_DOUBLE, offsetof(struct system_config, lifetime_years), 4, NULL,
          FF_POSITIVE | FF_EXT, .lo = 0, .hi = 100, .unit = "years",
          .doc = "Years the chips serve: their embodied carbon is spread over them; the default of npusim "
                 "carbon (whole years), a sweep's summary and npusim fleet."),
    FIELD("duty_cycle", FT_DOUBLE, offsetof(struct system_config, duty_cycle), 0.6, NULL, FF_POSITIVE | FF_EXT,
          .lo = 0, .hi = 1, .unit = "fraction",
          .doc = "Fraction of the time the chips serve work (idle power otherwise), in (0, 1]; the default of "
                 "npusim carbon, a sweep's summary and npusim fleet when no load is given."),
};

const struct field_table system_fields = { "system", system_field_list,
                                           sizeof system_field_list / sizeof system_field_list[0] };

void system_config_default(struct system_config *s) { fields_set_defaults(&system_fields, s); }

static const char script_from[] = "the reference's carbon script (--profile neusim)";

/* The file key came from, else npusim's built-in default. */
static const char *source_of(const cJSON *sources, const char *key)
{
    const cJSON *s = sources ? cJSON_GetObjectItemCaseSensitive(sources, key) : NULL;
    return cJSON_IsString(s) ? s->valuestring : "npusim's built-in defaults";
}

void carbon_defaults_of(const struct system_config *s, const cJSON *sources, const struct profile *p,
                        bool script_ci, struct carbon_defaults *d)
{
    static const char *const keys[CD_N] = { "carbon_intensity_kgCO2_per_kWh", "lifetime_years", "duty_cycle",
                                            "PUE" };
    d->v[CD_CI] = s->carbon_intensity_kgCO2_per_kWh;
    d->v[CD_LIFETIME] = s->lifetime_years;
    d->v[CD_DUTY] = s->duty_cycle;
    d->v[CD_PUE] = s->PUE;
    for (int i = 0; i < CD_N; i++)
        d->from[i] = source_of(sources, keys[i]);
    if (!p->carbon_script_defaults)
        return;
    d->v[CD_LIFETIME] = CARBON_SCRIPT_LIFETIME_YEARS;
    d->v[CD_DUTY] = CARBON_SCRIPT_DUTY_CYCLE;
    d->from[CD_LIFETIME] = d->from[CD_DUTY] = script_from;
    if (script_ci) {
        d->v[CD_CI] = CARBON_SCRIPT_CI_KG_PER_KWH;
        d->from[CD_CI] = script_from;
    }
}

void carbon_default_text(double v, char *buf, size_t n) { snprintf(buf, n, "%.6g", v); }

void carbon_defaults_line(const char *const text[CD_N], const char *const from[CD_N], char *buf, size_t n)
{
    /* The source most values share heads the line; the others follow their value. */
    const char *main = from[CD_CI];
    for (int i = 0, best = 0; i < CD_N; i++) {
        int same = 0;
        for (int k = 0; k < CD_N; k++)
            same += text[i] && text[k] && !strcmp(from[i], from[k]);
        if (same > best)
            best = same, main = from[i];
    }
    /* Options only: no default was taken, each value names its option. */
    if (!strncmp(main, "--", 2))
        main = "";
    static const char *const pre[CD_N] = { "", "", "duty cycle ", "PUE " };
    size_t k = (size_t)snprintf(buf, n, main[0] ? "carbon defaults from %s:" : "carbon inputs%s:", main);
    bool first = true;
    for (int i = 0; i < CD_N && k < n; i++) {
        if (!text[i])
            continue;
        const char *post = i == CD_CI ? " kgCO2e/kWh" : i == CD_LIFETIME ? (strcmp(text[i], "1") ? " years" : " year")
                                                                          : "";
        bool own = strcmp(from[i], main) != 0;
        k += (size_t)snprintf(buf + k, n - k, "%s %s%s%s%s%s%s", first ? "" : ",", pre[i], text[i], post,
                              own ? " (" : "", own ? from[i] : "", own ? ")" : "");
        first = false;
    }
}
