/* model.c — model field tables (defaults = the reference classes) and loading. */
#include "opsgen/model.h"

#include <stddef.h>
#include <string.h>

#define I(k, d, fl, ...) FIELD(#k, FT_INT, offsetof(struct model_config, k), d, NULL, fl, __VA_ARGS__)
#define DB(k, d, fl, ...) FIELD(#k, FT_DOUBLE, offsetof(struct model_config, k), d, NULL, fl, __VA_ARGS__)
#define B(k, d) FIELD(#k, FT_BOOL, offsetof(struct model_config, k), d, NULL, 0)
#define S(k, d, fl, ...) FIELD(#k, FT_STR, offsetof(struct model_config, k), 0, d, fl, __VA_ARGS__)
#define L(k, d, fl) FIELD(#k, FT_INT_LIST, offsetof(struct model_config, k), 0, d, fl)
#define LAYERS(k, fl) FIELD(#k, FT_LAYERS, offsetof(struct model_config, k), 0, NULL, fl)
/* A nested JSON key stored in a flat member. */
#define NI(key, m, d, fl, ...) FIELD(key, FT_INT, offsetof(struct model_config, m), d, NULL, fl, __VA_ARGS__)
#define NL(key, m, d, fl) FIELD(key, FT_INT_LIST, offsetof(struct model_config, m), 0, d, fl)
#define TABLE(name, what, list) \
    const struct field_table name = { what, list, sizeof list / sizeof list[0] }
enum { P = FF_POSITIVE, N = FF_NONNEG };

static const struct field_desc base_list[] = {
    S(model_name, "model", 0), S(model_type, "", FF_REQUIRED),
    /* A chip count past 2^20 (a million chips) is no machine; DLRM keeps one op list per chip. */
    I(global_batch_size, 1, P), I(num_chips, 1, P, .lo = 1, .hi = 1048576),
    I(data_parallelism_degree, 1, P), I(tensor_parallelism_degree, 1, P),
    I(pipeline_parallelism_degree, 1, P),
    I(num_data_parallel_axes, 1, N), I(num_tensor_parallel_axes, 1, N),
    I(num_pipeline_parallel_axes, 1, N),
    I(data_parallel_degree_dcn, 1, P), I(tensor_parallel_degree_dcn, 1, P),
    I(pipeline_parallel_degree_dcn, 1, P),
    I(microbatch_size_dcn, 1, P), I(microbatch_size_ici, 1, P),
    S(output_file_path, "./output.csv", 0),
};
TABLE(model_base_fields, "model", base_list);

/* The formats a model's tensors may be stored in (traces/precision.h). */
#define MODEL_FORMATS "fp32|bf16|fp16|fp8|fp8_e4m3|fp8_e5m2|int8|int4|fp4"

static const struct field_desc llm_list[] = {
    I(input_seqlen, 4096, P), I(output_seqlen, 512, P),
    I(d_model, 4096, P), I(num_heads, 64, P), I(num_kv_heads, -1, 0), I(d_head, 64, P),
    I(d_ff, 11008, P), I(num_layers, 80, P), S(ffn_type, "llama", 0), I(decode_width, 1, P),
    B(use_flash_attention, 1), B(enable_swap_kv_cache, 0),
    I(max_swap_kv_cache_times_prefill, 2, P), I(max_swap_kv_cache_times_decode, 16, P),
    /* npusim's own: the token vocabulary (embedding lookup and LM head; 0: none).
     * 32000 as Hugging Face's LlamaConfig when a file does not say. */
    I(vocab_size, 32000, N | FF_EXT),
    /* npusim's own: attention and FFN read the same normalised input and
     * their outputs are summed (GPT-J, PaLM); false: one after the other. */
    /* npusim's own: ZeRO sharding over the data-parallel degree in training
     * (1: optimizer states; 2: and gradients; 3 = FSDP: and weights). */
    I(zero_stage, 0, N | FF_EXT, .lo = 0, .hi = 3),
    /* npusim's own: training rematerialisation; "full" recomputes every
     * layer's forward pass in the backward pass. */
    S(remat, "none", FF_EXT, .one_of = "none|full"),
    FIELD("parallel_attn_ffn", FT_BOOL, offsetof(struct model_config, parallel_attn_ffn), 0, NULL, FF_EXT),
    /* npusim's own: the number formats of the weights (int8 or int4 with bf16
     * activations: weight-only quantisation), activations and KV cache. */
    S(weight_dtype, "bf16", FF_EXT, .one_of = MODEL_FORMATS),
    S(activation_dtype, "bf16", FF_EXT, .one_of = MODEL_FORMATS),
    S(kv_cache_dtype, "bf16", FF_EXT, .one_of = MODEL_FORMATS),
    /* npusim's own: block scales (128 and 128 as DeepSeek-V3's fp8; 128 and 1
     * as group-wise int4), 0: per-tensor scales, nothing to model. */
    I(scale_block, 0, N | FF_EXT, .lo = 0, .hi = 65535), I(weight_scale_block_n, 0, N | FF_EXT, .lo = 0, .hi = 65535),
    S(scale_dtype, "fp32", FF_EXT, .one_of = "fp32|bf16|fp16|fp8|fp8_e4m3|fp8_e5m2"),
};
TABLE(model_llm_fields, "model", llm_list);

