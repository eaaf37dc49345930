/* hf_config.h — a Hugging Face config.json as npusim's model config
 * (`npusim run -m path/to/config.json`, `npusim import model`).
 *
 * A file is one when it has "architectures", or "hidden_size" with
 * "num_hidden_layers". The mapping (docs/models.md has the table):
 * hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
 * num_key_value_heads, head_dim, vocab_size, tie_word_embeddings,
 * hidden_act and torch_dtype give a dense decoder's fields; DeepSeek-V2/V3's
 * latent-attention and expert keys give the deepseek_moe fields. Keys that
 * change the arithmetic and npusim does not model yet are refused, naming
 * them: mixtures of experts over standard attention (num_local_experts,
 * num_experts, n_routed_experts outside DeepSeek), sliding-window and
 * alternating local/global attention (sliding_window, layer_types,
 * sliding_window_pattern), encoder-decoders (is_encoder_decoder), vision
 * towers (vision_config, text_config), quantization other than fp8. Every
 * other key is ignored and listed once (rope, norms' epsilons, token ids,
 * dropout, biases: they do not change the time or the footprint npusim
 * models, or only by a rounding).
 *
 * No data structure of its own. */
#ifndef NPUSIM_STUDY_HF_CONFIG_H
#define NPUSIM_STUDY_HF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/err.h"

/* Whether j is a Hugging Face config. */
bool hf_config_is(const cJSON *j);

/* npusim's model config of hf (a new tree with "source"); the keys ignored,
 * comma-separated, into ignored (n bytes). NULL with e naming the file (name)
 * and the key when it cannot be modelled. */
cJSON *hf_config_model(const cJSON *hf, const char *name, char *ignored, size_t n, struct npu_err *e);

#endif
