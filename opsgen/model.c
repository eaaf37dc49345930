/* model.c — model field tables (defaults = the reference classes) and loading. */
#include "opsgen/model.h"

#include <stddef.h>
#include <string.h>

#define I(k, d, fl, ...) FIELD(#k, FT_INT, offsetof(struct model_config, k), d, NULL, fl, __VA_ARGS__)
#define DB(k, d, fl, ...) FIELD(#k, FT_DOUBLE, offsetof(struct model_config, k), d, NULL, fl, __VA_ARGS__)
#define B(k, d, ...) FIELD(#k, FT_BOOL, offsetof(struct model_config, k), d, NULL, 0, __VA_ARGS__)
#define S(k, d, fl, ...) FIELD(#k, FT_STR, offsetof(struct model_config, k), 0, d, fl, __VA_ARGS__)
#define L(k, d, fl, ...) FIELD(#k, FT_INT_LIST, offsetof(struct model_config, k), 0, d, fl, __VA_ARGS__)
#define LAYERS(k, fl, ...) FIELD(#k, FT_LAYERS, offsetof(struct model_config, k), 0, NULL, fl, __VA_ARGS__)
/* A nested JSON key stored in a flat member. */
#define NI(key, m, d, fl, ...) FIELD(key, FT_INT, offsetof(struct model_config, m), d, NULL, fl, __VA_ARGS__)
#define NL(key, m, d, fl, ...) FIELD(key, FT_INT_LIST, offsetof(struct model_config, m), 0, d, fl, __VA_ARGS__)
#define TABLE(name, what, list) \
    const struct field_table name = { what, list, sizeof list / sizeof list[0] }
enum { P = FF_POSITIVE, N = FF_NONNEG };
#define AXES_DOC(group) \
    "Torus axes the " group " group spans: its collectives use the ICI bandwidth of each (a sweep sets them " \
    "from the chip's torus)."

static const struct field_desc base_list[] = {
    S(model_name, "model", 0, .doc = "The model's label in outputs; a name holding \"deepseek\" is a mixture of experts."),
    S(model_type, "", FF_REQUIRED,
      .doc = "The family: llm (Llama, DeepSeek), dit, dlrm or gligen. It picks the generator and which fields apply."),
    I(global_batch_size, 1, P, .unit = "sequences",
      .doc = "Requests (sequences, images, samples) per step over every chip; --batch sets it, and the "
             "per-pod microbatch follows from it."),
    /* A chip count past 2^20 (a million chips) is no machine; DLRM keeps one op list per chip. */
    I(num_chips, 1, P, .lo = 1, .hi = 1048576, .unit = "chips", .doc = "Chips the model runs on, over every pod."),
    I(data_parallelism_degree, 1, P, .doc = "Data-parallel replicas within a pod (over ICI): each takes a share of the batch."),
    I(tensor_parallelism_degree, 1, P,
      .doc = "Tensor-parallel ways within a pod (over ICI): each layer's weights split over that many chips."),
    I(pipeline_parallelism_degree, 1, P,
      .doc = "Pipeline stages within a pod (over ICI): the layers split into that many consecutive stages."),
    I(num_data_parallel_axes, 1, N, .doc = AXES_DOC("data-parallel")),
    I(num_tensor_parallel_axes, 1, N, .doc = AXES_DOC("tensor-parallel")),
    I(num_pipeline_parallel_axes, 1, N, .doc = AXES_DOC("pipeline-parallel")),
    I(data_parallel_degree_dcn, 1, P, .doc = "Data-parallel replicas across pods, over the data-centre network (DCN)."),
    I(tensor_parallel_degree_dcn, 1, P, .doc = "Tensor-parallel ways across pods, over DCN."),
    I(pipeline_parallel_degree_dcn, 1, P, .doc = "Pipeline stages across pods, over DCN."),
    I(microbatch_size_dcn, 1, P, .unit = "sequences", .doc = "Unused (the reference's ModelConfig); set from the batch."),
    I(microbatch_size_ici, 1, P, .unit = "sequences",
      .doc = "Sequences a pod processes per step: the LLM generators take their batch from it (divided by "
             "data_parallelism_degree per chip); --batch and sweeps set it from global_batch_size."),
    S(output_file_path, "./output.csv", 0,
      .doc = "The trace's path as the reference names it; kept in the statistics (-o chooses where files go)."),
};
TABLE(model_base_fields, "model", base_list);

/* The formats a model's tensors may be stored in (traces/precision.h). */
#define MODEL_FORMATS "fp32|bf16|fp16|fp8|fp8_e4m3|fp8_e5m2|int8|int4|fp4"

