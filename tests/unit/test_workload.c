/* test_workload.c — the serving workload (serving/workload.h): the specs
 * parsed and refused, the first arrival at 0 and constant gaps exactly
 * 1 / rate, seeded Poisson and gamma gaps with the mean and CV they are
 * drawn for (20000 gaps: within 2% and 4%), lengths fixed, uniform within
 * their ranges and lognormal with their mean and CV, everything clipped to
 * the context, and a seed giving the same requests while the lengths' spec
 * leaves the arrivals alone. */
#include "testutil.h"

#include <math.h>

#include "serving/serving.h"

#define N 20000

static void parse_ok(struct serving_workload *w, const char *arr, const char *len)
{
    struct npu_err e;
    memset(w, 0, sizeof *w);
    if (serving_arrivals_parse(arr, &w->arrivals, &e) || serving_lengths_parse(len, &w->lengths, &e))
        fail_msg("%s", e.msg);
    w->seed = 42;
}

static void test_parse(void **state)
{
    (void)state;
    struct serving_arrivals a;
    struct serving_lengths l;
    struct npu_err e;
    assert_int_equal(serving_arrivals_parse("gamma:2.5:3", &a, &e), 0);
    assert_int_equal(a.kind, ARRIVAL_GAMMA);
    assert_true(a.rate_rps == 2.5 && a.cv == 3);
    assert_int_equal(serving_arrivals_parse("closed:64", &a, &e), 0);
    assert_true(a.kind == ARRIVAL_CLOSED && a.concurrency == 64);
    assert_int_equal(serving_arrivals_parse("offline", &a, &e), 0);
    assert_int_equal(serving_lengths_parse("uniform:10:20:1:5", &l, &e), 0);
    assert_true(l.kind == LENGTHS_UNIFORM && l.in_lo == 10 && l.in_hi == 20 && l.out_lo == 1 && l.out_hi == 5);
    static const char *const bad_arr[] = { "poisson:0", "poisson:-1", "poisson:nan", "poisson:inf", "poisson",
                                           "gamma:1", "gamma:1:0", "constant:x", "closed:0", "closed:16777217",
                                           "poison:1", "offline:1", "", "poisson:1:2:3:4:5:6:7" };
    for (size_t i = 0; i < sizeof bad_arr / sizeof bad_arr[0]; i++) {
        assert_int_equal(serving_arrivals_parse(bad_arr[i], &a, &e), -1);
        assert_non_null(strstr(e.msg, "expected poisson:RATE"));
    }
    static const char *const bad_len[] = { "fixed:0:5", "fixed:5", "fixed:a:b", "fixed:-1:4", "uniform:20:10:1:2",
                                           "uniform:1:2:3", "lognormal:100:-1:10:1", "lognormal:0.5:1:10:1",
                                           "fixed:16777217:1", "normal:1:2" };
    for (size_t i = 0; i < sizeof bad_len / sizeof bad_len[0]; i++) {
        assert_int_equal(serving_lengths_parse(bad_len[i], &l, &e), -1);
        assert_non_null(strstr(e.msg, bad_len[i]));
    }
}

/* mean and CV of n values */
static void stats(const double *x, int n, double *mean, double *cv)
{
    double s = 0, s2 = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    *mean = s / n;
    for (int i = 0; i < n; i++)
        s2 += (x[i] - *mean) * (x[i] - *mean);
    *cv = sqrt(s2 / (n - 1)) / *mean;
}

static double gaps[N + 1], ins[N], outs[N];

/* N + 1 requests: their N gaps (s) and their first N lengths. */
static void draw(const struct serving_workload *w)
{
    struct serving_gen g;
    struct serving_request r;
    struct npu_err e;
    assert_int_equal(serving_gen_init(&g, w, &e), 0);
    int64_t prev = 0;
    for (int i = 0; i <= N; i++) {
        assert_int_equal(serving_gen_next(&g, &r, &e), 0);
        assert_int_equal(r.id, i);
        if (i == 0)
            assert_int_equal(r.arrival_ns, w->arrivals.kind == ARRIVAL_CLOSED ? -1 : 0);
        else
            gaps[i - 1] = (double)(r.arrival_ns - prev) / 1e9;
        prev = r.arrival_ns;
        if (i < N)
            ins[i] = (double)r.input_tokens, outs[i] = (double)r.output_tokens;
        assert_true(r.input_tokens >= 1 && r.output_tokens >= 1);
    }
    serving_gen_free(&g);
}

