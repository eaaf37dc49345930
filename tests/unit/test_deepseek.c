/* test_deepseek.c — DeepSeek inference: op counts and the fusion-id walk,
 * MLA and MoE shapes, the all-to-all of opsgen.md §15, the memory footprint
 * of §11.3, and the MoE sweep helpers of §13 (enumeration, axes, validation,
 * pstr), against values derived by hand from the spec. */
#include "testutil.h"
#include "testutil_model.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "opsgen/builders.h"
#include "opsgen/deepseek.h"
#include "opsgen/opsgen.h"
#include "opsgen/sweep.h"

/* ---- fixtures ---- */


static struct opsgen_links links(const char *v)
{
    struct opsgen_links l = { .pcie_bw_GBps = 32.0, .ici_latency_ns = 3330,
                              .dcn_latency_ns = 3700, .pcie_latency_ns = 400 };
    snprintf(l.chip_name, sizeof l.chip_name, "%s", v);
    if (!strcmp(v, "5e")) {
        l.ici_bw_GBps = 100; l.dcn_bw_GBps = 12.5; l.hbm_size_GB = 16;
        strcpy(l.ICI_topology, "TORUS_2D");
    } else {  /* 5p */
        l.ici_bw_GBps = 200; l.dcn_bw_GBps = 25; l.hbm_size_GB = 95;
        strcpy(l.ICI_topology, "TORUS_3D");
    }
    return l;
}

/* A sweep point as run_sim builds it: degrees, batch, then the MoE axes. */
static void setup(struct model_config *m, const char *name, const char *v, int64_t tp, int64_t pp,
                  int64_t ep, int64_t gbs)
{
    load_model(m, name);
    struct parallel_cfg p = { tp * pp * ep, 1, tp, pp, ep, 1, 1, 1, 1 };
    sweep_apply_parallel(m, &p, gbs);
    assert_true(sweep_map_axes_moe(v, m));
}

static void gen(const struct model_config *m, struct trace *t)
{
    bool ovf = false;
    struct opsgen_links l = links("5p");
    struct npu_err e;
    trace_init(t);
    if (opsgen_deepseek_inference(m, &l, &profile_neusim, t, &ovf, &e))
        fail_msg("%s", e.msg);
    assert_false(ovf);   /* every size fits */
}

static size_t count_phase(const struct trace *t, enum phase ph)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->ops[i].phase == ph;
    return n;
}

static const struct op *find_desc(const struct trace *t, enum phase ph, const char *desc, int nth)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->ops[i].phase == ph && !strcmp(t->ops[i].description, desc) && nth-- == 0)
            return &t->ops[i];
    fail_msg("no op \"%s\"", desc);
    return NULL;
}

static size_t count_desc(const struct trace *t, const char *desc)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += !strcmp(t->ops[i].description, desc);
    return n;
}

/* ---- the physical profile: routing, MLA softmax and cache, memory ---- */

static void test_moe_load(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m;
    load_model(&m, "deepseekv3-671b");   /* R = 256, A = 8 */
    /* one token: p = 8/256, 8 experts of one token each */
    struct moe_load ld = moe_load_of(&ovf, &m, 1);
    assert_i64(ld.experts, 8);
    assert_i64(ld.tokens, 1);
    /* 32 tokens: p = 1 - (31/32)^32 = 0.63790; ceil(256 p) = 164 experts; ceil(1 / p) = 2 tokens */
    ld = moe_load_of(&ovf, &m, 32);
    assert_i64(ld.experts, 164);
    assert_i64(ld.tokens, 2);
    /* 4096 tokens: every expert, 4096 x 8 / 256 = 128 tokens; 1.5x imbalance: 192 */
    ld = moe_load_of(&ovf, &m, 4096);
    assert_i64(ld.experts, 256);
    assert_i64(ld.tokens, 128);
    m.moe_imbalance_factor = 1.5;
    assert_i64(moe_load_of(&ovf, &m, 4096).tokens, 192);
    /* expert parallelism 8 over 8 replicas of 512 tokens: 32 local experts, 128 tokens each */
    m.moe_imbalance_factor = 1.0;
    m.expert_parallelism_degree = 8;
    m.data_parallelism_degree = 8;
    ld = moe_load_of(&ovf, &m, 512);
    assert_i64(ld.experts, 32);
    assert_i64(ld.tokens, 128);
    /* an imbalance past every token caps at T */
    m.moe_imbalance_factor = 1000;
    assert_i64(moe_load_of(&ovf, &m, 512).tokens, 4096);
}