static const struct field_desc llm_list[] = {
    I(input_seqlen, 4096, P, .unit = "tokens", .doc = "Prompt length: the tokens prefill processes per sequence."),
    I(output_seqlen, 512, P, .unit = "tokens", .doc = "Tokens generated per sequence: the decode iterations."),
    I(d_model, 4096, P, .doc = "Hidden size (the model's width)."),
    I(num_heads, 64, P, .doc = "Query heads per attention layer."),
    I(num_kv_heads, -1, 0,
      .doc = "Key-value heads (grouped-query attention); divides num_heads. -1: one per query head; absent: num_heads."),
    I(d_head, 64, P, .doc = "Size of each attention head."),
    I(d_ff, 11008, P, .doc = "Hidden size of the feed-forward network (of each dense layer)."),
    I(num_layers, 80, P, .doc = "Transformer layers."),
    S(ffn_type, "llama", 0,
      .doc = "Feed-forward shape: llama or swiglu (gated SiLU, three matmuls), geglu (gated GELU), default or "
             "gelu (two matmuls, GELU), relu, moe (a mixture of gated-SiLU experts over standard attention: "
             "Mixtral, Qwen-MoE, gpt-oss), deepseek_moe (DeepSeek's experts over latent attention)."),
    I(decode_width, 1, P, .unit = "tokens", .doc = "Query tokens per decode iteration (wider for speculative decoding)."),
    B(use_flash_attention, 1, .doc = "Fused attention in prefill: the score matrix never goes to HBM."),
    B(enable_swap_kv_cache, 0,
      .doc = "When the KV cache does not fit in HBM, swap its excess to host memory over the host link."),
    I(max_swap_kv_cache_times_prefill, 2, P,
      .doc = "Chunks the prefill's excess KV cache is swapped in (at most num_layers)."),
    I(max_swap_kv_cache_times_decode, 16, P,
      .doc = "Chunks the decode's excess KV cache is swapped in (at most num_layers)."),
    /* npusim's own: the token vocabulary (embedding lookup and LM head; 0: none).
     * 32000 as Hugging Face's LlamaConfig when a file does not say. */
    I(vocab_size, 32000, N | FF_EXT, .unit = "tokens",
      .doc = "Token vocabulary: sizes the embedding lookup and the LM head (0: neither). Default profile only."),
    /* npusim's own: ZeRO sharding over the data-parallel degree in training
     * (1: optimizer states; 2: and gradients; 3 = FSDP: and weights). */
    I(zero_stage, 0, N | FF_EXT, .lo = 0, .hi = 3,
      .doc = "Training: ZeRO sharding over the data-parallel replicas (1: optimizer states; 2: and gradients; "
             "3, FSDP: and weights)."),
    /* npusim's own: training rematerialisation; "full" recomputes every
     * layer's forward pass in the backward pass. */
    S(source, "", FF_EXT,
      .doc = "Where the model's figures come from (e.g. the Hugging Face config it was imported from); "
             "documentation only."),
    S(remat, "none", FF_EXT, .one_of = "none|full",
      .doc = "Training rematerialisation: full recomputes each layer's forward pass in the backward pass."),
    /* npusim's own: attention and FFN read the same normalised input and
     * their outputs are summed (GPT-J, PaLM); false: one after the other. */
    FIELD("parallel_attn_ffn", FT_BOOL, offsetof(struct model_config, parallel_attn_ffn), 0, NULL, FF_EXT,
          .doc = "Attention and FFN read the same normalised input and their outputs are summed (GPT-J, PaLM)."),
    /* npusim's own: Hugging Face's tie_word_embeddings (Gemma, small Llamas) */
    FIELD("tie_word_embeddings", FT_BOOL, offsetof(struct model_config, tie_word_embeddings), 0, NULL, FF_EXT,
          .doc = "The LM head uses the token embedding's weights: they are stored once (the parameter count "
                 "and, under the physical profile, the footprint)."),
    /* npusim's own: whether decode attention reads each K/V head once for its
     * query group (XQA-class kernels, FlashDecoding) or once per query head
     * (TensorRT-LLM's masked MHA kernel before v0.8: its XQA blog measured 2.4x
     * Llama-2-70B decode throughput on one H200 from the change). */
    FIELD("decode_kv_shared", FT_BOOL, offsetof(struct model_config, decode_kv_shared), 1, NULL, FF_EXT,
          .doc = "Grouped-query attention in decode reads each K/V head once for its query group (XQA-class "
                 "kernels); false: once per query head, as kernels without GQA support do (TensorRT-LLM before "
                 "v0.8). Physical profile only."),
    /* npusim's own: a prefix cache's hit. vLLM's V1 engine caches prompts by
     * default, and its benchmark_latency before PR 18639 (2025-05) reused one
     * set of prompts for warm-up and timed runs, so the timed prefill
     * computed only the block of each prompt holding its last token. */
    I(cached_prompt_tokens, 0, N | FF_EXT, .unit = "tokens",
      .doc = "Tokens at the start of each prompt whose KV cache is already held (an engine's prefix cache): "
             "prefill computes the other input_seqlen - cached_prompt_tokens tokens, which attend to the "
             "whole prompt; decode is unchanged. Below input_seqlen; LLM inference only."),
    /* npusim's own: local attention (opsgen/pattern.h). Mistral 7B v0.1 and
     * Phi-3 slide every layer (interval 0); Gemma 2 and gpt-oss alternate
     * (2); Gemma 3 has five local layers to a global one (6); Llama 4 attends
     * in chunks of 8192 with every fourth layer global. */
    I(sliding_window, 0, N | FF_EXT, .unit = "tokens",
      .doc = "Keys a local layer's query attends to at most (Hugging Face's sliding_window; Llama 4's "
             "attention_chunk_size with local_attention chunked); its KV cache holds that many tokens. "
             "0: every layer attends to the whole context."),
    I(full_attention_interval, 0, N | FF_EXT, .unit = "layers",
      .doc = "With a sliding_window: every this-many-th layer (the N-th, 2N-th, ...) attends to the whole "
             "context, the others locally (Gemma 2, gpt-oss: 2; Gemma 3: 6). 0: every layer is local."),
    I(first_full_attention_layer, -1, FF_EXT, .lo = -1, .hi = 1048576, .unit = "layers",
      .doc = "The first layer (0-based) that attends to the whole context, then every full_attention_interval-th "
             "after it (Step-3.7: 0, the first layer global); -1: the full_attention_interval-th layer (layer "
             "N - 1), as Gemma 2, Gemma 3 and Qwen3.5 place them."),
    I(full_attention_layers, -1, FF_EXT, .lo = -1, .hi = 1048576, .unit = "layers",
      .doc = "How many layers attend to the whole context when no interval places them (a hybrid whose "
             "layer_types put its attention layers irregularly, Granite 4.0-H-350M: 4 of 32): that many, "
             "spread evenly over the layers in place of full_attention_interval's pattern. Where they sit "
             "changes only how pipeline stages share them, and npusim gives each stage every kind of "
             "layer in proportion. -1: the interval's pattern."),
    I(ffn_layers, -1, FF_EXT, .lo = -1, .hi = 1048576, .unit = "layers",
      .doc = "How many layers have an FFN when some have none (Nemotron-H, whose blocks hold one mixer or "
             "one FFN: its FFN blocks over its mixer layers): that many, spread evenly, the others only "
             "their attention or linear mixer. -1: every layer. LLM inference."),
    S(local_attention, "sliding", FF_EXT, .one_of = "sliding|chunked",
      .doc = "How a local layer attends: sliding (the last sliding_window keys) or chunked (the keys of its "
             "own chunk of sliding_window tokens, Llama 4)."),
    /* npusim's own: Gated DeltaNet or Mamba-2 layers (Qwen3-Next, Qwen3.5;
     * Granite 4.0-H, Bamba): a linear attention whose per-sequence state of
     * value heads x key_dim x value_dim replaces the KV cache
     * (opsgen/linear_attn.h). */
    I(linear_value_heads, 0, N | FF_EXT, .hi = 65536, .unit = "heads",
      .doc = "Value heads of the linear-attention layers (Gated DeltaNet, or Mamba-2's heads: linear_kind), 0: "
             "none. With it, every layer but each full_attention_interval-th is linear (Qwen3-Next, Qwen3.5: 3 "
             "of 4; or all but full_attention_layers of them), its state "
             "linear_value_heads x linear_key_dim x linear_value_dim per sequence in place of a KV cache; "
             "no sliding_window with it. LLM inference only."),
    I(linear_key_heads, 0, N | FF_EXT, .hi = 65536, .unit = "heads",
      .doc = "Query and key heads of a linear-attention layer; divides linear_value_heads (0: as many as the "
             "value heads)."),
    I(linear_key_dim, 128, P | FF_EXT, .lo = 1, .hi = 4096, .unit = "elements",
      .doc = "Width of a linear-attention layer's query and key heads."),
    I(linear_value_dim, 128, P | FF_EXT, .lo = 1, .hi = 4096, .unit = "elements",
      .doc = "Width of a linear-attention layer's value heads."),
    I(linear_conv_kernel, 4, P | FF_EXT, .lo = 1, .hi = 64, .unit = "tokens",
      .doc = "Taps of the short causal convolution over a linear-attention layer's queries, keys and values "
             "(its last linear_conv_kernel - 1 inputs stay in each sequence's state)."),
    FIELD("attention_output_gate", FT_BOOL, offsetof(struct model_config, attention_output_gate), 0, NULL, FF_EXT,
          .doc = "The attention layers' W_q also projects a gate of their output, twice the query heads' width "
                 "(Qwen3-Next, Qwen3.5: attn_output_gate); under latent attention a projection of the input to the "
                 "heads' values gates them (Kimi K3: mla_use_output_gate). Inference."),
    I(global_d_head, 0, N | FF_EXT, .hi = 65536, .unit = "elements",
      .doc = "Head width of the global layers (those attending to the whole context) when it differs from the "
             "local ones' d_head (Gemma 4: 512 beside 256); 0: d_head. Their queries, keys, values and KV cache "
             "take it. LLM inference."),
    I(global_num_kv_heads, 0, N | FF_EXT, .hi = 65536, .unit = "heads",
      .doc = "K/V heads of the global layers when they differ from num_kv_heads (Gemma 4: 4 beside 16); 0: "
             "num_kv_heads. LLM inference."),
    FIELD("global_k_eq_v", FT_BOOL, offsetof(struct model_config, global_k_eq_v), 0, NULL, FF_EXT,
          .doc = "The global layers' values come from their keys' projection, so they have no W_v (Gemma 4's "
                 "attention_k_eq_v); the cache still keeps K and V, normalised apart. LLM inference."),
    I(d_head_v, 0, N | FF_EXT, .hi = 65536, .unit = "elements",
      .doc = "Width of the value heads when it differs from the query and key heads' d_head (MiMo-V2-Flash: "
             "128 beside 192; Hugging Face's v_head_dim); 0: d_head. W_v, W_o and the cache's values take it. "
             "LLM inference."),
    I(kv_shared_layers, 0, N | FF_EXT, .hi = 65536, .unit = "layers",
      .doc = "The last that-many layers read the K/V of an earlier layer of their kind (Gemma 4 E2B and E4B: "
             "num_kv_shared_layers): no K/V projections and no KV cache of their own. LLM inference."),
    I(kv_shared_d_ff, 0, N | FF_EXT, .hi = 16777216, .unit = "elements",
      .doc = "The FFN width of those layers when it differs from d_ff (Gemma 4 E2B's double-wide MLP: 2 x "
             "d_ff); 0: d_ff."),
    I(per_layer_input_dim, 0, N | FF_EXT, .hi = 65536, .unit = "elements",
      .doc = "Per-layer inputs (Gemma 4 E2B and E4B: hidden_size_per_layer_input): each token looks up "
             "num_layers x this many elements in a table of its own, adds a projection of the embedded token, "
             "and every layer gates its slice in (d_model to this width and back); 0: none. LLM inference."),
    I(per_layer_vocab_size, 0, N | FF_EXT, .hi = 16777216, .unit = "tokens",
      .doc = "Rows of the per-layer input table (vocab_size_per_layer_input); 0: vocab_size."),
    S(linear_kind, "gated_deltanet", FF_EXT, .one_of = "gated_deltanet|kda|lightning|mamba|mamba2|short_conv",
      .doc = "What the linear layers are: gated_deltanet (Qwen3-Next, Qwen3.5: queries and keys of "
             "linear_key_heads, a decay and a write strength per value head, the delta rule) or mamba2 "
             "(Mamba-2's state-space duality, Granite 4.0-H, Bamba: B and C of linear_key_heads groups of "
             "linear_key_dim state, x of linear_value_heads heads of linear_value_dim, one step size per "
             "head, a biased convolution and a skip D; its state linear_value_heads x linear_value_dim x "
             "linear_key_dim) or short_conv (LFM2's gated short convolution over linear_value_heads x "
             "linear_value_dim channels: B, C and x projected from the input, a depthwise causal convolution "
             "of linear_conv_kernel taps over B x, times C, projected out; no recurrent state, only the "
             "convolution's last taps) or kda (Kimi Delta Attention, Kimi Linear and K3: gated_deltanet's "
             "recurrence with a decay per key channel, projected from the input like the output gate, "
             "full rank or through linear_gate_rank) or lightning (MiniMax-Text-01's and M1's lightning "
             "attention: no delta rule, a fixed decay a head, no convolution, a sigmoid output gate) or mamba "
             "(Mamba-1's selective scan, Jamba: linear_value_heads channels of linear_value_dim 1, a state of "
             "linear_key_dim each, B, C and the step from the channels through linear_dt_rank)."),
    I(linear_dt_rank, 0, N | FF_EXT, .hi = 65536, .unit = "elements",
      .doc = "mamba: the rank of the step size's projection (Jamba's mamba_dt_rank); 0: ceil(d_model / 16), "
             "Mamba's \"auto\"."),
    I(linear_gate_rank, 0, N | FF_EXT, .hi = 65536, .unit = "elements",
      .doc = "kda: the rank of the decay's and the output gate's projections (Kimi Linear: head_dim, each "
             "d_model to the rank and the rank to the heads' width); 0: full rank (Kimi K3's "
             "use_full_rank_gate)."),
    I(linear_chunk_size, 0, N | FF_EXT, .hi = 65536, .unit = "tokens",
      .doc = "Tokens a prefill kernel of the linear layers takes as one chunk (0: the kind's, 64 for "
             "gated_deltanet as flash-linear-attention, 256 for mamba2 as Mamba-2's chunk_size)."),
    S(linear_state_dtype, "fp32", FF_EXT, .one_of = "fp32|bf16|fp16",
      .doc = "Format of the linear-attention state (Hugging Face's mamba_ssm_dtype; fp32 as Qwen3.5 keeps it)."),
    /* npusim's own: the number formats of the weights (int8 or int4 with bf16
     * activations: weight-only quantisation), activations and KV cache. */
    S(weight_dtype, "bf16", FF_EXT, .one_of = MODEL_FORMATS,
      .doc = "Format of the weights; a matmul computes in the wider of its operands' formats (int4 weights with "
             "bf16 activations: weight-only quantisation)."),
    S(activation_dtype, "bf16", FF_EXT, .one_of = MODEL_FORMATS, .doc = "Format of the activations."),
    S(kv_cache_dtype, "bf16", FF_EXT, .one_of = MODEL_FORMATS, .doc = "Format of the KV cache."),
    /* npusim's own: block scales (128 and 128 as DeepSeek-V3's fp8; 128 and 1
     * as group-wise int4), 0: per-tensor scales, nothing to model. */
    I(scale_block, 0, N | FF_EXT, .lo = 0, .hi = 65535, .unit = "elements",
      .doc = "Elements along K per scale of 8-bit and narrower tensors (128: DeepSeek-V3's fp8); 0: per-tensor scales."),
    I(weight_scale_block_n, 0, N | FF_EXT, .lo = 0, .hi = 65535, .unit = "elements",
      .doc = "Elements along N per weight scale (1: group-wise int4); 0: square blocks of scale_block."),
    S(scale_dtype, "fp32", FF_EXT, .one_of = "fp32|bf16|fp16|fp8|fp8_e4m3|fp8_e5m2", .doc = "Format of the block scales."),
};
TABLE(model_llm_fields, "model", llm_list);