static const struct field_desc moe_list[] = {
    S(router_type, "topk", 0, .one_of = "topk"), /* Generators build ops per activated and shared expert: bounded like real MoEs. */
    I(num_shared_experts, 1, N, .lo = 0, .hi = 1024), I(num_routed_experts, 256, P, .lo = 1, .hi = 65536),
    I(num_activated_routed_experts_per_token, 8, P, .lo = 1, .hi = 1024), I(num_limited_groups, 4, P),
    I(moe_d_ff, -1, 0), I(expert_parallelism_degree, 1, P), I(num_expert_parallel_axes, 1, N),
    I(expert_parallel_degree_dcn, 1, P),
    /* npusim's own: how much more than the mean the busiest expert of a
     * device receives (routing imbalance; 1 = perfectly balanced). */
    DB(moe_imbalance_factor, 1.0, FF_EXT, .lo = 1.0, .hi = 1024.0),
};
TABLE(model_moe_fields, "model", moe_list);

static const struct field_desc deepseek_list[] = {
    I(num_dense_layers, 1, N), I(kv_lora_rank, 0, FF_REQUIRED | P), I(q_lora_rank, 0, FF_REQUIRED | P),
    I(qk_rope_head_dim, 0, FF_REQUIRED | P), I(qk_nope_head_dim, 0, FF_REQUIRED | P),
    I(v_head_dim, 0, FF_REQUIRED | P),
};
TABLE(model_deepseek_fields, "model", deepseek_list);

static const struct field_desc dit_list[] = {
    I(image_width, 0, FF_REQUIRED | P), I(num_channels, 0, FF_REQUIRED | P),
    I(patch_size, 0, FF_REQUIRED | P), I(num_diffusion_steps, 0, FF_REQUIRED | P, .lo = 1, .hi = 10000),
};
TABLE(model_dit_fields, "model", dit_list);

static const struct field_desc dlrm_list[] = {
    I(embedding_dim, 0, FF_REQUIRED | P),
    L(num_indices_per_lookup, NULL, FF_REQUIRED | P), L(embedding_table_sizes, NULL, FF_REQUIRED | P),
    I(num_dense_features, 0, FF_REQUIRED | P),
    LAYERS(bottom_mlp_config, FF_REQUIRED), LAYERS(top_mlp_config, FF_REQUIRED),
    S(interaction, "dot", 0, .one_of = "dot"),
};
TABLE(model_dlrm_fields, "model", dlrm_list);

static const struct field_desc gligen_list[] = {
    I(num_diffusion_steps, 1, P, .lo = 1, .hi = 10000), I(total_num_diffusion_steps, 40, P, .lo = 1, .hi = 10000),
    L(image_resolution, "512,512", P), I(image_num_channels, 3, P),
    B(use_flash_attention, 0), S(output_dir, "./llava_ops", 0),
    NL("unet_config.noisy_latent_resolution", noisy_latent_resolution, "64,64", P),
    NI("unet_config.model_channels", model_channels, 320, P),
    NL("unet_config.attention_resolutions", attention_resolutions, "4,2,1", 0),
    NI("unet_config.num_res_blocks", num_res_blocks, 2, P, .lo = 1, .hi = 64),
    NL("unet_config.channel_mult", channel_mult, "1,2,4,4", P),
    NI("unet_config.num_heads", unet_num_heads, 8, P),
    NI("unet_config.context_dim", context_dim, 768, P),
    NI("grounding_input_config.text.input_seqlen", text_input_seqlen, 512, P),
    NI("grounding_input_config.bbox.input_seqlen", bbox_input_seqlen, 8, P),
    NI("grounding_input_config.bbox.grounding_token_feature_dim", grounding_token_feature_dim, 768, P),
};
TABLE(model_gligen_fields, "model", gligen_list);

/* Keys an LLM-family model file must spell out: the reference has defaults
 * for them, but a model without its dimensions is a mistake, not a llama. */
static const char *const llm_required[] = { "d_model", "num_heads", "d_head", "d_ff", "num_layers" };