static void test_physical_deepseek(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m;
    struct trace t;
    setup(&m, "deepseekv3-671b", "5p", 1, 1, 1, 1);
    m.output_seqlen = 4;
    struct opsgen_links l = links("5p");
    struct npu_err e;
    trace_init(&t);
    if (opsgen_deepseek_inference(&m, &l, &profile_physical, &t, &ovf, &e))
        fail_msg("%s", e.msg);
    /* prefill: 4096 tokens reach all 256 experts, 128 tokens each, in one grouped GEMM a
     * projection; count = the 58 MoE layers (61 less the 3 dense first ones) */
    const struct op *gate = find_desc(&t, PHASE_PREFILL, "FFN_routed_experts-Fwd-FFN-encoder-FFgate", 0);
    assert_i64(gate->count, 58);
    assert_i64(gate->flops, 256 * 2LL * 128 * 7168 * 2048);
    /* decode: one token, 8 experts of one row; 58 layers x 4 steps */
    gate = find_desc(&t, PHASE_DECODE, "FFN_routed_experts-Fwd-FFN-serving-decoder-FFgate", 0);
    assert_i64(gate->count, 58 * 4);
    assert_i64(gate->flops, 8 * 2LL * 7168 * 2048);
    /* MLA decode at the exact mean context: 2 groups of 122 at 4096 + 2 and 4096 + 3, with a softmax;
     * the caches are not parameters */
    const char *P = "Attention-serving-decode-Attention-serving-decode-";
    char d[200];
    snprintf(d, sizeof d, "%sq_nope_kv_cache_einsum", P);
    const struct op *a = find_desc(&t, PHASE_DECODE, d, 0), *b = find_desc(&t, PHASE_DECODE, d, 1);
    assert_i64(a->count, 122);
    assert_i64(b->count, 122);
    assert_i64(a->flops, 2LL * 128 * 512 * 4098);
    assert_i64(b->flops, 2LL * 128 * 512 * 4099);
    assert_i64(a->weight_bytes, 0);
    snprintf(d, sizeof d, "%sscores_softmax", P);
    assert_i64(find_desc(&t, PHASE_DECODE, d, 0)->count, 122);
    /* decode's three cache einsums of each group read the cache (chipsim's
     * decode_attention class); prefill's attend to the prompt, not a cache */
    size_t kv_reads = 0;
    for (size_t i = 0; i < t.n; i++)
        if (t.ops[i].reads_kv_cache) {
            assert_int_equal(t.ops[i].phase, PHASE_DECODE);
            assert_true(strstr(t.ops[i].description, "_einsum") != NULL);
            kv_reads++;
        }
    assert_true(a->reads_kv_cache && b->reads_kv_cache);
    assert_i64((int64_t)kv_reads, 3 * 2);
    trace_free(&t);
    /* memory: the reference's minus its W_kv_a (D kr rope) and W_kv_b (kr H (rope + v)) plus the
     * corrected ones (D (kr + rope), kr H (nope + v)), x 61 layers x 2 B; the expert activations
     * once, not x 61 (4096 x 2048 x 2 x 2 x 60 fewer); plus the vocabulary 2 x 2 x 129280 x 7168.
     * The reference's experts are FP8 on all 61 layers (257 of 3 x 7168 x 2048 and the 256 x 7168
     * gate, E a layer); physical's are in the model's bf16 on the 58 MoE layers, and the 3 dense
     * first layers' FFN (3 x 7168 x 18432) in bf16 in their place; the latent cache in bf16, 512
     * more bytes a token and layer (4096 tokens, 61 layers) */
    int64_t ref = opsgen_deepseek_mem_bytes(&m, PHASE_PREFILL, &profile_neusim);
    int64_t phy = opsgen_deepseek_mem_bytes(&m, PHASE_PREFILL, &profile_physical);
    int64_t dw = (7168LL * 576 - 7168LL * 512 * 64 + 512LL * 128 * 256 - 512LL * 128 * 192) * 61 * 2;
    int64_t E = 3LL * 7168 * 2048 * 257 + 256LL * 7168;
    int64_t experts = 58 * E * 2 + 3 * (3LL * 7168 * 18432) * 2 - 61 * E;
    assert_i64(phy - ref, dw - 4096LL * 2048 * 4 * 60 + 4LL * 129280 * 7168 + experts + 512LL * 61 * 4096);
}

/* ---- the serving engine's parts (serving/) ---- */