static const struct field_desc moe_list[] = {
    S(router_type, "topk", 0, .one_of = "topk", .doc = "Routing: each token goes to its top-k experts."),
    /* Generators build ops per activated and shared expert: bounded like real MoEs. */
    I(num_shared_experts, 1, N, .lo = 0, .hi = 1024, .doc = "Experts every token goes through."),
    I(num_routed_experts, 256, P, .lo = 1, .hi = 65536, .doc = "Experts tokens are routed among."),
    I(num_activated_routed_experts_per_token, 8, P, .lo = 1, .hi = 1024, .doc = "Routed experts per token (the k of top-k)."),
    I(num_limited_groups, 4, P, .doc = "Device groups a token's experts are limited to: the all-to-all's fan-out."),
    I(moe_d_ff, -1, 0, .doc = "Hidden size of each expert's feed-forward network (absent: d_ff)."),
    I(expert_parallelism_degree, 1, P, .doc = "Expert-parallel ways within a pod: the experts split over that many chips."),
    I(num_expert_parallel_axes, 1, N, .doc = AXES_DOC("expert-parallel")),
    I(expert_parallel_degree_dcn, 1, P, .doc = "Expert-parallel ways across pods, over DCN."),
    /* npusim's own: how much more than the mean the busiest expert of a
     * device receives (routing imbalance; 1 = perfectly balanced). */
    DB(moe_imbalance_factor, 1.0, FF_EXT, .lo = 1.0, .hi = 1024.0,
       .doc = "How many times the mean load the busiest expert receives (1: balanced routing)."),
    S(expert_weight_dtype, "same", FF_EXT, .one_of = "same|" MODEL_FORMATS,
      .doc = "Format of the experts' weights, routed and shared, when it differs from weight_dtype (gpt-oss: "
             "fp4 experts, MXFP4, beside bf16 attention; an NVFP4 DeepSeek: fp4 experts beside fp8 "
             "attention); same: weight_dtype."),
    I(moe_latent_size, 0, N | FF_EXT, .hi = 1048576, .unit = "elements",
      .doc = "LatentMoE (Nemotron 3 Super and Ultra; Kimi K3's routed_expert_hidden_size): the router reads "
             "the d_model-wide token, a projection takes it to this width before the all-to-all and the routed "
             "experts, which run at it, and another brings their sum back; shared experts stay at d_model. 0: "
             "none. LLM inference."),
};
TABLE(model_moe_fields, "model", moe_list);

