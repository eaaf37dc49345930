/* test_links.c — where a collective runs (opsgen/gen.h gen_axes): a group
 * within the chip's link domain on ICI (NVLink) at ici_bw_GBps and
 * ici_latency_ns per step; a group larger than the domain on the scale-out
 * network at dcn_bw_GBps and dcn_latency_ns; a domain's group as one ring
 * (a switch), not torus axes; no domain known, or the neusim profile, ICI
 * whatever the span. */
#include "testutil.h"

#include "opsgen/gen.h"

static struct opsgen_links links(int64_t domain)
{
    struct opsgen_links l;
    memset(&l, 0, sizeof l);
    l.ici_bw_GBps = 450, l.ici_latency_ns = 3330;
    l.dcn_bw_GBps = 50, l.dcn_latency_ns = 3700;
    l.link_domain_chips = domain;
    return l;
}

static void test_inside_and_across_the_domain(void **state)
{
    (void)state;
    struct opsgen_links l = links(8);
    struct coll_axes ax;
    /* tp 8 on one axis: inside the 8-GPU domain */
    assert_int_equal(gen_axes(&ax, 8, 1, &profile_physical, &l, SHAPE_MAXD), 0);
    assert_int_equal(ax.n, 1);
    assert_int_equal(ax.deg[0], 8);
    assert_true(ax.bw_GBps[0] == 450.0);
    assert_int_equal(ax.latency_ns, 3330);
    assert_false(gen_spans_domain(8, &l, &profile_physical));
    /* tp 16 asked on two axes (4 x 4): 16 GPUs span two domains: one ring on the network */
    assert_int_equal(gen_axes(&ax, 16, 2, &profile_physical, &l, SHAPE_MAXD), 0);
    assert_int_equal(ax.n, 1);
    assert_int_equal(ax.deg[0], 16);
    assert_true(ax.bw_GBps[0] == 50.0);
    assert_int_equal(ax.latency_ns, 3700);
    assert_true(gen_spans_domain(16, &l, &profile_physical));
    /* tp 8 on the three axes a run maps a GPU's groups to: a switch is one
     * ring at the GPU's 450 GB/s (not three axes of 450 each, 1350); the
     * reference's torus keeps the three */
    assert_int_equal(gen_axes(&ax, 8, 3, &profile_physical, &l, SHAPE_MAXD), 0);
    assert_int_equal(ax.n, 1);
    assert_true(ax.bw_GBps[0] == 450.0);
    assert_true(ax.ring_bytes);
    assert_int_equal(gen_axes(&ax, 8, 3, &profile_neusim, &l, SHAPE_MAXD), 0);
    assert_int_equal(ax.n, 3);
    assert_false(ax.ring_bytes);
}

static void test_no_domain_or_neusim_stays_on_ici(void **state)
{
    (void)state;
    struct coll_axes ax;
    struct opsgen_links l = links(0);   /* a TPU: no domain known */
    assert_int_equal(gen_axes(&ax, 64, 1, &profile_physical, &l, SHAPE_MAXD), 0);
    assert_true(ax.bw_GBps[0] == 450.0);
    assert_int_equal(ax.latency_ns, 3330);
    l = links(8);
    assert_int_equal(gen_axes(&ax, 16, 1, &profile_neusim, &l, SHAPE_MAXD), 0);
    assert_true(ax.bw_GBps[0] == 450.0);
    assert_false(gen_spans_domain(16, &l, &profile_neusim));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inside_and_across_the_domain),
        cmocka_unit_test(test_no_domain_or_neusim_stays_on_ici),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