int model_all_tables(const struct field_table **out, int max)
{
    const struct field_table *all[] = { &model_base_fields, &model_llm_fields, &model_moe_fields,
                                        &model_deepseek_fields, &model_dit_fields, &model_dlrm_fields,
                                        &model_gligen_fields };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++)
        out[n++] = all[i];
    return n;
}

static bool is_moe(const struct model_config *m)
{
    return strcmp(m->ffn_type, "deepseek_moe") == 0 || strstr(m->model_name, "deepseek") != NULL;
}

int model_tables(const struct model_config *m, const struct field_table **out, int max)
{
    int n = 0;
    if (n < max)
        out[n++] = &model_base_fields;
    if (strcmp(m->model_type, "llm") == 0 || strcmp(m->model_type, "dit") == 0) {
        if (n < max)
            out[n++] = &model_llm_fields;
        if (strcmp(m->model_type, "llm") == 0 && is_moe(m) && n + 1 < max) {
            out[n++] = &model_moe_fields;
            out[n++] = &model_deepseek_fields;
        }
        if (strcmp(m->model_type, "dit") == 0 && n < max)
            out[n++] = &model_dit_fields;
    } else if (strcmp(m->model_type, "dlrm") == 0 && n < max)
        out[n++] = &model_dlrm_fields;
    else if (strcmp(m->model_type, "gligen") == 0 && n < max)
        out[n++] = &model_gligen_fields;
    return n;
}

int model_config_from_json(struct model_config *m, const cJSON *json, field_sources *src,
                           struct npu_err *e)
{
    /* Defaults only from the tables that apply: a key may sit in two families'
     * tables with different defaults (use_flash_attention: LLM true, GLIGEN false). */
    memset(m, 0, sizeof *m);
    fields_set_defaults(&model_base_fields, m);
    if (fields_from_json(&model_base_fields, m, json, src, e))
        return -1;
    /* ffn_type decides the MoE tables; read it before choosing tables. DiT's
     * class overrides the LLM defaults (ffn "default", sequence lengths 0). */
    if (strcmp(m->model_type, "llm") == 0 && json) {
        const cJSON *ffn = cJSON_GetObjectItemCaseSensitive(json, "ffn_type");
        if (cJSON_IsString(ffn) && strlen(ffn->valuestring) < FIELD_STR_MAX)
            strcpy(m->ffn_type, ffn->valuestring);
        for (size_t i = 0; i < sizeof llm_required / sizeof llm_required[0]; i++)
            if (!cJSON_GetObjectItemCaseSensitive(json, llm_required[i])) {
                const cJSON *s = src ? cJSON_GetObjectItemCaseSensitive(src, "model_type") : NULL;
                return npu_errf(e, "%s: model field \"%s\" is missing",
                                cJSON_IsString(s) ? s->valuestring : "<config>", llm_required[i]);
            }
    }
    const struct field_table *t[8];
    char ffn[FIELD_STR_MAX];
    memcpy(ffn, m->ffn_type, sizeof ffn);
    int n = model_tables(m, t, 8);
    for (int i = 1; i < n; i++)
        fields_set_defaults(t[i], m);
    if (ffn[0])
        memcpy(m->ffn_type, ffn, sizeof ffn);   /* read from the JSON above */
    if (strcmp(m->model_type, "dit") == 0) {
        strcpy(m->ffn_type, "default");
        m->input_seqlen = 0;
        m->output_seqlen = 0;
    }
    for (int i = 1; i < n; i++)
        if (fields_from_json(t[i], m, json, src, e))
            return -1;
    /* Implicit defaults of the reference (opsgen Q39). */
    if (!cJSON_GetObjectItemCaseSensitive(json, "num_kv_heads"))
        m->num_kv_heads = cJSON_GetObjectItemCaseSensitive(json, "num_heads") ? m->num_heads : 64;
    if (!cJSON_GetObjectItemCaseSensitive(json, "moe_d_ff"))
        m->moe_d_ff = m->d_ff;
    /* Grouped-query attention: each KV head serves num_heads / num_kv_heads
     * query heads, so it must divide them (-1: one KV head per query head). */
    bool llm = false;
    for (int i = 1; i < n; i++)
        llm |= t[i] == &model_llm_fields;
    if (llm && m->num_kv_heads != -1 && (m->num_kv_heads < 1 || m->num_heads % m->num_kv_heads)) {
        const cJSON *s = src ? cJSON_GetObjectItemCaseSensitive(src, "num_kv_heads") : NULL;
        return npu_errf(e, "%s: model field \"num_kv_heads\": expected a divisor of num_heads (%lld) "
                           "or -1, got %lld", cJSON_IsString(s) ? s->valuestring : "<config>",
                        (long long)m->num_heads, (long long)m->num_kv_heads);
    }
    return 0;
}
