/* test_chipsim.c — hand-checked per-op timings (chipsim.md §14.1) and error paths.
 *
 * Each test builds ops with the exact strings of the reference CSVs, runs
 * chipsim_run on a TPUv5p/v4/v5e configuration and compares every timing and
 * statistics column with the values derived by hand in the spec (or, for the
 * conv search, by a brute-force sweep written from the spec). */
#include "testutil.h"

#include <pthread.h>

#include "chipsim/chipsim.h"
#include "chipsim/cs_internal.h"   /* tile_memo_clear, shape parsers */
#include "opsgen/builders.h"
#include "opsgen/builders_conv.h"
#include "traces/trace_csv.h"
#include "traces/fields.h"
#include "opsgen/opsgen.h"
#include "opsgen/sweep.h"

#define LLAMA3_8B test_model_text("llama3-8b")

static int run(struct trace *t, const struct chip_config *c, struct npu_err *e)
{
    return chipsim_run(t, c, &profile_neusim, e);
}

#define QPROJ "XlaEinsum(a=1x4096x4096,b=4096x32x128,eq=BLM;MND->BLND,memory_placements=0_0_0,type=DT_BFLOAT16)"
#define QPROJ_IN "DT_BFLOAT16:[1,4096,4096],DT_BFLOAT16:[4096,32,128]"
#define QPROJ_OUT "[DT_BFLOAT16:(1,4096,32,128)]"

/* A chip too slow for the op: a time past 2^61 ns is an error naming the op,
 * returned by this run only (the next op on a sane chip times as before). */
static void test_time_overflow_error(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    double f = c.freq_GHz;
    c.freq_GHz = 1e-30;
    struct trace t;
    trace_init(&t);
    test_op(&t, "Q3MatMulQ", QPROJ, QPROJ_IN, QPROJ_OUT, OP_MXU, 137438953472);
    struct npu_err e = {{0}};
    assert_int_equal(run(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "op 0 \"Q3MatMulQ\""));
    assert_non_null(strstr(e.msg, "a time exceeds 2^61 ns"));
    c.freq_GHz = f;
    assert_int_equal(run(&t, &c, &e), 0);
    assert_i64(t.ops[0].exe_ns, 308424);
    trace_free(&t);
}

static void test_q_projection(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    test_op(&t, "Q3MatMulQ", QPROJ, QPROJ_IN, QPROJ_OUT, OP_MXU, 137438953472);
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), 0);
    struct op *o = &t.ops[0];
    assert_i64(o->sa_ns, 308424);
    assert_i64(o->vu_ns, 51401);
    assert_i64(o->bytes, 100663296);
    assert_i64(o->mem_ns, 33906);
    assert_i64(o->vmem_ns, 53647);
    assert_i64(o->exe_ns, 308424);
    assert_int_equal(o->bounded_by, BOUND_COMPUTE);
    assert_i64(o->max_vmem_demand_bytes, 50331648);
    assert_i64(o->num_sa_ops, 32768);
    assert_i64(o->num_tiles, 1);
    assert_i64(o->einsum_b, 1);
    assert_i64(o->einsum_m, 4096);
    assert_i64(o->einsum_n, 4096);
    assert_i64(o->einsum_k, 4096);
    assert_string_equal(o->parsed_op_type, "Einsum");
    assert_string_equal(labels_text(o), "BLM,MND->BLND");
    assert_string_equal(tiles_text(o), "[[1, 4096, 4096], [4096, 32, 128], [1, 4096, 32, 128]]");
    assert_int_equal(o->stats_kind, STATS_EINSUM);
    /* Bit-exact against the reference CSV cells. */
    assert_true(o->flops_util == 0.9770381121255398);
    assert_true(o->hbm_bw_util == 0.10993297360215563);
    trace_free(&t);
}

static void test_layernorm(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    test_op(&t, "FwdAttentionencoderInputlayernormXnormLayerNormX",
        "LayerNorm(x=1x4096x4096,memory_placements=0_0,type=DT_BFLOAT16)", "DT_BFLOAT16:[1,4096,4096]",
        "[DT_BFLOAT16:(1,4096,4096)]", OP_VPU, 134217728);
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), 0);
    struct op *o = &t.ops[0];
    assert_i64(o->sa_ns, 0);
    assert_i64(o->vu_ns, 12851);
    assert_i64(o->bytes, 67108864);
    assert_i64(o->mem_ns, 22604);
    assert_i64(o->vmem_ns, 4708);
    assert_i64(o->exe_ns, 22604);
    assert_int_equal(o->bounded_by, BOUND_MEMORY);
    assert_string_equal(o->parsed_op_type, "LayerNorm");
    assert_int_equal(o->stats_kind, STATS_BASE);
    assert_true(o->flops_util == 0.5684921287573602);
    assert_true(o->hbm_bw_util == 0.9999990400009215);
    trace_free(&t);
}

static void test_decode_qk_prefix(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    struct op *o = test_op(&t, "QK", "XlaEinsum(a=1x1x32x128,b=1x4096x32x128,eq=BLND;BSND->BLSN,"
                       "memory_placements=0_0_0,type=DT_BFLOAT16)",
                       "DT_BFLOAT16:[1,1,32,128],DT_BFLOAT16:[1,4096,32,128]", "[DT_BFLOAT16:(1,1,4096,32)]",
                       OP_MXU, 2 * 32 * 4096 * 128);
    o->opcode_type = OPC_EINSUM;
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), 0);
    o = &t.ops[0];
    assert_i64(o->einsum_b, 32);
    assert_i64(o->einsum_m, 1);
    assert_i64(o->einsum_n, 4096);
    assert_i64(o->einsum_k, 128);
    assert_i64(o->num_sa_ops, 1024);
    assert_i64(o->sa_ns, 9657);
    assert_i64(o->vu_ns, 1606);
    assert_i64(o->bytes, 33824768);
    assert_i64(o->mem_ns, 11394);
    assert_int_equal(o->bounded_by, BOUND_MEMORY);
    trace_free(&t);
}

