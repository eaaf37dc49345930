/* test_serving_capacity.c — the serving SLO of serving/capacity.h: the
 * bounds it reads (per request, and METRIC_STAT_UNIT on the run), what it
 * refuses, and a summary judged against it by hand. */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "serving/serving.h"

static void test_parse(void **state)
{
    (void)state;
    struct serving_slo slo;
    char why[400];
    assert_int_equal(serving_slo_parse("ttft_ms=200,tpot_ms=20,ttft_p99_ms=500,e2e_max_s=30,tpot_mean_ms=12.5",
                                       &slo, why, sizeof why), 0);
    assert_true(slo.ttft_ms == 200 && slo.tpot_ms == 20);
    assert_int_equal(slo.n, 3);
    assert_string_equal(slo.b[0].key, "ttft_p99_ms");
    assert_string_equal(slo.b[0].metric, "ttft_ms");
    assert_string_equal(slo.b[0].stat, "p99");
    assert_true(slo.b[0].limit == 500);
    assert_string_equal(slo.b[1].metric, "e2e_s");
    assert_string_equal(slo.b[1].stat, "max");
    assert_string_equal(slo.b[2].stat, "mean");
    static const char *const bad[] = { "", "ttft_ms", "ttft_ms=0", "ttft_ms=-1", "ttft_ms=nan", "ttft_p42_ms=3",
                                       "e2e_p99_ms=3", "ttft_p99_s=3", "foo=1" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(serving_slo_parse(bad[i], &slo, why, sizeof why), -1);
    assert_int_equal(serving_slo_parse("ttft_p42_ms=3", &slo, why, sizeof why), -1);
    assert_non_null(strstr(why, "unknown bound \"ttft_p42_ms\""));
}

static void test_met(void **state)
{
    (void)state;
    struct serving_slo slo;
    char why[200];
    assert_int_equal(serving_slo_parse("ttft_p99_ms=500,tpot_p50_ms=20", &slo, why, sizeof why), 0);
    cJSON *s = cJSON_Parse("{\"ttft_ms\":{\"p99\":499.9},\"tpot_ms\":{\"p50\":20}}");
    assert_non_null(s);
    assert_true(serving_slo_met(&slo, s));            /* at the bound is within it */
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(s, "tpot_ms"), "p50", cJSON_CreateNumber(20.001));
    assert_false(serving_slo_met(&slo, s));
    assert_true(fabs(serving_slo_value(&slo.b[1], s) - 20.001) < 1e-12);
    cJSON_DeleteItemFromObject(s, "tpot_ms");         /* no TPOT measured: not a miss */
    assert_true(isnan(serving_slo_value(&slo.b[1], s)));
    assert_true(serving_slo_met(&slo, s));
    cJSON_Delete(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_met),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
