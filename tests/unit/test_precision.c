/* test_precision.c — number formats, per-precision peaks and fallbacks,
 * kernel efficiencies, and what they do to an op's time and bytes.
 *
 * Every expected value is derived by hand in the comment beside it from the
 * formulas of chipsim/chip.h and chipsim.md §5 (mxu_time), on the reference's
 * TPU v5p (tests/golden/configs/chips/tpuv5p.json: 8 arrays of 128 x 128 at
 * 1.7 GHz, mxu_efficiency 0.75, 6 VUs, 128 MiB VMEM). */
#include "testutil.h"

#include "chipsim/chipsim.h"
#include "opsgen/layers.h"
#include "opsgen/model.h"
#include "opsgen/opsgen.h"
#include "traces/dtype.h"
#include "traces/precision.h"

static void test_names_and_tokens(void **state)
{
    (void)state;
    assert_int_equal(precision_by_name("bf16"), PREC_BF16);
    assert_int_equal(precision_by_name("fp8"), PREC_FP8_E4M3);
    assert_int_equal(precision_by_name("fp8_e5m2"), PREC_FP8_E5M2);
    assert_int_equal(precision_by_name("float32"), PREC_FP32);
    assert_int_equal(precision_by_name("int4"), PREC_INT4);
    assert_int_equal(precision_by_name("bf17"), -1);
    assert_int_equal(precision_of_token("DT_BFLOAT16"), PREC_BF16);
    assert_int_equal(precision_of_token("DT_FLOAT"), PREC_FP32);
    assert_int_equal(precision_of_token("DT_FLOAT32"), PREC_FP32);
    assert_int_equal(precision_of_token("DT_FLOAT8"), PREC_FP8_E4M3);   /* the reference's DeepSeek token */
    assert_int_equal(precision_of_token("DT_HALF"), PREC_FP16);
    assert_int_equal(precision_of_token("DT_INT32"), -1);                /* an index type, not a format */
    /* storage widths */
    assert_int_equal(dtype_bits("DT_INT4"), 4);
    assert_int_equal(dtype_bits("DT_FLOAT4E2M1FN"), 4);
    assert_int_equal(dtype_bits("DT_FLOAT8E5M2"), 8);
    assert_int_equal(dtype_bits("DT_INT64"), 64);   /* the reference's rule: "64" -> 8 bytes */
    assert_int_equal(dtype_bits("DT_WHAT"), -1);
    /* Every 8-bit and wider token is sized alike by the reference's substring
     * rule, so a trace of them reads the same in both. */
    for (int p = 0; p < PREC_COUNT; p++) {
        const struct precision_info *i = precision_info((enum precision)p);
        assert_int_equal(precision_by_name(i->name), p);
        assert_int_equal(precision_of_token(i->token), p);
        if (i->bits >= 8)
            assert_int_equal(dtype_bytes(i->token) * 8, i->bits);
    }
    /* 4-bit tensors pack two elements to a byte, rounding up */
    assert_i64(bits_to_bytes(1, 4), 1);
    assert_i64(bits_to_bytes(3, 4), 2);
    assert_i64(bits_to_bytes(8, 4), 4);
    assert_i64(bits_to_bytes(5, 16), 10);
    assert_i64(bits_to_bytes(1LL << 50, 4), 1LL << 49);
}