static void test_serving_parts(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m;
    setup(&m, "deepseekv2-236b", "5p", 8, 1, 8, 1);   /* one replica: tp 8, experts over its 8 chips (etp 1) */
    struct opsgen_llm_mem_parts p;
    opsgen_deepseek_mem_parts(&ovf, &m, &profile_physical, &p);
    assert_false(ovf);
    /* MLA per layer: 5120*1536 + 1536*128*192/8 + 5120*576 + (512*128*256 + 128*128*5120)/8 = 28,114,944
     * x 60; experts 5120*1536*3*162/8 = 477,757,440 x 59 (the first layer is dense); gate
     * 160*5120*59; the dense layer's FFN 3*5120*12288/8 = 23,592,960; vocabulary 2 x 12800 x
     * 5120: all in the model's bf16, 2 B each */
    assert_i64(p.weight_bytes, 2 * (28114944LL * 60 + 477757440LL * 59 + 160LL * 5120 * 59 + 23592960LL + 131072000LL));
    /* per token: (512 bf16 + 64 x 4 B FP32) x 60 layers / 8; queries 128*(5*64 + 128)/8 + experts 1536*4 */
    assert_i64(p.kv_elems_per_token, (512 * 2 + 64 * 4) * 60 / 8);
    assert_i64(p.live_elems_per_token, 13312);
    assert_string_equal(p.kv_dtype, "DT_INT8");

    /* The attention core of one pass: the four MLA cache ops, 60 layers each; decode at the whole
     * context (100 + 3), a chunk at the mean keys per query. The MoE gate's softmax is not core. */
    struct opsgen_links l = links("5p");
    struct npu_err e;
    struct trace t;
    static const struct { struct opsgen_step_attn a; int64_t flops; } cases[] = {
        { { .decode = true, .batch = 4, .prefix = 100, .suffix = 3 }, 2LL * 4 * 16 * 512 * 103 },
        { { .decode = false, .batch = 2, .q = 64, .kv = 80, .att = 40 }, 2LL * 2 * 64 * 16 * 512 * 40 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trace_init(&t);
        if (opsgen_deepseek_step_attention(&m, &l, &profile_physical, &cases[i].a, &t, &ovf, &e))
            fail_msg("%s", e.msg);
        assert_int_equal(t.n, 4);
        for (size_t k = 0; k < t.n; k++) {
            assert_true(opsgen_op_is_attention_core(&t.ops[k]));
            assert_i64(t.ops[k].count, 60);
        }
        assert_i64(t.ops[0].flops, cases[i].flops);
        trace_free(&t);
    }
    struct op gate;
    op_init(&gate);
    gate.description = (char *)"FFN_MoE_gate-scores_softmax";
    assert_false(opsgen_op_is_attention_core(&gate));
}

/* The experts in their own format (expert_weight_dtype, physical): DeepSeek-V2
 * with fp8 weights and fp4 experts, one replica of tp 8 as above. The routed
 * and shared experts' 477,757,440 weights a chip and layer (59 layers) take
 * half a byte where the rest take one, so the serving weights are 59 x
 * 477,757,440 x 0.5 bytes fewer than all-fp8, and the footprint the same
 * (the dense first layer's FFN and the gate stay fp8). In a decode step the
 * routed experts' grouped GEMM and the shared experts' read fp4 weights, the
 * dense first layer's FFN fp8. Under the reference's profile the footprint
 * does not move (its FP8 experts). */
static void test_expert_format(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m;
    setup(&m, "deepseekv2-236b", "5p", 8, 1, 8, 1);
    snprintf(m.weight_dtype, sizeof m.weight_dtype, "fp8");
    struct opsgen_llm_mem_parts same, fp4;
    opsgen_deepseek_mem_parts(&ovf, &m, &profile_physical, &same);
    int64_t mem = opsgen_deepseek_mem_bytes(&m, PHASE_DECODE, &profile_physical);
    int64_t ref = opsgen_deepseek_mem_bytes(&m, PHASE_DECODE, &profile_neusim);
    snprintf(m.expert_weight_dtype, sizeof m.expert_weight_dtype, "fp4");
    opsgen_deepseek_mem_parts(&ovf, &m, &profile_physical, &fp4);
    assert_i64(same.weight_bytes - fp4.weight_bytes, 59 * 477757440LL / 2);
    assert_i64(mem - opsgen_deepseek_mem_bytes(&m, PHASE_DECODE, &profile_physical), 59 * 477757440LL / 2);
    assert_i64(opsgen_deepseek_mem_bytes(&m, PHASE_DECODE, &profile_neusim), ref);
    assert_false(ovf);
    m.output_seqlen = 2;
    struct trace t;
    struct opsgen_links l = links("5p");
    struct npu_err e;
    trace_init(&t);
    if (opsgen_deepseek_inference(&m, &l, &profile_physical, &t, &ovf, &e))
        fail_msg("%s", e.msg);
    int seen = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        if (o->phase != PHASE_DECODE || !o->weight_bytes || !strstr(o->description, "FFgate"))
            continue;
        bool dense = !strstr(o->description, "expert");
        assert_string_equal(o->form.dtype_rest, dense ? "DT_FLOAT8E4M3FN" : "DT_FLOAT4E2M1FN");
        seen++;
    }
    assert_int_equal(seen, 3);
    trace_free(&t);
}

/* ---- DeepSeek Sparse Attention (index_topk) ---- */

/* DeepSeek-V3 with DeepSeek-V3.2's indexer (64 heads of 128, top 2048) on one
 * chip, 8192 tokens in and 4 out. Prefill: the indexer scores every key a
 * query sees causally, (8192 + 1) / 2 = 4096 on average, 2 x 8192 x 64 x 128
 * x 4096 FLOPs; MLA attends to min(p, 2048) keys at position p, (2048 x 2049
 * / 2 + 6144 x 2048) / 8192 = 1792 on average (rounded down). Decode: each
 * step's indexer reads the whole context's index keys (8194 and 8195 for
 * the two groups of the exact mean), MLA 2048 of them. The indexer's
 * weights, 1536 x 64 x 128 + 7168 x (128 + 64) = 13,959,168 a layer, count
 * 61 times in the parameters; its keys, 128 fp8 and a 4-byte scale, add 132
 * bytes a token and layer to the cache (61 layers, TP 1). Dense (0) is
 * every op and byte as before. */
