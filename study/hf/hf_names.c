/* hf_names.c — other families' config.json key names as the common ones
 * (see hf_names.h). Main data structures: the table of renames, each for
 * the model types listed in its row, and the table of per-family rules. */
#include "study/hf/hf_names.h"

#include <math.h>
#include <string.h>

/* Renames: for the model types in `types` (space-separated), the value of
 * `from` (inside the object `obj` when set) becomes `to`, unless the file
 * gives `to` itself. Sources: Transformers' configuration_*.py
 * attribute_map and __init__ arguments, and the remote-code configs of
 * ChatGLM, Qwen, Baichuan and MPT. */
static const struct rename {
    const char *types, *to, *obj, *from;
} renames[] = {
    { "dbrx mpt", "hidden_size", NULL, "d_model" },
    { "dbrx mpt", "num_attention_heads", NULL, "n_heads" },
    { "dbrx mpt", "num_hidden_layers", NULL, "n_layers" },
    { "dbrx mpt", "max_position_embeddings", NULL, "max_seq_len" },
    { "dbrx mpt", "num_key_value_heads", "attn_config", "kv_n_heads" },
    { "dbrx", "intermediate_size", "ffn_config", "ffn_hidden_size" },
    { "dbrx", "num_local_experts", "ffn_config", "moe_num_experts" },
    { "dbrx", "num_experts_per_tok", "ffn_config", "moe_top_k" },
    { "gpt2 gptj gpt_bigcode", "hidden_size", NULL, "n_embd" },
    { "gpt2 gptj gpt_bigcode bloom falcon", "num_attention_heads", NULL, "n_head" },
    { "gpt2 gptj gpt_bigcode bloom falcon", "num_hidden_layers", NULL, "n_layer" },
    { "gpt2 gptj gpt_bigcode", "intermediate_size", NULL, "n_inner" },
    { "gpt2 gptj gpt_bigcode", "max_position_embeddings", NULL, "n_positions" },
    { "gpt2 gptj gpt_bigcode opt", "hidden_act", NULL, "activation_function" },
    { "bloom", "hidden_size", NULL, "n_embed" },
    { "falcon", "num_kv_heads", NULL, "n_head_kv" },
    { "falcon chatglm", "intermediate_size", NULL, "ffn_hidden_size" },
    { "opt", "intermediate_size", NULL, "ffn_dim" },
    { "chatglm exaone", "num_hidden_layers", NULL, "num_layers" },
    { "exaone", "hidden_act", NULL, "activation_function" },
    { "chatglm", "vocab_size", NULL, "padded_vocab_size" },
    { "chatglm qwen", "max_position_embeddings", NULL, "seq_length" },
    { "chatglm qwen", "head_dim", NULL, "kv_channels" },
    { "baichuan", "max_position_embeddings", NULL, "model_max_length" },
    { "bailing_moe bailing_moe_v2", "n_shared_experts", NULL, "num_shared_experts" },
    { "granitemoeshared granitemoehybrid", "shared_expert_intermediate_size", NULL, "shared_intermediate_size" },
    { "ernie4_5_moe", "num_local_experts", NULL, "moe_num_experts" },
    { "ernie4_5_moe", "num_experts_per_tok", NULL, "moe_k" },
    { "ernie4_5_moe", "n_shared_experts", NULL, "moe_num_shared_experts" },
    { "ernie4_5_moe", "first_k_dense_replace", NULL, "moe_layer_start_index" },
    { "ernie4_5_moe", "decoder_sparse_step", NULL, "moe_layer_interval" },
    { "hunyuan hunyuan_v1_moe", "num_experts_per_tok", NULL, "moe_topk" },
    { "hunyuan hunyuan_v1_moe", "n_shared_experts", NULL, "num_shared_expert" },
    { "hunyuan", "head_dim", NULL, "attention_head_dim" },
    { "hunyuan", "first_k_dense_replace", NULL, "moe_layer_num_skipped" },
    { "step3p7", "shared_expert_intermediate_size", NULL, "share_expert_dim" },
    { "nemotron_h", "shared_expert_intermediate_size", NULL, "moe_shared_expert_intermediate_size" },
    { "gemma4_text", "num_experts_per_tok", NULL, "top_k_experts" },
    { "lfm2", "intermediate_size", NULL, "block_ff_dim" },
    { "lfm2", "hidden_size", NULL, "block_dim" },
    { "lfm2 lfm2_moe", "tie_word_embeddings", NULL, "tie_embedding" },
    { "lfm2_moe afmoe", "first_k_dense_replace", NULL, "num_dense_layers" },
    { "afmoe exaone_moe kimi_linear", "n_shared_experts", NULL, "num_shared_experts" },
    { "minimax minimax_text_01 minimax_m1", "shared_expert_intermediate_size", NULL, "shared_intermediate_size" },
    { "kimi_linear", "n_routed_experts", NULL, "num_experts" },
    { "kimi_linear", "num_experts_per_tok", NULL, "num_experts_per_token" },
    { "kimi_linear", "linear_num_value_heads", "linear_attn_config", "num_heads" },
    { "kimi_linear", "linear_num_key_heads", "linear_attn_config", "num_heads" },
    { "kimi_linear", "linear_key_head_dim", "linear_attn_config", "head_dim" },
    { "kimi_linear", "linear_value_head_dim", "linear_attn_config", "head_dim" },
    { "kimi_linear", "linear_conv_kernel_dim", "linear_attn_config", "short_conv_kernel_size" },
    { "kimi_linear", "moe_latent_size", NULL, "routed_expert_hidden_size" },
    { "afmoe", "sliding_window_pattern", NULL, "global_attn_every_n_layers" },
    { "jamba", "decoder_sparse_step", NULL, "expert_layer_period" },
    { "nemotron_h", "hidden_act", NULL, "mlp_hidden_act" },
    { "nemotron_h", "mamba_n_heads", NULL, "mamba_num_heads" },
    { "nemotron_h", "mamba_d_head", NULL, "mamba_head_dim" },
    { "nemotron_h", "mamba_n_groups", NULL, "n_groups" },
    { "nemotron_h", "mamba_d_state", NULL, "ssm_state_size" },
    { "nemotron_h", "mamba_d_conv", NULL, "conv_kernel" },
    { "nemotron_h", "mamba_chunk_size", NULL, "chunk_size" },
    { "nemotron_h", "mamba_expand", NULL, "expand" },
    { "nemotron_h", "mamba_ssm_dtype", NULL, "mamba_ssm_cache_dtype" },
};

