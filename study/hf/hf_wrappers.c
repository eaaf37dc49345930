/* hf_wrappers.c — the language model inside a multimodal wrapper's
 * config.json (see hf_wrappers.h). Main data structures: the table of the
 * wrappers npusim opens (where each keeps its language model) and the
 * defaults of the text models' classes. */
#include "study/hf/hf_wrappers.h"

#include "study/hf/hf_names.h"

#include <math.h>
#include <string.h>

/* Multimodal wrappers whose language model npusim runs: the wrapper's
 * model_type, and the text model's type when its config names none npusim
 * knows (Qwen2.5-VL's "qwen2_5_vl_text" is Qwen2's decoder; GLM-4.1V's
 * "glm4v_text" GLM-4's, GLM-4.5V's and 4.6V's "glm4v_moe_text" GLM-4.5's,
 * their M-RoPE sections a rotation, no work). Qwen2-VL keeps
 * the text model's keys at the top (text_config only in newer files). key:
 * where the language model's config sits when not under text_config
 * (InternVL's llm_config, DeepSeek-VL2's language_config, Qwen3-Omni's
 * thinker_config.text_config: a path of keys). MiMo-V2.5 (mimo_v2) is a
 * decoder type too: a wrapper only with its vision_config. Others (Mllama's
 * cross-attention layers, Gemma 3n's per-layer inputs, ...) stay refused. */
static const struct { const char *wrapper, *text, *key; } wrappers[] = {
    { "gemma3", "gemma3_text", NULL }, { "llama4", "llama4_text", NULL },    { "mistral3", "mistral", NULL },
    { "llava", "llama", NULL },        { "llava_next", "llama", NULL },      { "llava_onevision", "qwen2", NULL },
    { "paligemma", "gemma", NULL },    { "idefics3", "llama", NULL },        { "smolvlm", "llama", NULL },
    { "qwen2_vl", "qwen2", NULL },     { "qwen2_5_vl", "qwen2", NULL },      { "qwen3_vl", "qwen3", NULL },
    { "qwen3_vl_moe", "qwen3_moe", NULL }, { "phi3_v", "phi3", NULL },     { "kimi_k25", "kimi_k2", NULL },
    { "ministral3", "ministral3", NULL },   { "gemma4", "gemma4_text", NULL },   { "qwen3_5", "qwen3_5_text", NULL },
    { "qwen3_5_moe", "qwen3_5_moe_text", NULL }, { "minimax_m3_vl", "minimax_m3", NULL }, { "kimi_k3", "kimi_linear", NULL },
    { "glm4v", "glm4", NULL },         { "glm4v_moe", "glm4_moe", NULL },    { "kimi_vl", "deepseek_v3", NULL },
    { "aya_vision", "cohere2", NULL }, { "cohere2_vision", "cohere2", NULL }, { "qwen2_audio", "qwen2", NULL },
    { "voxtral", "llama", NULL },
    { "internvl_chat", "qwen2", "llm_config" }, { "deepseek_vl_v2", "deepseek_v2", "language_config" },
    { "qwen3_omni_moe", "qwen3_moe", "thinker_config.text_config" }, { "mimo_v2", "mimo_v2", NULL },
};

/* The object under a path of keys ("a.b"); NULL if any step is missing. */
static const cJSON *at_path(const cJSON *j, const char *path)
{
    char key[64];
    while (j && path && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        j = cJSON_GetObjectItemCaseSensitive(j, key);
        path += n + (path[n] == '.');
    }
    return j;
}

/* Where wrapper w keeps its language model's config: its key, else text_config. */
static const char *text_key(size_t w) { return wrappers[w].key ? wrappers[w].key : "text_config"; }

/* Transformers writes a nested config (text_config) with only the keys that
 * differ from its class's defaults; these are the defaults of the text
 * models' classes (configuration_*.py), filled in where a text_config leaves
 * a key out: a row a class, a column a key of default_keys (NO: none). */