static void test_sparse_attention(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m;
    setup(&m, "deepseekv3-671b", "5p", 1, 1, 1, 1);
    m.input_seqlen = 8192, m.output_seqlen = 4;
    int64_t t0, a0, t1, a1;
    opsgen_model_params(&m, &t0, &a0);
    struct opsgen_llm_mem_parts p0, p1;
    opsgen_deepseek_mem_parts(&ovf, &m, &profile_physical, &p0);
    m.index_topk = 2048, m.index_heads = 64, m.index_head_dim = 128;
    assert_i64(dsa_indexer_params(&ovf, &m), 13959168);
    assert_i64(dsa_index_key_bytes(&m), 132);
    opsgen_model_params(&m, &t1, &a1);
    assert_i64(t1 - t0, 61LL * 13959168);
    assert_i64(a1 - a0, 61LL * 13959168);
    opsgen_deepseek_mem_parts(&ovf, &m, &profile_physical, &p1);
    assert_i64(p1.kv_elems_per_token - p0.kv_elems_per_token, 61 * 132);
    assert_i64(p1.weight_bytes - p0.weight_bytes, 61LL * 13959168 * 2);
    struct opsgen_links l = links("5p");
    struct npu_err e;
    struct trace t;
    trace_init(&t);
    if (opsgen_deepseek_inference(&m, &l, &profile_physical, &t, &ovf, &e))
        fail_msg("%s", e.msg);
    const char *Pp = "Fwd-Attention-encoder-Attention-serving-prefill-", *Pd = "Attention-serving-decode-Attention-serving-decode-";
    char d[200];
    snprintf(d, sizeof d, "%sindexer_scores_einsum", Pp);
    const struct op *ix = find_desc(&t, PHASE_PREFILL, d, 0);
    assert_i64(ix->flops, 2LL * 8192 * 64 * 128 * 4096);
    assert_false(ix->reads_kv_cache);
    assert_true(opsgen_op_is_attention_core(ix));
    snprintf(d, sizeof d, "%sq_nope_kv_cache_einsum", Pp);
    assert_i64(find_desc(&t, PHASE_PREFILL, d, 0)->flops, 2LL * 8192 * 128 * 512 * 1792);
    snprintf(d, sizeof d, "%sindexer_scores_einsum", Pd);
    const struct op *i0 = find_desc(&t, PHASE_DECODE, d, 0), *i1 = find_desc(&t, PHASE_DECODE, d, 1);
    assert_i64(i0->flops, 2LL * 64 * 128 * 8194);
    assert_i64(i1->flops, 2LL * 64 * 128 * 8195);
    assert_true(i0->reads_kv_cache);
    snprintf(d, sizeof d, "%sq_nope_kv_cache_einsum", Pd);
    assert_i64(find_desc(&t, PHASE_DECODE, d, 0)->flops, 2LL * 128 * 512 * 2048);
    assert_false(ovf);
    trace_free(&t);
    /* a serving pass: a chunk of 64 queries at positions 4033..4096 sees 2048 keys each; a decode
     * step at a context of 100 + 3 sees all 103, and the indexer scores them */
    static const struct { struct opsgen_step_attn a; int64_t mla, index; } cases[] = {
        { { .decode = false, .batch = 1, .q = 64, .kv = 4096, .att = 4064 }, 2LL * 64 * 128 * 512 * 2048,
          2LL * 64 * 64 * 128 * 4064 },
        { { .decode = true, .batch = 1, .prefix = 100, .suffix = 3 }, 2LL * 128 * 512 * 103, 2LL * 64 * 128 * 103 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trace_init(&t);
        if (opsgen_deepseek_step_attention(&m, &l, &profile_physical, &cases[i].a, &t, &ovf, &e))
            fail_msg("%s", e.msg);
        assert_int_equal(t.n, 6);   /* the indexer's scores and selection, then MLA's four */
        assert_i64(t.ops[0].flops, cases[i].index);
        assert_i64(t.ops[2].flops, cases[i].mla);
        trace_free(&t);
    }
}

/* ---- op sequences (§7.1–§7.3) ---- */

static void test_v2_one_chip(void **s)
{
    (void)s;
    struct model_config m;
    struct trace t;
    setup(&m, "deepseekv2-236b", "5p", 1, 1, 1, 1);
    gen(&m, &t);
    /* RMSNorm 1 + MLA 14 (no TP collectives) + FFN: gate 2, 6 routed experts
     * x 4, shared 4, combine 2, residual 1 = 33 → 48 per phase. */
    assert_i64(count_phase(&t, PHASE_PREFILL), 48);
    assert_i64(count_phase(&t, PHASE_DECODE), 48);
    assert_i64(t.n, 96);
    /* Prefill fids: input norm 2, MLA 3..16, gate 17/18, experts from 19. */
    assert_string_equal(t.ops[0].description, "Fwd-Attention-encoder-Input_rmsnorm");
    assert_i64(t.ops[0].fusion_id, 2);
    assert_i64(t.ops[0].count, 60);
    const struct op *o = find_desc(&t, PHASE_PREFILL,
                                   "Fwd-Attention-encoder-Attention-serving-prefill-q_wq_a_linear", 0);
    assert_i64(o->fusion_id, 3);
    assert_string_equal(cfg_text(o), "XlaEinsum(a=1x4096x5120,b=5120x1536,eq=BSM;MD->BSD,"
                                   "memory_placements=0_0_0,type=DT_BFLOAT16)");
    /* 2*B*S*D*qr = 2*4096*5120*1536 */
    assert_i64(o->flops, 64424509440LL);
    assert_i64(o->weight_bytes, 2 * 5120 * 1536);
    /* Q-weight b: [qr, (nope+rope)*H] = [1536, 192*128] */
    o = find_desc(&t, PHASE_PREFILL, "Fwd-Attention-encoder-Attention-serving-prefill-q_wq_b_linear", 0);
    assert_string_equal(cfg_text(o), "XlaEinsum(a=1x4096x1536,b=1536x24576,eq=BSR;RD->BSD,"
                                   "memory_placements=0_0_0,type=DT_BFLOAT16)");
    /* The latent-cache einsum's "weight" is the cache (quirk Q20): 2*B*T*kr. */
    o = find_desc(&t, PHASE_PREFILL,
                  "Fwd-Attention-encoder-Attention-serving-prefill-q_nope_kv_cache_einsum", 0);
    assert_i64(o->weight_bytes, 2 * 4096 * 512);
    o = find_desc(&t, PHASE_PREFILL, "Fwd-Attention-encoder-Attention-serving-prefill-Attention_RMSNorm", 0);
    assert_i64(o->fusion_id, 16);
    o = find_desc(&t, PHASE_PREFILL, "FFN_MoE_gate-scores", 0);
    assert_i64(o->fusion_id, 17);
    assert_string_equal(cfg_text(o), "XlaEinsum(a=1x4096x5120,b=160x5120,eq=BSM;RM->BSR,"
                                   "memory_placements=0_0_0,type=DT_BFLOAT16)");
    o = find_desc(&t, PHASE_PREFILL, "FFN_MoE_gate-scores_softmax", 0);
    assert_string_equal(cfg_text(o), "Softmax(x=1x4096x160,memory_placements=0_0,type=DT_FLOAT32)");
    /* Routed expert 0 at 19..22 (moe_d_ff 1536), shared expert 2 x 1536 wide. */
    o = find_desc(&t, PHASE_PREFILL, "FFN_routed_expert0-Fwd-FFN-encoder-FFgate", 0);
    assert_i64(o->fusion_id, 19);
    assert_string_equal(cfg_text(o), "XlaEinsum(a=1x4096x5120,b=5120x1536,eq=BLM;MH->BLH,"
                                   "memory_placements=0_0_0,type=DT_BFLOAT16)");
    o = find_desc(&t, PHASE_PREFILL, "FFN_routed_expert5-Fwd-FFN-encoder-FFoutput", 0);
    assert_i64(o->fusion_id, 19 + 6 * 4 - 1);
    o = find_desc(&t, PHASE_PREFILL, "FFN_shared_expert-Fwd-FFN-encoder-FFup", 0);
    assert_i64(o->fusion_id, 44);
    assert_string_equal(cfg_text(o), "XlaEinsum(a=1x4096x5120,b=5120x3072,eq=BLM;MH->BLH,"
                                   "memory_placements=0_0_0,type=DT_BFLOAT16)");
    o = find_desc(&t, PHASE_PREFILL, "MoE_combine_weights", 0);
    assert_i64(o->fusion_id, 47);
    assert_string_equal(cfg_text(o), "XlaEinsum(a=1x4096x6x5120,b=1x4096x6,eq=BSEM;BSE->BSM,"
                                   "memory_placements=0_0_0,type=DT_BFLOAT16)");
    o = find_desc(&t, PHASE_PREFILL, "MoE_combine_output", 0);
    assert_i64(o->fusion_id, 48);
    o = find_desc(&t, PHASE_PREFILL, "Fwd-FFN-encoder-AttnPlusFFn", 0);
    assert_i64(o->fusion_id, 49);
    /* Decode starts after the last prefill fid; counts are layers x 512
     * steps, MLA at the final context length 4096+512. */
    assert_i64(t.ops[48].fusion_id, 50);
    assert_string_equal(t.ops[48].description, "Attention-serving-decode-Input_rmsnorm");
    assert_i64(t.ops[48].count, 60 * 512);
    o = find_desc(&t, PHASE_DECODE,
                  "Attention-serving-decode-Attention-serving-decode-scores_kv_cache_einsum", 0);
    assert_string_equal(cfg_text(o), "XlaEinsum(a=1x1x128x4608,b=1x4608x512,eq=BSHT;BTC->BSHC,"
                                   "memory_placements=0_0_0,type=DT_BFLOAT16)");
    /* Gate and combine names are the same in both phases (quirk Q30). */
    assert_string_equal(find_desc(&t, PHASE_DECODE, "FFN_MoE_gate-scores", 0)->name,
                        find_desc(&t, PHASE_PREFILL, "FFN_MoE_gate-scores", 0)->name);
    assert_non_null(find_desc(&t, PHASE_DECODE, "FFN_routed_expert0-Fwd-FFN-serving-decoder-FFgate", 0));
    assert_i64(count_desc(&t, "MoE_Dispatch_AllToAll"), 0);
    trace_free(&t);
}

static void test_v3_one_chip(void **s)
{
    (void)s;
    struct model_config m;
    struct trace t;
    setup(&m, "deepseekv3-671b", "5p", 1, 1, 1, 1);
    gen(&m, &t);
    /* 8 routed experts: 1 + 14 + (2 + 32 + 4 + 2 + 1) = 56 per phase. */
    assert_i64(count_phase(&t, PHASE_PREFILL), 56);
    assert_i64(count_phase(&t, PHASE_DECODE), 56);
    trace_free(&t);
}

static void test_tp4_ep4(void **s)
{
    (void)s;
    struct model_config m;
    struct trace t;
    /* 16 chips (ep multiplies the chip count, Q33), batch 4. v5p: tp on 3
     * axes → [2,2]; ep == dp*tp → ep on all 3 → [2,2]; no expert TP. */
    setup(&m, "deepseekv2-236b", "5p", 4, 1, 4, 4);
    assert_i64(m.num_chips, 16);
    assert_i64(m.num_tensor_parallel_axes, 3);
    assert_i64(m.num_expert_parallel_axes, 3);
    gen(&m, &t);
    /* MLA gains 5 collectives, the MoE body two all-to-alls: 55 per phase. */
    assert_i64(count_phase(&t, PHASE_PREFILL), 55);
    assert_i64(count_phase(&t, PHASE_DECODE), 55);
    assert_i64(count_desc(&t, "MoE_Dispatch_AllToAll"), 4);
    /* §15: decode all-to-all of the global batch [4,1,3,5120] in FP8 =
     * 61,440 B; bisection of 16 v5p chips = 200*4/16*2 = 100 GB/s → 615 ns,
     * floored by 3330 * (4-1) = 9,990 ns. */
    const struct op *o = find_desc(&t, PHASE_DECODE, "MoE_Dispatch_AllToAll", 0);
    assert_string_equal(cfg_text(o), "AllToAll(4x1x3x5120->4x1x3x5120)");
    assert_string_equal(in_text(o), "DT_BFLOAT16:[4,1,3,5120]");
    assert_i64(o->ici_in_bytes, 61440);
    assert_i64(o->ici_out_bytes, 61440);
    assert_i64(o->ici_ns, 9990);
    assert_i64(o->count, 60 * 512);
    /* Prefill: [4,4096,3,5120] = 251,658,240 B / 100 → 2,516,583 ns. */
    o = find_desc(&t, PHASE_PREFILL, "MoE_Dispatch_AllToAll", 1);
    assert_i64(o->ici_in_bytes, 251658240);
    assert_i64(o->ici_ns, 2516583);
    /* MLA all-gathers: the full width D gathered to 4D (quirk Q4); the KV
     * gather counts FP8 bytes: [4,4096,512]*4 = 33,554,432 elements staged
     * over [2,2] → +16,777,216 = 50,331,648 B / 400 GB/s = 125,830 ns. */
    o = find_desc(&t, PHASE_PREFILL, "AllGatherMHA-3", 0);
    assert_string_equal(cfg_text(o), "AllGather(4x4096x5120->4x4096x20480)");
    o = find_desc(&t, PHASE_PREFILL, "AllGatherKV-10", 0);
    assert_string_equal(cfg_text(o), "AllGather(4x4096x512->4x16384x512)");
    assert_string_equal(in_text(o), "DT_BFLOAT16:[4,4096,512]");
    assert_i64(o->ici_in_bytes, 50331648);
    assert_i64(o->ici_ns, 125830);
    /* The rope-key gather counts FP32: (4+2)/4 * 4*4096*64*4 elements * 4 B. */
    o = find_desc(&t, PHASE_PREFILL, "AllGatherK_PE-11", 0);
    assert_i64(o->ici_in_bytes, 6291456LL * 4);
    /* Local heads 32: q_wq_b weight [1536, 192*32]. */
    o = find_desc(&t, PHASE_PREFILL, "Fwd-Attention-encoder-Attention-serving-prefill-q_wq_b_linear", 0);
    assert_non_null(strstr(cfg_text(o), "b=1536x6144,"));
    /* Reduce-scatter and RMSNorm on the gathered width 4D. */
    o = find_desc(&t, PHASE_PREFILL, "Reduce attention and scatter before RMSNorm", 0);
    assert_string_equal(cfg_text(o), "ReduceScatter(['4', '4096', '20480']->['4', '4096', '5120'])");
    trace_free(&t);
}

static void test_pp2_fids_and_counts(void **s)
{
    (void)s;
    struct model_config m;
    struct trace t;
    setup(&m, "deepseekv2-236b", "5p", 4, 2, 4, 8);
    assert_i64(m.num_chips, 32);
    gen(&m, &t);
    /* PP adds a receive and a send per phase: 57 + 57. */
    assert_i64(count_phase(&t, PHASE_PREFILL), 57);
    assert_i64(count_phase(&t, PHASE_DECODE), 57);
    /* MLA counts all 60 layers (quirk Q3), the rest the stage's 30. */
    const struct op *o = find_desc(&t, PHASE_PREFILL,
                                   "Fwd-Attention-encoder-Attention-serving-prefill-q_norm", 0);
    assert_i64(o->count, 60);
    o = find_desc(&t, PHASE_PREFILL, "Fwd-Attention-encoder-Input_rmsnorm", 0);
    assert_i64(o->count, 30);
    o = find_desc(&t, PHASE_PREFILL, "FFN_MoE_gate-scores", 0);
    assert_i64(o->count, 30);
    /* Prefill's send follows the residual Add; decode's reuses the FFN's
     * first fid (quirk Q5). */
    const struct op *add = find_desc(&t, PHASE_PREFILL, "Fwd-FFN-encoder-AttnPlusFFn", 0);
    const struct op *send = find_desc(&t, PHASE_PREFILL, "PrefillSendOutputToPipelineICI", 0);
    assert_i64(send->fusion_id, add->fusion_id + 1);
    const struct op *gate = find_desc(&t, PHASE_DECODE, "FFN_MoE_gate-scores", 0);
    send = find_desc(&t, PHASE_DECODE, "DecodeSendOutputToPipelineICI", 0);
    assert_i64(send->fusion_id, gate->fusion_id);
    assert_i64(send->count, 512);
    trace_free(&t);
}

/* ---- memory (§11.3) ---- */

static void test_memory(void **s)
{
    (void)s;
    struct model_config m;
    setup(&m, "deepseekv2-236b", "5p", 1, 1, 1, 1);
    /* Per layer: MLA 5120*1536 + 1536*128*192 + 5120*512*64 + 512*128*192 +
     * 128*128*5120 = 309,854,208 params x 60 x 2 B = 37,182,504,960;
     * q act 4096*128*(5*64+128) = 234,881,024; experts 5120*1536*3*162*60 +
     * gate 160*5120*60 = 229,372,723,200; expert act 4096*1536*2*2*60 =
     * 1,509,949,440; caches (512+4*64)*60*4096 = 188,743,680. */
    int64_t want = 37182504960LL + 234881024LL + 229372723200LL + 1509949440LL + 188743680LL;
    assert_i64(want, 268488802304LL);
    assert_i64(opsgen_deepseek_mem_bytes(&m, PHASE_PREFILL, &profile_neusim), want);
    assert_close((double)want / 1073741824.0, 250.0496826171875);   /* §11.3: 250.05 GiB */
    /* Decode: the activation and cache terms scale with 4608/4096. */
    int64_t dec = 37182504960LL + 4608LL * 128 * 448 + 229372723200LL + 4608LL * 1536 * 4 * 60 +
                  768LL * 60 * 4608;
    assert_i64(opsgen_deepseek_mem_bytes(&m, PHASE_DECODE, &profile_neusim), dec);
    /* tp4 ep4 bs8 (16 chips): the reference JSON says 88.8572998046875 GiB. */
    setup(&m, "deepseekv2-236b", "5p", 4, 1, 4, 8);
    assert_i64(opsgen_deepseek_mem_bytes(&m, PHASE_PREFILL, &profile_neusim), 95409799168LL);
    /* A real-valued total is rounded (tp 3: wq_b etc. not integral). */
    setup(&m, "deepseekv2-236b", "5p", 1, 1, 1, 1);
    m.tensor_parallelism_degree = 3;
    m.data_parallelism_degree = 1;
    m.expert_parallelism_degree = 3;
    double wq_b = 1536.0 * 128 * 192 / 3, wkv_b = 512.0 * 128 * 192 / 3, wo = 128.0 * 128 * 5120 / 3;
    double mla = (7864320.0 + wq_b + 167772160.0 + wkv_b + wo) * 60 * 2;
    double q = 4096.0 * 128 * 448 / 3;
    double ffn = 23592960.0 / 1 * 162 / 3 * 60 + 49152000.0;
    double act = 4096.0 * 1536 * 2 / 1 * 2 * 60;
    double kv = 768.0 * 60 * 4096 / 3;
    assert_i64(opsgen_deepseek_mem_bytes(&m, PHASE_PREFILL, &profile_neusim),
               (int64_t)nearbyint(mla + q + ffn + act + kv));
}

/* ---- sweep helpers (§13) ---- */

/* Configs (tp, pp, ep) = (2^a, 2^b, 2^c) with a+b+c = k, c <= a, a-c <= 3
 * (max_etp 8): k=9 → 18, k=8 → 16, k=7 → 14, k=6 → 12, k=5 → 10. */
static void test_enumeration(void **s)
{
    (void)s;
    /* §13.2 counts with one pod: 1/6/12/18 for 1/8/64/512 chips. */
    static const struct { int64_t chips; size_t one_pod, total; } want[] = {
        { 1, 1, 1 }, { 8, 6, 6 }, { 64, 12, 12 },
        /* >256 (quirk Q32): 512 on 1 pod (18) + 256 on <=2 pods (16+14+14)
         * + 128 on <=4 pods (14 + 12+12 + 10+10+10) = 130. */
        { 512, 18, 130 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct parallel_cfg *p;
        size_t n, one = 0;
        struct npu_err e;
        assert_int_equal(sweep_moe_configs(want[i].chips, 8, &p, &n, &e), 0);
        for (size_t k = 0; k < n; k++) {
            assert_true(p[k].ep <= p[k].dp * p[k].tp);
            assert_true(p[k].dp * p[k].tp / p[k].ep <= 8);
            assert_i64(p[k].dp * p[k].tp * p[k].pp * p[k].ep * p[k].dp_dcn * p[k].pp_dcn,
                       p[k].num_chips);
            one += p[k].num_chips == want[i].chips;
        }
        if (one != want[i].one_pod || n != want[i].total)
            fail_msg("%lld chips: %zu one-pod / %zu configs, want %zu / %zu",
                     (long long)want[i].chips, one, n, want[i].one_pod, want[i].total);
        if (want[i].chips == 8) {
            /* Reference order: tp outer, then pp, then ep: tp1 pp8, tp2 pp2 ep2, ... */
            assert_i64(p[0].tp, 1); assert_i64(p[0].pp, 8); assert_i64(p[0].ep, 1);
            assert_i64(p[1].tp, 2); assert_i64(p[1].pp, 2); assert_i64(p[1].ep, 2);
            assert_i64(p[n - 1].tp, 8); assert_i64(p[n - 1].pp, 1); assert_i64(p[n - 1].ep, 1);
        }
        free(p);
    }
    struct parallel_cfg *p;
    size_t n;
    struct npu_err e = { "" };
    assert_int_equal(sweep_moe_configs(0, 8, &p, &n, &e), -1);
    assert_non_null(strstr(e.msg, "num_chips"));
}

static void axes_of(const char *v, int64_t dp, int64_t tp, int64_t pp, int64_t ep, bool ok,
                    int64_t ad, int64_t at, int64_t ap, int64_t ae)
{
    struct model_config m;
    load_model(&m, "deepseekv2-236b");
    m.data_parallelism_degree = dp;
    m.tensor_parallelism_degree = tp;
    m.pipeline_parallelism_degree = pp;
    m.expert_parallelism_degree = ep;
    assert_int_equal(sweep_map_axes_moe(v, &m), ok);
    if (!ok) return;
    assert_i64(m.num_data_parallel_axes, ad);
    assert_i64(m.num_tensor_parallel_axes, at);
    assert_i64(m.num_pipeline_parallel_axes, ap);
    assert_i64(m.num_expert_parallel_axes, ae);
}

static void test_axes(void **s)
{
    (void)s;
    axes_of("5p", 1, 8, 1, 8, true, 0, 3, 0, 3);   /* §13.4 examples */
    axes_of("5p", 1, 8, 1, 2, true, 0, 3, 0, 1);
    axes_of("5p", 1, 8, 1, 1, true, 0, 3, 0, 0);
    axes_of("5p", 1, 1, 4, 1, true, 0, 0, 1, 0);
    axes_of("5p", 1, 4, 2, 2, true, 0, 2, 1, 1);
    axes_of("5e", 1, 4, 2, 4, true, 0, 1, 1, 1);    /* one dp/tp axis: ep == dp*tp */
    axes_of("5e", 1, 4, 2, 2, false, 0, 0, 0, 0);   /* ... or not at all */
    axes_of("5p", 1, 1, 2, 2, false, 0, 0, 0, 0);   /* no dp/tp axis for ep */
}

static void test_validation(void **s)
{
    (void)s;
    struct model_config m;
    struct opsgen_links l = links("5p");
    char why[256];
    setup(&m, "deepseekv2-236b", "5p", 4, 1, 4, 8);   /* 88.86 GiB: fits */
    assert_true(sweep_validate_moe(&m, &l, &profile_neusim, PHASE_PREFILL, 1.5, why, sizeof why));
    setup(&m, "deepseekv2-236b", "5p", 1, 1, 1, 1);   /* 250 GiB > 1.5 x 95 */
    assert_false(sweep_validate_moe(&m, &l, &profile_neusim, PHASE_PREFILL, 1.5, why, sizeof why));
    assert_non_null(strstr(why, "footprint"));
    setup(&m, "deepseekv2-236b", "5p", 8, 1, 8, 8);
    m.expert_parallelism_degree = 16;
    assert_false(sweep_validate_moe(&m, &l, &profile_neusim, PHASE_PREFILL, 1.5, why, sizeof why));
    assert_non_null(strstr(why, "exceeds dp*tp"));
    setup(&m, "deepseekv2-236b", "5p", 8, 1, 2, 8);
    m.expert_parallel_degree_dcn = 2;
    assert_false(sweep_validate_moe(&m, &l, &profile_neusim, PHASE_PREFILL, 1.5, why, sizeof why));
    assert_non_null(strstr(why, "expert_parallel_degree_dcn"));
    setup(&m, "deepseekv2-236b", "5p", 8, 1, 8, 8);
    m.num_routed_experts = 4;
    assert_false(sweep_validate_moe(&m, &l, &profile_neusim, PHASE_DECODE, 1.5, why, sizeof why));
    assert_non_null(strstr(why, "num_routed_experts"));
    /* v5e, tp4 pp2: tp gets one axis, so ep must be 1 or 4. */
    struct opsgen_links l5e = links("5e");
    setup(&m, "deepseekv2-236b", "5e", 4, 2, 4, 8);
    assert_true(sweep_validate_moe(&m, &l5e, &profile_neusim, PHASE_PREFILL, 999999.0, why, sizeof why));
    m.expert_parallelism_degree = 2;
    assert_false(sweep_validate_moe(&m, &l5e, &profile_neusim, PHASE_PREFILL, 999999.0, why, sizeof why));
    assert_non_null(strstr(why, "ep 2 must equal dp or tp"));
    /* The LLM rules still apply: pipeline deeper than the layers. */
    setup(&m, "deepseekv2-236b", "5p", 1, 64, 1, 64);
    assert_false(sweep_validate_moe(&m, &l, &profile_neusim, PHASE_PREFILL, 999999.0, why, sizeof why));
    assert_non_null(strstr(why, "num_layers"));
}

static void test_pstr(void **s)
{
    (void)s;
    struct parallel_cfg p = { 16, 1, 4, 1, 4, 1, 1, 1, 1 };
    char buf[128];
    sweep_pstr_moe(&p, 8, buf, sizeof buf);
    assert_string_equal(buf, "dp1-tp4-pp1-ep4-dpdcn1-tpdcn1-ppdcn1-epdcn1-bs8");
    p = (struct parallel_cfg){ 512, 1, 8, 2, 8, 1, 1, 2, 1 };
    sweep_pstr_moe(&p, 64, buf, sizeof buf);
    assert_string_equal(buf, "dp1-tp8-pp2-ep8-dpdcn1-tpdcn1-ppdcn2-epdcn1-bs64");
}

/* ---- errors ---- */

static void expect_err(const struct model_config *m, const char *needle)
{
    bool ovf = false;
    struct opsgen_links l = links("5p");
    struct trace t;
    struct npu_err e = { "" };
    trace_init(&t);
    assert_int_equal(opsgen_deepseek_inference(m, &l, &profile_neusim, &t, &ovf, &e), -1);
    assert_int_equal(t.n, 0);
    if (!strstr(e.msg, needle))
        fail_msg("expected \"%s\" in \"%s\"", needle, e.msg);
    trace_free(&t);
}

static void test_errors(void **s)
{
    (void)s;
    struct model_config m;
    setup(&m, "deepseekv2-236b", "5p", 4, 1, 4, 4);
    struct model_config x = m;
    x.use_flash_attention = true;
    expect_err(&x, "\"use_flash_attention\": expected false");
    x = m; x.expert_parallelism_degree = 8;
    expect_err(&x, "\"expert_parallelism_degree\": expected at most dp*tp = 4");
    x = m; x.num_routed_experts = 2;
    expect_err(&x, "\"expert_parallelism_degree\": 4 exceeds num_routed_experts 2");
    x = m; x.expert_parallelism_degree = 0;
    expect_err(&x, "\"expert_parallelism_degree\": expected a positive integer");
    x = m; x.expert_parallel_degree_dcn = 2;
    expect_err(&x, "\"expert_parallel_degree_dcn\": expected 1");
    x = m; x.tensor_parallel_degree_dcn = 2;
    expect_err(&x, "\"tensor_parallel_degree_dcn\": expected 1");
    x = m; strcpy(x.ffn_type, "llama");
    expect_err(&x, "\"ffn_type\": expected \"deepseek_moe\"");
    x = m; strcpy(x.model_type, "dit");
    expect_err(&x, "\"model_type\"");
    x = m; x.kv_lora_rank = 0;
    expect_err(&x, "\"kv_lora_rank\"");
    x = m; x.num_chips = 2;
    expect_err(&x, "\"num_chips\": expected at least dp*tp*pp = 4");
    x = m; x.pipeline_parallelism_degree = 61; x.num_chips = 4 * 61;
    expect_err(&x, "\"pipeline_parallelism_degree\": expected pp*pp_dcn of at most num_layers = 60 stages, got 61");
    x = m; x.num_expert_parallel_axes = 99;
    expect_err(&x, "\"num_expert_parallel_axes\": expected 0..");
    x = m; x.num_shared_experts = -1;
    expect_err(&x, "\"num_shared_experts\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v2_one_chip),
        cmocka_unit_test(test_v3_one_chip),
        cmocka_unit_test(test_tp4_ep4),
        cmocka_unit_test(test_pp2_fids_and_counts),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_enumeration),
        cmocka_unit_test(test_axes),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_pstr),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_moe_load),
        cmocka_unit_test(test_physical_deepseek),
        cmocka_unit_test(test_serving_parts),
        cmocka_unit_test(test_expert_format),
        cmocka_unit_test(test_sparse_attention),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