static void test_flash_attention(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    test_op(&t, "FA", "FlashAttention(q=1x4096x32x128,k=1x4096x32x128,v=1x4096x32x128,memory_placements=[0, 0, 0],"
        "type=DT_BFLOAT16)", "DT_BFLOAT16:[1,4096,32,128],DT_BFLOAT16:[1,4096,32,128],DT_BFLOAT16:[1,4096,32,128]",
        "[DT_BFLOAT16:(1,4096,32,32)]", OP_MXU, 70866960384);
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), 0);
    struct op *o = &t.ops[0];
    assert_i64(o->sa_ns, 616848);
    assert_i64(o->vu_ns, 308405);
    assert_i64(o->vu_softmax_ns, 205603);
    assert_i64(o->num_sa_ops, 65536);
    assert_i64(o->einsum_b, 32);
    assert_i64(o->einsum_m, 4096);
    assert_i64(o->einsum_n, 4096);
    assert_i64(o->einsum_k, 128);
    assert_string_equal(tiles_text(o), "[4096, 128]");
    assert_i64(o->bytes, 134217728);
    assert_i64(o->mem_ns, 45208);
    assert_i64(o->vmem_ns, 105799);
    assert_i64(o->max_vmem_demand_bytes, 4227072);
    assert_int_equal(o->stats_kind, STATS_FA);
    assert_true(o->flops_util == 0.2518926382823657);
    trace_free(&t);
}

/* V wider than Q and K (the second product takes V's width; MiMo-V2-Flash's
 * V is narrower): beside an all-256 op, the asymmetric one's systolic time is
 * the all-128 op's first product (308424 ns, above) plus half the all-256
 * op's two; its vector time the all-128 op's first pass (51401 = (308405 -
 * 205603) / 2) and softmax plus half the all-256 op's two passes; its MXU
 * passes 32 heads x 32 x 32 tiles x (1 + 2 of 128). */
static void test_flash_attention_wide_v(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    test_op(&t, "FAv", "FlashAttention(q=1x4096x32x128,k=1x4096x32x128,v=1x4096x32x256,memory_placements=[0, 0, 0],"
        "type=DT_BFLOAT16)", "DT_BFLOAT16:[1,4096,32,128],DT_BFLOAT16:[1,4096,32,128],DT_BFLOAT16:[1,4096,32,256]",
        "[DT_BFLOAT16:(1,4096,32,32)]", OP_MXU, 70866960384);
    test_op(&t, "FA256", "FlashAttention(q=1x4096x32x256,k=1x4096x32x256,v=1x4096x32x256,memory_placements=[0, 0, 0],"
        "type=DT_BFLOAT16)", "DT_BFLOAT16:[1,4096,32,256],DT_BFLOAT16:[1,4096,32,256],DT_BFLOAT16:[1,4096,32,256]",
        "[DT_BFLOAT16:(1,4096,32,32)]", OP_MXU, 70866960384);
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), 0);
    const struct op *v = &t.ops[0], *w = &t.ops[1];
    assert_i64(w->sa_ns % 2, 0);
    assert_i64(v->sa_ns, 308424 + w->sa_ns / 2);
    assert_i64(v->vu_softmax_ns, 205603);
    assert_i64(v->vu_ns, 51401 + 205603 + (w->vu_ns - 205603) / 2);
    assert_i64(v->num_sa_ops, 32768 + 65536);
    assert_i64(v->einsum_k, 128);
    trace_free(&t);
}

static void test_ffn_tile_search(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    test_op(&t, "gate", "XlaEinsum(a=1x4096x4096,b=4096x14336,eq=BLM;MH->BLH,memory_placements=0_0_0,type=DT_BFLOAT16)",
        "DT_BFLOAT16:[1,4096,4096],DT_BFLOAT16:[4096,14336]", "[DT_BFLOAT16:(1,4096,14336)]", OP_MXU,
        481036337152);
    test_op(&t, "down", "XlaEinsum(a=1x4096x14336,b=14336x4096,eq=BLH;HM->BLM,memory_placements=0_0_0,type=DT_BFLOAT16)",
        "DT_BFLOAT16:[1,4096,14336],DT_BFLOAT16:[14336,4096]", "[DT_BFLOAT16:(1,4096,4096)]", OP_MXU,
        481036337152);
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), 0);
    struct op *g = &t.ops[0], *d = &t.ops[1];
    assert_string_equal(tiles_text(g), "[[1, 4096, 256], [256, 14336], [1, 4096, 14336]]");
    assert_i64(g->bytes, 268435456);
    assert_i64(g->num_tiles, 1);
    assert_i64(g->max_vmem_demand_bytes, 155189248);
    assert_i64(g->sa_ns, 1079436);
    assert_i64(g->vu_ns, 179902);
    assert_i64(g->mem_ns, 90416);
    assert_i64(g->vmem_ns, 185889);
    assert_string_equal(tiles_text(d), "[[1, 4096, 3584], [3584, 4096], [1, 4096, 4096]]");
    assert_i64(d->bytes, 268435456);
    assert_i64(d->max_vmem_demand_bytes, 50331648);
    trace_free(&t);
}

static void test_einsum_vpu_fallback(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    test_op(&t, "matvec", "XlaEinsum(a=12x4x64,b=64,eq=BLM;M->BL,memory_placements=0_0_0,type=DT_BFLOAT16)",
        "DT_BFLOAT16:[12,4,64],DT_BFLOAT16:[64]", "[DT_BFLOAT16:(12,4)]", OP_MXU, 2 * 12 * 4 * 64);
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), 0);
    assert_i64(t.ops[0].sa_ns, 0);
    assert_i64(t.ops[0].vu_ns, 1);
    assert_i64(t.ops[0].num_sa_ops, 1); /* set even though the VPU path wins */
    /* Without the fallback (DLRM models) the MXU path stays: ceil(100/1.7) = 59. */
    c.use_vu_for_small_matmul = false;
    assert_int_equal(run(&t, &c, &e), 0);
    assert_i64(t.ops[0].sa_ns, 59);
    assert_i64(t.ops[0].vu_ns, 1);
    trace_free(&t);
}

static void test_up_down_sample(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    test_op(&t, "up", "Upsample(x=1x320x32x32,scale=2,type=DT_BFLOAT16)", "DT_BFLOAT16:[1,320,32,32]",
        "[DT_BFLOAT16:(1,320,64,64)]", OP_VPU, 0);
    test_op(&t, "pool", "AvgPool2d(x=1x320x64x64,scale=2,type=DT_BFLOAT16)", "DT_BFLOAT16:[1,320,64,64]",
        "[DT_BFLOAT16:(1,320,32,32)]", OP_VPU, 1310720 + 327680);
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), 0);
    /* Upsample is a pure copy: no VPU time, traffic = in + out. */
    assert_i64(t.ops[0].vu_ns, 0);
    assert_i64(t.ops[0].bytes, 3276800);
    assert_i64(t.ops[0].mem_ns, 1104);
    assert_i64(t.ops[0].exe_ns, 1104);
    /* AvgPool: ceil((327680 + 1310720) / 6144) = 267 cycles -> ceil(267 / 1.7) = 158 ns. */
    assert_i64(t.ops[1].vu_ns, 158);
    assert_i64(t.ops[1].bytes, 3276800);
    assert_string_equal(t.ops[1].parsed_op_type, "AvgPool2d");
    trace_free(&t);
}

