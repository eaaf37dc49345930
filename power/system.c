/* system.c — the system field table (PUE, carbon intensity). */
#include "power/system.h"

#include <stddef.h>

static const struct field_desc system_field_list[] = {
    /* PUE is total facility power over IT power: at least 1 (1.0 is a perfect facility). */
    FIELD("PUE", FT_DOUBLE, offsetof(struct system_config, PUE), 1.1, NULL, FF_POSITIVE, .lo = 1, .hi = 100,
          .doc = "Power usage effectiveness: the facility's power over its chips' (1: no cooling or losses)."),
    FIELD("carbon_intensity_kgCO2_per_kWh", FT_DOUBLE,
          offsetof(struct system_config, carbon_intensity_kgCO2_per_kWh), 0.5, NULL, FF_NONNEG, .lo = 0, .hi = 100,
          .doc = "Carbon emitted per kWh of the grid that powers the facility (operational carbon)."),
};

const struct field_table system_fields = { "system", system_field_list, 2 };

void system_config_default(struct system_config *s) { fields_set_defaults(&system_fields, s); }