static const struct field_desc deepseek_list[] = {
    I(num_dense_layers, 1, N, .unit = "layers",
      .doc = "The first layers, with a dense FFN of d_ff (physical; the reference runs every layer's FFN as the "
             "mixture of experts, quirk mla_dense_layers_as_moe)."),
    I(kv_lora_rank, 0, FF_REQUIRED | P, .doc = "Rank of the compressed key-value latent (MLA)."),
    I(q_lora_rank, 0, FF_REQUIRED | N,
      .doc = "Rank of the compressed query latent (MLA); 0: the query is projected directly (DeepSeek-V2-Lite)."),
    I(qk_rope_head_dim, 0, FF_REQUIRED | P, .doc = "Per-head query-key dimensions that carry rotary position."),
    I(qk_nope_head_dim, 0, FF_REQUIRED | P, .doc = "Per-head query-key dimensions without position."),
    I(v_head_dim, 0, FF_REQUIRED | P, .doc = "Per-head value dimensions."),
    /* npusim's own: DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): a
     * lightning indexer scores every cached token in fp8 and MLA attends to
     * the top index_topk (opsgen/deepseek.h). */
    I(index_topk, 0, N | FF_EXT, .hi = 16777216, .unit = "tokens",
      .doc = "DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): the keys each query attends to, picked by an "
             "indexer that scores the whole context; 0: every key (dense MLA)."),
    I(index_heads, 64, P | FF_EXT, .lo = 1, .hi = 4096, .unit = "heads", .doc = "The sparse-attention indexer's query heads."),
    I(index_head_dim, 128, P | FF_EXT, .lo = 1, .hi = 4096, .unit = "elements",
      .doc = "Width of the indexer's heads and of each token's index key (cached in fp8 with an fp32 scale)."),
};
TABLE(model_deepseek_fields, "model", deepseek_list);