static void test_name_sharing_q1(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    test_op(&t, "prefill/MoEcombine", QPROJ, QPROJ_IN, QPROJ_OUT, OP_MXU, 137438953472);
    /* Same name after the last '/', decode shapes: costed with the first op's shapes. */
    test_op(&t, "decode/MoEcombine",
        "XlaEinsum(a=1x1x4096,b=4096x32x128,eq=BLM;MND->BLND,memory_placements=0_0_0,type=DT_BFLOAT16)",
        "DT_BFLOAT16:[1,1,4096],DT_BFLOAT16:[4096,32,128]", "[DT_BFLOAT16:(1,1,32,128)]", OP_MXU, 33554432);
    /* Default path: inputs follow the current op, the output keeps the first op's size. */
    test_op(&t, "sm", "Softmax(x=1x4096x32,type=DT_BFLOAT16)", "DT_BFLOAT16:[1,4096,32]", "[DT_BFLOAT16:(1,4096,32)]",
        OP_VPU, 4 * 4096 * 32);
    test_op(&t, "sm", "Softmax(x=1x1x32,type=DT_BFLOAT16)", "DT_BFLOAT16:[1,1,32]", "[DT_BFLOAT16:(1,1,32)]", OP_VPU,
        4 * 32);
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), 0);
    assert_i64(t.ops[1].sa_ns, 308424);
    assert_i64(t.ops[1].bytes, 100663296);
    assert_string_equal(tiles_text(&t.ops[1]), tiles_text(&t.ops[0]));
    assert_i64(t.ops[3].vu_ns, 1);                  /* ceil(ceil(128/6144)/1.7) */
    assert_i64(t.ops[3].bytes, 2 * 32 + 2 * 131072); /* current input + first op's output */

    /* With the corrected profile every op is costed on its own strings. */
    struct profile p = profile_neusim;
    p.lookup_ops_by_name_first_wins = false;
    for (size_t i = 0; i < t.n; i++)
        t.ops[i].bytes = 0; /* stored traffic would short-circuit §6.4 (not idempotent) */
    assert_int_equal(chipsim_run(&t, &c, &p, &e), 0);
    assert_i64(t.ops[1].einsum_m, 1);
    assert_i64(t.ops[1].bytes, 2 * 4096 + 2 * 4096 * 4096 + 2 * 4096);
    assert_i64(t.ops[3].bytes, 2 * 32 + 2 * 32);
    trace_free(&t);
}

static void test_conv_tile_search(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    struct op *o = test_op(&t, "conv", "Conv2D(a=8x512x128x128,b=512x512x3x3,c=8x512x128x128,eq=bf01;io01->bf01,"
                       "window={size=3x3 stride=1x1 pad=0_1x0_1},memory_placements=0_0_0,type=DT_BFLOAT16)",
                       "DT_BFLOAT16:[8,512,128,128],DT_BFLOAT16:[512,512,3,3]", "[DT_BFLOAT16:(8,512,128,128)]",
                       OP_MXU, 2LL * 8 * 128 * 128 * 512 * 512 * 9);
    o->opcode_type = OPC_CONV2D;
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), 0);
    o = &t.ops[0];
    /* Expected values from a brute-force sweep of chipsim.md §6.3. */
    assert_string_equal(tiles_text(o), "[[4, 1, 130, 130], [1, 512, 3, 3], [4, 512, 128, 128]]");
    assert_i64(o->num_tiles, 2);
    assert_i64(o->bytes, 282099712);
    assert_i64(o->max_vmem_demand_bytes, 277381120);
    assert_i64(o->num_sa_ops, 147456);
    assert_i64(o->sa_ns, 1387840);
    assert_i64(o->vu_ns, 231303);
    assert_string_equal(labels_text(o), "bf01;io01->bf01");
    assert_string_equal(o->parsed_op_type, "Conv2D");
    trace_free(&t);
}

static void test_v4_reduce_scatter(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv4", &c);
    struct trace t;
    trace_init(&t);
    struct op *o = test_op(&t, "rs", "ReduceScatter(['8', '4096', '8192']->['8', '4096', '1024'])",
                       "DT_BFLOAT16:[8,4096,8192]", "[DT_BFLOAT16:(8,4096,1024)]", OP_VPU, 293601280);
    o->ici_ns = 374492;
    o->bytes = 2 * 83886080;
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), 0);
    o = &t.ops[0];
    assert_i64(o->vu_ns, 71680); /* Q6: cycles, not divided by f */
    assert_i64(o->mem_ns, 130209);
    assert_i64(o->vmem_ns, 27002);
    assert_i64(o->exe_ns, 374492);
    assert_int_equal(o->bounded_by, BOUND_ICI);
    trace_free(&t);
}

