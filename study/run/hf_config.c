/* hf_config.c — a Hugging Face config.json into npusim's model config (see
 * hf_config.h). Main data structures: the tables of the keys understood,
 * of the ones refused, and of the model types known. */
#include "study/run/hf_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The decoders whose layers npusim's LLM family simulates (dense, gated
 * FFN, multi-head / grouped-query / multi-query attention), and DeepSeek's. */
static const char *const dense_types[] = { "llama", "mistral", "qwen2", "qwen3", "gemma", "phi3", "granite",
                                           "olmo", "olmo2", "yi", "internlm2", "cohere", "exaone", "smollm3" };
static const char *const mla_types[] = { "deepseek_v2", "deepseek_v3" };

/* Keys read (or checked) here: never listed as ignored. */
static const char *const understood[] = {
    "architectures", "model_type", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
    "num_key_value_heads", "head_dim", "vocab_size", "tie_word_embeddings", "hidden_act", "hidden_activation",
    "torch_dtype", "dtype", "max_position_embeddings", "quantization_config", "sliding_window", "use_sliding_window",
    "max_window_layers", "layer_types", "sliding_window_pattern", "is_encoder_decoder", "vision_config",
    "text_config", "num_local_experts", "num_experts", "n_routed_experts", "num_experts_per_tok",
    "moe_intermediate_size", "n_shared_experts", "first_k_dense_replace", "kv_lora_rank", "q_lora_rank",
    "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "topk_group", "n_group", "parallel_attn",
    "moe_layer_freq", "num_nextn_predict_layers",
};

static bool in(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (!strcmp(s, list[i]))
            return true;
    return false;
}
#define IN(s, a) in(s, a, sizeof a / sizeof a[0])

bool hf_config_is(const cJSON *j)
{
    return cJSON_IsObject(j) && (cJSON_GetObjectItemCaseSensitive(j, "architectures") ||
                                 (cJSON_GetObjectItemCaseSensitive(j, "hidden_size") &&
                                  cJSON_GetObjectItemCaseSensitive(j, "num_hidden_layers")));
}

static double num(const cJSON *j, const char *k, double def)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, k);
    return cJSON_IsNumber(x) ? x->valuedouble : def;
}

static const char *str(const cJSON *j, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, k);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

/* The first key of the model that npusim cannot model yet, and why; NULL if none. */
static const char *refused(const cJSON *hf, bool mla, const char **why)
{
    static const struct { const char *key, *why; } never[] = {
        { "vision_config", "a vision tower (give the text model's config: its text_config)" },
        { "text_config", "a multimodal wrapper (give the text model's config: its text_config)" },
        { "layer_types", "alternating local (sliding-window) and global attention layers, not modelled yet" },
        { "sliding_window_pattern", "alternating local (sliding-window) and global attention layers, not modelled yet" },
    };
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        if (cJSON_GetObjectItemCaseSensitive(hf, never[i].key))
            return *why = never[i].why, never[i].key;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hf, "is_encoder_decoder")))
        return *why = "an encoder-decoder model: npusim simulates decoders", "is_encoder_decoder";
    static const char *const moe[] = { "num_local_experts", "num_experts", "n_routed_experts" };
    for (size_t i = 0; !mla && i < 3; i++)
        if (num(hf, moe[i], 0) > 1)
            return *why = "a mixture of experts over standard attention: not modelled yet (DeepSeek's latent "
                          "attention with experts is)", moe[i];
    double w = num(hf, "sliding_window", 0), ctx = num(hf, "max_position_embeddings", 0);
    const cJSON *use = cJSON_GetObjectItemCaseSensitive(hf, "use_sliding_window");
    if (w > 0 && !cJSON_IsFalse(use) && (ctx <= 0 || w < ctx))
        return *why = "sliding-window attention: not modelled yet (a window shorter than the context)",
               "sliding_window";
    return NULL;
}

static int add_int(cJSON *o, const char *k, double v, const char *name, const char *from, struct npu_err *e)
{
    if (!(v >= 1) || v != floor(v) || v > 9.0e15)
        return npu_errf(e, "%s: key \"%s\": expected a positive whole number", name, from);
    cJSON_AddNumberToObject(o, k, v);
    return 0;
}

/* torch_dtype into the three number formats. */
static int formats(const cJSON *hf, cJSON *o, const char *name, struct npu_err *e)
{
    static const struct { const char *hf, *np; } dt[] = { { "bfloat16", "bf16" }, { "float16", "fp16" },
                                                           { "float32", "fp32" } };
    const char *t = str(hf, "torch_dtype") ? str(hf, "torch_dtype") : str(hf, "dtype");
    const char *f = NULL;
    for (size_t i = 0; t && i < 3; i++)
        if (!strcmp(t, dt[i].hf))
            f = dt[i].np;
    if (t && !f)
        return npu_errf(e, "%s: key \"torch_dtype\": \"%s\": expected bfloat16, float16 or float32", name, t);
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(hf, "quantization_config");
    const char *qm = str(q, "quant_method");
    if (q && (!qm || strcmp(qm, "fp8")))
        return npu_errf(e, "%s: key \"quantization_config\": quant_method \"%s\": not modelled yet (fp8 is)", name,
                        qm ? qm : "(none)");
    if (f) {
        cJSON_AddStringToObject(o, "activation_dtype", f);
        cJSON_AddStringToObject(o, "kv_cache_dtype", f);
    }
    if (qm || f)
        cJSON_AddStringToObject(o, "weight_dtype", qm ? "fp8" : f);
    return 0;
}

