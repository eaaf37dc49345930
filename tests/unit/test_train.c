/* test_train.c — LLM training: backward builders, weight update, the op
 * sequence and its fusion ids, parameter count, memory footprint, sweep
 * validation and statistics, against hand-derived values (opsgen.md §3.12,
 * §6, §11.2, §12.3, §13.3, §15). */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "opsgen/builders.h"
#include "opsgen/opsgen.h"
#include "opsgen/sweep.h"
#include "opsgen/train.h"
#include "study/run/train_stats.h"

/* ---- fixtures ---- */

#define LLAMA3_8B test_model_text("llama3-8b")

static struct opsgen_links links_5p(void)
{
    struct opsgen_links l = { .ici_bw_GBps = 200, .dcn_bw_GBps = 25, .pcie_bw_GBps = 32.0,
                              .ici_latency_ns = 3330, .dcn_latency_ns = 3700,
                              .pcie_latency_ns = 400, .hbm_size_GB = 95 };
    strcpy(l.chip_name, "5p");
    strcpy(l.ICI_topology, "TORUS_3D");
    return l;
}

/* llama3-8b as run_sim builds a training run: sweep parallelism, global
 * batch, axis mapping, flash attention forced off. */
static void setup(struct model_config *m, int64_t dp, int64_t tp, int64_t pp, int64_t ppd,
                  int64_t dpd, int64_t gbs)
{
    cJSON *j = cJSON_Parse(LLAMA3_8B);
    assert_non_null(j);
    struct npu_err e;
    assert_int_equal(model_config_from_json(m, j, NULL, &e), 0);
    cJSON_Delete(j);
    struct parallel_cfg p = { dp * tp * pp * ppd * dpd, dp, tp, pp, 1, dpd, 1, ppd, 1 };
    sweep_apply_parallel(m, &p, gbs);
    sweep_map_axes_llm("5p", m);
    m->use_flash_attention = false;
}

static int64_t gen(const struct model_config *m, struct trace *t)
{
    bool ovf = false;
    struct opsgen_links l = links_5p();
    struct npu_err e;
    int64_t pc = -1;
    trace_init(t);
    if (opsgen_llm_training(m, &l, &profile_neusim, t, &pc, &ovf, &e))
        fail_msg("%s", e.msg);
    assert_false(ovf);   /* every size fits */
    return pc;
}

static const struct op *by_desc(const struct trace *t, const char *desc, int nth)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->ops[i].description, desc) && nth-- == 0)
            return &t->ops[i];
    fail_msg("no op \"%s\"", desc);
    return NULL;
}

/* ---- the physical profile: parameters, ZeRO/FSDP, remat, memory ---- */

