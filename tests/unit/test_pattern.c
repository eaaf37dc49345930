/* test_pattern.c — layer patterns and local attention (opsgen/pattern.h):
 * key counts of a sliding window and of chunks by hand, the layers each
 * pattern makes local or expert, a pipeline stage's share, and what the
 * footprint, the parameters and the trace make of them. */
#include "testutil.h"
#include "testutil_model.h"

#include <string.h>

#include "opsgen/deepseek.h"
#include "opsgen/opsgen.h"
#include "opsgen/pattern.h"
#include "opsgen/train.h"
#include "traces/profile.h"

static void test_keys(void **s)
{
    (void)s;
    struct model_config m;
    load_model(&m, "llama3-8b");
    bool ovf = false;
    m.sliding_window = 4;
    strcpy(m.local_attention, "sliding");
    /* positions 1..10 see 1, 2, 3, 4, then 4 each: 10 + 6 x 4 */
    assert_int_equal(pattern_local_keys(&ovf, &m, 0, 10), 34);
    assert_int_equal(pattern_local_keys(&ovf, &m, 8, 10), 8);
    assert_int_equal(pattern_local_keys(&ovf, &m, 0, 3), 6);     /* inside the window: causal */
    assert_int_equal(pattern_local_cache(&m, 3), 3);
    assert_int_equal(pattern_local_cache(&m, 10), 4);
    strcpy(m.local_attention, "chunked");
    /* chunks of 4: 1+2+3+4 twice, then 1+2 */
    assert_int_equal(pattern_local_keys(&ovf, &m, 0, 10), 23);
    assert_int_equal(pattern_local_keys(&ovf, &m, 4, 5), 1);     /* a chunk's first query */
    assert_false(ovf);
}

static void test_groups(void **s)
{
    (void)s;
    struct model_config m;
    struct layer_groups g;
    load_model(&m, "gemma3-27b");   /* 62 layers, every 6th global: 6, 12, ..., 60 */
    assert_true(pattern_layer_local(&m, 0));
    assert_false(pattern_layer_local(&m, 5));
    assert_int_equal(pattern_local_layers(&m), 52);
    pattern_stage_groups(&m, 31, &g);   /* half of each group on a stage of two */
    assert_int_equal(g.n, 2);
    assert_int_equal(g.g[0].layers + g.g[1].layers, 31);
    assert_int_equal(g.g[0].local ? g.g[0].layers : g.g[1].layers, 26);
    /* Step-3.7-Flash: the first layer global, then every fourth: 0, 4, ..., 44 of 45, 33 local */
    m.num_layers = 45, m.sliding_window = 512, m.full_attention_interval = 4, m.first_full_attention_layer = 0;
    assert_false(pattern_layer_local(&m, 0));
    assert_true(pattern_layer_local(&m, 3));
    assert_false(pattern_layer_local(&m, 44));
    assert_int_equal(pattern_local_layers(&m), 33);
    m.first_full_attention_layer = -1;   /* the default: layers 3, 7, ..., 43, 34 local */
    assert_int_equal(pattern_local_layers(&m), 34);
    load_model(&m, "mixtral-8x7b");
    pattern_groups(&m, &g);
    assert_int_equal(g.n, 1);
    assert_true(g.g[0].moe);
    assert_int_equal(g.g[0].layers, 32);
    m.num_dense_layers = 3;    /* DeepSeek's dense first layers */
    m.moe_layer_step = 2;      /* then Llama 4 Maverick's every other layer: 4, 6, ..., 32 (1-based) */
    assert_false(pattern_layer_moe(&m, 2));
    assert_false(pattern_layer_moe(&m, 3));
    assert_true(pattern_layer_moe(&m, 4));
    pattern_groups(&m, &g);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.g[0].moe ? g.g[1].layers : g.g[0].layers, 3 + 15);
}

/* The footprint: a local layer holds its window's K/V. llama3-8b with 16 of
 * its 32 layers sliding over 1024 tokens, batch 1, 8192 + 1024 tokens at
 * decode: the KV cache drops by 16 layers x (9216 - 1024) tokens x 2 x 8
 * heads x 128 x 2 bytes. */
