/* hf_layers.h — the layer pattern of a Hugging Face decoder, as npusim's
 * model fields: which layers attend to the whole context (layer_types,
 * attn_layer_indices, sliding_window_pattern, full_attention_interval, or
 * the type's default) and what the others are (a sliding or chunked
 * window, a Gated DeltaNet, a Mamba-2 layer or LFM2's short convolution), every N-th from a first
 * one (npusim's pattern; a list off it refused, naming its first item off
 * it). Each adds its fields to o; 0, or -1 with e naming the file `name`
 * and its key. */
#ifndef NPUSIM_STUDY_HF_LAYERS_H
#define NPUSIM_STUDY_HF_LAYERS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "base/err.h"

/* Local attention: the window (sliding_window; Gemma 2's older
 * sliding_window_size; Llama 4's attention_chunk_size when chunked) and
 * which layers attend to the whole context (layer_types, Gemma 3's
 * sliding_window_pattern, else full_every, the type's default); with
 * spread, a layer_types list placing its global layers irregularly is read
 * as their count (full_attention_layers), else refused. */
int hf_local_fields(const cJSON *hf, int full_every, bool chunked, bool spread, double layers, cJSON *o, const char *name,
                    struct npu_err *e);

/* Gated DeltaNet layers (Qwen3-Next, Qwen3.5): linear_num_value_heads,
 * ..., full_attention_interval or layer_types' linear_attention. */
int hf_linear_fields(const cJSON *hf, double layers, cJSON *o, const char *name, struct npu_err *e);

/* Mamba-2 layers (Granite 4.0-H's granitemoehybrid, Bamba; Nemotron-H's
 * keys under these names, hf_names.c, and its hybrid_override_pattern of
 * one-mixer or one-FFN blocks as npusim's layers: the mixers become the
 * layers, the attention blocks full_attention_layers of them and the FFN
 * blocks ffn_layers): mamba_n_heads
 * of mamba_d_head ("auto" or absent: mamba_expand x hidden_size over the
 * heads; the two must agree), mamba_n_groups of mamba_d_state, the
 * convolution's mamba_d_conv taps, mamba_chunk_size, the state's format
 * (mamba_ssm_dtype, else the KV cache's) and which layers attend:
 * layer_types' "attention" among "mamba", or attn_layer_indices. Defaults:
 * GraniteMoeHybridConfig's and BambaConfig's (128 heads, 1 group, a state of
 * 256, 4 taps, chunks of 256, expand 2). Every layer attending (Granite 4.0
 * Micro): no Mamba fields. */
int hf_mamba_fields(const cJSON *hf, double layers, cJSON *o, const char *name, struct npu_err *e);

/* Jamba's Mamba-1 layers (linear_kind mamba): mamba_expand x hidden_size
 * channels of width 1, a state of mamba_d_state each, mamba_d_conv taps,
 * the step's rank mamba_dt_rank ("auto": ceil(hidden_size / 16)); attention
 * every attn_layer_period-th layer from attn_layer_offset (JambaConfig's
 * 8 and 4). */
int hf_mamba1_fields(const cJSON *hf, cJSON *o, const char *name, struct npu_err *e);

/* A parallel hybrid (Falcon-H1: every decoder layer runs attention and a
 * Mamba-2 mixer side by side on the same input, then its MLP): the mixer of
 * mamba_d_ssm channels (else mamba_expand x hidden_size), as
 * hf_mamba_fields reads the rest, and each layer as two of npusim's, one
 * attending and one Mamba-2, under one FFN (ffn_layers the decoder's
 * layers): the same work, every layer's KV cache and state. */
int hf_parallel_fields(const cJSON *hf, double layers, cJSON *o, const char *name, struct npu_err *e);

/* LFM2's gated short convolutions (lfm2): linear_kind short_conv over the
 * heads x head width channels, conv_L_cache taps (LFM2's default 3), and
 * which layers attend: layer_types' "full_attention" among "conv", or the
 * older full_attn_idxs list; neither: every layer a convolution. */
int hf_conv_fields(const cJSON *hf, double layers, double heads, double dh, cJSON *o, const char *name,
                   struct npu_err *e);

#endif
