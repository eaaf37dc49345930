/* fuzz_fleet.c — the fleet file: read strictly and checked as `npusim fleet`
 * checks it before simulating (keys, defaults, every deployment). */
#include "fuzz_common.h"

#include "cli/cli.h"
#include "traces/json_strict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int quiet;
    if (!quiet++)
        (void)freopen("/dev/null", "w", stderr);   /* the checks print their messages */
    struct npu_err e;
    cJSON *j = json_parse_strict((const char *)data, size, "fuzz.json", &e);
    if (j && cJSON_IsObject(j))
        (void)fleet_file_check(j, "fuzz.json");
    cJSON_Delete(j);
    return 0;
}