static void test_memory(void **s)
{
    (void)s;
    struct model_config m;
    load_model(&m, "llama3-8b");
    const struct profile *p = profile_by_name("physical");
    m.input_seqlen = 8192, m.output_seqlen = 1024, m.microbatch_size_ici = 1;
    int64_t full = opsgen_llm_inference_mem_bytes(&m, PHASE_DECODE, p);
    m.sliding_window = 1024, m.full_attention_interval = 2;
    int64_t local = opsgen_llm_inference_mem_bytes(&m, PHASE_DECODE, p);
    assert_int_equal(full - local, (int64_t)16 * (9216 - 1024) * 2 * 8 * 128 * 2);
    /* the parameters do not change */
    int64_t t1, a1, t2, a2;
    opsgen_model_params(&m, &t1, &a1);
    m.sliding_window = 0;
    opsgen_model_params(&m, &t2, &a2);
    assert_int_equal(t1, t2);
}

/* A mixture's parameters by hand: D 8, 2 heads of 4, 1 KV head, 2 layers,
 * vocabulary 10, 4 experts of width 6, top 2, one shared: attention 192 a
 * layer, an expert 3 x 8 x 6 = 144, the router 4 x 8 = 32, norms 2 x 8 a
 * layer and 8, embedding and head 160. */
static void test_moe_params(void **s)
{
    (void)s;
    struct model_config m;
    load_model(&m, "mixtral-8x7b");
    m.d_model = 8, m.num_heads = 2, m.d_head = 4, m.num_kv_heads = 1, m.num_layers = 2, m.vocab_size = 10;
    m.num_routed_experts = 4, m.num_activated_routed_experts_per_token = 2, m.moe_d_ff = 6, m.num_shared_experts = 1;
    int64_t t, a;
    opsgen_model_params(&m, &t, &a);
    assert_int_equal(t, 2 * (192 + 5 * 144 + 32 + 16) + 8 + 160);
    assert_int_equal(a, 2 * (192 + 3 * 144 + 32 + 16) + 8 + 160);
}

/* Mixtral 8x7B on one chip, batch 8, 16 tokens in and 4 out. */
static void mixtral_b8(struct model_config *m)
{
    load_model(m, "mixtral-8x7b");
    m->num_chips = 1, m->microbatch_size_ici = 8, m->global_batch_size = 8, m->input_seqlen = 16, m->output_seqlen = 4;
}

/* m's inference trace under physical into t (initialised here). */
static void infer_physical(const struct model_config *m, struct trace *t)
{
    struct npu_err e;
    bool ovf = false;
    trace_init(t);
    assert_int_equal(opsgen_llm_inference(m, test_opsgen_links(), &profile_physical, t, &ovf, &e), 0);
    assert_false(ovf);
}
/* Llama 3 8B decoding to 9216 tokens at batch 1 (8192 in, 1024 out), and
 * its parameters, active parameters and decode memory under physical: the
 * base the attention-shape tests below change. */
struct sizes { int64_t total, active, mem_bytes; };
static void llama_9k(struct model_config *m)
{
    load_model(m, "llama3-8b");
    m->input_seqlen = 8192, m->output_seqlen = 1024, m->microbatch_size_ici = 1;
}
static struct sizes sizes_of(const struct model_config *m)
{
    struct sizes z;
    opsgen_model_params(m, &z.total, &z.active);
    z.mem_bytes = opsgen_llm_inference_mem_bytes(m, PHASE_DECODE, profile_by_name("physical"));
    return z;
}

