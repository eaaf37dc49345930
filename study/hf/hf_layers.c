/* hf_layers.c — which layers of a Hugging Face decoder attend to the whole
 * context and what the others are (see hf_layers.h): local windows, Gated
 * DeltaNet, Mamba-2. No data structure beyond the key tables. */
#include "study/hf/hf_layers.h"

#include "study/hf/hf_names.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* layer_types (num_hidden_layers names: global, e.g. full_attention, or a
 * word of locals) as npusim's pattern: every N-th layer global from the first
 * global one (0-based *first, -1: none), the others local; *every N (the
 * spacing of the first two, or first + 1 with one; 0 with none). A list off
 * that pattern is refused, naming its first item off it, unless globals is
 * given: then *globals is the count of global layers (full_attention_layers:
 * spread evenly, where only the count matters; -1 for a regular list). */
static int layer_types_pattern(const cJSON *lt, double layers, const char *global, const char *locals,
                               double *every, int *first, int *globals, const char *name, struct npu_err *e)
{
    int n = cJSON_GetArraySize(lt), f = -1, second = -1, count = 0;
    if (!cJSON_IsArray(lt) || n != (int)layers)
        return npu_errf(e, "%s: key \"layer_types\": expected a list of num_hidden_layers (%g) names", name, layers);
    for (int i = 0; i < n; i++) {
        const char *s = cJSON_IsString(cJSON_GetArrayItem(lt, i)) ? cJSON_GetArrayItem(lt, i)->valuestring : "";
        bool full = !strcmp(s, global);
        if (!full && !hf_names_listed(locals, s))
            return npu_errf(e, "%s: key \"layer_types\": item %d \"%s\": expected %s or one of: %s",
                            name, i, s, global, locals);
        count += full;
        if (full && f < 0)
            f = i;
        else if (full && second < 0)
            second = i;
    }
    int N = second >= 0 ? second - f : f + 1;
    if (globals)
        *globals = -1;
    for (int i = 0; i < n; i++) {
        bool full = !strcmp(cJSON_GetArrayItem(lt, i)->valuestring, global);
        bool off = full != (f >= 0 && i >= f && (i - f) % N == 0);
        if (off && globals) {
            *globals = count, *every = 0, *first = -1;
            return 0;
        }
        if (off)
            return npu_errf(e, "%s: key \"layer_types\": item %d: npusim's pattern is every N-th layer full "
                               "attention from the first (layer %d, N = %d), the others local", name, i, f, N);
    }
    *every = f >= 0 ? N : 0;
    *first = f;
    return 0;
}

/* Local attention: the window (sliding_window; Gemma 2's older
 * sliding_window_size; Llama 4's attention_chunk_size, chunked) and which
 * layers attend to the whole context (layer_types, Gemma 3's
 * sliding_window_pattern, or the type's default). Every layer local with a
 * window no shorter than the context changes nothing, and is left out. */
int hf_local_fields(const cJSON *hf, int full_every, bool chunked, bool spread, double layers, cJSON *o, const char *name,
                    struct npu_err *e)
{
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(hf, "sliding_window");
    const char *wk = chunked              ? "attention_chunk_size"
                     : sw && !cJSON_IsNull(sw) ? "sliding_window"
                                               : "sliding_window_size";
    const cJSON *wj = cJSON_GetObjectItemCaseSensitive(hf, wk);
    /* null or absent: no window; 0 is read the same (no window to model) */
    if (wj && !cJSON_IsNull(wj) && !(cJSON_IsNumber(wj) && wj->valuedouble >= 0))
        return npu_errf(e, "%s: key \"%s\": expected a positive whole number of tokens or null", name, wk);
    double w = hf_num(hf, wk, 0);
    double ctx = hf_num(hf, "max_position_embeddings", 0), every = full_every;
    if (!(w > 0) || cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(hf, "use_sliding_window")))
        return 0;
    const cJSON *lt = cJSON_GetObjectItemCaseSensitive(hf, "layer_types");
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(hf, "sliding_window_pattern")))
        every = hf_num(hf, "sliding_window_pattern", 0);
    int first = -1, globals = -1;
    if (lt && layer_types_pattern(lt, layers, "full_attention", "sliding_attention chunked_attention", &every, &first,
                                  spread ? &globals : NULL, name, e))
        return -1;
    if (every == 0 && ctx > 0 && w >= ctx)
        return 0;
    if (hf_add_int(o, "sliding_window", w, name, chunked ? "attention_chunk_size" : "sliding_window", e))
        return -1;
    if (globals >= 0)   /* placed irregularly (MiMo-V2-Flash: layer 0, then every sixth from 5) */
        cJSON_AddNumberToObject(o, "full_attention_layers", globals);
    if (every > 0)
        cJSON_AddNumberToObject(o, "full_attention_interval", every);
    if (first >= 0 && first != every - 1)   /* Step-3.7's first layer global, then every 4th */
        cJSON_AddNumberToObject(o, "first_full_attention_layer", first);
    if (chunked)
        cJSON_AddStringToObject(o, "local_attention", "chunked");
    return 0;
}

