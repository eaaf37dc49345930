/* sim_facts.c — a sim_config's chip, system and chip count (see sim_facts.h). */
#include "study/sim_facts.h"

#include <string.h>

#include "study/results_tree.h"

int sim_facts_from_json(struct sim_facts *f, const cJSON *sim, struct npu_err *e)
{
    memset(f, 0, sizeof *f);   /* padding too: the memo copies the bytes */
    chip_config_default(&f->chip);
    system_config_default(&f->sys);
    if (fields_from_json(&chip_fields, &f->chip, sim, NULL, e) ||
        fields_from_json(&system_fields, &f->sys, sim, NULL, e))
        return -1;
    const cJSON *nc = cJSON_GetObjectItemCaseSensitive(sim, "num_chips");
    f->has_num_chips = nc != NULL;
    f->num_chips_is_number = nc && jnum(nc, &f->num_chips);
    return 0;
}
