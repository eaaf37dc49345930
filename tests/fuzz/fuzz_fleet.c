/* fuzz_fleet.c — the fleet file: read strictly and checked as `npusim fleet`
 * checks it before simulating (keys, defaults, every deployment). */
#include "fuzz_common.h"

#include <fcntl.h>

#include "cli/cli.h"
#include "traces/json_strict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int devnull = -1, saved = -1;
    if (devnull < 0) {
        devnull = open("/dev/null", O_WRONLY);
        saved = dup(STDERR_FILENO);   /* libFuzzer's reports still go to the real stderr */
    }
    struct npu_err e;
    cJSON *j = json_parse_strict((const char *)data, size, "fuzz.json", &e);
    if (j && cJSON_IsObject(j)) {
        fflush(stderr);
        dup2(devnull, STDERR_FILENO);   /* the checks print their messages */
        (void)fleet_file_check(j, "fuzz.json");
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
    }
    cJSON_Delete(j);
    return 0;
}