/* Keys the rules below read. */
static const char *const rule_keys[] = {
    "multi_query", "new_decoder_architecture", "num_kv_heads", "use_parallel_residual", "multi_query_attention",
    "multi_query_group_num", "expansion_ratio", "moe_layer_end_index", "use_mixed_mlp_moe", "use_cla",
    "cla_share_factor", "enable_moe_block", "block_auto_adjust_ff_dim", "block_ffn_dim_multiplier", "block_multiple_of",
    "mlp_layer_types", "mla_use_output_gate", "attn_type_list", "block_size", "expert_layer_offset",
    "attn_layer_period", "attn_layer_offset", "mamba_dt_rank", "hybrid_layer_pattern", "swa_num_key_value_heads",
    "swa_num_attention_heads", "swa_head_dim", "swa_v_head_dim",
};

/* Keys some families give per layer (Hunyuan's lists of 32 equal values):
 * one value when every layer has it. */
static const char *const per_layer_keys[] = { "num_experts_per_tok", "n_shared_experts", "moe_intermediate_size" };

bool hf_names_listed(const char *types, const char *t)
{
    size_t n = strlen(t);
    if (n == 0)   /* "" is no word (and strstr would find it everywhere without moving on) */
        return false;
    for (const char *p = types; (p = strstr(p, t)) != NULL; p += n)
        if ((p == types || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

const char *hf_str(const cJSON *j, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, k);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

int hf_add_int(cJSON *o, const char *k, double v, const char *name, const char *from, struct npu_err *e)
{
    if (!(v >= 1) || v != floor(v) || v > 9.0e15)
        return npu_errf(e, "%s: key \"%s\": expected a positive whole number", name, from);
    cJSON_AddNumberToObject(o, k, v);
    return 0;
}

const char *hf_torch_format(const char *t)
{
    static const struct { const char *hf, *np; } dt[] = { { "bfloat16", "bf16" }, { "float16", "fp16" },
                                                           { "float32", "fp32" } };
    for (size_t i = 0; t && i < sizeof dt / sizeof dt[0]; i++)
        if (!strcmp(t, dt[i].hf))
            return dt[i].np;
    return NULL;
}

double hf_num(const cJSON *j, const char *k, double def)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, k);
    return cJSON_IsNumber(x) ? x->valuedouble : def;
}

/* A boolean key, def when absent or not a boolean. */
static bool flag(const cJSON *j, const char *k, bool def)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, k);
    return cJSON_IsBool(x) ? cJSON_IsTrue(x) : def;
}