static void test_physical_training(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m;
    setup(&m, 4, 2, 1, 1, 1, 8);   /* llama3-8b, dp 4 x tp 2, microbatch 2 per replica */
    /* one layer on one chip: (2 x 4096 x 32 x 128 + 2 x 4096 x 8 x 128 + 3 x 4096 x 14336) / 2 */
    assert_i64(train_layer_params(&ovf, &m), 109051904);
    m.zero_stage = 3;
    struct opsgen_links l = links_5p();
    struct npu_err e;
    struct trace t;
    int64_t pc = -1;
    trace_init(&t);
    if (opsgen_llm_training(&m, &l, &profile_physical, &t, &pc, &ovf, &e))
        fail_msg("%s", e.msg);
    /* the stage's layers plus the vocabulary: 2 x 128256/2 x 4096 (embedding and LM head) */
    assert_i64(pc, 109051904LL * 32 + 2LL * 64128 * 4096);
    /* the LM head over every position, forward and backward (XGrad, YGrad) */
    assert_non_null(by_desc(&t, "LMHead", 0));
    assert_non_null(by_desc(&t, "Bwd-LMHead", 1));
    assert_non_null(by_desc(&t, "Bwd-TokenEmbedding", 0));
    /* FSDP: each layer's shard gathered before both passes, its gradients reduce-scattered */
    const struct op *g = by_desc(&t, "Fwd-FSDP-AllGatherWeights", 0);
    assert_i64(g->count, 32);
    assert_i64(by_desc(&t, "Bwd-FSDP-AllGatherWeights", 0)->count, 32);
    assert_i64(by_desc(&t, "Bwd-FSDP-ReduceScatterGradients", 0)->count, 32);
    /* a gated FFN's activation and its backward */
    assert_non_null(by_desc(&t, "Fwd-FFN-encoder-FFgate_act", 0));
    assert_non_null(by_desc(&t, "Bwd-FFN-encoder-FFact", 0));
    assert_i64(by_desc(&t, "Fwd-FFN-encoder-FFgate", 0)->count, 32);
    /* causal attention backward over 4097/2 = 2048 keys per query; K/V gradients over 8/2 = 4 heads */
    bool scores = false, kproj = false;
    for (size_t i = 0; i < t.n; i++) {
        scores |= strstr(cfg_text(&t.ops[i]), "Pointwise Mul.(x=2x4096x2048x16,") != NULL;
        kproj |= strstr(t.ops[i].name, "KallgatheredXGrad") == NULL &&
                 strstr(cfg_text(&t.ops[i]), "a=2x4096x2048,b=2048x4x128,") != NULL;
    }
    assert_true(scores);
    assert_true(kproj);
    trace_free(&t);
    /* memory: P = 32 x 109051904 + 2 x 64128 x 4096 (vocabulary) = 4014997504; weights 2P/4 plus one
     * gathered layer, gradients 2P/4, FP32 states 12P/4; activations 34 x 2 x 4096 x 4096 / 2 x 32 */
    assert_i64(opsgen_llm_training_mem_bytes(&m, &profile_physical), 34531704832LL);
    /* remat full: the forward layer ops run twice; activations keep each layer's input,
     * 2 x 2 x 4096 x 4096 / 2 x 32, plus one layer's 34 x 2 x 4096 x 4096 / 2 */
    strcpy(m.remat, "full");
    trace_init(&t);
    if (opsgen_llm_training(&m, &l, &profile_physical, &t, &pc, &ovf, &e))
        fail_msg("%s", e.msg);
    assert_i64(by_desc(&t, "Fwd-FFN-encoder-FFgate", 0)->count, 64);
    assert_i64(by_desc(&t, "Fwd-FSDP-AllGatherWeights", 0)->count, 32);
    trace_free(&t);
    assert_i64(opsgen_llm_training_mem_bytes(&m, &profile_physical), 17922260992LL);
    /* a plain GeLU MLP: two matrices */
    strcpy(m.ffn_type, "gelu");
    assert_i64(train_layer_params(&ovf, &m), (41943040LL + 2 * 4096 * 14336) / 2);
}

/* ---- builders ---- */

static void test_einsum_bwd_pair(void **s)
{
    bool ovf = false;
    (void)s;
    struct trace t;
    trace_init(&t);
    struct op *x = b_einsum_bwd(&t, &ovf, 7, 3, "Bwd-X", "n", SHP(2, 3, 4), SHP(4, 5), "BLM;MH->BLH",
                                "0_0_0", "DT_BFLOAT16");
    assert_non_null(x);
    assert_int_equal(t.n, 2);
    assert_ptr_equal(x, &t.ops[0]);
    assert_string_equal(t.ops[0].name, "BwdXnXGrad");
    assert_string_equal(t.ops[1].name, "BwdXnYGrad");
    for (int i = 0; i < 2; i++) {
        const struct op *o = &t.ops[i];
        assert_i64(o->fusion_id, 7 + i);
        assert_i64(o->count, 3);
        assert_i64(o->flops, 2 * 2 * 3 * 4 * 5);   /* forward FLOPs on both */
        assert_i64(o->weight_bytes, 2 * 4 * 5);    /* bytes(BF16) * prod(B) */
        assert_string_equal(o->description, "Bwd-X");
        assert_string_equal(o->opcode, "Einsum");
        assert_string_equal(cfg_text(o),
                            "XlaEinsum(a=2x3x4,b=4x5,eq=BLM;MH->BLH,memory_placements=0_0_0,type=DT_BFLOAT16)");
        assert_string_equal(out_text(o), "[DT_BFLOAT16:(2,3,5)]");
    }
    assert_null(b_einsum_bwd(&t, &ovf, 1, 1, "d", "n", SHP(2), SHP(2), "A;A->Z", "0_0_0", "DT_BFLOAT16"));
    trace_free(&t);
}