/* Which layers of a linear hybrid attend (every-th from first, or, placed
 * irregularly, globals of them spread evenly) and the state's format
 * (mamba_ssm_dtype; else the KV cache's, as vLLM's default), shared by
 * Gated DeltaNet and Mamba-2. */
static int linear_pattern(const cJSON *hf, double every, int first, int globals, cJSON *o, const char *name,
                          struct npu_err *e)
{
    if (!(every >= 0) || every != floor(every))
        return npu_errf(e, "%s: key \"full_attention_interval\": expected a whole number of layers", name);
    cJSON_AddNumberToObject(o, "full_attention_interval", every);
    if (globals >= 0)
        cJSON_AddNumberToObject(o, "full_attention_layers", globals);
    if (first >= 0 && first != every - 1)
        cJSON_AddNumberToObject(o, "first_full_attention_layer", first);
    const char *sd = hf_str(hf, "mamba_ssm_dtype"), *sf = hf_torch_format(sd);
    if (sd && !sf)
        return npu_errf(e, "%s: key \"mamba_ssm_dtype\": \"%s\": expected float32, bfloat16 or float16", name, sd);
    /* the KV cache's format (formats() sets it from torch_dtype alone) */
    const cJSON *kv = cJSON_GetObjectItemCaseSensitive(o, "kv_cache_dtype");
    cJSON_AddStringToObject(o, "linear_state_dtype", sf ? sf : cJSON_IsString(kv) ? kv->valuestring : "bf16");
    return 0;
}

/* Gated DeltaNet layers (Qwen3-Next, Qwen3.5): their heads and widths,
 * the convolution, the state's format (mamba_ssm_dtype; the KV cache's
 * otherwise, as vLLM's default) and which layers attend (layer_types'
 * every N-th full_attention, or full_attention_interval; Qwen3-Next's
 * class default 4); the attention's output gate (attn_output_gate, true by
 * default in both classes). */
int hf_linear_fields(const cJSON *hf, double layers, cJSON *o, const char *name, struct npu_err *e)
{
    static const struct { const char *hf, *np; } keys[] = {
        { "linear_num_value_heads", "linear_value_heads" }, { "linear_num_key_heads", "linear_key_heads" },
        { "linear_key_head_dim", "linear_key_dim" },        { "linear_value_head_dim", "linear_value_dim" },
        { "linear_conv_kernel_dim", "linear_conv_kernel" },
    };
    static const double def[] = { 32, 16, 128, 128, 4 };   /* Qwen3NextConfig's */
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (hf_add_int(o, keys[i].np, hf_num(hf, keys[i].hf, def[i]), name, keys[i].hf, e))
            return -1;
    double every = hf_num(hf, "full_attention_interval", 4);
    const cJSON *lt = cJSON_GetObjectItemCaseSensitive(hf, "layer_types");
    int first = -1, globals = -1;
    if (lt && layer_types_pattern(lt, layers, "full_attention", "linear_attention", &every, &first, &globals, name, e))
        return -1;
    if (linear_pattern(hf, every, first, globals, o, name, e))
        return -1;
    const cJSON *gate = cJSON_GetObjectItemCaseSensitive(hf, "attn_output_gate");
    if (!cJSON_IsBool(gate) || cJSON_IsTrue(gate))
        cJSON_AddTrueToObject(o, "attention_output_gate");
    return 0;
}

/* A list of the 0-based layers that attend under the key `key` (Bamba's
 * attn_layer_indices, LFM2's full_attn_idxs), distinct layer numbers, as
 * npusim's pattern: every N-th from the first when they are (*every,
 * *first), else their count (*globals), as layer_types_pattern gives them. */
