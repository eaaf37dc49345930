/* test_serving_metrics.c — the latency figures of serving/metrics.h by
 * hand: over 1..100 (given shuffled) the mean is 50.5, the q-quantile
 * 1 + 99 q (p50 50.5, p90 90.1, p95 95.05, p99 99.01) and the maximum 100;
 * one value is every figure; none gives NAN and a count of 0. The growth of
 * the requests in the system (serving_in_system_growth) by hand: 400
 * arrivals a second apart, each in the system 10 s, hold it at 10: 0; each
 * finishing at 2 i + 1 s (served at half the rate they come), it is
 * ceil((i + 1) / 2) at arrival i, whose line over i = 100..399 rises
 * 0.49998 a second for 299 s over a mean of 125.5: 1.19120; the same given
 * in any order; NAN under 200 requests. */
#include "testutil.h"

#include <math.h>

#include "serving/serving.h"

static void test_hand_values(void **state)
{
    (void)state;
    double x[100];
    for (int i = 0; i < 100; i++)
        x[i] = (double)((i * 37) % 100 + 1);   /* 1..100, shuffled (37 is prime to 100) */
    struct serving_dist d;
    serving_dist_of(x, 100, &d);
    assert_int_equal(d.n, 100);
    assert_true(fabs(d.mean - 50.5) < 1e-12 && fabs(d.p50 - 50.5) < 1e-12 && fabs(d.p90 - 90.1) < 1e-12);
    assert_true(fabs(d.p95 - 95.05) < 1e-12 && fabs(d.p99 - 99.01) < 1e-12 && d.max == 100);
    double one = 7.25;
    serving_dist_of(&one, 1, &d);
    assert_true(d.n == 1 && d.mean == 7.25 && d.p50 == 7.25 && d.p99 == 7.25 && d.max == 7.25);
    serving_dist_of(NULL, 0, &d);
    assert_true(d.n == 0 && isnan(d.mean) && isnan(d.p50) && isnan(d.max));
}

/* Percentiles never fall as q rises, and lie within [min, max]. */
static void test_order(void **state)
{
    (void)state;
    double x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = exp(sin(i * 0.7) * 3);   /* a skewed spread */
    struct serving_dist d;
    serving_dist_of(x, 1000, &d);
    assert_true(x[0] <= d.p50 && d.p50 <= d.p90 && d.p90 <= d.p95 && d.p95 <= d.p99 && d.p99 <= d.max);
    assert_true(d.mean > x[0] && d.mean < d.max);
}

/* Weighted values equal their expansion: {1 x2, 10, 3} is [1, 1, 3, 10]:
 * mean 15/4, p50 at rank 1.5 = 2, p90 at rank 2.7 = 3 + 0.7 x 7 = 7.9. */
static void test_weighted(void **state)
{
    (void)state;
    double v[] = { 1, 10, 3 }, x[] = { 1, 1, 10, 3 };
    int64_t w[] = { 2, 1, 1 };
    struct serving_dist d, ex;
    serving_dist_weighted(v, w, 3, &d);
    serving_dist_of(x, 4, &ex);
    assert_int_equal(d.n, 4);
    assert_true(fabs(d.mean - 3.75) < 1e-12);
    assert_true(fabs(d.p50 - 2.0) < 1e-12);
    assert_true(fabs(d.p90 - 7.9) < 1e-12);
    assert_true(d.max == 10);
    assert_true(fabs(d.p99 - ex.p99) < 1e-12 && fabs(d.p95 - ex.p95) < 1e-12);
    serving_dist_weighted(v, w, 0, &d);
    assert_int_equal(d.n, 0);
    assert_true(isnan(d.mean));
}

static void test_growth(void **state)
{
    (void)state;
    enum { N = 400 };
    double a[N], f[N], g[N];
    for (int i = 0; i < N; i++)
        a[i] = i, f[i] = i + 10.0, g[i] = 2.0 * i + 1;
    assert_true(fabs(serving_in_system_growth(a, f, N)) < 1e-12);
    assert_true(fabs(serving_in_system_growth(a, g, N) - 1.1911953514844278) < 1e-9);
    for (int i = 0; i < N / 2; i++) {   /* reversed: any order */
        double t = a[i];
        a[i] = a[N - 1 - i], a[N - 1 - i] = t;
        t = g[i], g[i] = g[N - 1 - i], g[N - 1 - i] = t;
    }
    assert_true(fabs(serving_in_system_growth(a, g, N) - 1.1911953514844278) < 1e-9);
    assert_true(isnan(serving_in_system_growth(a, g, SERVING_GROWTH_MIN_REQUESTS - 1)));
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_hand_values), cmocka_unit_test(test_order),
                                        cmocka_unit_test(test_weighted), cmocka_unit_test(test_growth) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
