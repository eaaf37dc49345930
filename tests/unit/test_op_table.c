/* test_op_table.c — the measurement reader (calib/op_table.h) on its two
 * forms: the CSV and its JSON twin, as text (a file) or as a JSON list
 * already parsed (the HTTP API's "measurements"). Both forms give the same
 * rows; a bad record is named by its number and key, with the JSON type it
 * expected. */
#include "testutil.h"

#include "calib/op_table.h"

/* The list form of text (a JSON list) through op_table_json. */
static int from_list(const char *text, struct op_table *t, struct npu_err *e)
{
    cJSON *v = cJSON_Parse(text);
    assert_non_null(v);
    int rc = op_table_json("measurements", v, t, e);
    cJSON_Delete(v);
    return rc;
}

static void expect_bad_list(const char *text, const char *msg)
{
    struct op_table t;
    struct npu_err e;
    if (from_list(text, &t, &e) == 0)
        fail_msg("accepted: %s", text);
    if (strcmp(e.msg, msg))
        fail_msg("%s:\n  got      %s\n  expected %s", text, e.msg, msg);
    assert_int_equal(t.n, 0);   /* nothing kept */
}

static void test_list_equals_csv(void **state)
{
    (void)state;
    static const char csv[] = "op,dtype,m,n,k,batch,time_us,source\n"
                              "gemm,bf16,4096,4096,4096,,540.5,lab\n"
                              "softmax,fp16,4096,4096,,,82,\n";
    static const char list[] = "[{\"op\": \"gemm\", \"dtype\": \"bf16\", \"m\": 4096, \"n\": 4096, \"k\": 4096,"
                               " \"time_us\": 540.5, \"source\": \"lab\"},"
                               " {\"op\": \"softmax\", \"dtype\": \"fp16\", \"m\": 4096, \"n\": 4096, \"batch\": null,"
                               " \"time_us\": 82}]";
    struct op_table a, b, c;
    struct npu_err e;
    assert_int_equal(op_table_parse("m.csv", csv, strlen(csv), &a, &e), 0);
    assert_int_equal(from_list(list, &b, &e), 0);
    assert_int_equal(op_table_parse("m.json", list, strlen(list), &c, &e), 0);   /* the twin as text */
    assert_int_equal(a.n, 2);
    assert_int_equal(b.n, 2);
    assert_int_equal(c.n, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(a.rows[i].r.op, b.rows[i].r.op);
        assert_int_equal(a.rows[i].r.prec, b.rows[i].r.prec);
        assert_i64(a.rows[i].r.m, b.rows[i].r.m);
        assert_i64(a.rows[i].r.n, b.rows[i].r.n);
        assert_i64(a.rows[i].r.k, b.rows[i].r.k);
        assert_i64(a.rows[i].r.batch, b.rows[i].r.batch);
        assert_true(a.rows[i].r.measured_us == b.rows[i].r.measured_us);
        assert_true(c.rows[i].r.measured_us == b.rows[i].r.measured_us);
    }
    assert_string_equal(b.extra_name[0], "source");
    assert_string_equal(b.rows[0].extra[0], "lab");
    assert_string_equal(a.row_unit, "line");
    assert_string_equal(a.cell_unit, "column");
    assert_string_equal(b.row_unit, "record");
    assert_string_equal(b.cell_unit, "key");
    assert_int_equal(b.rows[1].line, 2);   /* records count from 1 */
    op_table_free(&a), op_table_free(&b), op_table_free(&c);
}

static void test_bad_records(void **state)
{
    (void)state;
    expect_bad_list("[{\"op\": \"gemm\", \"dtype\": \"bf16\", \"m\": 1}, {\"dtype\": \"bf16\", \"m\": 1}]",
                    "measurements: record 2: key \"op\": missing (expected the operator: gemm, attention, softmax, ...)");
    expect_bad_list("[{\"op\": \"gemm\", \"m\": 1}]",
                    "measurements: record 1: key \"dtype\": missing (expected a number format: bf16, fp16, fp8, ...)");
    expect_bad_list("[{\"op\": \"gemm\", \"dtype\": \"bf16\", \"m\": \"4096\"}]",
                    "measurements: record 1: key \"m\": expected a number, got text");
    expect_bad_list("[{\"op\": \"gemm\", \"dtype\": \"bf16\", \"m\": 4096.5}]",
                    "measurements: record 1: key \"m\": expected a positive integer, got \"4096.5\"");
    expect_bad_list("[{\"op\": \"gemm\", \"dtype\": \"bf16\", \"k\": 64.1}]",   /* the shortest text, not 64.09999... */
                    "measurements: record 1: key \"k\": expected a positive integer, got \"64.1\"");
    expect_bad_list("[{\"op\": \"gemm\", \"dtype\": 16}]", "measurements: record 1: key \"dtype\": expected text, got a number");
    expect_bad_list("[{\"op\": \"gemm\", \"dtype\": \"bf16\", \"time_us\": [1]}]",
                    "measurements: record 1: key \"time_us\": expected a number, got a list");
    expect_bad_list("[{\"op\": \"gemm\", \"dtype\": \"bf16\", \"note\": true}]",
                    "measurements: record 1: key \"note\": expected a number, text or null, got true or false");
    struct op_table t;
    struct npu_err e;
    assert_int_not_equal(from_list("[{\"op\": \"gemm\", \"dtype\": \"bf17\"}]", &t, &e), 0);
    assert_non_null(strstr(e.msg, "measurements: record 1: key \"dtype\": expected one of "));
    assert_non_null(strstr(e.msg, ", got \"bf17\""));
    expect_bad_list("[3]", "measurements: record 1: expected an object of op, dtype, m, n, k, batch, time_us, ...");
    expect_bad_list("[]", "measurements: no records (expected a list of objects with op, dtype, m, n, k, batch, time_us)");
    expect_bad_list("{\"op\": \"gemm\"}", "\"measurements\": expected a list of records ({\"op\": \"gemm\", \"dtype\": "
                                          "\"bf16\", \"m\": 4096, ..., \"time_us\": 540}) or the measurement CSV "
                                          "(op,dtype,m,n,k,batch,time_us) as text");
}

/* A text member is read as the file would be: CSV messages name lines and columns. */
static void test_text_member(void **state)
{
    (void)state;
    cJSON *v = cJSON_CreateString("op,dtype,m\ngemm,bf17,1\n");
    struct op_table t;
    struct npu_err e;
    assert_int_not_equal(op_table_json("measurements", v, &t, &e), 0);
    assert_non_null(strstr(e.msg, "measurements: line 2: column \"dtype\": expected one of"));
    cJSON_Delete(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_equals_csv),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_text_member),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