static void put(cJSON *c, const char *k, cJSON *v)
{
    if (!v)
        return;
    if (cJSON_GetObjectItemCaseSensitive(c, k))
        cJSON_ReplaceItemInObjectCaseSensitive(c, k, v);
    else
        cJSON_AddItemToObject(c, k, v);
}

/* KV heads from the multi-query flags: Falcon (new_decoder_architecture:
 * num_kv_heads; else multi_query, true by default: one), GPT-BigCode
 * (multi_query, true by default), ChatGLM (multi_query_attention:
 * multi_query_group_num). */
static void kv_heads(cJSON *c, const char *t)
{
    double H = hf_num(c, "num_attention_heads", 0);
    if (!strcmp(t, "falcon"))
        put(c, "num_key_value_heads",
            cJSON_CreateNumber(flag(c, "new_decoder_architecture", false) ? hf_num(c, "num_kv_heads", H)
                               : flag(c, "multi_query", true)            ? 1
                                                                          : H));
    else if (!strcmp(t, "gpt_bigcode") && flag(c, "multi_query", true))
        put(c, "num_key_value_heads", cJSON_CreateNumber(1));
    else if (!strcmp(t, "chatglm") && flag(c, "multi_query_attention", false))
        put(c, "num_key_value_heads", cJSON_CreateNumber(hf_num(c, "multi_query_group_num", H)));
}

/* The FFN's width where the file gives none or counts it otherwise: four
 * times hidden_size (GPT-2's n_inner null, GPT-J, BLOOM, Falcon),
 * expansion_ratio times it (MPT), half of intermediate_size (the first
 * Qwen: its two branches, w1 and w2, together), LFM2's adjusted width. */
static void ffn_width(cJSON *c, const char *t)
{
    double D = hf_num(c, "hidden_size", 0), F = hf_num(c, "intermediate_size", 0);
    /* LFM2's SwiGLU width (Lfm2MLP): 2/3 of it, times block_ffn_dim_multiplier, rounded up to
     * block_multiple_of, under block_auto_adjust_ff_dim (true by default) */
    if (!strcmp(t, "lfm2") && F > 0 && flag(c, "block_auto_adjust_ff_dim", true)) {
        double k = hf_num(c, "block_multiple_of", 256);
        F = floor(hf_num(c, "block_ffn_dim_multiplier", 1) * floor(2 * F / 3));
        put(c, "intermediate_size", cJSON_CreateNumber(k >= 1 ? k * ceil(F / k) : F));
    }
    if (hf_names_listed("gpt2 gptj gpt_bigcode bloom falcon", t) && !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c, "intermediate_size")))
        put(c, "intermediate_size", cJSON_CreateNumber(4 * D));
    else if (!strcmp(t, "mpt"))
        put(c, "intermediate_size", cJSON_CreateNumber(hf_num(c, "expansion_ratio", 4) * D));
    else if (!strcmp(t, "qwen") && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c, "intermediate_size")))
        put(c, "intermediate_size", cJSON_CreateNumber(hf_num(c, "intermediate_size", 0) / 2));
}

