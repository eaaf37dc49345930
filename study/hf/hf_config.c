/* hf_config.c — a Hugging Face config.json into npusim's model config (see
 * hf.h). Main data structures: the tables of the model types known
 * (with their layer-pattern defaults), of the keys understood, and of the
 * ones refused. */
#include "study/hf/hf.h"

#include "base/json_strict.h"
#include "study/hf/hf_layers.h"
#include "study/hf/hf_names.h"
#include "study/hf/hf_wrappers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The decoders whose layers npusim's LLM family simulates: an FFN (gated,
 * or plain: up, activation, down) or a mixture of gated experts over
 * multi-head, grouped-query or multi-query attention, global or local; and
 * DeepSeek's latent attention with experts. full_every: the layer pattern
 * of local attention when the file gives none (Gemma 2: every other layer
 * global; Llama 4: every fourth, chunked). tied: Transformers' class
 * default for tie_word_embeddings (PretrainedConfig's true, unless the
 * class sets false: Cohere's, SmolLM3's, ERNIE 4.5's and StarCoder2's do
 * not). experts: a dense type whose files may carry experts
 * (MiniCPM-MoE's num_experts), then read as Mixtral's. linear: Gated
 * DeltaNet layers between the attention ones (Qwen3-Next, Qwen3.5), every
 * full_attention_interval-th layer attention; mamba: Mamba-2 layers between
 * them (Granite 4.0-H, Bamba, Nemotron-H; hf_layers.h); parallel: a
 * Mamba-2 mixer beside every attention (Falcon-H1); gated_attn: a sigmoid
 * gate on every attention's output (AFMoE's gate_proj). Families naming
 * their keys otherwise are read through hf_names.h. */
enum hf_kind { HF_DENSE, HF_MOE, HF_MLA };
static const struct hf_type {
    const char *type;
    enum hf_kind kind;
    int full_every;
    bool chunked, plain, tied, experts, linear, mamba, conv, parallel, gated_attn, mamba1, spread;
} types[] = {
    { .type = "llama", .kind = HF_DENSE }, { .type = "mistral", .kind = HF_DENSE },
    { .type = "qwen2", .kind = HF_DENSE }, { .type = "qwen3", .kind = HF_DENSE },
    { .type = "phi3", .kind = HF_DENSE }, { .type = "granite", .kind = HF_DENSE },
    { .type = "olmo", .kind = HF_DENSE }, { .type = "olmo2", .kind = HF_DENSE },
    { .type = "olmo3", .kind = HF_DENSE }, { .type = "yi", .kind = HF_DENSE },
    { .type = "internlm", .kind = HF_DENSE }, { .type = "internlm2", .kind = HF_DENSE },
    { .type = "internlm3", .kind = HF_DENSE }, { .type = "cohere", .kind = HF_DENSE, .tied = true },
    { .type = "cohere2", .kind = HF_DENSE, .full_every = 4, .tied = true }, { .type = "exaone", .kind = HF_DENSE },
    { .type = "exaone4", .kind = HF_DENSE }, { .type = "smollm3", .kind = HF_DENSE, .tied = true },
    { .type = "baichuan", .kind = HF_DENSE }, { .type = "stablelm", .kind = HF_DENSE },
    { .type = "minicpm", .kind = HF_DENSE, .experts = true }, { .type = "glm", .kind = HF_DENSE },
    { .type = "glm4", .kind = HF_DENSE }, { .type = "chatglm", .kind = HF_DENSE },
    { .type = "qwen", .kind = HF_DENSE }, { .type = "helium", .kind = HF_DENSE },
    { .type = "seed_oss", .kind = HF_DENSE }, { .type = "hunyuan_v1_dense", .kind = HF_DENSE },
    { .type = "ernie4_5", .kind = HF_DENSE, .tied = true }, { .type = "gemma", .kind = HF_DENSE, .tied = true },
    { .type = "mimo", .kind = HF_DENSE }, { .type = "orion", .kind = HF_DENSE },
    { .type = "ministral3", .kind = HF_DENSE },
    { .type = "gemma2", .kind = HF_DENSE, .full_every = 2, .tied = true },
    { .type = "gemma3_text", .kind = HF_DENSE, .full_every = 6, .tied = true },
    { .type = "gemma4_text", .kind = HF_DENSE, .full_every = 6, .tied = true, .experts = true },
    { .type = "phi", .kind = HF_DENSE, .plain = true }, { .type = "gpt_neox", .kind = HF_DENSE, .plain = true },
    { .type = "gptj", .kind = HF_DENSE, .plain = true }, { .type = "starcoder2", .kind = HF_DENSE, .plain = true, .tied = true },
    { .type = "nemotron", .kind = HF_DENSE, .plain = true }, { .type = "arcee", .kind = HF_DENSE, .plain = true },
    { .type = "apertus", .kind = HF_DENSE, .plain = true },
    { .type = "gpt2", .kind = HF_DENSE, .plain = true, .tied = true },
    { .type = "gpt_bigcode", .kind = HF_DENSE, .plain = true, .tied = true },
    { .type = "opt", .kind = HF_DENSE, .plain = true, .tied = true },
    { .type = "bloom", .kind = HF_DENSE, .plain = true, .tied = true },
    { .type = "falcon", .kind = HF_DENSE, .plain = true, .tied = true },
    { .type = "mpt", .kind = HF_DENSE, .plain = true, .tied = true }, { .type = "mixtral", .kind = HF_MOE },
    { .type = "qwen2_moe", .kind = HF_MOE }, { .type = "qwen3_moe", .kind = HF_MOE },
    { .type = "gpt_oss", .kind = HF_MOE, .full_every = 2 }, { .type = "olmoe", .kind = HF_MOE },
    { .type = "granitemoe", .kind = HF_MOE }, { .type = "granitemoeshared", .kind = HF_MOE }, { .type = "phimoe", .kind = HF_MOE },
    { .type = "dbrx", .kind = HF_MOE }, { .type = "llama4_text", .kind = HF_MOE, .full_every = 4, .chunked = true },
    { .type = "glm4_moe", .kind = HF_MOE }, { .type = "deepseek", .kind = HF_MOE },
    { .type = "dots1", .kind = HF_MOE }, { .type = "bailing_moe", .kind = HF_MOE },
    { .type = "bailing_moe_v2", .kind = HF_MOE },
    { .type = "afmoe", .kind = HF_MOE, .full_every = 4, .gated_attn = true },
    { .type = "minimax", .kind = HF_MOE, .linear = true }, { .type = "minimax_text_01", .kind = HF_MOE, .linear = true },
    { .type = "minimax_m1", .kind = HF_MOE, .linear = true },
    { .type = "exaone_moe", .kind = HF_MOE, .full_every = 4 },
    { .type = "mimo_v2_flash", .kind = HF_MOE, .spread = true }, { .type = "mimo_v2", .kind = HF_MOE, .spread = true },
    { .type = "ernie4_5_moe", .kind = HF_MOE, .tied = true }, { .type = "minimax_m2", .kind = HF_MOE },
    { .type = "hunyuan_v1_moe", .kind = HF_MOE }, { .type = "hunyuan", .kind = HF_DENSE, .experts = true },
    { .type = "qwen3_next", .kind = HF_MOE, .linear = true }, { .type = "qwen3_5_moe_text", .kind = HF_MOE, .linear = true },
    { .type = "qwen3_5_text", .kind = HF_DENSE, .linear = true },
    { .type = "deepseek_v2", .kind = HF_MLA }, { .type = "deepseek_v3", .kind = HF_MLA },
    { .type = "kimi_k2", .kind = HF_MLA }, { .type = "kimi_linear", .kind = HF_MLA, .linear = true }, { .type = "glm4_moe_lite", .kind = HF_MLA },
    { .type = "deepseek_v32", .kind = HF_MLA }, { .type = "glm_moe_dsa", .kind = HF_MLA },
    { .type = "step3p7", .kind = HF_MOE },
    { .type = "granitemoehybrid", .kind = HF_DENSE, .experts = true, .mamba = true },
    { .type = "bamba", .kind = HF_DENSE, .mamba = true },
    { .type = "falcon_h1", .kind = HF_DENSE, .mamba = true, .parallel = true },
    { .type = "jamba", .kind = HF_DENSE, .experts = true, .mamba1 = true },
    { .type = "lfm2", .kind = HF_DENSE, .tied = true, .conv = true },
    { .type = "lfm2_moe", .kind = HF_MOE, .tied = true, .conv = true },
    { .type = "nemotron_h", .kind = HF_DENSE, .plain = true, .experts = true, .mamba = true },
};