static void test_layernorm_bwd_quad(void **s)
{
    bool ovf = false;
    (void)s;
    struct trace t;
    trace_init(&t);
    assert_int_equal(b_layernorm_bwd(&t, &ovf, 9, 1, SHP(2, 3, 4)), 0);
    assert_int_equal(t.n, 4);
    for (int i = 0; i < 4; i++) {
        assert_i64(t.ops[i].fusion_id, 9);
        assert_i64(t.ops[i].count, 1);   /* quirk Q16: not the layer count */
    }
    const struct op *sm = &t.ops[0];
    assert_string_equal(sm->description, "Softmax");
    assert_string_equal(sm->name, "SoftmaxSoftmaxBackprop");
    assert_string_equal(cfg_text(sm), "Softmax(x=2x3x4,memory_placements=1_1,type=DT_BFLOAT16)");
    assert_i64(sm->flops, 4 * 24);
    assert_i64(sm->weight_bytes, 0);
    static const char *const desc[] = { "softmax-bwd-dl/dy-9", "softmax-bwd-e1-9", "softmax-bwd-e2-9" };
    static const char *const name[] = { "softmaxbwddldy9MatMuldldy", "softmaxbwde19MatMule1",
                                        "softmaxbwde29MatMule2" };
    static const char *const out[] = { "[DT_BFLOAT16:(2,4)]", "[DT_BFLOAT16:(2,3)]", "[DT_BFLOAT16:(2,3)]" };
    for (int i = 0; i < 3; i++) {
        const struct op *o = &t.ops[1 + i];
        assert_string_equal(o->description, desc[i]);
        assert_string_equal(o->name, name[i]);
        assert_string_equal(out_text(o), out[i]);
        assert_non_null(strstr(cfg_text(o), "memory_placements=0_0_1"));
        /* dl/dy: batch {B,V}, reduced L; e1/e2: batch {B,L}, reduced N: 2*24 each. */
        assert_i64(o->flops, 48);
        assert_i64(o->weight_bytes, 2 * 24);   /* activation counted as weight (Q16) */
    }
    trace_free(&t);
}

