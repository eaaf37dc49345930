/* fuzz_config.c — model, chip and system JSON through every stage.
 *
 * The input is a config object merged over TPUv5p and the system config (as
 * `npusim run -m INPUT` merges a model file), read strictly (json_strict.h),
 * its keys and ranges checked, then simulated as `npusim run` would: opsgen,
 * chipsim, the energy pass and the summary statistics; a Hugging Face
 * config.json is translated first (study/hf/hf.h). Every shipped
 * model file and the samples of tests/samples/hf/ are seeds. The workload and profile come from the input's length. */
#include "fuzz_common.h"

#include "cli/cli.h"
#include "study/run/config.h"
#include "study/run/family.h"
#include "study/hf/hf.h"
#include "base/json_strict.h"
#include "traces/profile.h"

static cJSON *base, *base_src;
static FILE *devnull;

static void init(void)
{
    struct npu_err e;
    char path[4096];
    base = cJSON_CreateObject();
    base_src = cJSON_CreateObject();
    static const char *const files[] = { "chips/tpuv5p.json", "systems/system_config.json" };
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", fuzz_configs(), files[i]);
        cJSON *j = json_read_file_strict(path, &e);
        if (!j) {
            fprintf(stderr, "%s\n", e.msg);
            abort();
        }
        config_merge(base, base_src, j, path);
        cJSON_Delete(j);
    }
    devnull = fopen("/dev/null", "w");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!base)
        init();
    struct npu_err e;
    cJSON *j = json_parse_strict((const char *)data, size, "fuzz.json", &e);
    if (!j)
        return 0;
    if (hf_config_is(j)) {   /* a Hugging Face config.json, translated as `run -m` does */
        char ignored[1024];
        cJSON *m = hf_config_model(j, "fuzz.json", ignored, sizeof ignored, &e);
        cJSON_Delete(j);
        if (!m) {
            if (!e.msg[0])
                abort();   /* a refusal says why */
            return 0;
        }
        j = m;
    }
    struct loaded_config c;
    memset(&c, 0, sizeof c);
    c.merged = cJSON_Duplicate(base, 1);
    c.sources = cJSON_Duplicate(base_src, 1);
    snprintf(c.model_name, sizeof c.model_name, "fuzz");
    snprintf(c.chip_name, sizeof c.chip_name, "tpuv5p");
    c.strict = true;
    if (cJSON_IsObject(j))
        config_merge(c.merged, c.sources, j, "fuzz.json");
    cJSON_Delete(j);
    const char *workload = size % 2 ? "training" : "inference";
    const struct profile *prof = profile_by_name(size % 4 < 2 ? "neusim" : "default");
    if (!prof)
        prof = profile_by_name("neusim");
    const struct family *fam = NULL;
    if (config_check_keys(&c, &e) == 0 && config_load_structs(&c, true, &e) == 0 &&
        (fam = family_find(&c.model, workload)) != NULL) {
        if (fam->adjust)
            fam->adjust(&c);
        struct trace t;
        trace_init(&t);
        if (pipeline_run(fam, &c, prof, true, &t, &e) == 0)
            fam->summary(&c, prof, &t, devnull);
        trace_free(&t);
    }
    config_free(&c);
    return 0;
}
