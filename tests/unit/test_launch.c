/* test_launch.c — the launch gap (chipsim/chip.h chip_launch_gap_ns): which
 * gap a phase's kernels wait (graph_capture none, decode, all), and that
 * chipsim makes an op take at least it under the physical profile, leaves a
 * longer op alone and applies none under the reference's profile; a grouped
 * expert GEMM waits one gap for its experts, and takes the grouped_gemm
 * kernel class's efficiency. */
#include "testutil.h"

#include <stdlib.h>

#include "chipsim/chipsim.h"
#include "traces/op.h"

#define QPROJ "XlaEinsum(a=1x4096x4096,b=4096x32x128,eq=BLM;MND->BLND,memory_placements=0_0_0,type=DT_BFLOAT16)"
#define QPROJ_IN "DT_BFLOAT16:[1,4096,4096],DT_BFLOAT16:[4096,32,128]"
#define QPROJ_OUT "[DT_BFLOAT16:(1,4096,32,128)]"

static void test_gap_by_capture(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    c.kernel_launch_ns = 5000, c.graph_kernel_ns = 1500;
    snprintf(c.graph_capture, sizeof c.graph_capture, "decode");
    assert_int_equal(chip_launch_gap_ns(&c, PHASE_PREFILL), 5000);
    assert_int_equal(chip_launch_gap_ns(&c, PHASE_DECODE), 1500);
    assert_int_equal(chip_launch_gap_ns(&c, PHASE_NONE), 5000);
    snprintf(c.graph_capture, sizeof c.graph_capture, "all");
    assert_int_equal(chip_launch_gap_ns(&c, PHASE_PREFILL), 1500);
    snprintf(c.graph_capture, sizeof c.graph_capture, "none");
    assert_int_equal(chip_launch_gap_ns(&c, PHASE_DECODE), 5000);
}

/* The 4096-token Q projection on v5p: 137 Gflop, 308 us at the roofline
 * (test_chipsim.c's hand-derived figure). A gap of 1 ms exceeds it; 1 us
 * does not. */
static int64_t timed(int64_t gap_ns, enum phase ph, const struct profile *prof)
{
    struct chip_config c;
    test_chip("tpuv5p", &c);
    c.kernel_launch_ns = c.graph_kernel_ns = gap_ns;
    struct trace t;
    trace_init(&t);
    struct op *o = test_op(&t, "Q3MatMulQ", QPROJ, QPROJ_IN, QPROJ_OUT, OP_MXU, 137438953472);
    o->phase = ph;
    struct npu_err e;
    assert_int_equal(chipsim_run(&t, &c, prof, &e), 0);
    int64_t ns = t.ops[0].exe_ns;
    trace_free(&t);
    return ns;
}

static void test_chipsim_waits_for_the_launch(void **state)
{
    (void)state;
    int64_t base = timed(0, PHASE_PREFILL, &profile_physical);
    assert_true(base > 1000 && base < 1000000);
    assert_int_equal(timed(1000, PHASE_PREFILL, &profile_physical), base);        /* shorter: hidden */
    assert_int_equal(timed(1000000, PHASE_PREFILL, &profile_physical), 1000000);  /* longer: waited */
    assert_int_equal(timed(1000000, PHASE_DECODE, &profile_physical), 1000000);
    assert_int_equal(timed(1000000, PHASE_PREFILL, &profile_neusim), timed(0, PHASE_PREFILL, &profile_neusim));
}

/* A fused MoE kernel's grouped GEMM (opsgen/layers.c, body_matmul): the 8
 * experts' up projections of 3 decode rows each as one einsum over an expert
 * axis. On v5p each expert's is memory-bound (3 x 4096 x 14336 x 2 FLOPs
 * over its 117 MB of bf16 weights), so without a launch gap the grouped op
 * takes the 8 per-expert ops' time (to the ns each rounds to); with a gap of
 * 100 us, longer than either, the grouped op waits one gap where the 8 wait
 * eight. */