static void test_peaks_and_fallbacks(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    /* geometry: 8 x 128^2 x 2 x 1.7 GHz = 445.6448 TFLOP/s, bf16 only */
    assert_close(chip_unit_peak_tflops(&c, UNIT_MATRIX, PREC_BF16), 445.6448);
    assert_close(chip_unit_peak_tflops(&c, UNIT_MATRIX, PREC_FP8_E4M3), 0);
    assert_int_equal(chip_unit_precision(&c, UNIT_MATRIX, PREC_FP8_E4M3), PREC_BF16);  /* wider */
    assert_int_equal(chip_unit_precision(&c, UNIT_MATRIX, PREC_FP32), PREC_BF16);      /* narrower: bf16 passes */
    assert_int_equal(chip_unit_precision(&c, UNIT_MATRIX, PREC_INT4), PREC_BF16);
    /* no vector table: every format at the lanes' rate, 2 x 6 x 1024 x 1.7 GHz = 20.8896 */
    assert_close(chip_unit_peak_tflops(&c, UNIT_VECTOR, PREC_FP8_E5M2), 20.8896);
    assert_int_equal(chip_unit_precision(&c, UNIT_VECTOR, PREC_FP8_E5M2), PREC_FP8_E5M2);
    assert_close(chip_unit_time_scale(&c, UNIT_VECTOR, PREC_BF16), 1.0);

    c.matrix_tflops[PREC_FP8_E4M3] = 891.2896;
    c.matrix_tflops[PREC_INT8] = 891.2896;
    /* e5m2 -> the narrowest float at least as wide: e4m3 (8), never int8 */
    assert_int_equal(chip_unit_precision(&c, UNIT_MATRIX, PREC_FP8_E5M2), PREC_FP8_E4M3);
    /* int4 -> int8: an integer for an integer */
    assert_int_equal(chip_unit_precision(&c, UNIT_MATRIX, PREC_INT4), PREC_INT8);
    assert_int_equal(chip_unit_precision(&c, UNIT_MATRIX, PREC_FP4), PREC_FP8_E4M3);
    assert_close(chip_unit_time_scale(&c, UNIT_MATRIX, PREC_FP8_E4M3), 0.5);
    /* a float never runs as an integer: with int8 alone, fp8 runs as bf16 */
    c.matrix_tflops[PREC_FP8_E4M3] = 0;
    assert_int_equal(chip_unit_precision(&c, UNIT_MATRIX, PREC_FP8_E5M2), PREC_BF16);
    assert_int_equal(chip_unit_precision(&c, UNIT_MATRIX, PREC_FP4), PREC_BF16);
    /* fp16 ties with bf16 at 16 bits: the table's order picks bf16 */
    assert_int_equal(chip_unit_precision(&c, UNIT_MATRIX, PREC_FP16), PREC_BF16);
    c.matrix_tflops[PREC_FP8_E4M3] = 891.2896;
    /* a declared bf16 peak replaces the geometry's: 445.6448 / 500 */
    c.matrix_tflops[PREC_BF16] = 500;
    assert_close(chip_unit_time_scale(&c, UNIT_MATRIX, PREC_BF16), 445.6448 / 500);

    /* a vector table: fp32 only; bf16 runs as fp32, at 20.8896 / 10 of the lanes' time */
    c.vector_tflops[PREC_FP32] = 10;
    assert_int_equal(chip_unit_precision(&c, UNIT_VECTOR, PREC_BF16), PREC_FP32);
    assert_close(chip_unit_time_scale(&c, UNIT_VECTOR, PREC_FP32), 2.08896);
}

static void test_kernel_efficiency(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    assert_close(chip_kernel_efficiency(&c, KC_gemm, PREC_BF16, 1e9), 1.0);   /* the default: the roofline */
    c.kernel_eff[KC_gemm].e_max = 0.8;
    c.kernel_eff[KC_gemm].n_half = 1000;
    c.kernel_eff[KC_gemm].by_prec[PREC_FP8_E4M3] = 0.5;
    assert_close(chip_kernel_efficiency(&c, KC_gemm, PREC_BF16, 1000), 0.4);      /* 0.8 x 1000/2000 */
    assert_close(chip_kernel_efficiency(&c, KC_gemm, PREC_FP8_E4M3, 3000), 0.375); /* 0.5 x 3000/4000 */
    assert_close(chip_kernel_efficiency(&c, KC_gemm, -1, 9000), 0.72);             /* 0.8 x 9000/10000 */
    assert_close(chip_kernel_efficiency(&c, KC_gemv, PREC_BF16, 10), 1.0);         /* another class */
    assert_string_equal(kernel_class_name(KC_collective), "collective");
    /* decode attention, not declared (e_max 0), runs on gemv's curve, every field of it */
    c.kernel_eff[KC_gemv].e_max = 0.7;
    c.kernel_eff[KC_gemv].t0_ns = 300;
    assert_close(c.kernel_eff[KC_decode_attention].e_max, 0.0);
    assert_close(chip_kernel_efficiency(&c, KC_decode_attention, PREC_BF16, 10), 0.7);
    assert_close(chip_kernel_t0_ns(&c, KC_decode_attention, PREC_BF16), 300);
    /* an e for one format alone: that format's, the others gemv's */
    c.kernel_eff[KC_decode_attention].by_prec[PREC_BF16] = 0.5;
    assert_close(chip_kernel_efficiency(&c, KC_decode_attention, PREC_BF16, 10), 0.5);
    assert_close(chip_kernel_efficiency(&c, KC_decode_attention, PREC_FP16, 10), 0.7);
    assert_close(chip_kernel_t0_ns(&c, KC_decode_attention, PREC_FP16), 300);
    c.kernel_eff[KC_decode_attention].by_prec[PREC_BF16] = 0;
    /* declared, its own: 0.4, and no t0 of gemv's */
    c.kernel_eff[KC_decode_attention].e_max = 0.4;
    assert_close(chip_kernel_efficiency(&c, KC_decode_attention, PREC_BF16, 10), 0.4);
    assert_close(chip_kernel_t0_ns(&c, KC_decode_attention, PREC_BF16), 0);
    assert_string_equal(kernel_class_name(KC_decode_attention), "decode_attention");
}