static void test_weight_update(void **s)
{
    bool ovf = false;
    (void)s;
    const int64_t P = 7516192768LL;
    struct coll_axes dp2 = { 1, { 2 }, { 0 }, 3330, false, COLL_RING, false, 0, 0 }, none = { 0, { 0 }, { 0 }, 3330, false, COLL_RING, false, 0, 0 };
    struct trace t;

    /* §15: dp [2], dp_dcn 1: bytes 2*2*P over 200 + 25 (DCN appended, Q11). */
    trace_init(&t);
    assert_int_equal(b_weight_update(&t, &ovf, 27, P, &dp2, 1, 200, 25), 0);
    assert_int_equal(t.n, 3);
    const struct op *ar = &t.ops[0], *in = &t.ops[1], *outp = &t.ops[2];
    assert_string_equal(ar->description, "WeightUpdate");
    assert_string_equal(ar->name, "WeightUpdateAllReduce");
    assert_string_equal(cfg_text(ar), "AllReduce(1x7516192768x1->1x7516192768x1)");
    assert_i64(ar->ici_in_bytes, 4 * P);
    assert_i64(ar->ici_ns, 133621205);
    assert_i64(ar->fusion_id, 27);
    assert_string_equal(in->description, "WeightUpdateOptimizerStates: Load optimizer states from HBM");
    assert_string_equal(in->name, "WeightUpdateOptimizerStatesLoadoptimizerstatesfromHBMinput");
    assert_string_equal(cfg_text(in), "Abs(x=30064771072,type=DT_BFLOAT16)");
    assert_string_equal(in->opcode, "Input");
    assert_int_equal(in->type, OP_VPU);
    assert_i64(in->fusion_id, 28);
    assert_string_equal(outp->name, "WeightUpdateWriteHBMoutput");
    assert_string_equal(cfg_text(outp), "Abs(x=7516192768,type=DT_BFLOAT16)");
    assert_string_equal(outp->opcode, "Output");
    assert_int_equal(outp->type, OP_VPU);
    assert_i64(outp->fusion_id, 29);
    trace_free(&t);

    /* dp [2] + dp_dcn 2: staged elements P + P/2, bandwidth still 200 + 25. */
    trace_init(&t);
    assert_int_equal(b_weight_update(&t, &ovf, 5, P, &dp2, 2, 200, 25), 0);
    assert_i64(t.ops[0].ici_in_bytes, 2 * (P + P / 2) * 2);
    assert_i64(t.ops[0].ici_ns, 200431808);   /* ceil(45,097,156,608 / 225) */
    trace_free(&t);

    /* Small tensor: the latency floor 2 * 3330 * (4 - 1). */
    trace_init(&t);
    assert_int_equal(b_weight_update(&t, &ovf, 5, 1000, &dp2, 2, 200, 25), 0);
    assert_i64(t.ops[0].ici_ns, 19980);
    trace_free(&t);

    /* No data parallelism: no all-reduce; load and store at fid, fid + 1. */
    trace_init(&t);
    assert_int_equal(b_weight_update(&t, &ovf, 5, 1000, &none, 1, 200, 25), 0);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.ops[0].opcode, "Input");
    assert_i64(t.ops[0].fusion_id, 5);
    assert_i64(t.ops[1].fusion_id, 6);
    trace_free(&t);

    /* DCN-only data parallelism: bandwidth is the DCN link alone. */
    trace_init(&t);
    assert_int_equal(b_weight_update(&t, &ovf, 5, 1000000, &none, 2, 200, 25), 0);
    assert_int_equal(t.n, 3);
    assert_i64(t.ops[0].ici_ns, 160000);   /* 4,000,000 B / 25 GB/s */
    trace_free(&t);
}

/* ---- §15: llama3-8b training, tp2 dp2 on v5p, gbs 32 ---- */