static int indices_pattern(const cJSON *ix, const char *key, double layers, double *every, int *first, int *globals,
                           const char *name, struct npu_err *e)
{
    int n = cJSON_GetArraySize(ix);
    if (!cJSON_IsArray(ix))
        return npu_errf(e, "%s: key \"%s\": expected a list of layer numbers", name, key);
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(ix, i);
        if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble >= layers || x->valuedouble != floor(x->valuedouble))
            return npu_errf(e, "%s: key \"%s\": item %d: expected a layer number from 0 to %g", name,
                            key, i, layers - 1);
        for (int k = 0; k < i; k++)
            if (cJSON_GetArrayItem(ix, k)->valuedouble == x->valuedouble)
                return npu_errf(e, "%s: key \"%s\": item %d: layer %g listed twice", name, key, i,
                                x->valuedouble);
    }
    double f = n > 0 ? cJSON_GetArrayItem(ix, 0)->valuedouble : -1;
    double N = n > 1 ? cJSON_GetArrayItem(ix, 1)->valuedouble - f : f + 1;
    bool regular = n == 0 || (N > 0 && n == (int)floor((layers - 1 - f) / N) + 1);
    for (int i = 0; regular && i < n; i++)
        regular = cJSON_GetArrayItem(ix, i)->valuedouble == f + i * N;
    *every = regular && n > 0 ? N : 0;
    *first = regular ? (int)f : -1;
    *globals = regular ? -1 : n;
    return 0;
}

/* Which layers attend: layer_types' `global` among the words `locals`, else
 * the list of layer numbers under `key` (Bamba's attn_layer_indices, LFM2's
 * full_attn_idxs); neither (or null): *every, *first and *globals as given. */
static int attending(const cJSON *hf, double layers, const char *global, const char *locals, const char *key,
                     double *every, int *first, int *globals, const char *name, struct npu_err *e)
{
    const cJSON *lt = cJSON_GetObjectItemCaseSensitive(hf, "layer_types");
    const cJSON *ix = cJSON_GetObjectItemCaseSensitive(hf, key);
    if (lt)
        return layer_types_pattern(lt, layers, global, locals, every, first, globals, name, e);
    return ix && !cJSON_IsNull(ix) ? indices_pattern(ix, key, layers, every, first, globals, name, e) : 0;
}

/* Nemotron-H's blocks, one letter a block (M Mamba-2, * attention, - MLP, E
 * experts): its hybrid_override_pattern, or the layers_block_type list that
 * Transformers 5 writes (mamba, attention, mlp, moe) as those letters, into
 * buf (at least the list's size + 1 bytes); NULL after naming what is wrong. */
static const char *block_letters(const cJSON *hf, char *buf, const char *name, struct npu_err *e)
{
    static const char *const kinds[] = { "mamba", "attention", "mlp", "moe" };
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(hf, "layers_block_type");
    if (hf_str(hf, "hybrid_override_pattern"))
        return hf_str(hf, "hybrid_override_pattern");
    int n = cJSON_GetArraySize(l);
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(l, i);
        const char *k = cJSON_IsString(x) ? x->valuestring : "";
        size_t j = 0;
        while (j < 4 && strcmp(k, kinds[j]))
            j++;
        if (j == 4) {
            npu_errf(e, "%s: key \"layers_block_type\": item %d \"%s\": expected mamba, attention, mlp or moe", name,
                     i, k);
            return NULL;
        }
        buf[i] = "M*-E"[j];
    }
    buf[n] = '\0';
    return buf;
}

/* Nemotron-H's blocks (block_letters) as npusim's layers: a mixer and an
 * FFN a layer, so the mixer blocks are the layers (num_layers replaced), the
 * attention ones *globals of them spread evenly, and the FFN blocks
 * ffn_layers of them when fewer (only counts change the time: where a block
 * sits matters only to pipeline shares). More FFN blocks than mixers, MLP
 * and expert blocks together, or another letter are refused. */