static void expect_error(const char *config, const char *in, const char *out, enum op_type type, int64_t flops,
                         const char *needle)
{
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    test_op(&t, "ok", "LayerNorm(x=1x8,type=DT_BFLOAT16)", "DT_BFLOAT16:[1,8]", "[DT_BFLOAT16:(1,8)]", OP_VPU, 64);
    test_op(&t, "bad", config, in, out, type, flops);
    struct npu_err e = {{0}};
    assert_int_equal(run(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "op 1 \"bad\""));
    if (!strstr(e.msg, needle))
        fail_msg("message \"%s\" lacks \"%s\"", e.msg, needle);
    trace_free(&t);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("LayerNorm(x=1x8)", "DT_BFLOAT16:[1,x]", "[DT_BFLOAT16:(1,8)]", OP_VPU, 0, "in_shapes");
    expect_error("LayerNorm(x=1x8)", "DT_BFLOAT16:[1,8]", "DT_BFLOAT16:(1,8)", OP_VPU, 0, "out_shape");
    expect_error("LayerNorm(x=1x8)", "DT_BFLOAT16:[1,8]", "[DT_BFLOAT16:(1,8)],[DT_BFLOAT16:(1,8)]", OP_VPU, 0,
                 "out_shape");
    expect_error("LayerNorm(x=1x8)", "DT_WEIRD:[1,8]", "[DT_BFLOAT16:(1,8)]", OP_VPU, 0, "DT_WEIRD");
    expect_error("FlashAttention(q=1x8x2)", "DT_BFLOAT16:[1,8,2],DT_BFLOAT16:[1,8,2],DT_BFLOAT16:[1,8,2]",
                 "[DT_BFLOAT16:(1,8,2)]", OP_MXU, 1, "4-D");
    expect_error("FlashAttention(q=..)", "DT_BFLOAT16:[1,8,2,4],DT_BFLOAT16:[1,8,3,4],DT_BFLOAT16:[1,8,3,4]",
                 "[DT_BFLOAT16:(1,8,2,2)]", OP_MXU, 1, "equal batch");
    expect_error("FlashAttention(q=..)", "DT_BFLOAT16:[1,8,2,4],DT_BFLOAT16:[1,8,2,8],DT_BFLOAT16:[1,8,2,4]",
                 "[DT_BFLOAT16:(1,8,2,2)]", OP_MXU, 1, "Q and K of equal d_head");
    expect_error("Frobnicate(x=1x8)", "DT_BFLOAT16:[1,8]", "[DT_BFLOAT16:(1,8)]", OP_VPU, 0, "Frobnicate");
    /* Q15: the einsum output dtype keeps its "[" so DT_FLOAT is rejected. */
    expect_error("XlaEinsum(a=2x3,b=3x4,eq=MK;KN->MN,type=DT_FLOAT)", "DT_FLOAT:[2,3],DT_FLOAT:[3,4]",
                 "[DT_FLOAT:(2,4)]", OP_MXU, 48, "[DT_FLOAT");
    expect_error("XlaEinsum(a=2x3,b=3x4,eq=MK,KN->MN)", "DT_BFLOAT16:[2,3],DT_BFLOAT16:[3,4]",
                 "[DT_BFLOAT16:(2,4)]", OP_MXU, 48, "eq=");
    expect_error("XlaEinsum(a=2x3,b=3x4,eq=MKJ;KN->MN)", "DT_BFLOAT16:[2,3],DT_BFLOAT16:[3,4]",
                 "[DT_BFLOAT16:(2,4)]", OP_MXU, 48, "ranks");
    expect_error("Conv2D(a=1x3x8x8,eq=bf01;io01->bf01)", "DT_BFLOAT16:[1,3,8,8]", "[DT_BFLOAT16:(1,3,8,8)]",
                 OP_MXU, 1, "kernel");
    expect_error("Conv2D(a=1x3x8x8,eq=bx01;io01->bf01)", "DT_BFLOAT16:[1,3,8,8],DT_BFLOAT16:[3,3,1,1]",
                 "[DT_BFLOAT16:(1,3,8,8)]", OP_MXU, 1, "conv labels");
    expect_error("Softmax(x=)", "", "[DT_BFLOAT16:(1,8)]", OP_VPU, 8, "at least one input");
    /* Size limits: 2^48 elements per tensor, 2^56 MACs per op (no int64 overflow). */
    expect_error("LayerNorm(x=1x8)", "DT_BFLOAT16:[16777216,16777217]", "[DT_BFLOAT16:(1,8)]", OP_VPU, 0,
                 "2^48 elements");
    expect_error("LayerNorm(x=1x8)", "DT_BFLOAT16:[99999999999999999999,2]", "[DT_BFLOAT16:(1,8)]", OP_VPU, 0,
                 "below 2^63");
    expect_error("XlaEinsum(a=16777216x16777216,b=16777216x257,eq=MK;KN->MN,type=DT_BFLOAT16)",
                 "DT_BFLOAT16:[16777216,16777216],DT_BFLOAT16:[16777216,257]", "[DT_BFLOAT16:(16777216,257)]",
                 OP_MXU, 1, "2^56 multiply-accumulates");
    expect_error("FlashAttention(q=..)", "DT_BFLOAT16:[1,16777216,1,1024],DT_BFLOAT16:[1,16777216,1,1024],"
                 "DT_BFLOAT16:[1,16777216,1,1024]", "[DT_BFLOAT16:(1,8,1,1)]", OP_MXU, 1, "2^56");
    expect_error("Conv2D(a=..,eq=bf01;io01->bf01)",
                 "DT_BFLOAT16:[1,16384,16384,16384],DT_BFLOAT16:[16384,16384,3,3]",
                 "[DT_BFLOAT16:(1,16384,16384,16384)]", OP_MXU, 1, "2^56");
}

static void test_conv_without_candidate(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    c.vmem_size_MB = 0; /* nothing fits: the search must fail cleanly */
    struct trace t;
    trace_init(&t);
    test_op(&t, "conv", "Conv2D(a=1x3x8x8,b=3x4x1x1,c=1x4x8x8,eq=bf01;io01->bf01,window={size=1x1 stride=1x1 "
        "pad=0_0x0_0},type=DT_BFLOAT16)", "DT_BFLOAT16:[1,3,8,8],DT_BFLOAT16:[3,4,1,1]", "[DT_BFLOAT16:(1,4,8,8)]",
        OP_MXU, 1);
    struct npu_err e;
    assert_int_equal(run(&t, &c, &e), -1);
    assert_non_null(strstr(e.msg, "tile search"));
    trace_free(&t);
}

/* ---- tile-search memo (chipsim/tile_memo.c) ---- */

#define GATE_CFG "XlaEinsum(a=1x4096x4096,b=4096x14336,eq=BLM;MH->BLH,memory_placements=0_0_0,type=DT_BFLOAT16)"
#define GATE_IN "DT_BFLOAT16:[1,4096,4096],DT_BFLOAT16:[4096,14336]"
#define GATE_OUT "[DT_BFLOAT16:(1,4096,14336)]"
#define MEMO_OPS 5

/* Searched einsums sharing m, n, k but not dtype, layout or batch, and a
 * searched conv; only op `only` when only >= 0. */
static void memo_trace(struct trace *t, int only)
{
    trace_init(t);
    for (int i = 0; i < MEMO_OPS; i++) {
        if (only >= 0 && i != only)
            continue;
        struct op *o = NULL;
        switch (i) {
        case 0: test_op(t, "gate", GATE_CFG, GATE_IN, GATE_OUT, OP_MXU, 481036337152); break;
        case 1:
            test_op(t, "gate32", GATE_CFG, "DT_FLOAT32:[1,4096,4096],DT_FLOAT32:[4096,14336]",
                    "[DT_FLOAT32:(1,4096,14336)]", OP_MXU, 481036337152);
            break;
        case 2:
            test_op(t, "split", "XlaEinsum(a=2x2048x4096,b=4096x14336,eq=BLM;MH->BLH,memory_placements=0_0_0,"
                    "type=DT_BFLOAT16)", "DT_BFLOAT16:[2,2048,4096],DT_BFLOAT16:[4096,14336]",
                    "[DT_BFLOAT16:(2,2048,14336)]", OP_MXU, 481036337152);
            break;
        case 3:
            test_op(t, "batched", "XlaEinsum(a=2x4096x4096,b=2x4096x14336,eq=BLM;BMH->BLH,"
                    "memory_placements=0_0_0,type=DT_BFLOAT16)",
                    "DT_BFLOAT16:[2,4096,4096],DT_BFLOAT16:[2,4096,14336]", "[DT_BFLOAT16:(2,4096,14336)]",
                    OP_MXU, 2 * 481036337152);
            break;
        case 4:
            o = test_op(t, "conv", "Conv2D(a=8x512x128x128,b=512x512x3x3,c=8x512x128x128,eq=bf01;io01->bf01,"
                        "window={size=3x3 stride=1x1 pad=0_1x0_1},memory_placements=0_0_0,type=DT_BFLOAT16)",
                        "DT_BFLOAT16:[8,512,128,128],DT_BFLOAT16:[512,512,3,3]",
                        "[DT_BFLOAT16:(8,512,128,128)]", OP_MXU, 2LL * 8 * 128 * 128 * 512 * 512 * 9);
            o->opcode_type = OPC_CONV2D;
            break;
        }
    }
}