/* npusim's own: the layer pattern of a mixture of experts over standard
 * attention (ffn_type "moe"): DeepSeek's first dense layers
 * (first_k_dense_replace) and Llama 4's and Qwen-MoE's interleaving
 * (interleave_moe_layer_step, decoder_sparse_step). */
static const struct field_desc moe_layers_list[] = {
    I(num_dense_layers, 0, N | FF_EXT, .unit = "layers",
      .doc = "The first layers, with a dense FFN of d_ff; the mixture of experts starts after them."),
    S(expert_ffn, "gated", FF_EXT, .one_of = "gated|relu2",
      .doc = "Each expert's FFN: gated (gate, up and down with SiLU: Mixtral, Qwen, gpt-oss) or relu2 (up "
             "and down with a squared ReLU: Nemotron-H). LLM inference."),
    I(moe_layer_step, 1, P | FF_EXT, .lo = 1, .hi = 1024, .unit = "layers",
      .doc = "After the dense layers, every this-many-th layer is a mixture of experts, the others dense "
             "(Llama 4 Maverick: 2; 1: every layer)."),
};
TABLE(model_moe_layers_fields, "model", moe_layers_list);

static const struct field_desc dit_list[] = {
    I(image_width, 0, FF_REQUIRED | P, .unit = "pixels", .doc = "Side of the square image the transformer sees."),
    I(num_channels, 0, FF_REQUIRED | P, .doc = "Unused (the reference reads it)."),
    I(patch_size, 0, FF_REQUIRED | P, .unit = "pixels",
      .doc = "Side of each patch: (image_width / patch_size)^2 tokens per image."),
    I(num_diffusion_steps, 0, FF_REQUIRED | P, .lo = 1, .hi = 10000, .doc = "Denoising steps per image."),
};
TABLE(model_dit_fields, "model", dit_list);

