/* fuzz_stats_json.c — a statistics file of a results tree, as the energy,
 * carbon and slo stages read it: parsed (Python number spellings kept), then
 * its sim_config read into the facts the energy stage uses. */
#include "fuzz_common.h"

#include "study/results_tree.h"
#include "study/sim_facts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct npu_err e;
    cJSON *j = results_parse_json((const char *)data, size, "fuzz.json", &e);
    if (j) {
        struct sim_facts f;
        const cJSON *sim = jpath(j, "sim_config");
        if (sim)
            (void)sim_facts_from_json(&f, sim, &e);
        double v;
        (void)jnum(jpath(j, "energy_stats"), &v);
        cJSON_Delete(j);
    }
    return 0;
}