/* Hunyuan's shared expert exists only under use_mixed_mlp_moe (its
 * remote code's default: true). */
static void shared_expert(cJSON *c, const char *t)
{
    if (hf_names_listed("hunyuan hunyuan_v1_moe", t) && !flag(c, "use_mixed_mlp_moe", true))
        put(c, "n_shared_experts", cJSON_CreateNumber(0));
}

/* Gemma 4's experts exist under enable_moe_block, beside the layer's dense
 * MLP of intermediate_size, which every token runs: a shared expert of that
 * width. Without it, a num_experts the file carries is none. */
static void gemma4_experts(cJSON *c, const char *t)
{
    if (strcmp(t, "gemma4_text"))
        return;
    if (!flag(c, "enable_moe_block", false))
        put(c, "num_experts", cJSON_CreateNull());
    else if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c, "shared_expert_intermediate_size")))
        put(c, "shared_expert_intermediate_size", cJSON_CreateNumber(hf_num(c, "intermediate_size", 0)));
}

/* The dense layers of a mixture as a per-layer list (mlp_layer_types:
 * "dense" or "sparse", EXAONE-MoE's and newer DeepSeek-style files): the
 * leading "dense" ones as first_k_dense_replace (a dense layer after a
 * sparse one is refused, hf_config.c); without list or key, EXAONE-MoE's
 * class default of one dense layer. */
static void dense_layers(cJSON *c, const char *t)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(c, "mlp_layer_types"), *x;
    if (cJSON_IsArray(l)) {
        int lead = 0;
        bool sparse = false;
        cJSON_ArrayForEach(x, l) {
            bool dense = cJSON_IsString(x) && !strcmp(x->valuestring, "dense");
            sparse = sparse || !dense;
            lead += dense && !sparse;
        }
        put(c, "first_k_dense_replace", cJSON_CreateNumber(lead));
    } else if (!strcmp(t, "exaone_moe") && !cJSON_GetObjectItemCaseSensitive(c, "first_k_dense_replace")) {
        put(c, "first_k_dense_replace", cJSON_CreateNumber(1));
    }
}

/* Kimi Linear's layers: linear_attn_config's full_attn_layers (1-based)
 * attend (MLA), the others are KDA layers, as layer_types; its MLA has no
 * output gate (hf_config.c refuses a list that is not whole numbers from 1
 * to num_hidden_layers). */
static void kimi_layers(cJSON *c, const char *t)
{
    if (strcmp(t, "kimi_linear"))
        return;
    put(c, "attn_output_gate", cJSON_CreateBool(flag(c, "mla_use_output_gate", false)));
    const cJSON *full = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "linear_attn_config"),
                                                         "full_attn_layers"), *x;
    int L = (int)hf_num(c, "num_hidden_layers", 0);
    if (!cJSON_IsArray(full) || L <= 0 || L > 100000)
        return;
    cJSON *lt = cJSON_CreateArray();
    for (int i = 0; lt && i < L; i++)
        cJSON_AddItemToArray(lt, cJSON_CreateString("linear_attention"));
    cJSON_ArrayForEach(x, full)
        if (cJSON_IsNumber(x) && x->valuedouble >= 1 && x->valuedouble <= L && x->valuedouble == (int)x->valuedouble)
            cJSON_ReplaceItemInArray(lt, (int)x->valuedouble - 1, cJSON_CreateString("full_attention"));
    put(c, "layer_types", lt);
}

/* n words from a per-layer list of 0 or 1 (its items checked in
 * hf_config.c; NULL or shorter: word[1] past its end): word[0] for a 0,
 * word[1] otherwise. */