/* The global layers' own attention shape (Gemma 4's global_head_dim,
 * num_global_key_value_heads, attention_k_eq_v): Llama 3 8B with every
 * other layer local (a window of 1024) and its 16 global layers at heads of
 * 256 with 2 K/V heads and no W_v. A global layer's attention goes from
 * W_q, W_o 2 x 4096 x 32 x 128 and W_k, W_v 2 x 4096 x 8 x 128 (41,943,040)
 * to 2 x 4096 x 32 x 256 and W_k 4096 x 2 x 256 (69,206,016): 16 x
 * 27,262,976 more parameters. Decoding to 9216 tokens at batch 1, the
 * global layers' cache keeps K and V of 2 x 256 (1024 elements a token and
 * layer, was 2 x 8 x 128 = 2048): 16 x 9216 x 1024 x 2 bytes less, the
 * weights 16 x 27,262,976 x 2 bytes more, and a step's queries 32 x
 * (256 - 128) x 2 bytes more: 570,433,536 bytes. A decode step projects a
 * global layer's K alone (1x4096x2x256), a local one's K and V
 * (2x4096x8x128), each 16 layers x 4 steps. */
static void test_global_attention_shape(void **s)
{
    (void)s;
    struct model_config m;
    llama_9k(&m);
    m.sliding_window = 1024, m.full_attention_interval = 2;
    struct sizes z0 = sizes_of(&m);
    m.global_d_head = 256, m.global_num_kv_heads = 2, m.global_k_eq_v = true;
    struct sizes z1 = sizes_of(&m);
    assert_int_equal(z1.total - z0.total, 16LL * 27262976);
    assert_int_equal(z1.active - z0.active, 16LL * 27262976);
    assert_int_equal(z1.mem_bytes - z0.mem_bytes, 570433536LL);
    m.input_seqlen = 16, m.output_seqlen = 4;
    struct trace t;
    infer_physical(&m, &t);
    int global = 0, local = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        const char *c = cfg_text(o);
        if (o->phase != PHASE_DECODE || !strstr(c, "TMND->BTLND"))
            continue;
        assert_int_equal(o->count, 16 * 4);
        global += strstr(c, "b=1x4096x2x256") != NULL;
        local += strstr(c, "b=2x4096x8x128") != NULL;
    }
    assert_int_equal(global, 1);
    assert_int_equal(local, 1);
    trace_free(&t);
}

/* Value heads narrower than the queries' and keys' (d_head_v;
 * MiMo-V2-Flash's 128 beside 192): Llama 3 8B's values at 64 lose W_v
 * 4096 x 8 x 64 and W_o 32 x 64 x 4096 a layer, 32 x 10,485,760 =
 * 335,544,320 parameters. Decoding to 9216 tokens at batch 1 the cache
 * keeps 8 x 64 fewer elements a token and layer: 32 x 9216 x 512 x 2 bytes
 * less, the weights 335,544,320 x 2 bytes less: 973,078,528 bytes. A decode
 * step projects K (4096x8x128) and V (4096x8x64) apart, and W_o reads
 * 32x64x4096; each 32 layers x 4 steps. */
static void test_value_width(void **s)
{
    (void)s;
    struct model_config m;
    llama_9k(&m);
    struct sizes z0 = sizes_of(&m);
    m.d_head_v = 64;
    struct sizes z1 = sizes_of(&m);
    assert_int_equal(z0.total - z1.total, 335544320LL);
    assert_int_equal(z0.active - z1.active, 335544320LL);
    assert_int_equal(z0.mem_bytes - z1.mem_bytes, 973078528LL);
    m.input_seqlen = 16, m.output_seqlen = 4;
    struct trace t;
    infer_physical(&m, &t);
    int k = 0, v = 0, o_proj = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        const char *c = cfg_text(o);
        if (o->phase != PHASE_DECODE)
            continue;
        k += strstr(c, "b=4096x8x128,") && strstr(c, "BLM;MND->BLND") && o->count == 32 * 4;
        v += strstr(c, "b=4096x8x64,") && strstr(c, "BLM;MND->BLND") && o->count == 32 * 4;
        o_proj += strstr(c, "b=32x64x4096,") && o->count == 32 * 4;
        assert_null(strstr(c, "TMND->BTLND"));   /* no joint K/V product */
    }
    assert_int_equal(k, 1);
    assert_int_equal(v, 1);
    assert_int_equal(o_proj, 1);
    trace_free(&t);
}