/* Decoders npusim has no layers for, and why (otherwise only "not a decoder
 * npusim knows"). */
static const struct { const char *types, *why; } unmodelled[] = {
    { "zamba zamba2 mamba falcon_mamba plamo2",
      "state-space layers npusim has no form for (it simulates Mamba-2 layers between or beside attention layers: "
      "Granite 4.0-H, Bamba, Nemotron-H, Falcon-H1, and Mamba-1 layers between them: Jamba)" },
    { "mamba2", "no attention layer (a pure Mamba-2 model): npusim simulates Mamba-2 layers between attention ones" },
    { "rwkv rwkv5 rwkv6 rwkv7 recurrent_gemma",
      "linear-attention or recurrent layers npusim has no form for (it simulates Gated DeltaNet's: Qwen3-Next, "
      "Qwen3.5, Kimi Linear's KDA and MiniMax's lightning attention as them)" },
    { "gemma3n", "Gemma 3n's per-layer inputs and AltUp streams: no form in npusim's layers" },
    { "deci nemotron-nas", "a different block per layer (Nemotron NAS): npusim's layers repeat one block" },
    { "deepseek_v4", "compressed and sparse attention (compress_ratios, an indexer), hash-routed layers and "
                     "hyper-connections: not modelled" },
    { "minimax_m3", "block-sparse attention on some layers (sparse_attention_config): not modelled" },
};

/* Keys read (or checked) here: never listed as ignored. */
static const char *const understood[] = {
    "architectures", "model_type", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
    "num_key_value_heads", "head_dim", "vocab_size", "tie_word_embeddings", "hidden_act", "hidden_activation",
    "torch_dtype", "dtype", "max_position_embeddings", "quantization_config", "sliding_window", "use_sliding_window",
    "max_window_layers", "layer_types", "sliding_window_pattern", "is_encoder_decoder", "vision_config",
    "text_config", "llm_config", "language_config", "thinker_config", "num_local_experts", "num_experts", "n_routed_experts", "num_experts_per_tok",
    "experts_per_token", "moe_intermediate_size", "n_shared_experts", "shared_expert_intermediate_size",
    "first_k_dense_replace", "decoder_sparse_step", "interleave_moe_layer_step", "mlp_only_layers",
    "intermediate_size_mlp", "attention_chunk_size", "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim",
    "qk_nope_head_dim", "v_head_dim", "topk_group", "n_group", "parallel_attn", "moe_layer_freq",
    "num_nextn_predict_layers", "sliding_window_size", "linear_num_value_heads", "linear_num_key_heads",
    "linear_key_head_dim", "linear_value_head_dim", "linear_conv_kernel_dim", "mamba_ssm_dtype", "attn_output_gate",
    "full_attention_interval", "mtp_num_hidden_layers", "index_topk", "index_n_heads", "index_head_dim",
    "mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state", "mamba_d_conv", "mamba_chunk_size",
    "mamba_expand", "attn_layer_indices", "hybrid_override_pattern", "layers_block_type", "moe_latent_size",
    "global_head_dim", "num_global_key_value_heads", "attention_k_eq_v", "hidden_size_per_layer_input",
    "num_kv_shared_layers", "use_double_wide_mlp", "vocab_size_per_layer_input", "full_attn_idxs", "conv_L_cache",
    "mamba_d_ssm",
};

static bool in(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (!strcmp(s, list[i]))
            return true;
    return false;
}
#define IN(s, a) in(s, a, sizeof a / sizeof a[0])

static const struct hf_type *type_of(const char *t)
{
    for (size_t i = 0; t && i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(t, types[i].type))
            return &types[i];
    return NULL;
}

/* t's name as the types table holds it (a static string), NULL if npusim does not know t. */
static const char *canonical_type(const char *t)
{
    const struct hf_type *k = type_of(t);
    return k ? k->type : NULL;
}

bool hf_config_is(const cJSON *j)
{
    return cJSON_IsObject(j) && (cJSON_GetObjectItemCaseSensitive(j, "architectures") ||
                                 (cJSON_GetObjectItemCaseSensitive(j, "hidden_size") &&
                                  cJSON_GetObjectItemCaseSensitive(j, "num_hidden_layers")));
}

cJSON *hf_read_python(const char *path)
{
    struct npu_err e;
    cJSON *j = json_read_file_python(path, &e);
    if (j && hf_config_is(j))
        return j;
    cJSON_Delete(j);
    return NULL;
}