#define MEMO_VARIANTS 6
struct memo_result {
    char tiles[MEMO_OPS][160];
    int64_t bytes[MEMO_OPS], exe[MEMO_OPS];
};

/* Variant v changes one input of the searches at a time: VMEM, HBM bandwidth,
 * clock, systolic-array size, and compute time seen by the search (Q4 off;
 * v2 = v5 with a slower HBM, as the bandwidth only matters next to compute).
 * Fills r for the ops run (all, or op `only`). */
static void memo_run(int v, int only, struct memo_result *r)
{
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct profile p = profile_neusim;
    if (v == 1) c.vmem_size_MB /= 2;
    if (v == 2) c.hbm_bw_GBps /= 16;
    if (v == 3) c.freq_GHz *= 0.75;
    if (v == 4) c.sa_dim /= 2;
    if (v == 2 || v == 5) p.tile_search_sees_zero_compute = false;
    struct trace t;
    memo_trace(&t, only);
    struct npu_err e;
    assert_int_equal(chipsim_run(&t, &c, &p, &e), 0);
    for (size_t i = 0; i < t.n; i++) {
        size_t k = only >= 0 ? (size_t)only : i;
        snprintf(r->tiles[k], sizeof r->tiles[k], "%s", tiles_text(&t.ops[i]));
        r->bytes[k] = t.ops[i].bytes;
        r->exe[k] = t.ops[i].exe_ns;
    }
    trace_free(&t);
}

/* Reference: each op alone on an empty memo (one search, nothing to reuse).
 * Warm runs of the whole trace, in an order where variants follow others
 * that share all but one search input, must reproduce it exactly. */
static void test_tile_memo_matches_cold_search(void **state)
{
    (void)state;
    static struct memo_result cold[MEMO_VARIANTS], warm;
    memset(cold, 0, sizeof cold);
    for (int v = 0; v < MEMO_VARIANTS; v++)
        for (int k = 0; k < MEMO_OPS; k++) {
            tile_memo_clear();
            memo_run(v, k, &cold[v]);
        }
    /* The variants must differ (VMEM, sa_dim and compute visibility change
     * the chosen tiles; clock and bandwidth at least the times). */
    for (int v = 1; v < MEMO_VARIANTS; v++)
        assert_true(memcmp(&cold[v], &cold[0], sizeof cold[0]) != 0);
    tile_memo_clear();
    const int order[] = { 0, 1, 0, 2, 3, 0, 4, 5, 1, 0, 5, 4, 3, 2, 1 };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        int v = order[i];
        memo_run(v, -1, &warm);
        for (int k = 0; k < MEMO_OPS; k++) {
            assert_string_equal(warm.tiles[k], cold[v].tiles[k]);
            assert_i64(warm.bytes[k], cold[v].bytes[k]);
            assert_i64(warm.exe[k], cold[v].exe[k]);
        }
    }
}

/* The search ranks candidates by memc = traffic / rate only through
 * max(mxc, memc) and the smaller of the two, which orders them exactly as
 * memc alone does; so (traffic.c) the memo searches with rate 1 and mxc 0.
 * Check that claim on shapes where memory or compute dominates, at rates
 * from a trickle to a flood and compute from none to overwhelming. */
static void test_tile_search_rate_free(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct npu_err e;
    struct op dummy;
    op_init(&dummy);
    const struct cs_ctx ctx = { &c, &profile_neusim, &e, 0, &dummy, K_EINSUM, NULL, 1.0, 1.0, 0, NULL, NULL };
    static const int64_t shapes[][4] = {   /* b, m, n, k */
        { 1, 4096, 14336, 4096 }, { 2, 8192, 8192, 1024 }, { 1, 30720, 4096, 6 }, { 4, 2048, 96, 8192 },
        { 1, 1 << 20, 64, 64 }, { 8, 3000, 5000, 7000 },
    };
    static const double rates[] = { 1e-3, 0.37, 1.0, 3.3, 950.0, 1e7 };
    static const double mxcs[] = { 0.0, 1.0, 1e5, 3.7e8, 1e12, 1e18 };
    int checked = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        struct einsum_axes ax = { .b = shapes[s][0], .m = shapes[s][1], .n = shapes[s][2], .k = shapes[s][3] };
        int64_t m0, n0, k0;
        assert_int_equal(search_einsum_uncached(&ctx, &ax, 2, 2, 2, 1.0, 0.0, &m0, &n0, &k0), 0);
        for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++)
            for (size_t x = 0; x < sizeof mxcs / sizeof mxcs[0]; x++) {
                int64_t m1, n1, k1;
                assert_int_equal(search_einsum_uncached(&ctx, &ax, 2, 2, 2, rates[r], mxcs[x], &m1, &n1, &k1), 0);
                assert_i64(m1, m0);
                assert_i64(n1, n0);
                assert_i64(k1, k0);
                checked++;
            }
    }
    assert_int_equal(checked, 6 * 6 * 6);
    op_free(&dummy);
}

/* An op's form (traces/op_form.h) must give chipsim exactly what parsing
 * the text the CSV writer prints from it gives: the same tensors, or the
 * same error, so that a trace times the same before and after a CSV trip. */
static void expect_same_tensor(const struct tensor *x, const struct tensor *y)
{
    assert_int_equal(x->ndim, y->ndim);
    assert_memory_equal(x->dims, y->dims, (size_t)x->ndim * sizeof x->dims[0]);
    assert_string_equal(x->dtype, y->dtype);
}