/* Gemma 4 E2B's layers that read earlier layers' K/V, their double-wide
 * MLP and per-layer inputs (kv_shared_layers, kv_shared_d_ff,
 * per_layer_input_dim), on Llama 3 8B: its last 8 layers lose W_k and W_v
 * (8 x 2 x 4096 x 8 x 128) and gain an FFN of 28672 (8 x 3 x 4096 x 14336
 * more); inputs of 64 a layer add the table and projection (128256 + 4096)
 * x 32 x 64 and each layer's gate and projection 2 x 4096 x 64: 1,630,011,392
 * parameters more. Decoding to 9216 tokens at batch 1, 8 layers keep no
 * cache (8 x 9216 x 2 x 8 x 128 x 2 bytes less), the weights take
 * 1,630,011,392 x 2 bytes more and a step's FFN activations 2 x 14336 x 2:
 * 2,958,090,240 bytes more. A decode step projects K/V in 24 layers and
 * gates its per-layer input in all 32. */
static void test_kv_shared_and_per_layer_inputs(void **s)
{
    (void)s;
    struct model_config m;
    llama_9k(&m);
    struct sizes z0 = sizes_of(&m);
    m.kv_shared_layers = 8, m.kv_shared_d_ff = 28672, m.per_layer_input_dim = 64;
    struct sizes z1 = sizes_of(&m);
    assert_int_equal(z1.total - z0.total, 1630011392LL);
    assert_int_equal(z1.active - z0.active, 1630011392LL);
    assert_int_equal(z1.mem_bytes - z0.mem_bytes, 2958090240LL);
    m.input_seqlen = 16, m.output_seqlen = 4;
    struct trace t;
    infer_physical(&m, &t);
    int64_t kv = 0, gate = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        const char *c = cfg_text(o);
        if (o->phase != PHASE_DECODE)
            continue;
        kv += strstr(c, "TMND->BTLND") ? o->count : 0;
        gate += strstr(o->description, "PerLayerInput") && strstr(c, "b=4096x64") ? o->count : 0;
    }
    assert_int_equal(kv, 24 * 4);
    assert_int_equal(gate, 32 * 4);
    trace_free(&t);
}

/* The routed experts run as a fused MoE kernel runs them (physical profile):
 * Mixtral 8x7B at batch 8 decodes 8 tokens a step; each of the 8 experts
 * receives one with probability 1 - 0.75^8 = 0.90, so all 8 are used (ceil
 * 7.2), with 8 x 0.25 / 0.90 = 2.2 tokens each (3, rounded up): one grouped
 * GEMM a projection over the 8 experts' 3 rows and 8 weights (2 x 8 x 3 x
 * 4096 x 14336 FLOPs, 8 x 4096 x 14336 bf16 weights), and one SiLU and one
 * product of 8 x 3 rows, a layer and step. 32 layers, 4 steps. */
static void test_moe_fused_activation(void **s)
{
    (void)s;
    struct model_config m;
    mixtral_b8(&m);
    struct trace t;
    infer_physical(&m, &t);
    int seen = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        if (o->phase != PHASE_DECODE || !strstr(o->description, "routed_experts"))
            continue;
        const char *c = cfg_text(o);
        if (strstr(c, "Silu(") || strstr(c, "Mul(")) {
            assert_non_null(strstr(c, "=8x3x14336"));
            assert_int_equal(o->count, 32 * 4);
            seen++;
        } else if (strstr(c, "a=8x3x4096,b=8x4096x14336")) {
            assert_int_equal(o->count, 32 * 4);
            assert_int_equal(o->flops, 2LL * 8 * 3 * 4096 * 14336);
            assert_int_equal(o->weight_bytes, 2LL * 8 * 4096 * 14336);
            assert_true(o->grouped);   /* chipsim's grouped_gemm kernel class */
            seen++;
        }
    }
    assert_int_equal(seen, 4);   /* SiLU, product, gate and up projections */
    trace_free(&t);
}

/* Ungated experts (expert_ffn relu2: Nemotron-H's): Mixtral's 8 experts at
 * batch 8 as above, each up and down with a squared ReLU. A decode step's
 * experts run two grouped GEMMs a layer (up 8x3x4096 by 8x4096x14336, down
 * back) and one activation over 8 x 3 rows, no gate and no product; the
 * parameters lose one of each expert's three matrices, 32 layers x 8 x 4096
 * x 14336. */