static void test_llama8b_tp2_dp2(void **s)
{
    (void)s;
    struct model_config m;
    setup(&m, 2, 2, 1, 1, 1, 32);
    assert_i64(m.num_tensor_parallel_axes, 2);   /* split(2, 2) = [2] */
    assert_i64(m.num_data_parallel_axes, 1);
    struct trace t;
    int64_t pc = gen(&m, &t);
    assert_int_equal(t.n, 54);
    assert_i64(pc, 7516192768LL);

    /* Fusion ids of all 54 ops, as the reference numbers them. */
    static const int64_t fids[54] = {
        3, 4, 5, 5, 5, 6, 6, 6, 6, 7, 8, 9, 10,              /* LN, attention */
        11, 12, 13, 14, 15, 16, 17,                          /* FFN */
        19, 20, 19, 20, 21, 20, 21, 20, 19,                  /* FFN bwd (Q36 skip at 18) */
        20, 20, 20, 20, 21, 22, 23, 24, 23, 23, 24,          /* attention bwd */
        23, 24, 23, 24, 23, 24, 25,
        26, 26, 26, 26,                                      /* input LayerNorm bwd */
        27, 28, 29,                                          /* weight update */
    };
    for (size_t i = 0; i < 54; i++)
        if (t.ops[i].fusion_id != fids[i])
            fail_msg("op %zu (%s): fid %lld, want %lld", i, t.ops[i].name,
                     (long long)t.ops[i].fusion_id, (long long)fids[i]);

    /* Forward: input LayerNorm on the TP-divided width, count L = 32. */
    assert_string_equal(t.ops[0].description, "Fwd-Attention-encoder-Input_layernorm");
    assert_string_equal(cfg_text(&t.ops[0]), "LayerNorm(x=16x4096x2048,memory_placements=0_0,type=DT_BFLOAT16)");
    assert_i64(t.ops[0].count, 32);

    /* FFN bwd: pairs named ...einsumXGrad / ...einsumYGrad; two all-reduces (Q17). */
    assert_string_equal(t.ops[20].name, "BwdFFNencoderFFdowneinsumXGrad");
    assert_string_equal(t.ops[21].name, "BwdFFNencoderFFdowneinsumYGrad");
    assert_string_equal(cfg_text(&t.ops[20]),
                        "XlaEinsum(a=16x4096x7168,b=7168x4096,eq=BLH;HM->BLM,memory_placements=0_0_0,type=DT_BFLOAT16)");
    assert_i64(t.ops[20].weight_bytes, 2 * 7168 * 4096);
    const struct op *inner = by_desc(&t, "Bwd-FFN-encoder-", 0);
    assert_string_equal(inner->name, "BwdFFNencoderAllReduce");
    assert_i64(inner->count, 1);
    assert_string_equal(cfg_text(inner), "AllReduce(16x4096x4096->16x4096x4096)");
    const struct op *outer = by_desc(&t, "All reduce results of MLP gradient calculation", 0);
    assert_string_equal(outer->name, "AllreduceresultsofMLPgradientcalculationAllReduceMLP19");
    assert_i64(outer->count, 32);
    /* [16,4096,4096] on axes [2]: 2 * 2^28 elements * 2 B = 2^30 B / 200 GB/s. */
    assert_i64(outer->ici_in_bytes, 1073741824LL);
    assert_i64(outer->ici_ns, 5368710);

    /* Attention bwd: sharded widths (no gathers), Q/K/V weights 2*Hl*Dl*dh. */
    const struct op *q = by_desc(&t, "Bwd-Attention_encoder-Q/K/V", 0);
    assert_string_equal(q->name, "BwdAttentionencoderQKVMatMulQ2xnormallgathered2Wq1XGrad");
    assert_string_equal(cfg_text(q),
                        "XlaEinsum(a=16x4096x2048,b=2048x16x128,eq=BLM;MND->BLND,memory_placements=0_0_0,type=DT_BFLOAT16)");
    assert_i64(q->weight_bytes, 2 * 16 * 2048 * 128);
    const struct op *sm = by_desc(&t, "Bwd-Attention_encoder-Attention_Softmax(Q*K)*V", 2);
    assert_string_equal(sm->opcode, "Pointwise Mul.");
    assert_string_equal(sm->name, "BwdAttentionencoderAttentionSoftmaxQKVSoftmaxBackprop");
    assert_string_equal(cfg_text(sm), "Pointwise Mul.(x=16x4096x4096x16,memory_placements=1_1,type=DT_BFLOAT16)");
    assert_i64(by_desc(&t, "Bwd-Attention_encoder-Attention_Softmax(Q*K)*V", 0)->weight_bytes, 0);
    const struct op *aar = by_desc(&t, "Bwd-Attention_encoder-", 0);
    assert_i64(aar->count, 1);
    assert_string_equal(cfg_text(aar), "AllReduce(16x4096x2048->16x4096x2048)");

    /* The two LayerNorm-bwd quads: descriptions carry their fid. */
    by_desc(&t, "softmax-bwd-e1-20", 0);
    assert_string_equal(cfg_text(by_desc(&t, "softmax-bwd-dl/dy-26", 0)),
                        "XlaEinsum(a=16x4096x2048,b=16x4096x2048,eq=BLV;BLV->BV,memory_placements=0_0_1,type=DT_BFLOAT16)");

    /* Weight update over dp [2] with the DCN bandwidth appended (Q11). */
    const struct op *wu = by_desc(&t, "WeightUpdate", 0);
    assert_i64(wu->ici_ns, 133621205);
    assert_int_equal(t.ops[53].type, OP_VPU);
    trace_free(&t);
}

