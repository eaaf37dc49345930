/* fuzz_stats_json.c — a statistics file of a results tree, as the energy,
 * carbon and slo stages read it: parsed (Python number spellings kept), then
 * its sim_config read for the chip and system the energy and carbon stages use. */
#include "fuzz_common.h"

#include "study/stages/results_tree.h"
#include "chipsim/chip.h"
#include "power/system.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct npu_err e;
    cJSON *j = results_parse_json((const char *)data, size, "fuzz.json", JSON_NUMBERS_TEXT, &e);
    if (j) {
        struct chip_config chip;
        struct system_config sys;
        chip_config_default(&chip);
        system_config_default(&sys);
        const cJSON *sim = jpath(j, "sim_config");
        if (sim && !fields_from_json(&chip_fields, &chip, sim, NULL, &e))
            (void)fields_from_json(&system_fields, &sys, sim, NULL, &e);
        double v;
        (void)jnum(jpath(j, "energy_stats"), &v);
        cJSON_Delete(j);
    }
    return 0;
}