bool hf_config_key(const char *key)
{
    return IN(key, understood) || hf_name_understood(key);
}

/* The first of keys (NULL-ended) that j holds as a number, else def. */
static double num_any(const cJSON *j, const char *const *keys, double def)
{
    for (; *keys; keys++)
        if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, *keys)))
            return hf_num(j, *keys, def);
    return def;
}

static const char *const experts_keys[] = { "num_local_experts", "num_experts", "n_routed_experts", NULL };

/* A per-layer list of two values under key (null or absent: none): the
 * strings word[0] or word[1], or (word[0] NULL) the numbers 0 or 1; sorted:
 * the first never after the second, as a mixture's dense layers come first.
 * The key when it is not a list (*why = not_list), holds another item
 * (not_item) or is out of order; NULL when it holds. types: the model
 * types whose files it is read in (NULL: all). */
struct two_values { const char *key, *word[2]; bool sorted; const char *not_list, *not_item, *types; };
static const char *two_values_refused(const cJSON *hf, const struct two_values *v, const char **why)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(hf, v->key), *x;
    const cJSON *list = cJSON_IsArray(l) ? l : NULL;
    if (l && !cJSON_IsNull(l) && !list)
        return *why = v->not_list, v->key;
    int last = 0;
    cJSON_ArrayForEach(x, list) {
        int k = -1;
        if (v->word[0] && cJSON_IsString(x))
            k = !strcmp(x->valuestring, v->word[0]) ? 0 : !strcmp(x->valuestring, v->word[1]) ? 1 : -1;
        else if (!v->word[0] && cJSON_IsNumber(x))
            k = x->valuedouble == 0 ? 0 : x->valuedouble == 1 ? 1 : -1;
        if (k < 0)
            return *why = v->not_item, v->key;
        if (v->sorted && k < last)
            return *why = "a dense layer after an expert layer: npusim's pattern is num_dense_layers first, then "
                          "every moe_layer_step-th layer", v->key;
        last = k;
    }
    return NULL;
}

/* MiMo-V2-Flash's windowed layers' shape: their own K/V heads, but the
 * global layers' query heads and head widths. */
static const char *mimo_refused(const cJSON *hf, const char **why)
{
    static const char *const same[][2] = { { "swa_num_attention_heads", "num_attention_heads" },
                                            { "swa_head_dim", "head_dim" }, { "swa_v_head_dim", "v_head_dim" } };
    for (int i = 0; i < 3; i++) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(hf, same[i][0]);
        if (s && !cJSON_IsNull(s) && !(cJSON_IsNumber(s) && s->valuedouble == hf_num(hf, same[i][1], s->valuedouble)))
            return *why = "windowed layers whose query heads or head widths differ from the global layers': npusim "
                          "gives them only their own K/V heads", same[i][0];
    }
    return NULL;
}

/* The first key of the model that npusim cannot model, and why; NULL if none. */
static const char *refused(const cJSON *hf, const struct hf_type *t, const char **why)
{
    static const struct { const char *key, *why; } never[] = {
        { "vision_config", "a vision tower (give the text model's config: its text_config)" },
        { "text_config", "a multimodal wrapper (give the text model's config: its text_config)" },
    };
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        if (cJSON_GetObjectItemCaseSensitive(hf, never[i].key))
            return *why = never[i].why, never[i].key;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hf, "is_encoder_decoder")))
        return *why = "an encoder-decoder model: npusim simulates decoders", "is_encoder_decoder";
    if (t && t->kind == HF_DENSE && !t->experts && num_any(hf, experts_keys, 0) > 1)
        return *why = "experts in a model type npusim knows as dense", "num_experts";
    /* per-layer lists: EXAONE-MoE's dense and expert layers, MiniMax's lightning and softmax layers,
     * MiMo-V2-Flash's global and windowed layers and its dense and expert ones */
    static const struct two_values lists[] = {
        { "mlp_layer_types", { "dense", "sparse" }, true, "expected a list of \"dense\" or \"sparse\", one a layer",
          "an item other than \"dense\" or \"sparse\"", NULL },
        { "attn_type_list", { NULL, NULL }, false, "expected a list of 0 (lightning) or 1 (softmax attention), one a layer",
          "expected 0 (lightning) or 1 (softmax attention) a layer", NULL },
        { "hybrid_layer_pattern", { NULL, NULL }, false, "expected a list of 0 or 1, one a layer", "an item other than 0 or 1",
          "mimo_v2_flash mimo_v2" },
        { "moe_layer_freq", { NULL, NULL }, true, "expected a list of 0 or 1, one a layer", "an item other than 0 or 1",
          "mimo_v2_flash mimo_v2" },
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if ((!lists[i].types || (t && hf_names_listed(lists[i].types, t->type))) &&
            two_values_refused(hf, &lists[i], why))
            return lists[i].key;
    const cJSON *mlp = cJSON_GetObjectItemCaseSensitive(hf, "mlp_only_layers");
    if (cJSON_IsArray(mlp) && cJSON_GetArraySize(mlp) > 0)
        return *why = "a list of dense layers among the experts: npusim's pattern is num_dense_layers first, then "
                      "every moe_layer_step-th layer", "mlp_only_layers";
    if (t && (!strncmp(t->type, "qwen2", 5) || !strcmp(t->type, "mimo")) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hf, "use_sliding_window")))
        return *why = "Qwen's sliding window on the layers from max_window_layers up: not modelled", "use_sliding_window";
    if (t && t->kind == HF_MLA && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(hf, "moe_latent_size")))
        return *why = "LatentMoE beside latent attention: npusim runs it over standard attention (Nemotron 3 Super)",
               "moe_latent_size";
    if (t && !strcmp(t->type, "kimi_linear")) {
        const cJSON *la = cJSON_GetObjectItemCaseSensitive(hf, "linear_attn_config"), *x;
        const cJSON *full = cJSON_GetObjectItemCaseSensitive(la, "full_attn_layers");
        double L = hf_num(hf, "num_hidden_layers", 0);
        if (!cJSON_IsArray(full))
            return *why = "expected an object with full_attn_layers, the 1-based layers that attend", "linear_attn_config";
        cJSON_ArrayForEach(x, full)
            if (!cJSON_IsNumber(x) || x->valuedouble < 1 || x->valuedouble > L || x->valuedouble != floor(x->valuedouble))
                return *why = "full_attn_layers: expected layer numbers from 1 to num_hidden_layers", "linear_attn_config";
    }
    if (t && !strcmp(t->type, "jamba") && num_any(hf, experts_keys, 0) > 1 &&
        hf_num(hf, "expert_layer_offset", 1) != hf_num(hf, "expert_layer_period", 2) - 1)
        return *why = "experts other than on the last layer of each expert_layer_period: npusim's pattern is every "
                      "moe_layer_step-th layer from the first", "expert_layer_offset";
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hf, "use_cla")))
        return *why = "cross-layer attention (each K/V shared by cla_share_factor layers): npusim gives every layer "
                      "its own K/V", "use_cla";
    const char *mimo = t && hf_names_listed("mimo_v2_flash mimo_v2", t->type) ? mimo_refused(hf, why) : NULL;
    if (mimo)
        return mimo;
    double end = hf_num(hf, "moe_layer_end_index", -1);
    if (t && !strcmp(t->type, "ernie4_5_moe") && end >= 0 && end < hf_num(hf, "num_hidden_layers", 0) - 1)
        return *why = "dense layers after the experts' last layer: npusim's pattern is num_dense_layers first, then "
                      "every moe_layer_step-th layer to the end", "moe_layer_end_index";
    return NULL;
}