static cJSON *bit_words(const cJSON *bits, int n, const char *const word[2])
{
    cJSON *w = cJSON_CreateArray();
    const cJSON *x = cJSON_IsArray(bits) ? bits->child : NULL;
    for (int i = 0; w && i < n; i++, x = x ? x->next : NULL)
        cJSON_AddItemToArray(w, cJSON_CreateString(word[!(cJSON_IsNumber(x) && x->valuedouble == 0)]));
    return w;
}

/* MiniMax-Text-01's and M1's layers (minimax): layer_types, or the
 * original attn_type_list (1 softmax attention, 0 lightning); a file with
 * neither is standard attention throughout (MiniMax-M2 as some converters
 * write it). The lightning layers have the attention's heads and head
 * width and no convolution; the softmax ones no output gate. */
static void minimax_layers(cJSON *c, const char *t)
{
    if (!hf_names_listed("minimax minimax_text_01 minimax_m1", t))
        return;
    static const char *const kinds[] = { "linear_attention", "full_attention" };
    int L = (int)hf_num(c, "num_hidden_layers", 0);
    if (!cJSON_GetObjectItemCaseSensitive(c, "layer_types") && L > 0 && L <= 100000)
        put(c, "layer_types", bit_words(cJSON_GetObjectItemCaseSensitive(c, "attn_type_list"), L, kinds));
    double H = hf_num(c, "num_attention_heads", 0), D = hf_num(c, "hidden_size", 0);
    double dh = hf_num(c, "head_dim", H > 0 ? D / H : 0);
    static const char *const heads[] = { "linear_num_value_heads", "linear_num_key_heads" };
    static const char *const dims[] = { "linear_key_head_dim", "linear_value_head_dim" };
    for (int i = 0; i < 2; i++) {
        put(c, heads[i], cJSON_CreateNumber(H));
        put(c, dims[i], cJSON_CreateNumber(dh));
    }
    put(c, "linear_conv_kernel_dim", cJSON_CreateNumber(1));
    put(c, "attn_output_gate", cJSON_CreateFalse());
}

/* MiMo-V2-Flash's layers (mimo_v2_flash; mimo_v2, MiMo-V2.5's):
 * hybrid_layer_pattern (0 global, 1 a sliding window) as layer_types,
 * moe_layer_freq (0 dense, 1 experts) as mlp_layer_types; its global layers' K/V heads
 * (num_key_value_heads) as Gemma 4's num_global_key_value_heads, the
 * windowed layers' (swa_num_key_value_heads) as the others'. */
static void mimo_layers(cJSON *c, const char *t)
{
    static const struct { const char *from, *to; const char *const word[2]; } lists[] = {
        { "hybrid_layer_pattern", "layer_types", { "full_attention", "sliding_attention" } },
        { "moe_layer_freq", "mlp_layer_types", { "dense", "sparse" } },
    };
    if (!hf_names_listed("mimo_v2_flash mimo_v2", t))
        return;
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(c, lists[i].from);
        if (cJSON_IsArray(l) && !cJSON_GetObjectItemCaseSensitive(c, lists[i].to))
            put(c, lists[i].to, bit_words(l, cJSON_GetArraySize(l), lists[i].word));
    }
    const cJSON *swa = cJSON_GetObjectItemCaseSensitive(c, "swa_num_key_value_heads");
    const cJSON *kv = cJSON_GetObjectItemCaseSensitive(c, "num_key_value_heads");
    if (cJSON_IsNumber(swa) && cJSON_IsNumber(kv) && !cJSON_GetObjectItemCaseSensitive(c, "num_global_key_value_heads")) {
        put(c, "num_global_key_value_heads", cJSON_CreateNumber(kv->valuedouble));
        put(c, "num_key_value_heads", cJSON_CreateNumber(swa->valuedouble));
    }
}

