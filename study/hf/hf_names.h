/* hf_names.h — the other key names of Hugging Face config.json files, as
 * the common ones hf_config.c reads.
 *
 * Families older than Llama (GPT-2, GPT-J, GPT-BigCode, BLOOM, OPT, Falcon,
 * MPT, DBRX, ChatGLM, the first Qwen) and a few newer ones (ERNIE 4.5,
 * Ling) name the same shapes their own way: n_embd for hidden_size, n_head,
 * n_layer, ffn_dim, kv_channels, moe_k, ... A copy of the file under the
 * common names, with what those families imply and leave out (Falcon's and
 * GPT-BigCode's multi-query attention as a count of KV heads, an ungated
 * FFN four times the width, Qwen's two FFN branches counted together, the
 * parallel blocks of GPT-J, GPT-NeoX, Phi-2, Falcon and Cohere, a list of
 * one value per layer as that value, Nemotron-H's block count from its
 * layers_block_type list, Gemma 4's dense MLP beside its experts as a shared
 * expert) made explicit. The common names a file already gives are kept.
 *
 * Also the readers the room shares: a number under a key (hf_num), a
 * string (hf_str), a positive whole number into npusim's config
 * (hf_add_int), a Transformers dtype name (hf_torch_format) and a word in a
 * space-separated list (hf_names_listed).
 *
 * No data structure of its own: a table of renames and one of per-family
 * rules. */
#ifndef NPUSIM_STUDY_HF_NAMES_H
#define NPUSIM_STUDY_HF_NAMES_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "base/err.h"

/* A new tree: hf under the common names for its model_type `type` (the
 * caller deletes it); NULL when out of memory. */
cJSON *hf_common_names(const cJSON *hf, const char *type);

/* The first key of c (hf under the common names for type) that still
 * holds a list of per-layer values (they differ between layers), by the
 * name hf gives it; else NULL. */
const char *hf_names_per_layer(const cJSON *hf, const cJSON *c, const char *type);

/* The number j holds under k, else def (a null, a string: def). */
double hf_num(const cJSON *j, const char *k, double def);

/* The string j holds under k, else NULL. */
const char *hf_str(const cJSON *j, const char *k);

/* Adds k = v to o when v is a positive whole number; else -1 with e naming
 * the file `name` and its key `from`. */
int hf_add_int(cJSON *o, const char *k, double v, const char *name, const char *from, struct npu_err *e);

/* A Transformers dtype name (torch_dtype, dtype, mamba_ssm_dtype) as
 * npusim's format (bf16, fp16, fp32); NULL for none of these. */
const char *hf_torch_format(const char *t);

/* Whether the word t is one of the space-separated words of list. */
bool hf_names_listed(const char *list, const char *t);

/* Whether key is one of the other names read here (not an ignored key). */
bool hf_name_understood(const char *key);

#endif
