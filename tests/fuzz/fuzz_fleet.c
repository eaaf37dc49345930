/* fuzz_fleet.c — the fleet file: read strictly and checked as `npusim fleet`
 * checks it before simulating (keys, defaults, every deployment); a refused
 * file must come with a message. */
#include "fuzz_common.h"

#include "study/stages/fleet_stage.h"
#include "base/json_strict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct npu_err e;
    cJSON *j = json_parse_strict((const char *)data, size, "fuzz.json", &e);
    if (j && cJSON_IsObject(j)) {
        struct fleet_deployment *d = NULL;
        int n = 0;
        e.msg[0] = '\0';
        if (fleet_parse(j, "fuzz.json", &d, &n, &e) && !e.msg[0])
            abort();   /* refused without a word */
        free(d);
    }
    cJSON_Delete(j);
    return 0;
}