/* Weight-only int8 or int4 in groups of g along K per output column, with
 * scales in sdt (g <= 0: one scale a column, nothing to model). */
static void int_groups(cJSON *o, int bits, double g, const char *sdt)
{
    cJSON_AddStringToObject(o, "weight_dtype", bits == 4 ? "int4" : "int8");
    if (g > 0) {
        cJSON_AddNumberToObject(o, "scale_block", g);
        cJSON_AddNumberToObject(o, "weight_scale_block_n", 1);
    }
    cJSON_AddStringToObject(o, "scale_dtype", sdt);
}

/* NVFP4's block scales: one fp8 scale for 16 weights along K. */
static void nvfp4_scales(cJSON *o)
{
    cJSON_AddNumberToObject(o, "scale_block", 16);
    cJSON_AddNumberToObject(o, "weight_scale_block_n", 1);
    cJSON_AddStringToObject(o, "scale_dtype", "fp8");
}

/* ModelOpt's MIXED_PRECISION: each quantized layer's quant_algo
 * (quantized_layers), one format for the experts (routed and shared:
 * expert_weight_dtype) and one for the rest (weight_dtype); FP8, or NVFP4
 * (W4A16_NVFP4, W4A8_NVFP4: fp4 in blocks of 16 with fp8 scales). The LM
 * head counts with neither (it takes weight_dtype). Formats that differ
 * within a group are refused, naming them. */
static int quant_mixed(const cJSON *q, cJSON *o, const char *name, struct npu_err *e)
{
    const char *fmt[2] = { NULL, NULL };   /* [0] the rest, [1] the experts */
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(q, "quantized_layers")) {
        const char *a = hf_str(x, "quant_algo"), *f = NULL;
        if (!x->string || strstr(x->string, "lm_head"))
            continue;
        if (a && !strcmp(a, "FP8"))
            f = "fp8";
        else if (a && strstr(a, "NVFP4"))
            f = "fp4";
        if (!f)
            return npu_errf(e, "%s: key \"quantization_config\": quantized_layers \"%s\": quant_algo \"%s\": expected "
                               "FP8 or NVFP4", name, x->string, a ? a : "(none)");
        int k = strstr(x->string, "expert") != NULL;
        if (fmt[k] && strcmp(fmt[k], f))
            return npu_errf(e, "%s: key \"quantization_config\": MIXED_PRECISION: %s and %s among the %s layers, "
                               "which npusim gives one format (%s); give its quant_algo as one of them, or npusim's "
                               "own model config", name, fmt[k], f, k ? "experts'" : "non-expert",
                            k ? "expert_weight_dtype" : "weight_dtype");
        fmt[k] = f;
    }
    if (!fmt[0] && !fmt[1])
        return npu_errf(e, "%s: key \"quantization_config\": MIXED_PRECISION without quantized_layers", name);
    if (fmt[0])
        cJSON_AddStringToObject(o, "weight_dtype", fmt[0]);
    if (fmt[1] && (!fmt[0] || strcmp(fmt[0], fmt[1])))
        cJSON_AddStringToObject(o, "expert_weight_dtype", fmt[1]);
    if ((fmt[0] && !strcmp(fmt[0], "fp4")) || (fmt[1] && !strcmp(fmt[1], "fp4")))
        nvfp4_scales(o);
    return 0;
}

/* The other methods: bitsandbytes (8-bit: per-row scales; 4-bit NF4/FP4:
 * blocks of 64 with fp32 absmax, fp8 with double quantisation), NVIDIA
 * ModelOpt (FP8; NVFP4: fp4 in blocks of 16 with fp8 scales) and
 * compressed-tensors (its first config group's weights: 8-bit float as fp8,
 * 4- or 8-bit integers in groups of group_size with fp16 scales). */