#define GEMM(dt) "XlaEinsum(a=1x4096x4096,b=4096x32x128,eq=BLM;MND->BLND,memory_placements=0_0_0,type=" dt ")"
#define GEMM_IN(dt) dt ":[1,4096,4096]," dt ":[4096,32,128]"
#define GEMM_OUT(dt) "[" dt ":(1,4096,32,128)]"

static struct op time_one(const struct chip_config *c, const char *cfg, const char *in, const char *out)
{
    struct trace t;
    trace_init(&t);
    test_op(&t, "G", cfg, in, out, OP_MXU, 137438953472);
    struct npu_err e;
    assert_int_equal(chipsim_run(&t, c, &profile_physical, &e), 0);
    struct op o = t.ops[0];
    o.name = o.config = o.in_shapes = o.out_shape = NULL;   /* freed with the trace */
    trace_free(&t);
    return o;
}

static void test_fp8_gemm_time(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    /* bf16: 32768 array ops; ceil((32768 + 2) x 128 / 8 / 1.7 / 0.75) = ceil(411231.37) */
    struct op b = time_one(&c, GEMM("DT_BFLOAT16"), GEMM_IN("DT_BFLOAT16"), GEMM_OUT("DT_BFLOAT16"));
    assert_i64(b.sa_ns, 411232);
    assert_int_equal(b.prec, PREC_BF16);
    assert_int_equal(b.kernel_class, KC_gemm);
    /* fp8 on a chip without it: bf16's rate (the trace is half the bytes) */
    struct op f = time_one(&c, GEMM("DT_FLOAT8E4M3FN"), GEMM_IN("DT_FLOAT8E4M3FN"), GEMM_OUT("DT_FLOAT8E4M3FN"));
    assert_i64(f.sa_ns, 411232);
    assert_int_equal(f.prec, PREC_FP8_E4M3);
    assert_int_equal(f.prec_ran, PREC_BF16);
    assert_i64(f.bytes * 2, b.bytes);
    /* with fp8 at twice the geometry's peak: ceil(411231.37 / 2) = 205616 */
    c.matrix_tflops[PREC_FP8_E4M3] = 2 * chip_peak_sa_tflops(&c);
    f = time_one(&c, GEMM("DT_FLOAT8E4M3FN"), GEMM_IN("DT_FLOAT8E4M3FN"), GEMM_OUT("DT_FLOAT8E4M3FN"));
    assert_i64(f.sa_ns, 205616);
    assert_int_equal(f.prec_ran, PREC_FP8_E4M3);
    assert_i64(f.exe_ns, 205616);
    /* a gemm efficiency of 0.5 doubles every time of the op: 2 x 411232 */
    c.kernel_eff[KC_gemm].e_max = 0.5;
    b = time_one(&c, GEMM("DT_BFLOAT16"), GEMM_IN("DT_BFLOAT16"), GEMM_OUT("DT_BFLOAT16"));
    assert_i64(b.sa_ns, 822464);
    assert_i64(b.exe_ns, 822464);
    assert_close(b.efficiency, 0.5);
    /* a fixed time per kernel of the class comes on top, the bound unchanged */
    c.kernel_eff[KC_gemm].e_max = 1.0;
    c.kernel_eff[KC_gemm].t0_ns = 5000;
    b = time_one(&c, GEMM("DT_BFLOAT16"), GEMM_IN("DT_BFLOAT16"), GEMM_OUT("DT_BFLOAT16"));
    assert_i64(b.exe_ns, 411232 + 5000);
    assert_int_equal(b.bounded_by, BOUND_COMPUTE);
    c.kernel_eff[KC_gemm].t0_ns = 0;
    c.kernel_eff[KC_gemm].e_max = 0.5;
    /* ... and none under the reference's profile */
    struct trace t;
    trace_init(&t);
    test_op(&t, "G", GEMM("DT_BFLOAT16"), GEMM_IN("DT_BFLOAT16"), GEMM_OUT("DT_BFLOAT16"), OP_MXU, 137438953472);
    struct npu_err e;
    assert_int_equal(chipsim_run(&t, &c, &profile_neusim, &e), 0);
    assert_i64(t.ops[0].sa_ns, 308424);   /* ceil(524320 / 1.7): no efficiency, no format */
    assert_int_equal(t.ops[0].prec, -1);
    trace_free(&t);
}