static void test_moe_relu2_experts(void **s)
{
    (void)s;
    struct model_config m;
    mixtral_b8(&m);
    int64_t t0, a0, t1, a1;
    opsgen_model_params(&m, &t0, &a0);
    strcpy(m.expert_ffn, "relu2");
    opsgen_model_params(&m, &t1, &a1);
    assert_int_equal(t0 - t1, 32LL * 8 * 4096 * 14336);
    assert_int_equal(a0 - a1, 32LL * 2 * 4096 * 14336);   /* top-2 */
    struct trace t;
    infer_physical(&m, &t);
    int gemms = 0, acts = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        if (o->phase != PHASE_DECODE || !strstr(o->description, "routed_experts"))
            continue;
        const char *c = cfg_text(o);
        assert_null(strstr(c, "Mul("));
        assert_null(strstr(c, "Silu("));
        if (strstr(c, "a=8x3x4096,b=8x4096x14336") || strstr(c, "a=8x3x14336,b=8x14336x4096")) {
            assert_true(o->grouped);
            gemms++;
        } else if (strstr(c, "Relu(x=8x3x14336")) {
            acts++;
        }
    }
    assert_int_equal(gemms, 2);
    assert_int_equal(acts, 1);
    trace_free(&t);
}

/* LatentMoE (moe_latent_size: Nemotron 3 Super's and Ultra's): Mixtral's
 * experts at a latent width of 1024 with fp8 experts beside bf16 weights.
 * Each routed expert's three matrices are 1024 x 14336 in place of 4096 x
 * 14336, and each layer gains the two projections of 4096 x 1024: 32 x 8 x 3
 * x 3072 x 14336 - 32 x 2 x 4096 x 1024 fewer parameters (top-2: 32 x 2 x 3 x
 * 3072 x 14336 - the same projections fewer active). A decode step at batch 8
 * (as test_moe_fused_activation: 8 experts of 3 rows) projects its 8 x 1
 * tokens down (8x1x4096 by 4096x1024) and back (8x1x1024 by 1024x4096), both
 * in the model's bf16 (2 x 4096 x 1024 bytes), once a layer and step; the
 * grouped up projection is 8x3x1024 by 8x1024x14336 in fp8 (8 x 1024 x 14336
 * bytes) and the combine weighs 8x1x2x1024. */
static void test_moe_latent(void **s)
{
    (void)s;
    struct model_config m;
    mixtral_b8(&m);
    int64_t t0, a0, t1, a1;
    opsgen_model_params(&m, &t0, &a0);
    m.moe_latent_size = 1024;
    strcpy(m.expert_weight_dtype, "fp8");
    opsgen_model_params(&m, &t1, &a1);
    assert_int_equal(t0 - t1, 32LL * 8 * 3 * 3072 * 14336 - 32LL * 2 * 4096 * 1024);
    assert_int_equal(a0 - a1, 32LL * 2 * 3 * 3072 * 14336 - 32LL * 2 * 4096 * 1024);
    struct trace t;
    infer_physical(&m, &t);
    int down = 0, up = 0, grouped = 0, combine = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        if (o->phase != PHASE_DECODE)
            continue;
        const char *c = cfg_text(o);
        if (!strcmp(o->description, "FFN_MoE_latent_down")) {
            assert_non_null(strstr(c, "a=8x1x4096,b=4096x1024"));
            assert_int_equal(o->weight_bytes, 2LL * 4096 * 1024);
            assert_int_equal(o->count, 32 * 4);
            down++;
        } else if (!strcmp(o->description, "FFN_MoE_latent_up")) {
            assert_non_null(strstr(c, "a=8x1x1024,b=1024x4096"));
            assert_int_equal(o->weight_bytes, 2LL * 4096 * 1024);
            up++;
        } else if (strstr(c, "a=8x3x1024,b=8x1024x14336")) {
            assert_true(o->grouped);
            assert_int_equal(o->weight_bytes, 8LL * 1024 * 14336);
            grouped++;
        } else if (!strcmp(o->description, "MoE_combine_weights")) {
            assert_non_null(strstr(c, "8x1x2x1024"));
            combine++;
        }
    }
    assert_int_equal(down, 1);
    assert_int_equal(up, 1);
    assert_int_equal(grouped, 2);   /* gate and up */
    assert_int_equal(combine, 1);
    trace_free(&t);
}