static int quant_more(const cJSON *q, const char *qm, cJSON *o, const char *name, struct npu_err *e)
{
    if (qm && !strcmp(qm, "bitsandbytes")) {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q, "load_in_4bit")))
            int_groups(o, 4, 64, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q, "bnb_4bit_use_double_quant")) ? "fp8" : "fp32");
        else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q, "load_in_8bit")))
            int_groups(o, 8, 0, "fp32");
        else
            return npu_errf(e, "%s: key \"quantization_config\": bitsandbytes without load_in_4bit or load_in_8bit", name);
        return 0;
    }
    const char *algo = hf_str(q, "quant_algo");
    const cJSON *producer = cJSON_GetObjectItemCaseSensitive(q, "producer");
    if (!qm && hf_str(producer, "name") && !strcmp(hf_str(producer, "name"), "modelopt"))
        qm = "modelopt";   /* ModelOpt's exports name their producer, not a quant_method */
    if (qm && !strcmp(qm, "modelopt") && algo && !strcmp(algo, "MIXED_PRECISION"))
        return quant_mixed(q, o, name, e);
    if (qm && !strcmp(qm, "modelopt") && algo && (!strcmp(algo, "FP8") || !strcmp(algo, "NVFP4"))) {
        bool fp4 = !strcmp(algo, "NVFP4");
        cJSON_AddStringToObject(o, "weight_dtype", fp4 ? "fp4" : "fp8");
        if (fp4)
            nvfp4_scales(o);
        return 0;
    }
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(q, "config_groups");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(groups ? groups->child : NULL, "weights");
    const char *fmt = hf_str(q, "format") ? hf_str(q, "format") : hf_str(groups ? groups->child : NULL, "format");
    if (qm && !strcmp(qm, "compressed-tensors") && fmt && !strcmp(fmt, "mxfp4-pack-quantized")) {
        /* MXFP4 (Kimi K3): fp4 weights in blocks of 32 along K with an 8-bit scale each, every linear layer
         * (the shared experts, which K3's config leaves out, with the others: one format for all experts) */
        cJSON_AddStringToObject(o, "weight_dtype", "fp4");
        cJSON_AddNumberToObject(o, "scale_block", 32);
        cJSON_AddNumberToObject(o, "weight_scale_block_n", 1);
        cJSON_AddStringToObject(o, "scale_dtype", "fp8");
        return 0;
    }
    if (qm && !strcmp(qm, "compressed-tensors") && w) {
        double bits = hf_num(w, "num_bits", 0);
        const char *type = hf_str(w, "type");
        if (bits == 8 && type && !strcmp(type, "float")) {
            cJSON_AddStringToObject(o, "weight_dtype", "fp8");
            return 0;
        }
        if ((bits == 4 || bits == 8) && type && !strcmp(type, "int")) {
            int_groups(o, (int)bits, hf_num(w, "group_size", 0), "fp16");
            return 0;
        }
        return npu_errf(e, "%s: key \"quantization_config\": compressed-tensors weights of %g-bit %s: expected "
                           "8-bit float or 4- or 8-bit int", name, bits, type ? type : "(no type)");
    }
    return npu_errf(e, "%s: key \"quantization_config\": quant_method \"%s\"%s%s: not modelled (fp8, fbgemm_fp8, "
                       "gptq, awq, mxfp4, bitsandbytes, modelopt FP8, NVFP4 and MIXED_PRECISION, compressed-tensors are)",
                    name, qm ? qm : "(none)", algo ? " quant_algo " : "", algo ? algo : "");
}

/* quantization_config into the weights' format and block scales: fp8
 * (with DeepSeek's weight_block_size), GPTQ and AWQ int4/int8 groups of
 * group_size along K per output column with fp16 scales (their zero points,
 * 4 bits a group, are left out: a quarter of the scales' bytes), MXFP4
 * (gpt-oss: fp4 experts in blocks of 32 with 8-bit scales, the rest bf16;
 * MiMo's fp8 with store_dtype mxfp4: the experts MXFP4, the rest fp8). */
static int quant(const cJSON *hf, cJSON *o, const char *wfmt, const char *name, struct npu_err *e)
{
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(hf, "quantization_config");
    if (cJSON_IsNull(q))
        q = NULL;   /* null: not quantized, as no key */
    if (q && !cJSON_IsObject(q))
        return npu_errf(e, "%s: key \"quantization_config\": expected an object (its quant_method and settings)", name);
    const char *qm = hf_str(q, "quant_method");
    if (!q) {
        if (wfmt)
            cJSON_AddStringToObject(o, "weight_dtype", wfmt);
        return 0;
    }
    if (qm && (!strcmp(qm, "fp8") || !strcmp(qm, "fbgemm_fp8"))) {
        cJSON_AddStringToObject(o, "weight_dtype", "fp8");
        const char *store = hf_str(q, "store_dtype");
        if (store && !strcmp(store, "mxfp4")) {
            /* MiMo-V2.5's and 2.6's: the experts stored as MXFP4 (fp4 in blocks of 32 along K, an 8-bit scale
             * each), the rest fp8 in weight_block_size blocks; npusim's one scale layout is the experts'
             * (the fp8 weights' scales then count 1 byte in 32, a fraction of a percent of the model) */
            cJSON_AddStringToObject(o, "expert_weight_dtype", "fp4");
            cJSON_AddNumberToObject(o, "scale_block", 32);
            cJSON_AddNumberToObject(o, "weight_scale_block_n", 1);
            cJSON_AddStringToObject(o, "scale_dtype", "fp8");
            return 0;
        }
        const cJSON *wb = cJSON_GetObjectItemCaseSensitive(q, "weight_block_size");
        if (cJSON_GetArraySize(wb) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(wb, 0))) {
            cJSON_AddNumberToObject(o, "scale_block", cJSON_GetArrayItem(wb, 1)->valuedouble);
            cJSON_AddNumberToObject(o, "weight_scale_block_n", cJSON_GetArrayItem(wb, 0)->valuedouble);
        }
        return 0;
    }
    if (qm && (!strcmp(qm, "gptq") || !strcmp(qm, "awq"))) {
        double bits = hf_num(q, "bits", hf_num(q, "w_bit", 0)), g = hf_num(q, "group_size", hf_num(q, "q_group_size", 128));
        if (bits != 4 && bits != 8)
            return npu_errf(e, "%s: key \"quantization_config\": %s with %g bits: expected 4 or 8", name, qm, bits);
        if (!(g >= 0 || g == -1) || g > 65535 || g != floor(g))
            return npu_errf(e, "%s: key \"quantization_config\": group_size %g: expected -1 (per column) or 1 to 65535",
                            name, g);
        int_groups(o, (int)bits, g, "fp16");   /* -1: one scale a column */
        return 0;
    }
    if (qm && !strcmp(qm, "mxfp4")) {
        if (wfmt)
            cJSON_AddStringToObject(o, "weight_dtype", wfmt);
        cJSON_AddStringToObject(o, "expert_weight_dtype", "fp4");
        cJSON_AddNumberToObject(o, "scale_block", 32);
        cJSON_AddNumberToObject(o, "weight_scale_block_n", 1);
        cJSON_AddStringToObject(o, "scale_dtype", "fp8");
        return 0;
    }
    return quant_more(q, qm, o, name, e);
}

/* torch_dtype into the three number formats, then the quantization. */
static int formats(const cJSON *hf, cJSON *o, const char *name, struct npu_err *e)
{
    const char *t = hf_str(hf, "torch_dtype") ? hf_str(hf, "torch_dtype") : hf_str(hf, "dtype");
    const char *f = hf_torch_format(t);
    if (t && !f)
        return npu_errf(e, "%s: key \"torch_dtype\": \"%s\": expected bfloat16, float16 or float32", name, t);
    if (f) {
        cJSON_AddStringToObject(o, "activation_dtype", f);
        cJSON_AddStringToObject(o, "kv_cache_dtype", f);
    }
    return quant(hf, o, f, name, e);
}