/* One chip: no collectives, no all-reduce in the weight update. */
static void test_llama8b_one_chip(void **s)
{
    (void)s;
    struct model_config m;
    setup(&m, 1, 1, 1, 1, 1, 1);
    struct trace t;
    int64_t pc = gen(&m, &t);
    /* fwd: LN + 9 attention + 5 FFN; bwd: 7 FFN + 17 attention + 4 LN + 2 update. */
    assert_int_equal(t.n, 45);
    /* FFN 6 x 2*D*F x 32 + 2 quads x 3 x 2*B*S*D + (2 out + 6 QKV) x 2*H*dh*D x 32, halved. */
    assert_i64(pc, (6LL * 2 * 4096 * 14336 * 32 + 2LL * 3 * 2 * 4096 * 4096 +
                    8LL * 2 * 32 * 128 * 4096 * 32) / 2);
    assert_i64(pc, 15669919744LL);
    for (size_t i = 0; i < t.n; i++)
        assert_null(strstr(t.ops[i].opcode, "All"));
    assert_string_equal(t.ops[t.n - 2].opcode, "Input");
    trace_free(&t);
}

/* Pipeline over ICI and DCN: transfers, their descriptions and fids. */
static void test_pipeline_fids(void **s)
{
    (void)s;
    struct model_config m;
    setup(&m, 1, 1, 2, 2, 1, 4);
    struct trace t;
    gen(&m, &t);
    static const struct { const char *desc; int64_t fid; } pp[] = {
        { "Fwd-ReceiveInputFromPipelineDCN", 2 }, { "Fwd-ReceiveInputFromPipelineICI", 3 },
        { "SendOutputToPipelineICI", 10 }, { "SendOutputToPipelineDCN", 11 },  /* stale fid, Q5 */
        { "Bwd-ReceiveInputFromPipelineDCN", 12 }, { "Bwd-ReceiveInputFromPipelineICI", 13 },
        { "Bwd-SendOutputToPipelineICI", 24 }, { "Bwd-SendOutputToPipelineDCN", 25 },
    };
    for (size_t i = 0; i < sizeof pp / sizeof pp[0]; i++) {
        const struct op *o = by_desc(&t, pp[i].desc, 0);
        assert_i64(o->fusion_id, pp[i].fid);
        assert_i64(o->count, 1);
        /* [1,4096,4096] BF16 = 2^25 B over the ICI link even for DCN (Q9). */
        assert_i64(o->ici_ns, 167773);
    }
    assert_string_equal(by_desc(&t, "Fwd-ReceiveInputFromPipelineDCN", 0)->name,
                        "FwdReceiveInputFromPipelineDCNreceiveInputDCNTTransfer16777216");
    assert_string_equal(by_desc(&t, "SendOutputToPipelineICI", 0)->name,
                        "SendOutputToPipelineICISendOutputICITransfer16777216");
    assert_i64(t.ops[2].fusion_id, 5);   /* input LayerNorm after the Q36 skip */
    assert_i64(t.ops[2].count, 8);       /* 32 layers / 2 / 2 */
    assert_i64(by_desc(&t, "WeightUpdateWriteHBM", 0)->fusion_id, 27);
    trace_free(&t);
}

/* ---- §11.2 ---- */