/* A mixture with dense layers (GLM-4.5's and ERNIE 4.5's first layers, Llama
 * 4 Maverick's every other): Mixtral with 3 dense first layers and then every
 * other layer a mixture has 3 + 15 = 18 dense layers and 14 of experts. The
 * dense ones run Mixtral's own gated SiLU FFN of d_ff 14336 on the step's
 * rows; the experts' as in test_moe_fused_activation. Decode at batch 8 over
 * 4 steps: the dense gate projection 8x1x4096 by 4096x14336, count 18 x 4; the
 * experts' SiLU 8x3x14336, count 14 x 4. Training, batch 2 of 16 tokens:
 * 32 tokens x top-2 / 8 experts, over the chance 1 - 0.75^32 that an expert
 * is woken, = 8.0008 rows an expert, rounded up to 9 (moe_load_of), all 8
 * woken; the dense SiLU's backward over 2x16x14336, count 18; the experts'
 * over 8 experts x 9 rows at once, count 14 (an op a layer, not an expert). */
static void test_moe_dense_layers(void **s)
{
    (void)s;
    struct model_config m;
    mixtral_b8(&m);
    m.num_dense_layers = 3, m.moe_layer_step = 2;
    struct trace t;
    infer_physical(&m, &t);
    int seen = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        const char *c = cfg_text(o);
        if (o->phase != PHASE_DECODE)
            continue;
        if (!strstr(o->description, "expert") && strstr(c, "a=8x1x4096,b=4096x14336")) {
            assert_int_equal(o->count, 18 * 4);   /* the dense gate and up projections */
            seen++;
        } else if (strstr(o->description, "routed_experts") && strstr(c, "Silu(")) {
            assert_non_null(strstr(c, "=8x3x14336"));
            assert_int_equal(o->count, 14 * 4);
            seen++;
        }
    }
    assert_int_equal(seen, 3);
    trace_free(&t);

    m.global_batch_size = 2, m.microbatch_size_ici = 2, m.output_seqlen = 1;
    trace_init(&t);
    int64_t params = 0;
    struct npu_err e;
    bool ovf = false;
    m.use_flash_attention = false;   /* training's attention is unfused */
    assert_int_equal(opsgen_llm_training(&m, test_opsgen_links(), &profile_physical, &t, &params, &ovf, &e), 0);
    seen = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        if (strstr(o->description, "Bwd-FFN_routed_experts-FFact")) {
            assert_non_null(strstr(cfg_text(o), "x=8x9x14336"));
            assert_int_equal(o->count, 14);
            seen++;
        } else if (!strcmp(o->description, "Bwd-FFN-encoder-FFact")) {
            assert_non_null(strstr(cfg_text(o), "x=2x16x14336"));
            assert_int_equal(o->count, 18);
            seen++;
        }
    }
    assert_int_equal(seen, 2);
    assert_false(ovf);
    trace_free(&t);
}

/* The prefill ops of m's DeepSeek trace under prof whose description is desc
 * and whose config has cfg: their count (-1: none). */
static int64_t ds_count(const struct model_config *m, const struct profile *prof, const char *desc, const char *cfg)
{
    struct trace t;
    struct npu_err e;
    bool ovf = false;
    trace_init(&t);
    assert_int_equal(opsgen_deepseek_inference(m, test_opsgen_links(), prof, &t, &ovf, &e), 0);
    int64_t n = -1;
    for (size_t i = 0; i < t.n; i++)
        if (t.ops[i].phase == PHASE_PREFILL && !strcmp(t.ops[i].description, desc) && strstr(cfg_text(&t.ops[i]), cfg))
            n = t.ops[i].count;
    trace_free(&t);
    return n;
}

