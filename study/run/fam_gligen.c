/* fam_gligen.c — the GLIGEN inference entry of the family table (opsgen.md
 * §10, §11.4, §12.5, §13). Outputs and summary are shared with DiT
 * (fam_dit.c); what is GLIGEN's own is the enumeration (pp 1 only) and the
 * sim_config block, which the reference dumps with every nested embedder and
 * grounding sub-config in its class order, defaults filled in. */
#include <stdio.h>
#include <string.h>

#include "study/run/outputs.h"
#include "study/run/pipeline.h"
#include "study/run/family.h"
#include "opsgen/diffusion.h"

#include "study/run/fam_diffusion.h"
#include "base/rawjson.h"

/* The nested sub-configs of the reference's GLIGENConfig with their class
 * defaults, in declaration order (the order json.dump prints them). */
static const char nested_defaults[] =
    "{\"fourier_embedder_config\": {\"num_freqs\": 64},"
    " \"text_embedder_config\": {\"d_model\": 512, \"num_heads\": 8, \"d_head\": 64, \"d_ff\": 2048,"
    "   \"num_layers\": 12, \"ffn_type\": \"default\"},"
    " \"image_embedder_config\": {\"model_type\": \"vit\", \"patch_size\": 2, \"d_model\": 1024,"
    "   \"num_heads\": 16, \"d_head\": 64, \"d_ff\": 4096, \"num_layers\": 24, \"ffn_type\": \"default\"},"
    " \"spatial_condition_embedder_config\": {\"model_type\": \"convnext\", \"stem\": {\"in_channels\": 3,"
    "   \"out_channels\": 96, \"kernel_size\": 4, \"stride\": 4}, \"depths\": [3, 3, 9, 3],"
    "   \"dims\": [96, 192, 384, 768]},"
    " \"grounding_input_config\": {\"text\": {\"input_seqlen\": 512, \"feature_dim\": 768},"
    "   \"bbox\": {\"input_seqlen\": 8, \"feature_dim\": 4, \"grounding_token_feature_dim\": 768},"
    "   \"image\": {\"resolution\": [1024, 1024], \"image_num_channels\": 3},"
    "   \"keypoint\": {\"num_persons\": 10, \"num_keypoints\": 17, \"feature_dim\": 256},"
    "   \"spatial_condition\": {\"resolution\": [256, 256], \"num_channels\": 1}},"
    " \"unet_config\": {\"noisy_latent_resolution\": [64, 64], \"model_channels\": 320,"
    "   \"attention_resolutions\": [4, 2, 1], \"num_res_blocks\": 2, \"channel_mult\": [1, 2, 4, 4],"
    "   \"num_heads\": 8, \"context_dim\": 768}}";

static bool is_int(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble == (double)(int64_t)v->valuedouble;
}

static cJSON *raw_int(const cJSON *v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v->valuedouble);
    return cJSON_CreateRaw(b);
}

/* The value to print for one field: the config's when it has the default's
 * type (ints, strings, int lists, objects recursively), else the default.
 * Returns a new item; keys of `have` the class does not know are dropped,
 * as pydantic drops them. */
static cJSON *overlay(const cJSON *def, const cJSON *have)
{
    if (cJSON_IsObject(def)) {
        cJSON *o = cJSON_CreateObject();
        const cJSON *it;
        cJSON_ArrayForEach(it, def) {
            const cJSON *h = cJSON_IsObject(have) ? cJSON_GetObjectItemCaseSensitive(have, it->string) : NULL;
            cJSON_AddItemToObject(o, it->string, overlay(it, h));
        }
        return o;
    }
    if (cJSON_IsArray(def)) {
        const cJSON *src = def, *it;
        bool ok = cJSON_IsArray(have);
        cJSON_ArrayForEach(it, have) ok = ok && is_int(it);
        if (ok)
            src = have;
        cJSON *a = cJSON_CreateArray();
        cJSON_ArrayForEach(it, src) cJSON_AddItemToArray(a, raw_int(it));
        return a;
    }
    if (cJSON_IsString(def))
        return cJSON_CreateString(cJSON_IsString(have) ? have->valuestring : def->valuestring);
    return raw_int(is_int(have) ? have : def);
}

static cJSON *gligen_sim_config(const struct loaded_config *c, const struct profile *prof)
{
    cJSON *sim = config_dump(c, prof);
    /* The field table dumps only the fields the generator reads; replace
     * its partial nested objects and move output_dir after them. */
    cJSON_DeleteItemFromObjectCaseSensitive(sim, "unet_config");
    cJSON_DeleteItemFromObjectCaseSensitive(sim, "grounding_input_config");
    cJSON_DeleteItemFromObjectCaseSensitive(sim, "output_dir");
    cJSON *def = rawjson_parse(nested_defaults, strlen(nested_defaults), JSON_NUMBERS_DOUBLE, NULL), *it;
    cJSON_ArrayForEach(it, def)
        cJSON_AddItemToObject(sim, it->string,
                              overlay(it, cJSON_GetObjectItemCaseSensitive(c->merged, it->string)));
    cJSON_Delete(def);
    cJSON_AddStringToObject(sim, "output_dir", c->model.output_dir);
    return sim;
}

static bool gligen_matches(const struct model_config *m, const char *workload)
{
    return !strcmp(m->model_type, "gligen") && !strcmp(workload, "inference");
}

static int gligen_write(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                        const char *dir, const char *base, bool sweep, const struct output_sink *to,
                        struct npu_err *e)
{
    (void)prof, (void)sweep;   /* the run and the sweep write the same two files */
    return diffusion_write(c, prof, t, opsgen_gligen_mem_bytes_of(t, c->chip.hbm_size_GB, prof), gligen_sim_config(c, prof),
                           dir, base, to, e);
}

static void gligen_summary(const struct loaded_config *c, const struct profile *prof,
                           const struct trace *t, FILE *out)
{
    summary_warnings(c, prof, t);
    diffusion_summary(c, prof, t, opsgen_gligen_mem_bytes_of(t, c->chip.hbm_size_GB, prof), out);
}

static int gligen_enumerate(int64_t num_chips, struct parallel_cfg **out, size_t *n, struct npu_err *e)
{
    return sweep_diffusion_configs(num_chips, true, out, n, e);
}

static int gligen_capacity(const struct loaded_config *c, const struct profile *prof,
                           const struct trace *t, struct family_capacity *cap, struct npu_err *e)
{
    return diffusion_capacity(c, prof, t, opsgen_gligen_mem_bytes_of(t, c->chip.hbm_size_GB, prof), cap, e);
}

const struct family fam_gligen = {
    .name = "gligen inference",
    .example = "npusim run -m gligen -c tpuv4",
    .matches = gligen_matches,
    .adjust = diffusion_auto_axes,
    .gen = opsgen_gligen,
    .write = gligen_write,
    .summary = gligen_summary,
    .enumerate = gligen_enumerate,
    .pstr = sweep_pstr_llm,
    .prepare = diffusion_prepare,
    .capacity = gligen_capacity,
};
