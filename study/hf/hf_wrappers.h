/* hf_wrappers.h — a multimodal wrapper's language model (Gemma 3, Llama 4,
 * Qwen-VL, InternVL, Qwen3-Omni's thinker, Kimi K3, ...): the config
 * hf_config.c reads in the wrapper's place.
 *
 * A wrapper keeps its language model's keys under text_config (InternVL:
 * llm_config; DeepSeek-VL2: language_config; Qwen3-Omni:
 * thinker_config.text_config; Qwen2-VL: at the top). Transformers writes a
 * nested config with only the keys that differ from its class's defaults,
 * so those defaults fill what it leaves out; the wrapper's formats fill
 * what the text config does not give. No data structure in this header. */
#ifndef NPUSIM_STUDY_HF_WRAPPERS_H
#define NPUSIM_STUDY_HF_WRAPPERS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

/* hf's language model when hf is a wrapper npusim opens: a new tree (its
 * text config with its type, a static string canonical() gives or the
 * wrapper's text model type, its class's defaults where it is silent, and
 * the wrapper's formats), the wrapper's type in *wrapper and in *nested
 * whether it came from a nested key; NULL when hf is no such wrapper, or,
 * with *bad_key set, when the wrapper's key holds no object. canonical(t):
 * the types table's name of a model type npusim knows, else NULL. */
cJSON *hf_wrapper_text(const cJSON *hf, const char *(*canonical)(const char *type), const char **wrapper, bool *nested,
                       const char **bad_key);

#endif