/* DeepSeek-V3's 3 dense first layers (of 61) under physical: the gated SiLU
 * FFN of d_ff 18432, count 3, and the experts on the other 58 (256 each,
 * count 58 x 256 = 14848), and the footprint holds their weights; the
 * reference runs all 61 as MoE (quirk mla_dense_layers_as_moe). Four pipeline stages of 16 layers: the dense
 * group's share 3 x 16 / 61 = 0.79 and the experts' 58 x 16 / 61 = 15.21
 * floor to 0 and 15; the remainders 48 and 13 (of 61) give the last layer to
 * the dense group: 1 and 15. */
static void test_deepseek_dense_layers(void **s)
{
    (void)s;
    struct model_config m;
    load_model(&m, "deepseekv3-671b");
    m.num_chips = 1, m.input_seqlen = 512, m.output_seqlen = 2;   /* 512 x 8 tokens: every expert woken */
    const char *up = "b=7168x18432", *expert = "b=256x7168x2048";   /* a grouped GEMM over the 256 */
    assert_int_equal(ds_count(&m, &profile_physical, "Fwd-FFN-encoder-FFgate", up), 3);
    assert_int_equal(ds_count(&m, &profile_physical, "FFN_routed_experts-Fwd-FFN-encoder-FFgate", expert), 58);
    assert_int_equal(ds_count(&m, &profile_neusim, "Fwd-FFN-encoder-FFgate", up), -1);
    /* the footprint (the model's bf16 weights, 2 bytes each): each dense layer
     * holds 3 x 7168 x 18432 where a MoE layer holds 257 experts of 3 x 7168 x
     * 2048 and a 256 x 7168 gate, 10,923,802,624 weights more; 3 layers */
    int64_t with = opsgen_deepseek_mem_bytes(&m, PHASE_DECODE, &profile_physical);
    m.num_dense_layers = 0;
    assert_int_equal(opsgen_deepseek_mem_bytes(&m, PHASE_DECODE, &profile_physical) - with, 3 * 2 * INT64_C(10923802624));
    m.num_dense_layers = 3;
    m.num_chips = 4, m.pipeline_parallelism_degree = 4;
    assert_int_equal(ds_count(&m, &profile_physical, "Fwd-FFN-encoder-FFgate", up), 1);
    assert_int_equal(ds_count(&m, &profile_physical, "FFN_routed_experts-Fwd-FFN-encoder-FFgate", expert), 15);
}

/* The decode ops of m's physical trace whose description is desc: their
 * count, summed (0: none), and the config of the last in cfg. */
static int64_t decode_count(const struct model_config *m, const char *desc, char *cfg, size_t n)
{
    struct trace t;
    infer_physical(m, &t);
    int64_t sum = 0;
    for (size_t i = 0; i < t.n; i++)
        if (t.ops[i].phase == PHASE_DECODE && !strcmp(t.ops[i].description, desc)) {
            sum += t.ops[i].count;
            snprintf(cfg, n, "%s", cfg_text(&t.ops[i]));
        }
    trace_free(&t);
    return sum;
}

/* Expert parallelism over chips that each hold every token (attention in TP
 * 8, no data parallelism: vLLM's TP + EP): no token all-to-all, and one
 * reduce-scatter of the step's 8 x 1 x 4096 outputs over the 8 EP chips a
 * layer and step, count 32 x 4. With the tokens spread over 8 data-parallel
 * replicas (dp 8, tp 1, ep 8) the dispatch and combine all-to-alls stay,
 * count 32 x 4 each, and no reduce-scatter. */