static int64_t expert_ns(int64_t gap_ns, int grouped)
{
    struct chip_config c;
    test_chip("tpuv5p", &c);
    c.kernel_launch_ns = c.graph_kernel_ns = gap_ns;
    struct trace t;
    trace_init(&t);
    struct op *o = grouped
        ? test_op(&t, "up", "XlaEinsum(a=8x3x4096,b=8x4096x14336,eq=ELM;EMH->ELH,memory_placements=0_0_0,type=DT_BFLOAT16)",
                  "DT_BFLOAT16:[8,3,4096],DT_BFLOAT16:[8,4096,14336]", "[DT_BFLOAT16:(8,3,14336)]", OP_MXU,
                  8 * 2LL * 3 * 4096 * 14336)
        : test_op(&t, "up", "XlaEinsum(a=1x3x4096,b=4096x14336,eq=BLM;MH->BLH,memory_placements=0_0_0,type=DT_BFLOAT16)",
                  "DT_BFLOAT16:[1,3,4096],DT_BFLOAT16:[4096,14336]", "[DT_BFLOAT16:(1,3,14336)]", OP_MXU,
                  2LL * 3 * 4096 * 14336);
    o->phase = PHASE_DECODE;
    o->count = grouped ? 1 : 8;
    struct npu_err e;
    assert_int_equal(chipsim_run(&t, &c, &profile_physical, &e), 0);
    int64_t ns = t.ops[0].exe_ns * t.ops[0].count;
    trace_free(&t);
    return ns;
}

static void test_grouped_expert_gemm(void **state)
{
    (void)state;
    int64_t one = expert_ns(0, 1), each = expert_ns(0, 0);
    assert_true(one > 100000 && one < 1000000);   /* 940 MB at 2.8 TB/s: a few hundred us */
    assert_true(llabs(one - each) <= 8);
    assert_int_equal(expert_ns(1000000, 1), 1000000);
    assert_int_equal(expert_ns(1000000, 0), 8 * 1000000);
}

/* The grouped_gemm kernel class: the 8 experts' up projections of 512 rows
 * each, compute-bound on v5p. Undeclared (e_max 0) it runs as gemm: the
 * same time as the same einsum not marked grouped. Declared at 0.5 it takes
 * twice the time of gemm's e of 1 (the golden chip's). A grouped einsum of 3
 * rows an expert is a GEMV (weight-streaming), whatever the class says. */
static int64_t grouped_ns(double e, bool grouped, const char *rows, int *kc)
{
    struct chip_config c;
    test_chip("tpuv5p", &c);
    c.kernel_launch_ns = c.graph_kernel_ns = 0;
    c.kernel_eff[KC_grouped_gemm].e_max = e;
    char cfg[200], in[120], out[80];
    snprintf(cfg, sizeof cfg, "XlaEinsum(a=8x%sx4096,b=8x4096x14336,eq=ELM;EMH->ELH,memory_placements=0_0_0,type=DT_BFLOAT16)",
             rows);
    snprintf(in, sizeof in, "DT_BFLOAT16:[8,%s,4096],DT_BFLOAT16:[8,4096,14336]", rows);
    snprintf(out, sizeof out, "[DT_BFLOAT16:(8,%s,14336)]", rows);
    struct trace t;
    trace_init(&t);
    struct op *o = test_op(&t, "up", cfg, in, out, OP_MXU, 8 * 2LL * atoll(rows) * 4096 * 14336);
    o->phase = PHASE_PREFILL;
    o->grouped = grouped;
    struct npu_err err;
    assert_int_equal(chipsim_run(&t, &c, &profile_physical, &err), 0);
    int64_t ns = t.ops[0].exe_ns;
    *kc = t.ops[0].kernel_class;
    trace_free(&t);
    return ns;
}

static void test_grouped_gemm_class(void **state)
{
    (void)state;
    int kc;
    int64_t plain = grouped_ns(0.5, false, "512", &kc);
    assert_int_equal(kc, KC_gemm);
    assert_int_equal(grouped_ns(0, true, "512", &kc), plain);
    assert_int_equal(kc, KC_grouped_gemm);
    int64_t half = grouped_ns(0.5, true, "512", &kc);
    assert_true(plain > 100000 && llabs(half - 2 * plain) <= 2);
    grouped_ns(0.5, true, "3", &kc);
    assert_int_equal(kc, KC_gemv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gap_by_capture),
        cmocka_unit_test(test_chipsim_waits_for_the_launch),
        cmocka_unit_test(test_grouped_expert_gemm),
        cmocka_unit_test(test_grouped_gemm_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