static void expect_twin_matches_text(const struct op *op)
{
    struct tensor_list a = {0}, b = {0};
    struct tensor ta, tb;
    const char *wa = "", *wb = "";
    assert_true(op->form.in_held && op->form.out_held);
    int ra = shape_parse_inputs(in_text(op), &a, &wa), rb = op_inputs(op, &b, &wb);
    assert_int_equal(ra, rb);
    assert_string_equal(wa, wb);
    if (ra == 0) {
        assert_int_equal(a.n, b.n);
        for (size_t i = 0; i < a.n; i++)
            expect_same_tensor(&a.t[i], &b.t[i]);
    }
    ra = shape_parse_output(out_text(op), &ta, &wa), rb = op_output(op, &tb, &wb);
    assert_int_equal(ra, rb);
    assert_string_equal(wa, wb);
    if (ra == 0)
        expect_same_tensor(&ta, &tb);
    assert_int_equal(kind_from_config(cfg_text(op), NULL, 0), kind_from_config(op->form.kind, NULL, 0));
    tensor_list_free(&a);
    tensor_list_free(&b);
}

static void test_held_shapes_match_text(void **state)
{
    bool ovf = false;
    (void)state;
    /* A whole llama3-8b trace (einsum, norms, flash attention, collectives
     * at tensor parallelism 4): every op holds its shapes, and they match. */
    struct model_config m;
    cJSON *js = cJSON_Parse(LLAMA3_8B);
    struct npu_err e;
    assert_int_equal(model_config_from_json(&m, js, NULL, &e), 0);
    cJSON_Delete(js);
    struct parallel_cfg p = { 4, 1, 4, 1, 1, 1, 1, 1, 1 };
    sweep_apply_parallel(&m, &p, 8);
    sweep_map_axes_llm("5p", &m);
    struct opsgen_links l = { .pcie_bw_GBps = 32.0, .ici_latency_ns = 3330, .dcn_latency_ns = 3700,
                              .pcie_latency_ns = 400, .ici_bw_GBps = 200, .dcn_bw_GBps = 25,
                              .hbm_size_GB = 95 };
    strcpy(l.chip_name, "5p");
    strcpy(l.ICI_topology, "TORUS_3D");
    struct trace t;
    trace_init(&t);
    assert_int_equal(opsgen_llm_inference(&m, &l, &profile_neusim, &t, &ovf, &e), 0);
    for (size_t i = 0; i < t.n; i++) {
        expect_twin_matches_text(&t.ops[i]);
        assert_true(!t.ops[i].config[0] && !t.ops[i].in_shapes[0] && !t.ops[i].out_shape[0]);   /* no text */
    }
    trace_free(&t);

    /* The builders' edge cases: a negative dimension or an oversized tensor
     * gives the text's error. */
    trace_init(&t);
    struct op *op = b_einsum(&t, &ovf, 1, 1, "d", "n", SHP(4, -8), SHP(-8, 16), "BM;MN->BN", "0_0_0", "DT_FLOAT32");
    assert_true(op->form.in_held && op->form.out_held);
    expect_twin_matches_text(op);
    assert_false(ovf);
    op = b_binary(&t, &ovf, 1, 1, "d", "n", "Add", SHP(1 << 20, 1 << 20, 1 << 10), "0_0_0", "DT_INT8", false);
    assert_true(op->form.in_held);
    assert_true(ovf);   /* 2^50 elements: the FLOP count is 0 and the flag says why */
    assert_int_equal(op->flops, 0);
    const char *why = "";
    struct tensor_list tl = {0};
    assert_int_equal(op_inputs(op, &tl, &why), -1);
    assert_string_equal(why, "a tensor of at most 2^48 elements");
    expect_twin_matches_text(op);
    tensor_list_free(&tl);
    trace_free(&t);
}

/* A generated trace holds its config, shapes and tiles as data; the same
 * trace written to CSV and read back holds them as text. chipsim must time
 * both alike, to every number and every error message, and both must
 * write the same CSV. */
static void small_trace(struct trace *t, bool huge)
{
    bool ovf = false;
    trace_init(t);
    b_unary(t, &ovf, 1, 1, "Fwd-ln", "x", "LayerNorm", SHP(1, 4096, 4096), "0_0", "DT_BFLOAT16");
    b_einsum(t, &ovf, 2, 1, "Fwd-q", "q", SHP(1, 4096, 4096), SHP(4096, 32, 128), "BLM;MND->BLND", "0_0_0",
             "DT_BFLOAT16");
    b_flash_attention(t, &ovf, 3, 1, "Fwd-fa", "fa", SHP(1, 4096, 32, 128), SHP(1, 4096, 32, 128),
                      SHP(1, 4096, 32, 128), "DT_BFLOAT16", false);
    b_binary(t, &ovf, 4, 1, "Fwd-add", "add", "Add", SHP(1, 4096, 4096), "0_0_0", "DT_BFLOAT16", false);
    struct conv2d_args ca = { .B = 1, .cin = 8, .cout = 16, .h = 32, .w = 32, .kh = 3, .kw = 3, .stride = 2, .pad = 1 };
    b_conv2d(t, &ovf, 5, 1, "Fwd-", &ca, "DT_BFLOAT16");
    if (huge)   /* 2^60 multiply-accumulates: an error that prints the input shapes */
        b_einsum(t, &ovf, 6, 1, "Fwd-big", "big", SHP(1 << 20, 1 << 20), SHP(1 << 20, 1 << 20), "BM;MN->BN",
                 "0_0_0", "DT_BFLOAT16");
}

static char *csv_of(const struct trace *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct npu_err e;
    assert_int_equal(trace_write_csv_stream(t, f, NULL, &e), 0);
    fclose(f);
    return text;
}

static void through_csv(const struct trace *t, struct trace *back)
{
    char *text = csv_of(t);
    struct npu_err e;
    trace_init(back);
    assert_int_equal(trace_read_csv_buffer(back, text, strlen(text), "t.csv", &e), 0);
    free(text);
}

