/* model.h — model configuration (reference ModelConfig + LLMConfig + MoE/DeepSeek
 * + DiT fields) and the field tables that load it.
 *
 * One flat struct holds every family's fields; model_tables() says which
 * tables apply to a given model_type/ffn_type (the rest keep defaults and are
 * neither loaded nor dumped). Parallelism degrees and axis counts are here
 * because the reference keeps them in the model config. */
#ifndef NPUSIM_MODEL_H
#define NPUSIM_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "traces/fields.h"

struct model_config {
    /* ModelConfig */
    char model_name[FIELD_STR_MAX];
    char model_type[FIELD_STR_MAX];      /* "llm", "dit", "dlrm", "gligen" */
    int64_t global_batch_size;
    int64_t num_chips;
    int64_t data_parallelism_degree, tensor_parallelism_degree, pipeline_parallelism_degree;
    int64_t num_data_parallel_axes, num_tensor_parallel_axes, num_pipeline_parallel_axes;
    int64_t data_parallel_degree_dcn, tensor_parallel_degree_dcn, pipeline_parallel_degree_dcn;
    int64_t microbatch_size_dcn;
    int64_t microbatch_size_ici;         /* the LLM batch comes from this (opsgen Q40) */
    char output_file_path[FIELD_STR_MAX];
    /* LLMConfig */
    int64_t input_seqlen, output_seqlen;
    int64_t d_model, num_heads, num_kv_heads, d_head, d_ff, num_layers;
    char ffn_type[FIELD_STR_MAX];        /* ffn_kind_of (opsgen/layers.h) names, "deepseek_moe" */
    int64_t decode_width;
    bool use_flash_attention;
    bool enable_swap_kv_cache;
    int64_t max_swap_kv_cache_times_prefill, max_swap_kv_cache_times_decode;
    int64_t vocab_size;                  /* npusim's own (FF_EXT): 0 = no vocabulary ops */
    char remat[FIELD_STR_MAX];           /* npusim's own (FF_EXT): "none" or "full" (training) */
    char source[FIELD_STR_MAX];          /* npusim's own (FF_EXT): where the config came from (documentation) */
    int64_t zero_stage;                  /* npusim's own (FF_EXT): ZeRO stage 0..3 (3 = FSDP) */
    bool parallel_attn_ffn;              /* npusim's own (FF_EXT): parallel attention + FFN block */
    bool tie_word_embeddings;            /* npusim's own (FF_EXT): the LM head is the embedding's weights */
    bool decode_kv_shared;               /* npusim's own (FF_EXT): decode reads a K/V head once per
                                          * query group (false: once per query head) */
    int64_t cached_prompt_tokens;        /* npusim's own (FF_EXT): tokens of each prompt already in
                                          * the KV cache (a prefix cache); prefill computes the rest */
    /* npusim's own (FF_EXT): local attention (opsgen/pattern.h): a local
     * layer's query sees at most sliding_window keys ("sliding") or the keys
     * of its own chunk of that many tokens ("chunked"); every
     * full_attention_interval-th layer attends to the whole context (0: none
     * does). sliding_window 0: every layer is global. */
    int64_t sliding_window, full_attention_interval;
    int64_t first_full_attention_layer;  /* the first global layer (0-based); -1: interval - 1 */
    int64_t full_attention_layers;       /* >= 0: that many global layers, spread evenly (an
                                          * irregular hybrid); -1: the interval's pattern */
    int64_t ffn_layers;                  /* >= 0: that many layers have an FFN, spread evenly, the
                                          * others none (Nemotron-H's blocks); -1: every layer */
    char local_attention[FIELD_STR_MAX];
    /* npusim's own (FF_EXT): Gated DeltaNet or Mamba-2 layers
     * (opsgen/linear_attn.h): with linear_value_heads > 0 the local layers of
     * the pattern are linear attention (linear_kind), a state per sequence in
     * linear_state_dtype; linear_chunk_size 0: the kind's prefill chunk. */
    int64_t linear_value_heads, linear_key_heads, linear_key_dim, linear_value_dim, linear_conv_kernel;
    int64_t linear_chunk_size;
    int64_t linear_gate_rank;            /* kda: the decay's and output gate's low rank; 0: full rank */
    int64_t linear_dt_rank;              /* mamba1: the step size's rank; 0: ceil(d_model / 16) */
    char linear_kind[FIELD_STR_MAX];
    bool attention_output_gate;          /* npusim's own (FF_EXT): W_q also projects a sigmoid gate of
                                          * the attention's output (Qwen3-Next, Qwen3.5) */
    char linear_state_dtype[FIELD_STR_MAX];
    /* npusim's own (FF_EXT): the global layers' own attention shape (Gemma 4):
     * head width and K/V heads (0: d_head, num_kv_heads), and V as K's
     * projection (no W_v). */
    int64_t global_d_head, global_num_kv_heads;
    bool global_k_eq_v;
    int64_t d_head_v;                    /* npusim's own (FF_EXT): the value heads' width; 0: d_head */
    /* npusim's own (FF_EXT; Gemma 4 E2B, E4B): the last kv_shared_layers read
     * earlier layers' K/V (no K/V projections or cache of their own), their
     * FFN kv_shared_d_ff wide (0: d_ff); per-layer inputs of
     * per_layer_input_dim (0: none) from a table of per_layer_vocab_size rows
     * (0: vocab_size). */
    int64_t kv_shared_layers, kv_shared_d_ff, per_layer_input_dim, per_layer_vocab_size;
    /* npusim's own (FF_EXT): the number formats of the weights, the
     * activations and the KV cache (traces/precision.h names; "bf16"). */
    char weight_dtype[FIELD_STR_MAX], activation_dtype[FIELD_STR_MAX], kv_cache_dtype[FIELD_STR_MAX];
    /* npusim's own (FF_EXT): block scales of 8-bit and narrower tensors
     * (opsgen/formats.h): K elements per scale (0: none), N elements per
     * weight scale (0: scale_block, square blocks), the scales' format. */
    int64_t scale_block, weight_scale_block_n;
    char scale_dtype[FIELD_STR_MAX];
    bool bidirectional;                  /* not a field: set for generators reusing the LLM one on
                                          * unmasked attention (DiT) */
    /* MoELLMConfig */
    char router_type[FIELD_STR_MAX];
    int64_t num_shared_experts, num_routed_experts, num_activated_routed_experts_per_token;
    int64_t num_limited_groups, moe_d_ff;
    int64_t expert_parallelism_degree, num_expert_parallel_axes, expert_parallel_degree_dcn;
    double moe_imbalance_factor;         /* npusim's own (FF_EXT): busiest expert's tokens / mean, >= 1 */
    int64_t moe_layer_step;              /* npusim's own (FF_EXT, ffn_type "moe"): after the first
                                          * num_dense_layers, every moe_layer_step-th layer is a MoE */
    char expert_weight_dtype[FIELD_STR_MAX];   /* npusim's own (ffn_type "moe", DeepSeek): the experts'
                                                * weights' format ("same": weight_dtype) */
    char expert_ffn[FIELD_STR_MAX];      /* npusim's own: "gated" (SiLU-gated) or "relu2" (up, down) */
    int64_t moe_latent_size;             /* npusim's own (ffn_type "moe"): the routed experts' width,
                                          * tokens projected to it and back (LatentMoE); 0: d_model */
    /* DeepSeekConfig */
    int64_t num_dense_layers, kv_lora_rank, q_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim;
    int64_t index_topk, index_heads, index_head_dim;   /* npusim's own (FF_EXT): DeepSeek Sparse Attention */
    /* DiTConfig (num_diffusion_steps is shared with GLIGEN) */
    int64_t image_width, num_channels, patch_size, num_diffusion_steps;
    /* DLRMConfig */
    int64_t embedding_dim, num_dense_features;
    struct int_list num_indices_per_lookup, embedding_table_sizes;
    struct mlp_layers bottom_mlp_config, top_mlp_config;
    char interaction[FIELD_STR_MAX];
    /* GLIGENConfig (nested keys: unet_config.*, grounding_input_config.*) */
    int64_t total_num_diffusion_steps, image_num_channels;
    struct int_list image_resolution;
    char output_dir[FIELD_STR_MAX];
    struct int_list noisy_latent_resolution, attention_resolutions, channel_mult;
    int64_t model_channels, num_res_blocks, unet_num_heads, context_dim;
    int64_t text_input_seqlen, bbox_input_seqlen, grounding_token_feature_dim;
};

extern const struct field_table model_base_fields;     /* ModelConfig */
extern const struct field_table model_llm_fields;      /* LLMConfig */
extern const struct field_table model_moe_fields;      /* MoELLMConfig */
extern const struct field_table model_deepseek_fields; /* DeepSeekConfig */
extern const struct field_table model_moe_layers_fields; /* npusim's: MoE over standard attention */
extern const struct field_table model_dit_fields;      /* DiTConfig */
extern const struct field_table model_dlrm_fields;     /* DLRMConfig */
extern const struct field_table model_gligen_fields;   /* GLIGENConfig */

/* Every table a model config may use (for unknown-key detection). Returns count. */
int model_all_tables(const struct field_table **out, int max);
/* The tables that apply to this config's model_type / ffn_type, in dump order. */
int model_tables(const struct model_config *m, const struct field_table **out, int max);

/* Loads a merged config object: model_type first, then the applicable tables,
 * the reference's implicit defaults (num_kv_heads <- num_heads, moe_d_ff <- d_ff)
 * and the family's required keys. */
int model_config_from_json(struct model_config *m, const cJSON *json, field_sources *src,
                           struct npu_err *e);

#endif