static void test_weight_only_int4_bytes(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    /* bf16 activations [8,4096] x int4 weights [4096,4096] -> [8,4096]: fits
     * VMEM untiled, so out 8x4096x2 + lhs 8x4096x2 + rhs 4096x4096/2 bytes */
    struct op o = time_one(&c,
                           "XlaEinsum(a=8x4096,b=4096x4096,eq=BM;MN->BN,memory_placements=0_0_0,type=DT_BFLOAT16)",
                           "DT_BFLOAT16:[8,4096],DT_INT4:[4096,4096]", "[DT_BFLOAT16:(8,4096)]");
    assert_i64(o.bytes, 65536 + 65536 + 8388608);
    assert_int_equal(o.prec, PREC_BF16);            /* computes in the wider format */
    assert_int_equal(o.kernel_class, KC_gemv);      /* 8 rows */
}

/* A decode step's read of the KV cache (opsgen marks it, reads_kv_cache): the
 * decode_attention class, priced on gemv's curve unless the chip declares its
 * own. [8,4096] x [4096,4096] bf16 is memory-bound: its time over e. */
static void test_decode_attention_class(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    const char *cfg = "XlaEinsum(a=8x4096,b=4096x4096,eq=BM;MN->BN,memory_placements=0_0_0,type=DT_BFLOAT16)";
    const char *in = "DT_BFLOAT16:[8,4096],DT_BFLOAT16:[4096,4096]", *out = "[DT_BFLOAT16:(8,4096)]";
    int64_t t_roof = 0;
    const double e[][2] = { { 1.0, 0 }, { 0.5, 0 }, { 0.5, 0.25 } };   /* gemv's e_max, decode attention's */
    for (int i = 0; i < 3; i++) {
        c.kernel_eff[KC_gemv].e_max = e[i][0];
        c.kernel_eff[KC_decode_attention].e_max = e[i][1];
        struct trace t;
        trace_init(&t);
        test_op(&t, "G", cfg, in, out, OP_MXU, 1);
        t.ops[0].reads_kv_cache = true;
        struct npu_err err;
        assert_int_equal(chipsim_run(&t, &c, &profile_physical, &err), 0);
        assert_int_equal(t.ops[0].kernel_class, KC_decode_attention);
        assert_int_equal(t.ops[0].bounded_by, BOUND_MEMORY);
        if (i == 0)
            t_roof = t.ops[0].exe_ns;
        double want = (double)t_roof / (e[i][1] > 0 ? e[i][1] : e[i][0]);
        assert_true(fabs((double)t.ops[0].exe_ns - want) <= 2);
        trace_free(&t);
    }
    /* the same op without the mark: gemv's 0.5 */
    struct op o = time_one(&c, cfg, in, out);
    assert_int_equal(o.kernel_class, KC_gemv);
    assert_true(llabs(o.exe_ns - 2 * t_roof) <= 2);
}

#define FP8 "DT_FLOAT8E4M3FN"
#define BS_IN FP8 ":[128,4096]," FP8 ":[4096,4096]"
#define BS_OUT "[" FP8 ":(128,4096)]"
#define BS_CFG(scales) "XlaEinsum(a=128x4096,b=4096x4096,eq=BM;MN->BN" scales ",memory_placements=0_0_0,type=" FP8 ")"