static int blocks_pattern(const cJSON *hf, double *layers, int *globals, cJSON *o, const char *name,
                          struct npu_err *e)
{
    const char *key = hf_str(hf, "hybrid_override_pattern") ? "hybrid_override_pattern" : "layers_block_type";
    char *buf = malloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(hf, key)) + 1);
    if (!buf)
        return npu_errf(e, "%s: out of memory", name);
    const char *p = block_letters(hf, buf, name, e);
    int n[4] = { 0, 0, 0, 0 };   /* M * - E */
    for (size_t i = 0; p && p[i]; i++) {
        const char *at = strchr("M*-E", p[i]);
        if (!at) {   /* p[i] is not the terminator strchr would find */
            npu_errf(e, "%s: key \"%s\": item %zu \"%c\": expected M, *, - or E", name, key, i, p[i]);
            p = NULL;
        } else {
            n[at - "M*-E"]++;
        }
    }
    size_t blocks = p ? strlen(p) : 0;
    free(buf);
    if (!p)
        return -1;
    int mixers = n[0] + n[1], ffns = n[2] + n[3];
    double want = hf_num(hf, "num_hidden_layers", 0);
    if ((double)blocks != want)
        return npu_errf(e, "%s: key \"%s\": %zu blocks, expected num_hidden_layers (%g)", name, key, blocks, want);
    if (n[2] > 0 && n[3] > 0)
        return npu_errf(e, "%s: key \"%s\": MLP and expert blocks together: npusim's layers run one kind of FFN",
                        name, key);
    if (ffns > mixers || mixers == 0)
        return npu_errf(e, "%s: key \"%s\": %d FFN blocks to %d mixer blocks: npusim's layers hold a mixer each, "
                           "and at most one FFN", name, key, ffns, mixers);
    *layers = mixers;
    *globals = n[1];
    cJSON_ReplaceItemInObjectCaseSensitive(o, "num_layers", cJSON_CreateNumber(mixers));
    if (ffns < mixers)
        cJSON_AddNumberToObject(o, "ffn_layers", ffns);
    return 0;
}

/* A Mamba-2 mixer of `inner` channels: mamba_n_heads of mamba_d_head
 * ("auto" or absent: inner over the heads; given outright, it is the
 * mixer's unless `strict`: Nemotron-H's heads x head_dim need not be inner,
 * FalconH1Config refuses a file where they differ), mamba_n_groups of
 * mamba_d_state, mamba_d_conv taps, mamba_chunk_size. */
static int mamba_mixer(const cJSON *hf, double inner, const char *inner_keys, bool strict, cJSON *o,
                       const char *name, struct npu_err *e)
{
    double heads = hf_num(hf, "mamba_n_heads", 128);
    double dh = hf_num(hf, "mamba_d_head", heads > 0 ? inner / heads : 0);
    if ((strict || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(hf, "mamba_d_head"))) && !(heads * dh == inner))
        return npu_errf(e, "%s: keys \"mamba_n_heads\" and \"mamba_d_head\": %g heads of %g, expected %s = %g channels",
                        name, heads, dh, inner_keys, inner);
    static const struct { const char *hf, *np; double def; } keys[] = {
        { "mamba_n_groups", "linear_key_heads", 1 }, { "mamba_d_state", "linear_key_dim", 256 },
        { "mamba_d_conv", "linear_conv_kernel", 4 }, { "mamba_chunk_size", "linear_chunk_size", 256 },
    };
    if (hf_add_int(o, "linear_value_heads", heads, name, "mamba_n_heads", e) ||
        hf_add_int(o, "linear_value_dim", dh, name, "mamba_d_head", e))
        return -1;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (hf_add_int(o, keys[i].np, hf_num(hf, keys[i].hf, keys[i].def), name, keys[i].hf, e))
            return -1;
    cJSON_AddStringToObject(o, "linear_kind", "mamba2");
    return 0;
}

int hf_mamba_fields(const cJSON *hf, double layers, cJSON *o, const char *name, struct npu_err *e)
{
    double every = 0;
    int first = -1, globals = -1;
    bool blocks = hf_str(hf, "hybrid_override_pattern") || cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(hf, "layers_block_type"));
    if (blocks && blocks_pattern(hf, &layers, &globals, o, name, e))
        return -1;
    if (attending(hf, layers, "attention", "mamba", "attn_layer_indices", &every, &first, &globals, name, e))
        return -1;
    if (every == 1 && first == 0)
        return 0;   /* every layer attends (Granite 4.0 Micro): no Mamba layer */
    if (mamba_mixer(hf, hf_num(hf, "mamba_expand", 2) * hf_num(hf, "hidden_size", 0), "mamba_expand x hidden_size",
                    false, o, name, e))
        return -1;
    return linear_pattern(hf, every, first, globals, o, name, e);
}