static void test_form_and_text_same_numbers(void **state)
{
    bool ovf = false;
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace full, back;
    struct npu_err e1, e2;
    small_trace(&full, false);
    through_csv(&full, &back);
    assert_true(back.ops[1].form.layout == FORM_TEXT && !back.ops[1].form.in_held);   /* text, as read */
    assert_int_equal(run(&full, &c, &e1), 0);
    assert_int_equal(run(&back, &c, &e2), 0);
    assert_int_equal(full.n, back.n);
    for (size_t i = 0; i < full.n; i++) {
        const struct op *a = &full.ops[i], *b = &back.ops[i];
        assert_i64(a->exe_ns, b->exe_ns);
        assert_i64(a->mem_ns, b->mem_ns);
        assert_i64(a->sa_ns, b->sa_ns);
        assert_i64(a->vu_ns, b->vu_ns);
        assert_i64(a->vmem_ns, b->vmem_ns);
        assert_i64(a->bytes, b->bytes);
        assert_i64(a->num_tiles, b->num_tiles);
        assert_i64(a->max_vmem_demand_bytes, b->max_vmem_demand_bytes);
        assert_int_equal(a->bounded_by, b->bounded_by);
        assert_true(a->flops_util == b->flops_util && a->hbm_bw_util == b->hbm_bw_util);
        assert_string_equal(a->parsed_op_type, b->parsed_op_type);
        assert_string_equal(cfg_text(a), cfg_text(b));
        assert_string_equal(in_text(a), in_text(b));
        assert_string_equal(out_text(a), out_text(b));
    }
    char *ta = csv_of(&full), *tb = csv_of(&back);
    assert_string_equal(ta, tb);
    assert_non_null(strstr(ta, "\"[[1, 4096, 4096], [4096, 32, 128], [1, 4096, 32, 128]]\""));
    assert_non_null(strstr(ta, ",\"BLM,MND->BLND\","));
    assert_non_null(strstr(ta, "window={size=3x3 stride=2x2 pad=0_1x0_1}"));
    free(ta);
    free(tb);
    /* Any equation is held, and the config cell spells it as given. */
    struct op *odd = b_einsum(&full, &ovf, 7, 1, "d", "odd", SHP(2, 3, 4), SHP(4, 5), "B M;MN->BN", "0_0_0", "DT_BFLOAT16");
    assert_string_equal(cfg_text(odd), "XlaEinsum(a=2x3x4,b=4x5,eq=B M;MN->BN,memory_placements=0_0_0,type=DT_BFLOAT16)");
    trace_free(&full);
    trace_free(&back);

    small_trace(&full, true);
    through_csv(&full, &back);
    assert_int_equal(run(&full, &c, &e1), -1);
    assert_int_equal(run(&back, &c, &e2), -1);
    assert_non_null(strstr(e1.msg, "DT_BFLOAT16:[1048576,1048576]"));
    assert_string_equal(e1.msg, e2.msg);
    trace_free(&full);
    trace_free(&back);
}

/* chipsim_run_many times copies of one trace on several chips together,
 * building each op's instruction once. Each copy must come out exactly as
 * chipsim_run leaves the trace on that chip alone, failures included: a chip
 * without VMEM fails alone (no tile fits), and an op no chip can
 * parse fails every copy with the single run's message. The trace has a
 * searched einsum and conv, flash attention, and a name shared by ops of
 * different shapes (Q1: the second is costed with the first's). */
static void many_trace(struct trace *t, bool bad)
{
    small_trace(t, false);
    test_op(t, "gate", GATE_CFG, GATE_IN, GATE_OUT, OP_MXU, 481036337152);
    test_op(t, "gate", "XlaEinsum(a=2x2048x4096,b=4096x14336,eq=BLM;MH->BLH,memory_placements=0_0_0,"
            "type=DT_BFLOAT16)", "DT_BFLOAT16:[2,2048,4096],DT_BFLOAT16:[4096,14336]",
            "[DT_BFLOAT16:(2,2048,14336)]", OP_MXU, 481036337152);
    struct trace conv;
    memo_trace(&conv, 4);
    trace_append(t, &conv);
    trace_free(&conv);
    if (bad)
        test_op(t, "bad", "LayerNorm(x=1x8)", "DT_BFLOAT16:[1,x]", "[DT_BFLOAT16:(1,8)]", OP_VPU, 0);
}

static void expect_same_timing(const struct op *a, const struct op *b)
{
    assert_i64(a->exe_ns, b->exe_ns);
    assert_i64(a->mem_ns, b->mem_ns);
    assert_i64(a->sa_ns, b->sa_ns);
    assert_i64(a->vu_ns, b->vu_ns);
    assert_i64(a->vmem_ns, b->vmem_ns);
    assert_i64(a->ici_ns, b->ici_ns);
    assert_i64(a->bytes, b->bytes);
    assert_i64(a->num_tiles, b->num_tiles);
    assert_i64(a->max_vmem_demand_bytes, b->max_vmem_demand_bytes);
    assert_i64(a->num_sa_ops, b->num_sa_ops);
    assert_i64(a->einsum_b, b->einsum_b);
    assert_i64(a->einsum_m, b->einsum_m);
    assert_i64(a->einsum_n, b->einsum_n);
    assert_i64(a->einsum_k, b->einsum_k);
    assert_i64(a->vu_softmax_ns, b->vu_softmax_ns);
    assert_int_equal(a->bounded_by, b->bounded_by);
    assert_int_equal(a->stats_kind, b->stats_kind);
    assert_memory_equal(&a->flops_util, &b->flops_util, sizeof a->flops_util);
    assert_memory_equal(&a->hbm_bw_util, &b->hbm_bw_util, sizeof a->hbm_bw_util);
    assert_string_equal(a->parsed_op_type, b->parsed_op_type);
    assert_string_equal(labels_text(a), labels_text(b));
    assert_string_equal(tiles_text(a), tiles_text(b));
}

static void test_run_many_equals_single_runs(void **state)
{
    (void)state;
    enum { K = 4 };
    struct chip_config chips[K];
    test_chip("tpuv5p", &chips[0]);
    chips[1] = chips[0];
    chips[1].hbm_bw_GBps /= 16;
    test_chip("tpuv4", &chips[2]);
    chips[3] = chips[0];
    chips[3].vmem_size_MB = 0;
    for (int bad = 0; bad <= 1; bad++) {
        struct trace alone[K], copies[K], gen;
        struct trace *tp[K];
        const struct chip_config *cp[K];
        struct npu_err ea[K], em[K];
        int ra[K], rm[K];
        many_trace(&gen, bad);
        for (int k = 0; k < K; k++) {
            many_trace(&alone[k], bad);
            ra[k] = run(&alone[k], &chips[k], &ea[k]);
            trace_init(&copies[k]);
            trace_append(&copies[k], &gen);
            tp[k] = &copies[k];
            cp[k] = &chips[k];
        }
        chipsim_run_many(tp, cp, K, &profile_neusim, em, rm);
        /* Both outcomes occur: chip 3 always fails (at the first einsum:
         * no tile fits in no VMEM), the others only on the unparsable op. */
        for (int k = 0; k < K; k++) {
            assert_int_equal(ra[k], bad || k == 3 ? -1 : 0);
            assert_int_equal(rm[k], ra[k]);
            if (ra[k])
                assert_string_equal(em[k].msg, ea[k].msg);
            for (size_t i = 0; i < gen.n; i++)
                expect_same_timing(&copies[k].ops[i], &alone[k].ops[i]);
        }
        assert_non_null(strstr(ea[3].msg, "op 1 \"Fwdqq\": tile search: expected a tile that fits in 0 bytes"));
        assert_true(!bad || strstr(ea[0].msg, "op 8 \"bad\": in_shapes"));
        /* The chips give different times (a copy timed on the wrong chip shows). */
        assert_true(alone[0].ops[1].mem_ns != alone[1].ops[1].mem_ns);
        assert_true(alone[0].ops[1].exe_ns != alone[2].ops[1].exe_ns);
        for (int k = 0; k < K; k++) {
            trace_free(&alone[k]);
            trace_free(&copies[k]);
        }
        trace_free(&gen);
    }
}