static void test_block_scales(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    /* fp8 [128,4096] x [4096,4096], untiled in VMEM: 128x4096 + 128x4096 + 4096x4096 bytes */
    struct op o = time_one(&c, BS_CFG(""), BS_IN, BS_OUT);
    assert_i64(o.bytes, 17825792);
    /* 1 x 32 x 32 array ops x 16 vector ops each: ceil(16384 / 6) = 2731 cycles / 1.7 GHz */
    assert_i64(o.vu_ns, 1607);
    /* 128 x 128 blocks, fp32 scales: 32 x 32 weight scales and 128 x 32 activation scales, 4 bytes each */
    struct op s = time_one(&c, BS_CFG(",block_scales=128x128:DT_FLOAT"), BS_IN, BS_OUT);
    assert_i64(s.bytes, 17825792 + 4096 + 16384);
    /* rescaling: 2 x 128 x 4096 x 32 + 3 x 128 x 4096 = 35127296 elements,
     * ceil(35127296 / 6144) = 5718 cycles, ceil(5718 / 1.7) = 3364 ns beside the MXU */
    assert_i64(s.vu_ns, 1607 + 3364);
    assert_i64(s.sa_ns, o.sa_ns);
    /* matrix units that apply the scales themselves (Blackwell): the same
     * scale bytes, no rescaling beside the MXU */
    c.matrix_block_scales = true;
    struct op h = time_one(&c, BS_CFG(",block_scales=128x128:DT_FLOAT"), BS_IN, BS_OUT);
    assert_i64(h.bytes, s.bytes);
    assert_i64(h.vu_ns, o.vu_ns);
    assert_i64(h.sa_ns, o.sa_ns);
    c.matrix_block_scales = false;
    /* a malformed block is named */
    struct trace t;
    trace_init(&t);
    test_op(&t, "G", BS_CFG(",block_scales=0x128:DT_FLOAT"), BS_IN, BS_OUT, OP_MXU, 1);
    struct npu_err e;
    assert_int_equal(chipsim_run(&t, &c, &profile_physical, &e), -1);
    assert_non_null(strstr(e.msg, "expected block_scales=KxN:DT_<TYPE>"));
    trace_free(&t);
}

/* matrix_accumulates: the matrix units keep their partial sums, so the
 * vector work beside a matmul is only a block-scaled one's rescaling. */
static void test_matrix_accumulates(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct op o = time_one(&c, BS_CFG(""), BS_IN, BS_OUT);
    assert_i64(o.vu_ns, 1607);   /* the 32 x 32 array ops' accumulation (test_block_scales) */
    c.matrix_accumulates = true;
    struct op a = time_one(&c, BS_CFG(""), BS_IN, BS_OUT);
    assert_i64(a.vu_ns, 0);
    assert_i64(a.sa_ns, o.sa_ns);
    assert_i64(a.bytes, o.bytes);
    /* the rescaling of 128 x 128 fp32 block scales stays: 3364 ns (test_block_scales) */
    struct op s = time_one(&c, BS_CFG(",block_scales=128x128:DT_FLOAT"), BS_IN, BS_OUT);
    assert_i64(s.vu_ns, 3364);
    /* the reference's profile keeps chipsim's accumulation whatever the chip says */
    struct trace t;
    trace_init(&t);
    test_op(&t, "G", BS_CFG(""), BS_IN, BS_OUT, OP_MXU, 137438953472);
    struct npu_err e;
    assert_int_equal(chipsim_run(&t, &c, &profile_neusim, &e), 0);
    assert_true(t.ops[0].vu_ns > 0);
    trace_free(&t);
}

static void set_levels(struct chip_config *c, double cap0_KiB, double fill0, double cap1_KiB, double fill1)
{
    c->memory_levels.n = 2;
    snprintf(c->memory_levels.l[0].name, sizeof c->memory_levels.l[0].name, "inner");
    snprintf(c->memory_levels.l[1].name, sizeof c->memory_levels.l[1].name, "outer");
    c->memory_levels.l[0].capacity_KiB = cap0_KiB, c->memory_levels.l[0].fill_GBps = fill0;
    c->memory_levels.l[1].capacity_KiB = cap1_KiB, c->memory_levels.l[1].fill_GBps = fill1;
}