int hf_mamba1_fields(const cJSON *hf, cJSON *o, const char *name, struct npu_err *e)
{
    /* the channels: mamba_expand x hidden_size; the step's rank: mamba_dt_rank, "auto" ceil(hidden_size / 16) */
    double D = hf_num(hf, "hidden_size", 0), E = hf_num(hf, "mamba_expand", 2) * D;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(hf, "mamba_dt_rank");
    if (r && !cJSON_IsNumber(r) && !(cJSON_IsString(r) && !strcmp(r->valuestring, "auto")))
        return npu_errf(e, "%s: key \"mamba_dt_rank\": expected a positive whole number or \"auto\"", name);
    double R = cJSON_IsNumber(r) ? r->valuedouble : ceil(D / 16);
    if (hf_add_int(o, "linear_value_heads", E, name, "mamba_expand", e) ||
        hf_add_int(o, "linear_key_dim", hf_num(hf, "mamba_d_state", 16), name, "mamba_d_state", e) ||
        hf_add_int(o, "linear_conv_kernel", hf_num(hf, "mamba_d_conv", 4), name, "mamba_d_conv", e) ||
        hf_add_int(o, "linear_dt_rank", R, name, "mamba_dt_rank", e))
        return -1;
    cJSON_AddNumberToObject(o, "linear_value_dim", 1);
    cJSON_AddNumberToObject(o, "linear_key_heads", 1);
    cJSON_AddStringToObject(o, "linear_kind", "mamba");
    /* attention every attn_layer_period-th layer from attn_layer_offset (Jamba: 8 and 4) */
    double p = hf_num(hf, "attn_layer_period", 8), off = hf_num(hf, "attn_layer_offset", 4);
    if (!(p >= 1) || p != floor(p) || !(off >= 0 && off < p) || off != floor(off))
        return npu_errf(e, "%s: keys \"attn_layer_period\" and \"attn_layer_offset\": expected a period of at least 1 "
                           "and an offset below it, got %g and %g", name, p, off);
    return linear_pattern(hf, p, (int)off, -1, o, name, e);
}

int hf_parallel_fields(const cJSON *hf, double layers, cJSON *o, const char *name, struct npu_err *e)
{
    /* the mixer's channels: mamba_d_ssm, else (null) mamba_expand x hidden_size (FalconH1Config) */
    const cJSON *ssm = cJSON_GetObjectItemCaseSensitive(hf, "mamba_d_ssm");
    double inner = cJSON_IsNumber(ssm) ? ssm->valuedouble : hf_num(hf, "mamba_expand", 2) * hf_num(hf, "hidden_size", 0);
    if (mamba_mixer(hf, inner, cJSON_IsNumber(ssm) ? "mamba_d_ssm" : "mamba_expand x hidden_size", true, o, name, e))
        return -1;
    /* each decoder layer's two mixers are two of npusim's layers, every other one attending, and its MLP
     * one FFN of the pair */
    cJSON_ReplaceItemInObjectCaseSensitive(o, "num_layers", cJSON_CreateNumber(2 * layers));
    cJSON_AddNumberToObject(o, "ffn_layers", layers);
    return linear_pattern(hf, 2, -1, -1, o, name, e);
}

int hf_conv_fields(const cJSON *hf, double layers, double heads, double dh, cJSON *o, const char *name,
                   struct npu_err *e)
{
    double every = 0;
    int first = -1, globals = 0;   /* neither key: every layer a convolution */
    if (attending(hf, layers, "full_attention", "conv", "full_attn_idxs", &every, &first, &globals, name, e))
        return -1;
    if (hf_add_int(o, "linear_value_heads", heads, name, "num_attention_heads", e) ||
        hf_add_int(o, "linear_value_dim", dh, name, "head_dim", e) ||
        hf_add_int(o, "linear_conv_kernel", hf_num(hf, "conv_L_cache", 3), name, "conv_L_cache", e))
        return -1;
    cJSON_AddStringToObject(o, "linear_kind", "short_conv");
    return linear_pattern(hf, every, first, globals, o, name, e);
}
