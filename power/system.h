/* system.h — datacenter-level configuration (reference SystemConfig). */
#ifndef NPUSIM_SYSTEM_H
#define NPUSIM_SYSTEM_H

#include "traces/fields.h"

struct system_config {
    double PUE;
    double carbon_intensity_kgCO2_per_kWh;
};

extern const struct field_table system_fields;
void system_config_default(struct system_config *s);

#endif