static void test_memory_levels(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    /* An Add of 2^20 bf16 elements moves its 3 x 2 MiB = 6291456 bytes into
     * every level: 6291.456 ns at 1000 GB/s inside, 3145.7 at 2000 outside,
     * HBM ceil(6291456 / 2765) = 2276: the inner level binds. */
    set_levels(&c, 64, 1000, 1024, 2000);
    struct op a = time_one(&c, "Add(a=1048576,b=1048576,memory_placements=0_0_0,type=DT_BFLOAT16)",
                           "DT_BFLOAT16:[1048576],DT_BFLOAT16:[1048576]", "[DT_BFLOAT16:(1048576)]");
    assert_i64(a.bytes, 6291456);
    assert_i64(a.mem_ns, 2276);
    assert_i64(a.vmem_ns, 6291);
    assert_i64(a.exe_ns, 6291);
    /* 4096^3 bf16: the outermost level (128 MiB) tiles the HBM traffic as the
     * VMEM does, so the bytes are those of the chip without levels; with a
     * fast inner level the outer one's fill (2765 GB/s) is the VMEM time. */
    struct chip_config plain;
    test_chip("tpuv5p", &plain);
    struct op g0 = time_one(&plain, GEMM("DT_BFLOAT16"), GEMM_IN("DT_BFLOAT16"), GEMM_OUT("DT_BFLOAT16"));
    set_levels(&c, 256, 1e8, 131072, 2765);
    struct op g1 = time_one(&c, GEMM("DT_BFLOAT16"), GEMM_IN("DT_BFLOAT16"), GEMM_OUT("DT_BFLOAT16"));
    assert_i64(g1.bytes, g0.bytes);
    assert_i64(g1.vmem_ns, (int64_t)((double)g0.bytes / 2765));
    /* a slow 256 KiB inner level: tiling to 256 KiB re-reads far more than
     * the HBM traffic, so its time exceeds even the HBM bytes over its rate */
    set_levels(&c, 256, 100, 131072, 2765);
    struct op g2 = time_one(&c, GEMM("DT_BFLOAT16"), GEMM_IN("DT_BFLOAT16"), GEMM_OUT("DT_BFLOAT16"));
    assert_true((double)g2.vmem_ns > 2.0 * (double)g0.bytes / 100);
    assert_i64(g2.exe_ns, g2.vmem_ns);
}

static int64_t weight_bytes_of(const char *wdt, int64_t *mem)
{
    bool ovf = false;
    struct model_config m;
    cJSON *j = cJSON_Parse(test_model_text("llama3-8b"));
    assert_non_null(j);
    struct npu_err e;
    assert_int_equal(model_config_from_json(&m, j, NULL, &e), 0);
    cJSON_Delete(j);
    snprintf(m.weight_dtype, sizeof m.weight_dtype, "%s", wdt);
    struct opsgen_links l = { .pcie_bw_GBps = 32.0, .ici_bw_GBps = 200, .dcn_bw_GBps = 25, .hbm_size_GB = 95,
                              .ici_latency_ns = 3330, .dcn_latency_ns = 3700, .pcie_latency_ns = 400 };
    snprintf(l.chip_name, sizeof l.chip_name, "5p");
    snprintf(l.ICI_topology, sizeof l.ICI_topology, "TORUS_3D");
    struct trace t;
    trace_init(&t);
    assert_int_equal(opsgen_llm_inference(&m, &l, &profile_physical, &t, &ovf, &e), 0);
    int64_t w = 0;
    for (size_t i = 0; i < t.n; i++)
        if (t.ops[i].phase == PHASE_PREFILL && (!strcmp(t.ops[i].description, "-Q-4") ||
                                                !strcmp(t.ops[i].description, "-K-4") ||
                                                !strcmp(t.ops[i].description, "-V-4")))
            w += t.ops[i].weight_bytes;
    *mem = opsgen_llm_inference_mem_bytes(&m, PHASE_DECODE, &profile_physical);
    trace_free(&t);
    return w;
}

static void test_model_weight_formats(void **state)
{
    (void)state;
    int64_t mem16, mem4, mem8;
    /* Q, K, V of one layer: 4096 x (4096 + 2 x 1024) weights */
    int64_t w16 = weight_bytes_of("bf16", &mem16);
    assert_i64(w16, 4096LL * 6144 * 2);
    assert_i64(weight_bytes_of("int4", &mem4), 4096LL * 6144 / 2);
    assert_i64(weight_bytes_of("fp8", &mem8), 4096LL * 6144);
    /* the footprint loses 1.5 bytes per weight from bf16 to int4, 1 to fp8 */
    assert_true(mem16 > mem8 && mem8 > mem4);
    assert_i64((mem16 - mem4) * 2, (mem16 - mem8) * 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_tokens),
        cmocka_unit_test(test_peaks_and_fallbacks),
        cmocka_unit_test(test_kernel_efficiency),
        cmocka_unit_test(test_fp8_gemm_time),
        cmocka_unit_test(test_weight_only_int4_bytes), cmocka_unit_test(test_decode_attention_class),
        cmocka_unit_test(test_block_scales),
        cmocka_unit_test(test_matrix_accumulates),
        cmocka_unit_test(test_memory_levels),
        cmocka_unit_test(test_model_weight_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