/* The FFN's type from the activation: gated SiLU (llama) or gated GELU (Gemma). */
static int ffn_of(const cJSON *hf, cJSON *o, const char *name, struct npu_err *e)
{
    const char *a = str(hf, "hidden_activation") ? str(hf, "hidden_activation") : str(hf, "hidden_act");
    if (!a || !strcmp(a, "silu") || !strcmp(a, "swiglu"))
        cJSON_AddStringToObject(o, "ffn_type", "llama");
    else if (!strncmp(a, "gelu", 4))
        cJSON_AddStringToObject(o, "ffn_type", "geglu");
    else
        return npu_errf(e, "%s: key \"hidden_act\": \"%s\": expected silu or gelu (a gated FFN)", name, a);
    return 0;
}

static int mla_fields(const cJSON *hf, cJSON *o, const char *name, struct npu_err *e)
{
    static const struct { const char *hf, *np; } keys[] = {
        { "moe_intermediate_size", "moe_d_ff" }, { "n_routed_experts", "num_routed_experts" },
        { "num_experts_per_tok", "num_activated_routed_experts_per_token" }, { "kv_lora_rank", "kv_lora_rank" },
        { "q_lora_rank", "q_lora_rank" }, { "qk_rope_head_dim", "qk_rope_head_dim" },
        { "qk_nope_head_dim", "qk_nope_head_dim" }, { "v_head_dim", "v_head_dim" },
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (add_int(o, keys[i].np, num(hf, keys[i].hf, 0), name, keys[i].hf, e))
            return -1;
    cJSON_AddNumberToObject(o, "num_shared_experts", num(hf, "n_shared_experts", 0));
    cJSON_AddNumberToObject(o, "num_dense_layers", num(hf, "first_k_dense_replace", 0));
    cJSON_AddNumberToObject(o, "num_limited_groups", num(hf, "topk_group", 1));
    cJSON_AddStringToObject(o, "ffn_type", "deepseek_moe");
    cJSON_AddStringToObject(o, "router_type", "topk");
    cJSON_AddFalseToObject(o, "use_flash_attention");
    return 0;
}

cJSON *hf_config_model(const cJSON *hf, const char *name, char *ignored, size_t n, struct npu_err *e)
{
    const char *type = str(hf, "model_type");
    bool mla = IN(type, mla_types);
    const char *why, *bad = refused(hf, mla, &why);
    if (bad) {
        npu_errf(e, "%s: key \"%s\": %s", name, bad, why);
        return NULL;
    }
    if (!mla && !IN(type, dense_types)) {
        npu_errf(e, "%s: model_type \"%s\": not a decoder npusim knows (dense: llama, mistral, qwen2, qwen3, gemma, "
                    "phi3, granite, olmo, ...; latent attention with experts: deepseek_v2, deepseek_v3)",
                 name, type ? type : "(none)");
        return NULL;
    }
    cJSON *o = cJSON_CreateObject();
    double D = num(hf, "hidden_size", 0), H = num(hf, "num_attention_heads", 0);
    double dh = num(hf, "head_dim", H > 0 ? D / H : 0), ctx = num(hf, "max_position_embeddings", 4608);
    char src[300];
    snprintf(src, sizeof src, "Hugging Face config %s (model_type %s)", name, type);
    cJSON_AddStringToObject(o, "source", src);
    cJSON_AddStringToObject(o, "model_type", "llm");
    cJSON_AddNumberToObject(o, "global_batch_size", 1);
    /* the shipped models' 4096 in and 512 out, within the context */
    double in_len = fmin(4096, floor(ctx * 8 / 9)), out_len = fmin(512, fmax(1, ctx - in_len));
    cJSON_AddNumberToObject(o, "input_seqlen", fmax(1, in_len));
    cJSON_AddNumberToObject(o, "output_seqlen", out_len);
    cJSON_AddNumberToObject(o, "decode_width", 1);
    int rc = add_int(o, "d_model", D, name, "hidden_size", e) ||
             add_int(o, "num_heads", H, name, "num_attention_heads", e) ||
             add_int(o, "num_kv_heads", num(hf, "num_key_value_heads", H), name, "num_key_value_heads", e) ||
             add_int(o, "d_head", dh, name, "head_dim", e) ||
             add_int(o, "d_ff", num(hf, "intermediate_size", 0), name, "intermediate_size", e) ||
             add_int(o, "num_layers", num(hf, "num_hidden_layers", 0), name, "num_hidden_layers", e) ||
             add_int(o, "vocab_size", num(hf, "vocab_size", 0), name, "vocab_size", e) ||
             formats(hf, o, name, e) || (mla ? mla_fields(hf, o, name, e) : ffn_of(hf, o, name, e));
    /* Transformers' own default when the file leaves it out: tied for Gemma's classes, untied for the rest */
    const cJSON *tie = cJSON_GetObjectItemCaseSensitive(hf, "tie_word_embeddings");
    if (!rc && (tie ? cJSON_IsTrue(tie) : !strncmp(type, "gemma", 5)))
        cJSON_AddTrueToObject(o, "tie_word_embeddings");
    if (!rc && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hf, "parallel_attn")))
        cJSON_AddTrueToObject(o, "parallel_attn_ffn");
    if (rc) {
        cJSON_Delete(o);
        return NULL;
    }
    size_t k = 0;
    ignored[0] = '\0';
    const cJSON *x;
    cJSON_ArrayForEach(x, hf)
        if (!IN(x->string, understood) && k < n)
            k += (size_t)snprintf(ignored + k, n - k, "%s%s", k ? ", " : "", x->string);
    return o;
}
