/* fuzz_set.c — the `--set KEY=VALUE` parser, then the stages.
 *
 * The input is one override (text up to the first NUL, as argv holds it)
 * applied to llama3-8b on TPUv5p, then loaded and simulated like `npusim run
 * --set INPUT`. Seeds: one override per kind of field. */
#include "fuzz_common.h"

#include "cli/cli.h"
#include "study/run/config.h"
#include "study/run/family.h"
#include "traces/profile.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    char *kv = fuzz_text(data, size);
    const char *sets[] = { kv };
    struct config_request r = { fuzz_configs(), "llama3-8b", "tpuv5p", NULL, sets, 1, false };
    struct loaded_config c;
    struct npu_err e;
    const struct family *fam;
    if (config_load(&r, &c, &e) == 0 && (fam = family_find(&c.model, "inference")) != NULL) {
        c.strict = true;
        if (fam->adjust)
            fam->adjust(&c);
        struct trace t;
        trace_init(&t);
        const struct profile *prof = profile_by_name("neusim");
        if (pipeline_run(fam, &c, prof, true, &t, &e) == 0)
            fam->summary(&c, prof, &t, devnull);
        trace_free(&t);
    }
    config_free(&c);
    free(kv);
    return 0;
}