/* The FFN's type from the activation and whether the type's FFN is gated:
 * SiLU gated (llama) or GELU gated (Gemma); plain GELU (GPT-2, Falcon,
 * Phi-2, StarCoder2), plain ReLU or squared ReLU (OPT, Nemotron, Arcee).
 * Apertus' xIELU runs as plain GELU: one elementwise op either way. A
 * file without one: SiLU gated, GELU plain. */
static int ffn_of(const cJSON *hf, const struct hf_type *t, cJSON *o, const char *name, struct npu_err *e)
{
    static const struct { const char *act, *gated, *plain; } acts[] = {
        { "silu", "llama", NULL }, { "swiglu", "llama", NULL }, { "gelu", "geglu", "gelu" },
        { "relu", NULL, "relu" },  { "xielu", NULL, "gelu" },
    };
    const char *a = hf_str(hf, "hidden_activation") ? hf_str(hf, "hidden_activation") : hf_str(hf, "hidden_act");
    if (!a)
        a = t->plain ? "gelu" : "silu";
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
        const char *f = t->plain ? acts[i].plain : acts[i].gated;
        if (f && !strncmp(a, acts[i].act, strlen(acts[i].act))) {
            cJSON_AddStringToObject(o, "ffn_type", f);
            return 0;
        }
    }
    return npu_errf(e, "%s: key \"hidden_act\": \"%s\": expected %s", name, a,
                    t->plain ? "gelu, relu, relu2 or xielu (an ungated FFN)" : "silu or gelu (a gated FFN)");
}

static int mla_fields(const cJSON *hf, cJSON *o, const char *name, struct npu_err *e)
{
    static const struct { const char *hf, *np; } keys[] = {
        { "moe_intermediate_size", "moe_d_ff" }, { "n_routed_experts", "num_routed_experts" },
        { "num_experts_per_tok", "num_activated_routed_experts_per_token" }, { "kv_lora_rank", "kv_lora_rank" },
        { "qk_rope_head_dim", "qk_rope_head_dim" }, { "qk_nope_head_dim", "qk_nope_head_dim" },
        { "v_head_dim", "v_head_dim" },
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (hf_add_int(o, keys[i].np, hf_num(hf, keys[i].hf, 0), name, keys[i].hf, e))
            return -1;
    /* null (DeepSeek-V2-Lite): no query compression, npusim's 0 */
    const cJSON *qr = cJSON_GetObjectItemCaseSensitive(hf, "q_lora_rank");
    if (cJSON_IsNull(qr) || !qr)
        cJSON_AddNumberToObject(o, "q_lora_rank", 0);
    else if (hf_add_int(o, "q_lora_rank", hf_num(hf, "q_lora_rank", 0), name, "q_lora_rank", e))
        return -1;
    cJSON_AddNumberToObject(o, "num_shared_experts", hf_num(hf, "n_shared_experts", 0));
    cJSON_AddNumberToObject(o, "num_dense_layers", hf_num(hf, "first_k_dense_replace", 0));
    cJSON_AddNumberToObject(o, "num_limited_groups", hf_num(hf, "topk_group", 1));
    /* LatentMoE beside latent attention (Kimi K3's routed_expert_hidden_size; hf_names.c) */
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(hf, "moe_latent_size")) &&
        hf_add_int(o, "moe_latent_size", hf_num(hf, "moe_latent_size", 0), name, "routed_expert_hidden_size", e))
        return -1;
    /* DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): the indexer */
    static const struct { const char *hf, *np; } dsa[] = {
        { "index_topk", "index_topk" }, { "index_n_heads", "index_heads" }, { "index_head_dim", "index_head_dim" },
    };
    for (size_t i = 0; cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(hf, "index_topk")) && i < 3; i++)
        if (hf_add_int(o, dsa[i].np, hf_num(hf, dsa[i].hf, 0), name, dsa[i].hf, e))
            return -1;
    cJSON_AddStringToObject(o, "ffn_type", "deepseek_moe");
    cJSON_AddStringToObject(o, "router_type", "topk");
    cJSON_AddFalseToObject(o, "use_flash_attention");
    return 0;
}

/* A mixture of gated experts over standard attention: the experts' width
 * (moe_intermediate_size, else intermediate_size), count and top-k; the
 * shared experts (n_shared_experts, or shared_expert_intermediate_size in
 * experts' widths; Llama 4: one); the dense layers' width (Llama 4's
 * intermediate_size_mlp) and the layer pattern. */
static int moe_fields(const cJSON *hf, const struct hf_type *t, cJSON *o, const char *name, struct npu_err *e)
{
    static const char *const topk[] = { "num_experts_per_tok", "experts_per_token", NULL };
    static const char *const step[] = { "decoder_sparse_step", "interleave_moe_layer_step", NULL };
    double width = hf_num(hf, "moe_intermediate_size", hf_num(hf, "intermediate_size", 0));
    double shared = hf_num(hf, "n_shared_experts", !strcmp(t->type, "llama4_text") ? 1 : 0);
    double sw = hf_num(hf, "shared_expert_intermediate_size", 0);
    if (sw > 0 && width > 0) {
        if (fmod(sw, width) != 0)
            return npu_errf(e, "%s: key \"shared_expert_intermediate_size\": %g is not a multiple of the experts' "
                               "width %g", name, sw, width);
        shared = sw / width;
    }
    if (hf_add_int(o, "moe_d_ff", width, name, "moe_intermediate_size", e) ||
        hf_add_int(o, "num_routed_experts", num_any(hf, experts_keys, 0), name, "num_local_experts", e) ||
        hf_add_int(o, "num_activated_routed_experts_per_token", num_any(hf, topk, 0), name, "num_experts_per_tok", e) ||
        hf_add_int(o, "moe_layer_step", num_any(hf, step, 1), name, "decoder_sparse_step", e))
        return -1;
    /* LatentMoE (Nemotron 3 Super, Ultra): the routed experts' width; null (Nemotron 3.5): none */
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(hf, "moe_latent_size")) &&
        hf_add_int(o, "moe_latent_size", hf_num(hf, "moe_latent_size", 0), name, "moe_latent_size", e))
        return -1;
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(hf, "intermediate_size_mlp")))
        cJSON_ReplaceItemInObjectCaseSensitive(o, "d_ff", cJSON_CreateNumber(hf_num(hf, "intermediate_size_mlp", 0)));
    cJSON_AddNumberToObject(o, "num_shared_experts", shared);
    cJSON_AddNumberToObject(o, "num_dense_layers", hf_num(hf, "first_k_dense_replace", 0));
    /* the experts replace the dense FFN's type (ffn_of set it): one key, or the written file is refused */
    cJSON_ReplaceItemInObjectCaseSensitive(o, "ffn_type", cJSON_CreateString("moe"));
    return 0;
}

