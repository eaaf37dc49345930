/* test_launch.c — the launch gap (chipsim/chip.h chip_launch_gap_ns): which
 * gap a phase's kernels wait (graph_capture none, decode, all), and that
 * chipsim makes an op take at least it under the physical profile, leaves a
 * longer op alone and applies none under the reference's profile. */
#include "testutil.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gap_by_capture),
        cmocka_unit_test(test_chipsim_waits_for_the_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