static void test_moe_tokens_replicated(void **s)
{
    (void)s;
    struct model_config m;
    char cfg[512] = "";
    mixtral_b8(&m);
    m.num_chips = 8, m.tensor_parallelism_degree = 8, m.expert_parallelism_degree = 8;
    assert_int_equal(decode_count(&m, "MoE_Dispatch_AllToAll", cfg, sizeof cfg), 0);
    assert_int_equal(decode_count(&m, "MoE_Combine_AllToAll", cfg, sizeof cfg), 0);
    assert_int_equal(decode_count(&m, "Reduce and scatter the experts' outputs over the EP chips", cfg, sizeof cfg),
                     32 * 4);
    assert_non_null(strstr(cfg, "['8', '1', '4096']->['8', '1', '512']"));
    m.tensor_parallelism_degree = 1, m.data_parallelism_degree = 8, m.global_batch_size = 64;
    assert_int_equal(decode_count(&m, "MoE_Dispatch_AllToAll", cfg, sizeof cfg), 32 * 4);
    assert_int_equal(decode_count(&m, "MoE_Combine_AllToAll", cfg, sizeof cfg), 32 * 4);
    assert_int_equal(decode_count(&m, "Reduce and scatter the experts' outputs over the EP chips", cfg, sizeof cfg), 0);
}

/* The expert all-to-all through a switch (physical): Mixtral over 8
 * data-parallel replicas with ep 8 on 8 chips of one 8-GPU link domain at
 * 200 GB/s a chip. A prefill of 8 local sequences of 4096 tokens sends each
 * token to its 2 experts' chips: 8 x 4096 x 2 x 4096 x 2 B = 536,870,912 B,
 * of which 7/8 leave the chip, at the chip's own 200 GB/s: ceil(536870912 x
 * 7 / 8 / 200) = ceil(2,348,810.24) ns (the reference's torus bisection,
 * 2 x 2 x 2 cut across one axis, gives 200 GB/s for the whole 536,870,912 B),
 * plus its 7 pairwise exchanges' latency as every collective's, 7 x 3330 =
 * 23,310 ns (the reference took the larger of the two). Under LatentMoE
 * at 1024 the tokens travel at that width: a quarter of the bytes,
 * ceil(2,348,810.24 / 4) = 587,203 ns, the same latency. */
static void test_moe_a2a_switch(void **s)
{
    (void)s;
    struct model_config m;
    mixtral_b8(&m);
    m.num_chips = 8, m.data_parallelism_degree = 8, m.expert_parallelism_degree = 8;
    m.global_batch_size = 64, m.microbatch_size_ici = 64, m.input_seqlen = 4096;
    struct opsgen_links l = *test_opsgen_links();
    l.link_domain_chips = 8;
    struct trace t;
    struct npu_err e;
    bool ovf = false;
    trace_init(&t);
    assert_int_equal(opsgen_llm_inference(&m, &l, &profile_physical, &t, &ovf, &e), 0);
    const struct op *a2a = NULL;
    for (size_t i = 0; i < t.n && !a2a; i++)
        if (t.ops[i].phase == PHASE_PREFILL && !strcmp(t.ops[i].description, "MoE_Dispatch_AllToAll"))
            a2a = &t.ops[i];
    assert_non_null(a2a);
    assert_int_equal(a2a->ici_ns, 2348811 + 23310);
    assert_int_equal(a2a->ici_alpha_ns, 23310);
    trace_free(&t);
    m.moe_latent_size = 1024;
    trace_init(&t);
    assert_int_equal(opsgen_llm_inference(&m, &l, &profile_physical, &t, &ovf, &e), 0);
    a2a = NULL;
    for (size_t i = 0; i < t.n && !a2a; i++)
        if (t.ops[i].phase == PHASE_PREFILL && !strcmp(t.ops[i].description, "MoE_Dispatch_AllToAll"))
            a2a = &t.ops[i];
    assert_non_null(a2a);
    assert_int_equal(a2a->ici_ns, 587203 + 23310);
    trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_global_attention_shape),
        cmocka_unit_test(test_value_width),
        cmocka_unit_test(test_kv_shared_and_per_layer_inputs),
        cmocka_unit_test(test_moe_params),
        cmocka_unit_test(test_moe_fused_activation),
        cmocka_unit_test(test_moe_relu2_experts),
        cmocka_unit_test(test_moe_latent),
        cmocka_unit_test(test_moe_dense_layers),
        cmocka_unit_test(test_deepseek_dense_layers),
        cmocka_unit_test(test_moe_tokens_replicated),
        cmocka_unit_test(test_moe_a2a_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