/* The global layers' own attention shape (Gemma 4): global_head_dim and
 * num_global_key_value_heads where they differ from the others' (null:
 * the same), and attention_k_eq_v (their V is K's projection). */
static int global_attention(const cJSON *hf, double dh, double kv, cJSON *o, const char *name, struct npu_err *e)
{
    double gdh = hf_num(hf, "global_head_dim", dh), gkv = hf_num(hf, "num_global_key_value_heads", kv);
    if ((gdh != dh && hf_add_int(o, "global_d_head", gdh, name, "global_head_dim", e)) ||
        (gkv != kv && hf_add_int(o, "global_num_kv_heads", gkv, name, "num_global_key_value_heads", e)))
        return -1;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hf, "attention_k_eq_v")))
        cJSON_AddTrueToObject(o, "global_k_eq_v");
    return 0;
}

/* Value heads narrower or wider than the queries' and keys' (MiMo-V2-Flash's
 * v_head_dim, 128 beside 192); latent attention reads its own. */
static int value_width(const cJSON *hf, double dh, cJSON *o, const char *name, struct npu_err *e)
{
    double dv = hf_num(hf, "v_head_dim", dh);
    return dv != dh && hf_add_int(o, "d_head_v", dv, name, "v_head_dim", e) ? -1 : 0;
}

/* Gemma 4 E2B's and E4B's last num_kv_shared_layers, which read earlier
 * layers' K/V (with use_double_wide_mlp, an MLP twice intermediate_size),
 * and their per-layer inputs (hidden_size_per_layer_input wide, from a table
 * of vocab_size_per_layer_input rows). */
static int gemma4_layers(const cJSON *hf, cJSON *o, const char *name, struct npu_err *e)
{
    double shared = hf_num(hf, "num_kv_shared_layers", 0), P = hf_num(hf, "hidden_size_per_layer_input", 0);
    double Vp = hf_num(hf, "vocab_size_per_layer_input", hf_num(hf, "vocab_size", 0));
    if (shared > 0 && hf_add_int(o, "kv_shared_layers", shared, name, "num_kv_shared_layers", e))
        return -1;
    if (shared > 0 && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hf, "use_double_wide_mlp")) &&
        hf_add_int(o, "kv_shared_d_ff", 2 * hf_num(hf, "intermediate_size", 0), name, "intermediate_size", e))
        return -1;
    if (P > 0 && (hf_add_int(o, "per_layer_input_dim", P, name, "hidden_size_per_layer_input", e) ||
                  (Vp != hf_num(hf, "vocab_size", 0) &&
                   hf_add_int(o, "per_layer_vocab_size", Vp, name, "vocab_size_per_layer_input", e))))
        return -1;
    return 0;
}

static cJSON *model_of(const cJSON *hf, const struct hf_type *t, const char *name, struct npu_err *e)
{
    cJSON *o = cJSON_CreateObject();
    double D = hf_num(hf, "hidden_size", 0), H = hf_num(hf, "num_attention_heads", 0);
    double dh = hf_num(hf, "head_dim", H > 0 ? D / H : 0), ctx = hf_num(hf, "max_position_embeddings", 4608);
    /* latent attention's heads are qk_nope + qk_rope wide, whatever hidden_size over the heads gives (Kimi K3:
     * 7168 over 96); npusim's MLA reads those, d_head only names them */
    if (t->kind == HF_MLA && !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(hf, "head_dim")) && dh != floor(dh))
        dh = hf_num(hf, "qk_nope_head_dim", 0) + hf_num(hf, "qk_rope_head_dim", 0);
    char src[300];
    snprintf(src, sizeof src, "Hugging Face config %s (model_type %s)", name, t->type);
    cJSON_AddStringToObject(o, "source", src);
    cJSON_AddStringToObject(o, "model_type", "llm");
    cJSON_AddNumberToObject(o, "global_batch_size", 1);
    /* the shipped models' 4096 in and 512 out, within the context */
    double in_len = fmin(4096, floor(ctx * 8 / 9)), out_len = fmin(512, fmax(1, ctx - in_len));
    cJSON_AddNumberToObject(o, "input_seqlen", fmax(1, in_len));
    cJSON_AddNumberToObject(o, "output_seqlen", out_len);
    cJSON_AddNumberToObject(o, "decode_width", 1);
    double layers = hf_num(hf, "num_hidden_layers", 0);
    enum hf_kind kind = t->experts && num_any(hf, experts_keys, 0) > 1 ? HF_MOE : t->kind;
    int rc = hf_add_int(o, "d_model", D, name, "hidden_size", e) ||
             hf_add_int(o, "num_heads", H, name, "num_attention_heads", e) ||
             hf_add_int(o, "num_kv_heads", hf_num(hf, "num_key_value_heads", H), name, "num_key_value_heads", e) ||
             hf_add_int(o, "d_head", dh, name, "head_dim", e) ||
             global_attention(hf, dh, hf_num(hf, "num_key_value_heads", H), o, name, e) ||
             (kind != HF_MLA && value_width(hf, dh, o, name, e)) ||
             gemma4_layers(hf, o, name, e) ||
             /* a mixture with no dense layer may give no dense width (Qwen3.5's): its experts' */
             hf_add_int(o, "d_ff", hf_num(hf, "intermediate_size", kind == HF_MOE ? hf_num(hf, "moe_intermediate_size", 0) : 0),
                     name, "intermediate_size", e) ||
             hf_add_int(o, "num_layers", layers, name, "num_hidden_layers", e) ||
             hf_add_int(o, "vocab_size", hf_num(hf, "vocab_size", 0), name, "vocab_size", e) || formats(hf, o, name, e) ||
             (kind == HF_MLA ? mla_fields(hf, o, name, e) || (t->linear && hf_linear_fields(hf, layers, o, name, e))
                             : ffn_of(hf, t, o, name, e) || (kind == HF_MOE && moe_fields(hf, t, o, name, e)) ||
                                      (t->linear   ? hf_linear_fields(hf, layers, o, name, e)
                                       : t->parallel ? hf_parallel_fields(hf, layers, o, name, e)
                                       : t->mamba1   ? hf_mamba1_fields(hf, o, name, e)
                                       : t->mamba ? hf_mamba_fields(hf, layers, o, name, e)
                                       : t->conv  ? hf_conv_fields(hf, layers, H, dh, o, name, e)
                                                  : hf_local_fields(hf, t->full_every, t->chunked, t->spread, layers, o, name, e)));
    /* Nemotron-H's experts are its MLP: up and down with a squared ReLU, ungated */
    if (!rc && !strcmp(t->type, "nemotron_h") && kind == HF_MOE)
        cJSON_AddStringToObject(o, "expert_ffn", "relu2");
    /* Granite 4.0-H without experts (H-Micro): its FFN is the shared MLP of shared_intermediate_size */
    double shared = hf_num(hf, "shared_expert_intermediate_size", 0);
    if (!rc && t->mamba && kind == HF_DENSE && shared > 0)
        cJSON_ReplaceItemInObjectCaseSensitive(o, "d_ff", cJSON_CreateNumber(shared));
    /* Transformers' own default when the file leaves it out: the type's class's */
    const cJSON *tie = cJSON_GetObjectItemCaseSensitive(hf, "tie_word_embeddings");
    if (!rc && (cJSON_IsBool(tie) ? cJSON_IsTrue(tie) : t->tied))
        cJSON_AddTrueToObject(o, "tie_word_embeddings");
    if (!rc && t->gated_attn)
        cJSON_AddTrueToObject(o, "attention_output_gate");
    /* MiniMax's lightning layers, in blocks of block_size; a file whose layers all attend has none */
    if (!rc && hf_names_listed("minimax minimax_text_01 minimax_m1", t->type)) {
        static const char *const lin[] = { "linear_value_heads", "linear_key_heads", "linear_key_dim",
                                           "linear_value_dim", "linear_conv_kernel", "linear_state_dtype",
                                           "full_attention_interval", "full_attention_layers",
                                           "first_full_attention_layer" };
        if (hf_num(o, "full_attention_interval", 0) == 1 && !cJSON_GetObjectItemCaseSensitive(o, "full_attention_layers")) {
            for (size_t i = 0; i < sizeof lin / sizeof lin[0]; i++)
                cJSON_DeleteItemFromObjectCaseSensitive(o, lin[i]);
        } else {
            cJSON_AddStringToObject(o, "linear_kind", "lightning");
            cJSON_AddNumberToObject(o, "linear_chunk_size", hf_num(hf, "block_size", 256));
        }
    }
    /* Kimi Delta Attention: its decay and gate at full rank (K3's use_full_rank_gate), else through head_dim */
    if (!rc && !strcmp(t->type, "kimi_linear")) {
        const cJSON *la = cJSON_GetObjectItemCaseSensitive(hf, "linear_attn_config");
        cJSON_DeleteItemFromObjectCaseSensitive(o, "linear_kind");
        cJSON_AddStringToObject(o, "linear_kind", "kda");
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(la, "use_full_rank_gate")))
            cJSON_AddNumberToObject(o, "linear_gate_rank", hf_num(la, "head_dim", 128));
    }
    if (!rc && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hf, "parallel_attn")))
        cJSON_AddTrueToObject(o, "parallel_attn_ffn");
    if (rc) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Lists the keys of j that are not understood after the k bytes in ignored. */