static void test_arrivals(void **state)
{
    (void)state;
    struct serving_workload w;
    double m, cv;
    parse_ok(&w, "constant:4", "fixed:128:16");
    draw(&w);
    for (int i = 0; i < N; i++)
        assert_true(fabs(gaps[i] - 0.25) < 2e-9);   /* 250 ms, to the nanosecond */
    parse_ok(&w, "poisson:10", "fixed:128:16");
    draw(&w);
    stats(gaps, N, &m, &cv);
    if (!(fabs(m - 0.1) < 0.002 && fabs(cv - 1) < 0.04))
        fail_msg("poisson:10 gaps: mean %g s (0.1), CV %g (1)", m, cv);
    parse_ok(&w, "gamma:10:2", "fixed:128:16");
    draw(&w);
    stats(gaps, N, &m, &cv);
    if (!(fabs(m - 0.1) < 0.004 && fabs(cv - 2) < 0.08))
        fail_msg("gamma:10:2 gaps: mean %g s (0.1), CV %g (2)", m, cv);
    parse_ok(&w, "offline", "fixed:128:16");
    draw(&w);
    for (int i = 0; i < N; i++)
        assert_true(gaps[i] == 0);
}

static void test_lengths(void **state)
{
    (void)state;
    struct serving_workload w;
    double m, cv;
    parse_ok(&w, "closed:8", "fixed:128:16");
    draw(&w);
    for (int i = 0; i < N; i++)
        assert_true(ins[i] == 128 && outs[i] == 16);
    parse_ok(&w, "poisson:1", "uniform:10:20:1:5");
    draw(&w);
    bool lo = false, hi = false;
    for (int i = 0; i < N; i++) {
        assert_true(ins[i] >= 10 && ins[i] <= 20 && outs[i] >= 1 && outs[i] <= 5);
        lo |= ins[i] == 10, hi |= ins[i] == 20;
    }
    assert_true(lo && hi);   /* both ends are drawn */
    stats(ins, N, &m, &cv);
    assert_true(fabs(m - 15) < 0.1);
    parse_ok(&w, "poisson:1", "lognormal:1000:0.5:200:1.5");
    draw(&w);
    stats(ins, N, &m, &cv);
    if (!(fabs(m / 1000 - 1) < 0.02 && fabs(cv - 0.5) < 0.02))
        fail_msg("lognormal input: mean %g (1000), CV %g (0.5)", m, cv);
    stats(outs, N, &m, &cv);
    if (!(fabs(m / 200 - 1) < 0.04 && fabs(cv / 1.5 - 1) < 0.1))
        fail_msg("lognormal output: mean %g (200), CV %g (1.5)", m, cv);
    /* a context of 2048: the prompt keeps one token for the answer, the answer what is left */
    w.max_context = 2048;
    draw(&w);
    for (int i = 0; i < N; i++)
        assert_true(ins[i] <= 2047 && ins[i] + outs[i] <= 2048);
    w.max_context = 1;
    struct serving_gen g;
    struct npu_err e;
    assert_int_equal(serving_gen_init(&g, &w, &e), -1);
    assert_non_null(strstr(e.msg, "a context of 1 tokens cannot hold"));
}

static void test_seeds(void **state)
{
    (void)state;
    struct serving_workload w;
    parse_ok(&w, "poisson:5", "lognormal:500:1:100:1");
    draw(&w);
    static double g1[N], i1[N];
    memcpy(g1, gaps, sizeof g1);
    memcpy(i1, ins, sizeof i1);
    draw(&w);
    assert_memory_equal(g1, gaps, sizeof g1);
    assert_memory_equal(i1, ins, sizeof i1);
    /* other lengths, the same arrivals; another seed, other arrivals */
    parse_ok(&w, "poisson:5", "fixed:7:7");
    draw(&w);
    assert_memory_equal(g1, gaps, sizeof g1);
    w.seed = 43;
    draw(&w);
    assert_memory_not_equal(g1, gaps, sizeof g1);
}

static void test_far_arrival(void **state)
{
    (void)state;
    struct serving_workload w;
    struct serving_gen g;
    struct serving_request r;
    struct npu_err e;
    parse_ok(&w, "constant:1e-10", "fixed:1:1");   /* one request every 317 years */
    assert_int_equal(serving_gen_init(&g, &w, &e), 0);
    assert_int_equal(serving_gen_next(&g, &r, &e), 0);
    assert_int_equal(serving_gen_next(&g, &r, &e), -1);
    assert_non_null(strstr(e.msg, "after 2^63 ns"));
    serving_gen_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),       cmocka_unit_test(test_arrivals), cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_seeds),       cmocka_unit_test(test_far_arrival),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
