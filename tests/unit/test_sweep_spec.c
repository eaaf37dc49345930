/* test_sweep_spec.c — sweep spec parsing (cli/sweep_spec.c): lists, ranges
 * (count, inclusive end, integer rounding, no drift), and every bad-spec case
 * with the file and key in the message. */
#include "testutil.h"

#include "study/sweep/sweep_spec.h"

#define BASE "\"models\": [\"llama3-8b\"], \"chips\": [\"tpuv5p\"], \"num_chips\": [1, 4], \"batch_sizes\": [1]"

static void test_lists_and_ranges(void **state)
{
    (void)state;
    struct sweep_spec s;
    struct npu_err e;
    const char *t = "{" BASE ", \"workload\": \"inference\", \"fields\": {"
                    "\"hbm_bw_GBps\": {\"from\": 1000, \"to\": 8000, \"step\": 500},"
                    "\"num_sa\": [4, 8, 16], \"vmem_size_MB\": [64, 128],"
                    "\"freq_GHz\": {\"from\": 0.1, \"to\": 0.3, \"step\": 0.1}}}";
    assert_int_equal(sweep_spec_parse(t, "s.json", &s, &e), 0);
    assert_int_equal(s.nfields, 4);
    assert_string_equal(s.fields[0].key, "hbm_bw_GBps");
    /* 1000, 1500, ..., 8000: (8000 - 1000) / 500 + 1 = 15 values, both ends included */
    assert_i64(s.fields[0].count, 15);
    cJSON *v = spec_field_value(&s.fields[0], 14);
    assert_true(v->valuedouble == 8000);
    cJSON_Delete(v);
    assert_i64(s.fields[1].count, 3);
    v = spec_field_value(&s.fields[1], 2);
    assert_true(v->valuedouble == 16);
    cJSON_Delete(v);
    /* 0.1 + 2 * 0.1 = 0.30000000000000004 > 0.3: still counted (3 values) */
    assert_i64(s.fields[3].count, 3);
    v = spec_field_value(&s.fields[3], 2);
    assert_close(v->valuedouble, 0.3);
    cJSON_Delete(v);
    assert_i64(spec_ints_count(&s.num_chips), 2);
    assert_i64(spec_ints_value(&s.num_chips, 1), 4);
    assert_string_equal(s.workload, "inference");
    sweep_spec_free(&s);

    /* num_chips as a range: 2, 6, 10 (14 > 12 left out) */
    assert_int_equal(sweep_spec_parse("{\"num_chips\": {\"from\": 2, \"to\": 12, \"step\": 4}}", "r.json",
                                      &s, &e), 0);
    assert_i64(spec_ints_count(&s.num_chips), 3);
    assert_i64(spec_ints_value(&s.num_chips, 2), 10);
    sweep_spec_free(&s);
}

static void test_nested_key(void **state)
{
    (void)state;
    struct sweep_spec s;
    struct npu_err e;
    assert_int_equal(sweep_spec_parse("{\"fields\": {\"unet_config.num_heads\": [4, 8]}}", "n.json", &s, &e),
                     0);
    assert_int_equal(s.nfields, 1);
    assert_i64(s.fields[0].count, 2);
    sweep_spec_free(&s);
}

static void expect_bad(const char *text, const char *msg)
{
    struct sweep_spec s;
    struct npu_err e;
    assert_int_equal(sweep_spec_parse(text, "bad.json", &s, &e), -1);
    if (!strstr(e.msg, msg))
        fail_msg("message \"%s\" lacks \"%s\"", e.msg, msg);
    sweep_spec_free(&s);
}

static void test_bad_specs(void **state)
{
    (void)state;
    expect_bad("{\"fields\": {\"frobs\": [1]}}", "bad.json: fields: unknown config field \"frobs\"");
    expect_bad("{\"modles\": [\"x\"]}", "bad.json: unknown key \"modles\"");
    expect_bad("{\"fields\": {\"num_sa\": []}}", "bad.json: fields.num_sa: empty list");
    expect_bad("{\"fields\": {\"num_sa\": {\"from\": 1, \"to\": 4, \"step\": 0}}}", "step must not be zero");
    expect_bad("{\"fields\": {\"num_sa\": {\"from\": 4, \"to\": 1, \"step\": -1}}}", "step must be positive");
    expect_bad("{\"fields\": {\"num_sa\": {\"from\": 4, \"to\": 1, \"step\": 1}}}",
               "fields.num_sa: range from (4) is greater than to (1)");
    expect_bad("{\"fields\": {\"hbm_bw_GBps\": {\"from\": \"1k\", \"to\": 4, \"step\": 1}}}",
               "range \"from\" must be a number");
    expect_bad("{\"fields\": {\"hbm_bw_GBps\": {\"from\": 1, \"step\": 1}}}", "range needs \"to\"");
    expect_bad("{\"fields\": {\"hbm_bw_GBps\": {\"from\": 1, \"to\": 2, \"step\": 1, \"by\": 2}}}",
               "unknown range key \"by\"");
    expect_bad("{\"fields\": {\"num_sa\": [4, 2.5]}}", "fields.num_sa[1]: 2.5 is not an integer");
    expect_bad("{\"fields\": {\"hbm_bw_GBps\": [true]}}", "fields.hbm_bw_GBps[0]: true is not a number");
    expect_bad("{\"fields\": {\"ICI_topology\": [3]}}", "is not a string");
    expect_bad("{\"fields\": {\"num_sa\": 4}}", "expected a list of values or a range");
    expect_bad("{\"fields\": {\"num_chips\": [4]}}", "\"num_chips\" is set by the sweep itself");
    expect_bad("{\"num_chips\": [0]}", "\"num_chips\": every item must be a positive integer");
    expect_bad("{\"batch_sizes\": []}", "\"batch_sizes\": expected a non-empty list");
    /* Bounded as the fields they set: a config file could not ask for more. */
    expect_bad("{\"batch_sizes\": [16777217]}",
               "\"batch_sizes\": every item must be a positive integer of at most 16777216 (global_batch_size's range)");
    expect_bad("{\"num_chips\": {\"from\": 1048576, \"to\": 1048577, \"step\": 1}}",
               "\"num_chips\": range must end at most at 1048576 (num_chips's range)");
    expect_bad("{\"models\": [\"\"]}", "\"models\": every item must be a non-empty string");
    expect_bad("{\"workload\": \"serving\"}", "\"workload\": expected");
    expect_bad("{\"fields\": {\"hbm_bw_GBps\": {\"from\": 0, \"to\": 1e12, \"step\": 1}}}", "at most");
    expect_bad("[1]", "bad.json: expected a JSON object");
    expect_bad("{\n\"fields\": }", "bad.json:2: invalid JSON");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists_and_ranges),
        cmocka_unit_test(test_nested_key),
        cmocka_unit_test(test_bad_specs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