static void test_memory(void **s)
{
    (void)s;
    struct model_config m;
    setup(&m, 2, 2, 1, 1, 1, 32);
    /* 14w + 2a with w = 3,925,868,544 and a = 64,290,291,712. */
    assert_i64(opsgen_llm_training_mem_bytes(&m, &profile_neusim), 183542743040LL);
    assert_close((double)opsgen_llm_training_mem_bytes(&m, &profile_neusim) / 1073741824.0, 170.9375);
    /* Layers divide by ICI pp only; pp_dcn does not change the footprint. */
    struct model_config a, b;
    setup(&a, 1, 1, 2, 1, 1, 32);
    setup(&b, 1, 1, 2, 2, 1, 32);
    assert_i64(opsgen_llm_training_mem_bytes(&a, &profile_neusim), opsgen_llm_training_mem_bytes(&b, &profile_neusim));
}

/* ---- §13.3 ---- */

static void test_sweep_validation(void **s)
{
    (void)s;
    struct opsgen_links l = links_5p();
    struct model_config base;
    setup(&base, 1, 1, 1, 1, 1, 32);
    struct parallel_cfg *pcs;
    size_t n;
    struct npu_err e;
    /* The visible suite's line: every 4-chip configuration is out of memory. */
    assert_int_equal(sweep_llm_configs(4, true, &pcs, &n, &e), 0);
    assert_int_equal(n, 6);
    for (size_t i = 0; i < n; i++) {
        struct model_config m = base;
        char why[256];
        sweep_apply_parallel(&m, &pcs[i], 32);
        assert_false(train_validate_sweep(&m, &l, &profile_neusim, 1.5, why, sizeof why));
        assert_non_null(strstr(why, "training footprint"));
    }
    free(pcs);
    /* dp 4 x tp 16 x dp_dcn 2: 27.2 GiB fits, and DCN data parallelism is allowed. */
    struct model_config m = base;
    struct parallel_cfg p = { 128, 4, 16, 1, 1, 2, 1, 1, 1 };
    sweep_apply_parallel(&m, &p, 32);
    char why[256];
    assert_true(train_validate_sweep(&m, &l, &profile_neusim, 1.5, why, sizeof why));
    p = (struct parallel_cfg){ 64, 1, 1, 32, 1, 1, 1, 2, 1 };
    sweep_apply_parallel(&m, &p, 64);
    assert_false(train_validate_sweep(&m, &l, &profile_neusim, 1.5, why, sizeof why));
    assert_non_null(strstr(why, "num_layers"));
    p = (struct parallel_cfg){ 64, 64, 1, 1, 1, 1, 1, 1, 1 };
    sweep_apply_parallel(&m, &p, 32);
    assert_false(train_validate_sweep(&m, &l, &profile_neusim, 1.5, why, sizeof why));
    assert_non_null(strstr(why, "global_batch_size"));
}

/* ---- §12.3 on a hand-made trace ---- */

static void push_timed(struct trace *t, const char *desc, int64_t exe, int64_t count,
                       enum bounded_by b, int64_t sa, int64_t mem)
{
    struct op *o = trace_push(t);
    op_set(&o->description, desc);
    o->exe_ns = exe;
    o->count = count;
    o->bounded_by = b;
    o->sa_ns = sa;
    o->mem_ns = mem;
}