static const struct field_desc dlrm_list[] = {
    I(embedding_dim, 0, FF_REQUIRED | P, .doc = "Width of each embedding vector."),
    L(num_indices_per_lookup, NULL, FF_REQUIRED | P, .doc = "Rows gathered per sample from each table (pooling factor)."),
    L(embedding_table_sizes, NULL, FF_REQUIRED | P, .unit = "rows", .doc = "Rows of each embedding table."),
    I(num_dense_features, 0, FF_REQUIRED | P, .doc = "Unused (the reference reads it; the bottom MLP's input says it)."),
    LAYERS(bottom_mlp_config, FF_REQUIRED, .doc = "The MLP over the dense features: [{in_features, out_features}, ...]."),
    LAYERS(top_mlp_config, FF_REQUIRED, .doc = "The MLP over the interactions: [{in_features, out_features}, ...]."),
    S(interaction, "dot", 0, .one_of = "dot", .doc = "Feature interaction: pairwise dot products."),
};
TABLE(model_dlrm_fields, "model", dlrm_list);

static const struct field_desc gligen_list[] = {
    I(num_diffusion_steps, 1, P, .lo = 1, .hi = 10000, .doc = "Denoising steps simulated."),
    I(total_num_diffusion_steps, 40, P, .lo = 1, .hi = 10000,
      .doc = "Denoising steps per image: a request's latency and throughput count this many runs of the simulated steps."),
    L(image_resolution, "512,512", P, .unit = "pixels", .doc = "Output image height and width (two items)."),
    I(image_num_channels, 3, P, .doc = "Colour channels of the output image."),
    B(use_flash_attention, 0, .doc = "Fused attention: the score matrix never goes to HBM."),
    S(output_dir, "./llava_ops", 0, .doc = "Unused (the reference's output folder)."),
    NL("unet_config.noisy_latent_resolution", noisy_latent_resolution, "64,64", P, .unit = "pixels",
       .doc = "Latent height and width the U-Net denoises."),
    NI("unet_config.model_channels", model_channels, 320, P, .doc = "Channels of the U-Net's first level."),
    NL("unet_config.attention_resolutions", attention_resolutions, "4,2,1", 0,
       .doc = "Downsampling factors at which the U-Net has attention blocks."),
    NI("unet_config.num_res_blocks", num_res_blocks, 2, P, .lo = 1, .hi = 64, .doc = "Residual blocks per U-Net level."),
    NL("unet_config.channel_mult", channel_mult, "1,2,4,4", P,
       .doc = "Channel multiplier of each U-Net level (its length is the number of levels)."),
    NI("unet_config.num_heads", unet_num_heads, 8, P, .doc = "Attention heads in the U-Net."),
    NI("unet_config.context_dim", context_dim, 768, P, .doc = "Width of the text context cross-attention reads."),
    NI("grounding_input_config.text.input_seqlen", text_input_seqlen, 512, P, .unit = "tokens",
       .doc = "Text tokens of the prompt."),
    NI("grounding_input_config.bbox.input_seqlen", bbox_input_seqlen, 8, P, .unit = "boxes",
       .doc = "Grounding boxes per image."),
    NI("grounding_input_config.bbox.grounding_token_feature_dim", grounding_token_feature_dim, 768, P,
       .doc = "Unused (the reference stores it)."),
};
TABLE(model_gligen_fields, "model", gligen_list);

