/* hf.h — front header of study/hf/, the room below study/run/ that reads a
 * Hugging Face config.json as npusim's model config (`npusim run -m
 * path/to/config.json`, `npusim import model`).
 *
 * A file is one when it has "architectures", or "hidden_size" with
 * "num_hidden_layers". The mapping (docs/models.md has the table):
 * hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
 * num_key_value_heads, head_dim, vocab_size, tie_word_embeddings,
 * hidden_act and torch_dtype give a decoder's fields; the experts' keys
 * (num_local_experts, num_experts, num_experts_per_tok,
 * moe_intermediate_size, shared experts, dense first layers, interleave
 * steps) a mixture of experts over standard attention (ffn_type "moe") or
 * DeepSeek's latent attention (deepseek_moe); sliding_window, layer_types,
 * sliding_window_pattern and attention_chunk_size local attention;
 * quantization_config (fp8, GPTQ/AWQ int4 and int8, MXFP4) the formats and
 * block scales. Families that name the shapes their own way (GPT-2,
 * Falcon, BLOOM, OPT, MPT, ChatGLM, ...) are read under the common names
 * (hf_names.c); an ungated FFN (phi, gpt_neox, starcoder2, nemotron, ...)
 * is a plain one. A model type's known layer pattern fills in what its file
 * leaves out (Gemma 2: every other layer global). Keys that change the
 * arithmetic and npusim cannot model are refused, naming them:
 * encoder-decoders, vision towers of wrappers not listed, layer_types off
 * "every N-th layer global", Qwen's mlp_only_layers, hybrids with
 * state-space or linear-attention layers other than Gated DeltaNet's and
 * Mamba-2's between attention layers (hf_layers.h: Granite 4.0-H, Bamba,
 * Nemotron-H). A multimodal wrapper
 * it knows (Gemma 3, Llama 4, Mistral 3, LLaVA, Idefics3, Qwen-VL) runs as
 * its language model: its text_config, where silent its class's defaults
 * (Transformers writes a nested config sparse), without the vision tower
 * (said in "source"). Every other key is
 * ignored and listed once (rope, norms' epsilons, token ids, dropout,
 * biases: they do not change the time or the footprint npusim models, or
 * only by a rounding).
 *
 * No data structure of its own. */
#ifndef NPUSIM_STUDY_HF_H
#define NPUSIM_STUDY_HF_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/err.h"

/* Whether j is a Hugging Face config. */
bool hf_config_is(const cJSON *j);

/* path as a Hugging Face config that Python's json module wrote, its bare
 * Infinity and NaN read as null (json_read_file_python): the config when it
 * is one (hf_config_is), else NULL. A strict read that failed on them falls
 * back to this (study/run config_read_json, which npusim import model uses). */
cJSON *hf_read_python(const char *path);

/* Whether key is one a Hugging Face config.json carries and npusim reads
 * (for the hint when a file missing what hf_config_is needs has it). */
bool hf_config_key(const char *key);

/* npusim's model config of hf (a new tree with "source"); the keys ignored,
 * comma-separated, into ignored (n bytes). NULL with e naming the file (name)
 * and the key when it cannot be modelled. */
cJSON *hf_config_model(const cJSON *hf, const char *name, char *ignored, size_t n, struct npu_err *e);

#endif