#define NO NAN
static const char *const default_keys[] = {
    "vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
    "num_key_value_heads", "head_dim", "max_position_embeddings", "sliding_window", "sliding_window_pattern",
    "intermediate_size_mlp", "num_local_experts", "num_experts_per_tok", "interleave_moe_layer_step",
    "attention_chunk_size",
};
#define DEFAULT_KEYS (sizeof default_keys / sizeof default_keys[0])
static const struct class_default {
    const char *type, *act_key, *act;
    double v[DEFAULT_KEYS];
} class_defaults[] = {
    { "gemma3_text", "hidden_activation", "gelu_pytorch_tanh",
      { 262208, 2304, 9216, 26, 8, 4, 256, 131072, 4096, 6, NO, NO, NO, NO, NO } },
    { "llama4_text", "hidden_act", "silu", { 202048, 5120, 8192, 48, 40, 8, 128, 131072, NO, NO, 16384, 16, 1, 1, 8192 } },
    { "mistral", "hidden_act", "silu", { 32000, 4096, 14336, 32, 32, 8, NO, 131072, 4096, NO, NO, NO, NO, NO, NO } },
    { "llama", "hidden_act", "silu", { 32000, 4096, 11008, 32, 32, NO, NO, 2048, NO, NO, NO, NO, NO, NO, NO } },
    { "gemma", "hidden_act", "gelu_pytorch_tanh", { 256000, 3072, 24576, 28, 16, 16, 256, 8192, NO, NO, NO, NO, NO, NO, NO } },
    { "qwen2", "hidden_act", "silu", { 151936, 4096, 22016, 32, 32, 32, NO, 32768, NO, NO, NO, NO, NO, NO, NO } },
};

/* Fills in v (of type t) what t's class gives and v leaves out. */
static void class_fill(cJSON *v, const char *t)
{
    for (size_t i = 0; i < sizeof class_defaults / sizeof class_defaults[0]; i++) {
        const struct class_default *d = &class_defaults[i];
        if (strcmp(d->type, t))
            continue;
        for (size_t k = 0; k < DEFAULT_KEYS; k++)
            if (!isnan(d->v[k]) && !cJSON_GetObjectItemCaseSensitive(v, default_keys[k]))
                cJSON_AddNumberToObject(v, default_keys[k], d->v[k]);
        if (!cJSON_GetObjectItemCaseSensitive(v, "hidden_act") && !cJSON_GetObjectItemCaseSensitive(v, "hidden_activation"))
            cJSON_AddStringToObject(v, d->act_key, d->act);
    }
}

cJSON *hf_wrapper_text(const cJSON *hf, const char *(*canonical)(const char *type), const char **wrapper, bool *nested,
                       const char **bad_key)
{
    const char *type = hf_str(hf, "model_type");
    size_t w = 0;
    while (w < sizeof wrappers / sizeof wrappers[0] && !(type && !strcmp(type, wrappers[w].wrapper)))
        w++;
    if (w == sizeof wrappers / sizeof wrappers[0])
        return NULL;
    const cJSON *tc = at_path(hf, text_key(w));
    if (tc && !cJSON_IsObject(tc)) {   /* a language model's config that is not one */
        *bad_key = text_key(w);
        return NULL;
    }
    /* Ministral 3's text model alone: no wrapper; MiMo-V2.5's keeps the text
     * model's keys at the top, its vision_config beside them */
    if (!tc && canonical(type) && !cJSON_GetObjectItemCaseSensitive(hf, "vision_config"))
        return NULL;
    cJSON *v = cJSON_Duplicate(tc ? tc : hf, true);
    if (!v)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(v, "vision_config");
    const char *own = hf_str(v, "model_type");
    const char *t = own && canonical(own) ? canonical(own) : wrappers[w].text;   /* static strings */
    cJSON_DeleteItemFromObjectCaseSensitive(v, "model_type");
    cJSON_AddStringToObject(v, "model_type", t);
    if (tc)
        class_fill(v, t);
    /* the wrapper's own keys where the text config is silent (Transformers
     * ties a composite model's embeddings by its top-level flag) */
    static const char *const inherited[] = { "torch_dtype", "dtype", "quantization_config", "tie_word_embeddings" };
    for (size_t i = 0; i < sizeof inherited / sizeof inherited[0]; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(hf, inherited[i]);
        if (x && !cJSON_GetObjectItemCaseSensitive(v, inherited[i]))
            cJSON_AddItemToObject(v, inherited[i], cJSON_Duplicate(x, true));
    }
    *wrapper = wrappers[w].wrapper;
    *nested = tc != NULL;
    return v;
}