/* Keys an LLM-family model file must spell out: the reference has defaults
 * for them, but a model without its dimensions is a mistake, not a llama. */
static const char *const llm_required[] = { "d_model", "num_heads", "d_head", "d_ff", "num_layers" };

int model_all_tables(const struct field_table **out, int max)
{
    const struct field_table *all[] = { &model_base_fields, &model_llm_fields, &model_moe_fields,
                                        &model_deepseek_fields, &model_moe_layers_fields, &model_dit_fields, &model_dlrm_fields,
                                        &model_gligen_fields };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++)
        out[n++] = all[i];
    return n;
}

static bool is_moe(const struct model_config *m)
{
    return strcmp(m->ffn_type, "deepseek_moe") == 0 || strstr(m->model_name, "deepseek") != NULL;
}

int model_tables(const struct model_config *m, const struct field_table **out, int max)
{
    int n = 0;
    if (n < max)
        out[n++] = &model_base_fields;
    if (strcmp(m->model_type, "llm") == 0 || strcmp(m->model_type, "dit") == 0) {
        if (n < max)
            out[n++] = &model_llm_fields;
        if (strcmp(m->model_type, "llm") == 0 && is_moe(m) && n + 1 < max) {
            out[n++] = &model_moe_fields;
            out[n++] = &model_deepseek_fields;
        } else if (strcmp(m->model_type, "llm") == 0 && !strcmp(m->ffn_type, "moe") && n + 1 < max) {
            out[n++] = &model_moe_fields;
            out[n++] = &model_moe_layers_fields;
        }
        if (strcmp(m->model_type, "dit") == 0 && n < max)
            out[n++] = &model_dit_fields;
    } else if (strcmp(m->model_type, "dlrm") == 0 && n < max)
        out[n++] = &model_dlrm_fields;
    else if (strcmp(m->model_type, "gligen") == 0 && n < max)
        out[n++] = &model_gligen_fields;
    return n;
}