static size_t list_ignored(const cJSON *j, char *ignored, size_t k, size_t n)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, j)
        if (!IN(x->string, understood) && !hf_name_understood(x->string) && k < n)
            k += (size_t)snprintf(ignored + k, n - k, "%s%s", k ? ", " : "", x->string);
    return k;
}

static cJSON *decoder_model(const cJSON *hf, const char *name, struct npu_err *e)
{
    const char *type = hf_str(hf, "model_type");
    const cJSON *tj = cJSON_GetObjectItemCaseSensitive(hf, "model_type");
    if (tj && !type) {
        npu_errf(e, "%s: key \"model_type\": expected a string, the Transformers model type (\"llama\", ...)", name);
        return NULL;
    }
    const struct hf_type *t = type_of(type);
    const char *why, *bad = refused(hf, t, &why);
    if (bad) {
        npu_errf(e, "%s: key \"%s\": %s", name, bad, why);
        return NULL;
    }
    for (size_t i = 0; !t && type && i < sizeof unmodelled / sizeof unmodelled[0]; i++)
        if (hf_names_listed(unmodelled[i].types, type)) {
            npu_errf(e, "%s: model_type \"%s\": %s", name, type, unmodelled[i].why);
            return NULL;
        }
    if (!t) {
        npu_errf(e, "%s: model_type \"%s\": not a decoder npusim knows (dense: llama, mistral, qwen2, qwen3, gemma, "
                    "gemma2, gemma3_text, phi3, glm4, gpt2, falcon, ...; experts: mixtral, qwen2_moe, qwen3_moe, "
                    "gpt_oss, dbrx, glm4_moe, llama4_text, ernie4_5_moe, ...; latent attention with experts: "
                    "deepseek_v2, deepseek_v3, glm4_moe_lite; docs/models.md lists them)",
                 name, type ? type : "(none)");
        return NULL;
    }
    cJSON *common = hf_common_names(hf, t->type);
    if (!common) {
        npu_errf(e, "%s: out of memory", name);
        return NULL;
    }
    const char *varies = hf_names_per_layer(hf, common, t->type);
    cJSON *o = varies ? NULL : model_of(common, t, name, e);
    if (varies)
        npu_errf(e, "%s: key \"%s\": a different value per layer: npusim's layers repeat one block", name, varies);
    cJSON_Delete(common);
    return o;
}

cJSON *hf_config_model(const cJSON *hf, const char *name, char *ignored, size_t n, struct npu_err *e)
{
    const char *wrapper = NULL, *bad_key = NULL;
    bool nested = false;
    cJSON *text = hf_wrapper_text(hf, canonical_type, &wrapper, &nested, &bad_key);
    if (bad_key) {
        npu_errf(e, "%s: key \"%s\": expected the language model's config, an object", name, bad_key);
        return NULL;
    }
    cJSON *o = decoder_model(text ? text : hf, name, e);
    ignored[0] = '\0';
    if (o) {
        size_t k = list_ignored(text ? text : hf, ignored, 0, n);
        if (text && nested)   /* the wrapper's own keys */
            list_ignored(hf, ignored, k, n);
    }
    if (o && text) {
        char src[512];
        snprintf(src, sizeof src, "Hugging Face config %s (model_type %s: the language model of a %s multimodal "
                                  "wrapper; its vision tower is not simulated, an image's tokens count as prompt tokens)",
                 name, hf_str(text, "model_type"), wrapper);
        cJSON_ReplaceItemInObjectCaseSensitive(o, "source", cJSON_CreateString(src));
    }
    cJSON_Delete(text);
    return o;
}