static void test_stats(void **s)
{
    (void)s;
    struct model_config m;
    setup(&m, 1, 1, 2, 3, 1, 32);
    struct trace t;
    trace_init(&t);
    push_timed(&t, "Fwd-FFN-encoder-FFgate", 100, 2, BOUND_COMPUTE, 100, 40);
    push_timed(&t, "Fwd-ReceiveInputFromPipelineICI", 30, 1, BOUND_ICI, 0, 0);
    push_timed(&t, "SendOutputToPipelineDCN", 50, 1, BOUND_ICI, 0, 0);
    struct trace_stats chip;
    assert_int_equal(trace_stats_compute(&t, PHASE_NONE, &chip, NULL), 0);
    struct train_stats st;
    train_stats_compute(&chip, &m, &profile_neusim, 95, &st);
    assert_i64(st.chip.total_execution_time_chip_ns, 200);   /* max(non-PP 200, PP-ICI 30) */
    assert_i64(st.total_execution_time_pod_ns, 400);         /* x pp 2 */
    assert_i64(st.compute_only_time_pod_ns, 240);            /* (100 - 40) x 2 x pp */
    assert_false(st.bounded_by_pp_dcn);                      /* DCN 50 < pod 400 */
    assert_i64(st.total_execution_time_ns, 1200);            /* x pp_dcn 3 */
    /* A slow DCN stage bounds the step: total = PP-DCN time x pp_dcn. */
    t.ops[2].exe_ns = 1000;
    assert_int_equal(trace_stats_compute(&t, PHASE_NONE, &chip, NULL), 0);
    train_stats_compute(&chip, &m, &profile_neusim, 95, &st);
    assert_true(st.bounded_by_pp_dcn);
    assert_i64(st.total_execution_time_ns, 3000);
    trace_free(&t);

    /* OOM compares the per-chip footprint with the pod's HBM (Q15b). */
    setup(&m, 2, 2, 1, 1, 1, 32);
    train_stats_compute(&chip, &m, &profile_neusim, 95, &st);
    assert_close(st.mem_footprint_GB, 170.9375);
    assert_false(st.out_of_memory);   /* 4 x 95 GiB */
    m.num_chips = 1;
    train_stats_compute(&chip, &m, &profile_neusim, 95, &st);
    assert_true(st.out_of_memory);
}

/* ---- errors: named fields, nothing appended ---- */

static void expect_err(const struct model_config *m, const char *want)
{
    bool ovf = false;
    struct opsgen_links l = links_5p();
    struct trace t;
    struct npu_err e;
    trace_init(&t);
    assert_int_equal(opsgen_llm_training(m, &l, &profile_neusim, &t, NULL, &ovf, &e), -1);
    if (!strstr(e.msg, want))
        fail_msg("message \"%s\" lacks \"%s\"", e.msg, want);
    assert_int_equal(t.n, 0);
    trace_free(&t);
}

static void test_errors(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m;
    setup(&m, 1, 1, 1, 1, 1, 1);
    struct model_config x = m;
    x.use_flash_attention = true;
    expect_err(&x, "model field \"use_flash_attention\"");
    x = m; strcpy(x.ffn_type, "deepseek_moe");
    expect_err(&x, "model field \"ffn_type\": expected \"llama\", \"swiglu\", \"geglu\", \"default\", \"gelu\" or \"relu\", got \"deepseek_moe\"");
    x = m; strcpy(x.model_type, "dit");
    expect_err(&x, "\"model_type\"");
    x = m; x.num_chips = 2; x.tensor_parallelism_degree = 4;
    expect_err(&x, "\"num_chips\": expected at least dp*tp*pp = 4");
    x = m; x.tensor_parallel_degree_dcn = 2;
    expect_err(&x, "\"tensor_parallel_degree_dcn\": expected 1");
    x = m; x.global_batch_size = 0;
    expect_err(&x, "\"global_batch_size\"");
    x = m; x.data_parallel_degree_dcn = 2;
    struct opsgen_links l = links_5p();
    l.dcn_bw_GBps = 0;
    struct trace t;
    struct npu_err e;
    trace_init(&t);
    assert_int_equal(opsgen_llm_training(&x, &l, &profile_neusim, &t, NULL, &ovf, &e), -1);
    assert_non_null(strstr(e.msg, "\"dcn_bw_GBps\""));
    trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_einsum_bwd_pair),
        cmocka_unit_test(test_layernorm_bwd_quad),
        cmocka_unit_test(test_weight_update),
        cmocka_unit_test(test_llama8b_tp2_dp2),
        cmocka_unit_test(test_llama8b_one_chip),
        cmocka_unit_test(test_pipeline_fids),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_sweep_validation),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_physical_training),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