int model_config_from_json(struct model_config *m, const cJSON *json, field_sources *src,
                           struct npu_err *e)
{
    /* Defaults only from the tables that apply: a key may sit in two families'
     * tables with different defaults (use_flash_attention: LLM true, GLIGEN false). */
    memset(m, 0, sizeof *m);
    fields_set_defaults(&model_base_fields, m);
    if (fields_from_json(&model_base_fields, m, json, src, e))
        return -1;
    /* ffn_type decides the MoE tables; read it before choosing tables. DiT's
     * class overrides the LLM defaults (ffn "default", sequence lengths 0). */
    if (strcmp(m->model_type, "llm") == 0 && json) {
        const cJSON *ffn = cJSON_GetObjectItemCaseSensitive(json, "ffn_type");
        if (cJSON_IsString(ffn) && strlen(ffn->valuestring) < FIELD_STR_MAX)
            strcpy(m->ffn_type, ffn->valuestring);
        for (size_t i = 0; i < sizeof llm_required / sizeof llm_required[0]; i++)
            if (!cJSON_GetObjectItemCaseSensitive(json, llm_required[i])) {
                const cJSON *s = src ? cJSON_GetObjectItemCaseSensitive(src, "model_type") : NULL;
                return npu_errf(e, "%s: model field \"%s\" is missing",
                                cJSON_IsString(s) ? s->valuestring : "<config>", llm_required[i]);
            }
    }
    const struct field_table *t[8];
    char ffn[FIELD_STR_MAX];
    memcpy(ffn, m->ffn_type, sizeof ffn);
    int n = model_tables(m, t, 8);
    for (int i = 1; i < n; i++)
        fields_set_defaults(t[i], m);
    if (ffn[0])
        memcpy(m->ffn_type, ffn, sizeof ffn);   /* read from the JSON above */
    if (strcmp(m->model_type, "dit") == 0) {
        strcpy(m->ffn_type, "default");
        m->input_seqlen = 0;
        m->output_seqlen = 0;
    }
    for (int i = 1; i < n; i++)
        if (fields_from_json(t[i], m, json, src, e))
            return -1;
    /* Implicit defaults of the reference (opsgen Q39). */
    if (!cJSON_GetObjectItemCaseSensitive(json, "num_kv_heads"))
        m->num_kv_heads = cJSON_GetObjectItemCaseSensitive(json, "num_heads") ? m->num_heads : 64;
    if (!cJSON_GetObjectItemCaseSensitive(json, "moe_d_ff"))
        m->moe_d_ff = m->d_ff;
    /* DeepSeek's shared expert is the table's default; other mixtures have
     * none unless the file says (Mixtral, Qwen3-MoE, gpt-oss). */
    if (!strcmp(m->ffn_type, "moe") && !cJSON_GetObjectItemCaseSensitive(json, "num_shared_experts"))
        m->num_shared_experts = 0;
    /* Grouped-query attention: each KV head serves num_heads / num_kv_heads
     * query heads, so it must divide them (-1: one KV head per query head). */
    bool llm = false;
    for (int i = 1; i < n; i++)
        llm |= t[i] == &model_llm_fields;
    if (llm && m->num_kv_heads != -1 && (m->num_kv_heads < 1 || m->num_heads % m->num_kv_heads)) {
        const cJSON *s = src ? cJSON_GetObjectItemCaseSensitive(src, "num_kv_heads") : NULL;
        return npu_errf(e, "%s: model field \"num_kv_heads\": expected a divisor of num_heads (%lld) "
                           "or -1, got %lld", cJSON_IsString(s) ? s->valuestring : "<config>",
                        (long long)m->num_heads, (long long)m->num_kv_heads);
    }
    return 0;
}