/* The by-name table is kept per thread between runs (chipsim/instr.c): a
 * run must see nothing of the one before, whatever its size. Two traces use
 * the same names with other shapes, so a stale entry would cost the second
 * with the first's shapes (Q1); a 3,000-name trace grows the table past what
 * a reset keeps; another thread gets its own table. */
static void named_trace(struct trace *t, int64_t m)
{
    char cfg[256], in[128], out[128];
    trace_init(t);
    snprintf(cfg, sizeof cfg,
             "XlaEinsum(a=1x%lldx4096,b=4096x32x128,eq=BLM;MND->BLND,memory_placements=0_0_0,type=DT_BFLOAT16)",
             (long long)m);
    snprintf(in, sizeof in, "DT_BFLOAT16:[1,%lld,4096],DT_BFLOAT16:[4096,32,128]", (long long)m);
    snprintf(out, sizeof out, "[DT_BFLOAT16:(1,%lld,32,128)]", (long long)m);
    test_op(t, "a/q", cfg, in, out, OP_MXU, 2 * m * 4096 * 4096);
    snprintf(cfg, sizeof cfg, "Softmax(x=1x%lldx32,type=DT_BFLOAT16)", (long long)m);
    snprintf(in, sizeof in, "DT_BFLOAT16:[1,%lld,32]", (long long)m);
    snprintf(out, sizeof out, "[DT_BFLOAT16:(1,%lld,32)]", (long long)m);
    test_op(t, "b/sm", cfg, in, out, OP_VPU, 4 * m * 32);
}

struct named_result { int64_t exe[2], bytes[2]; };

static struct named_result run_named(int64_t m)
{
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    struct npu_err e;
    named_trace(&t, m);
    assert_int_equal(run(&t, &c, &e), 0);
    struct named_result r = { { t.ops[0].exe_ns, t.ops[1].exe_ns }, { t.ops[0].bytes, t.ops[1].bytes } };
    trace_free(&t);
    return r;
}

static void *run_named_thread(void *arg)
{
    *(struct named_result *)arg = run_named(64);
    return NULL;
}

static void test_instr_cache_between_runs(void **state)
{
    (void)state;
    struct named_result small = run_named(64), big = run_named(4096);
    assert_true(small.exe[0] != big.exe[0] && small.bytes[1] != big.bytes[1]);
    struct named_result again = run_named(64);
    assert_memory_equal(&again, &small, sizeof small);

    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    struct npu_err e;
    trace_init(&t);
    for (int i = 0; i < 3000; i++) {
        char name[32];
        snprintf(name, sizeof name, "n%d", i);
        test_op(&t, name, "Softmax(x=1x1x32,type=DT_BFLOAT16)", "DT_BFLOAT16:[1,1,32]", "[DT_BFLOAT16:(1,1,32)]",
                OP_VPU, 128);
    }
    assert_int_equal(run(&t, &c, &e), 0);
    trace_free(&t);
    again = run_named(64);
    assert_memory_equal(&again, &small, sizeof small);

    run_named(4096);   /* this thread's table now holds the big shapes */
    pthread_t th;
    struct named_result other;
    assert_int_equal(pthread_create(&th, NULL, run_named_thread, &other), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_memory_equal(&other, &small, sizeof small);
}

/* Loading a field table indexes the object's keys once (traces/fields.c):
 * the first of duplicate keys still wins, and objects too large for the
 * index load the same through the plain scan. */
static void load_chip_json(cJSON *j, struct chip_config *c)
{
    struct npu_err e;
    chip_config_default(c);
    assert_int_equal(fields_from_json(&chip_fields, c, j, NULL, &e), 0);
}

static void test_fields_index(void **state)
{
    (void)state;
    cJSON *j = cJSON_Parse(test_config_text("chips", "tpuv5p"));
    assert_non_null(j);
    struct chip_config plain, dup, big;
    load_chip_json(j, &plain);
    assert_true(plain.freq_GHz == 1.7 && plain.hbm_bw_GBps == 2765);
    cJSON_AddNumberToObject(j, "freq_GHz", 9.5);   /* a later duplicate */
    load_chip_json(j, &dup);
    assert_true(dup.freq_GHz == 1.7);
    for (int i = 0; i < 600; i++) {   /* beyond the index: the scan */
        char k[16];
        snprintf(k, sizeof k, "x%d", i);
        cJSON_AddNumberToObject(j, k, i);
    }
    load_chip_json(j, &big);
    assert_true(big.freq_GHz == 1.7 && big.hbm_bw_GBps == 2765 && big.sa_dim == plain.sa_dim &&
                big.vmem_size_MB == plain.vmem_size_MB);
    assert_string_equal(big.name, plain.name);
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_overflow_error),
        cmocka_unit_test(test_q_projection),       cmocka_unit_test(test_layernorm),
        cmocka_unit_test(test_decode_qk_prefix),   cmocka_unit_test(test_flash_attention),
        cmocka_unit_test(test_flash_attention_wide_v),
        cmocka_unit_test(test_ffn_tile_search),    cmocka_unit_test(test_einsum_vpu_fallback),
        cmocka_unit_test(test_up_down_sample),     cmocka_unit_test(test_name_sharing_q1),
        cmocka_unit_test(test_conv_tile_search),   cmocka_unit_test(test_v4_reduce_scatter),
        cmocka_unit_test(test_errors),             cmocka_unit_test(test_conv_without_candidate),
        cmocka_unit_test(test_tile_memo_matches_cold_search),
        cmocka_unit_test(test_tile_search_rate_free),
        cmocka_unit_test(test_held_shapes_match_text),
        cmocka_unit_test(test_form_and_text_same_numbers),
        cmocka_unit_test(test_fields_index),
        cmocka_unit_test(test_instr_cache_between_runs),
        cmocka_unit_test(test_run_many_equals_single_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