/* Nemotron-H as Transformers 5 writes it: its blocks as layers_block_type,
 * a list whose length is the block count when num_hidden_layers is absent. */
static void block_count(cJSON *c, const char *t)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(c, "layers_block_type");
    if (!strcmp(t, "nemotron_h") && cJSON_IsArray(l) && !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c, "num_hidden_layers")))
        put(c, "num_hidden_layers", cJSON_CreateNumber(cJSON_GetArraySize(l)));
}

/* A per-layer list of one value as that value; other lists stay, for
 * hf_names_per_layer to name. */
static void per_layer(cJSON *c)
{
    for (size_t i = 0; i < sizeof per_layer_keys / sizeof per_layer_keys[0]; i++) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(c, per_layer_keys[i]), *x;
        if (!cJSON_IsArray(l) || !cJSON_IsNumber(l->child))
            continue;
        bool same = true;
        cJSON_ArrayForEach(x, l)
            same = same && cJSON_IsNumber(x) && x->valuedouble == l->child->valuedouble;
        if (same)
            put(c, per_layer_keys[i], cJSON_CreateNumber(l->child->valuedouble));
    }
}

const char *hf_names_per_layer(const cJSON *hf, const cJSON *c, const char *type)
{
    for (size_t i = 0; i < sizeof per_layer_keys / sizeof per_layer_keys[0]; i++) {
        const char *k = per_layer_keys[i];
        if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(c, k)))
            continue;
        for (size_t r = 0; type && r < sizeof renames / sizeof renames[0]; r++)   /* the file's own name */
            if (!cJSON_GetObjectItemCaseSensitive(hf, k) && !strcmp(renames[r].to, k) &&
                hf_names_listed(renames[r].types, type))
                return renames[r].from;
        return k;
    }
    return NULL;
}

/* Attention and FFN from one normalised input: always in GPT-J, Phi-2 and
 * Cohere; GPT-NeoX's use_parallel_residual and Falcon's parallel_attn are
 * true by default. */
static void parallel(cJSON *c, const char *t)
{
    bool p = hf_names_listed("gptj phi cohere cohere2", t) ||
             (!strcmp(t, "gpt_neox") && flag(c, "use_parallel_residual", true)) ||
             (!strcmp(t, "falcon") && flag(c, "parallel_attn", true));
    if (p)
        put(c, "parallel_attn", cJSON_CreateTrue());
}

cJSON *hf_common_names(const cJSON *hf, const char *type)
{
    cJSON *c = cJSON_Duplicate(hf, true);
    if (!c || !type)
        return c;
    for (size_t i = 0; i < sizeof renames / sizeof renames[0]; i++) {
        const struct rename *r = &renames[i];
        if (!hf_names_listed(r->types, type) || cJSON_GetObjectItemCaseSensitive(c, r->to))
            continue;
        const cJSON *src = r->obj ? cJSON_GetObjectItemCaseSensitive(hf, r->obj) : hf;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(src, r->from);
        if (v && !cJSON_IsNull(v))
            cJSON_AddItemToObject(c, r->to, cJSON_Duplicate(v, true));
    }
    kv_heads(c, type);
    ffn_width(c, type);
    parallel(c, type);
    per_layer(c);
    shared_expert(c, type);
    block_count(c, type);
    gemma4_experts(c, type);
    mimo_layers(c, type);   /* before dense_layers, which reads its mlp_layer_types */
    dense_layers(c, type);
    kimi_layers(c, type);
    minimax_layers(c, type);
    return c;
}

bool hf_name_understood(const char *key)
{
    for (size_t i = 0; key && i < sizeof renames / sizeof renames[0]; i++)
        if (!strcmp(key, renames[i].from) || (renames[i].obj && !strcmp(key, renames[i].obj)))
            return true;
    for (size_t i = 0; key && i < sizeof rule_keys / sizeof rule_keys[0]; i++)
        if (!strcmp(key, rule_keys[i]))
            return true;
    return false;
}
