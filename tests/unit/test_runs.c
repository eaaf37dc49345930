/* test_runs.c — measured end-to-end runs (calib/runs.h): the metrics from a
 * prediction's TTFT and TPOT by hand, the strict reader (defaults, comment
 * lines, carried columns, and the message of each bad input), the shared
 * error statistics, and a validation over the shipped configs whose derived
 * metrics follow from its own TTFT and TPOT, with the rows no run can
 * predict kept out of the figures. */
#include "testutil.h"

#include "calib/runs.h"

/* TTFT 0.5 s, TPOT 20 ms, 101 tokens out, batch 8 on each of 2 replicas:
 * the end-to-end latency is 500 + 100 x 20 = 2500 ms, the throughput
 * 2 x 8 x 101 tokens in 2.5 s = 646.4 tokens/s. */
static void test_metric_values(void **state)
{
    (void)state;
    struct run_row r;
    memset(&r, 0, sizeof r);
    r.tp = r.pp = r.ep = 1;
    r.dp = 2, r.batch = 8, r.input_len = 1024, r.output_len = 101;
    const struct run_prediction p = { 0.5, 20 };
    const double want[RUN_METRICS] = { 500, 20, 20, 2500, 646.4 };
    for (int m = 0; m < RUN_METRICS; m++) {
        r.metric = (enum run_metric)m;
        assert_close(run_metric_value(&r, &p), want[m]);
    }
    r.output_len = 1;   /* one token: the latency is the TTFT */
    r.metric = RUN_E2E_LATENCY_MS;
    assert_close(run_metric_value(&r, &p), 500);
    r.metric = RUN_THROUGHPUT_TPS;
    assert_close(run_metric_value(&r, &p), 2 * 8 / 0.5);
    assert_string_equal(run_metric_name(RUN_THROUGHPUT_TPS), "throughput_tokens_per_s");
}

static void test_reader_rows(void **state)
{
    (void)state;
    static const char csv[] = "\xEF\xBB\xBF# a comment before the header\n"
                              "note,id,source,metric,measured,chip,model,batch,input_len,output_len,tp,conditions\n"
                              "\"two\n# lines, not a comment\",A1,S1,ttft_ms,120.5,h100,llama3-8b,8,2048,128,2,x\n"
                              "# a comment between rows\n"
                              "\n"
                              ",A2,S1,throughput_tokens_per_s,1e3,a100,gpt-j-6b,1,16,1,,\n";
    struct run_table t;
    struct npu_err e;
    assert_int_equal(run_table_parse("r.csv", csv, strlen(csv), &t, &e), 0);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.n_extra, 1);
    assert_string_equal(t.extra_name[0], "note");
    const struct run_row *a = &t.rows[0], *b = &t.rows[1];
    assert_string_equal(a->extra[0], "two\n# lines, not a comment");
    assert_int_equal(a->line, 4);
    assert_int_equal(b->line, 7);
    assert_string_equal(run_cell(a, RC_ID), "A1");
    assert_int_equal(a->metric, RUN_TTFT_MS);
    assert_true(a->measured == 120.5);
    assert_i64(a->tp, 2);
    assert_i64(a->pp, 1);
    assert_i64(a->dp, 1);
    assert_i64(a->batch, 8);
    assert_i64(a->input_len, 2048);
    assert_i64(a->output_len, 128);
    assert_int_equal(b->metric, RUN_THROUGHPUT_TPS);
    assert_true(b->measured == 1000);
    assert_i64(b->tp, 1);              /* an empty optional cell: the default */
    assert_null(b->cell[RC_SETS]);     /* a column not in the header */
    assert_string_equal(run_cell(b, RC_SETS), "");
    assert_string_equal(run_cell(b, RC_CONDITIONS), "");
    run_table_free(&t);
}

static void expect_bad(const char *csv, const char *msg)
{
    struct run_table t;
    struct npu_err e;
    if (run_table_parse("r.csv", csv, strlen(csv), &t, &e) == 0)
        fail_msg("accepted: %s", csv);
    if (strcmp(e.msg, msg))
        fail_msg("%s:\n  got      %s\n  expected %s", csv, e.msg, msg);
    assert_int_equal(t.n, 0);
}

#define HEAD "id,source,metric,measured,chip,model,batch,input_len,output_len"
static void test_reader_errors(void **state)
{
    (void)state;
    expect_bad("", "r.csv: line 1: empty input (expected a header naming id, source, metric, measured, chip, model, "
                   "batch, input_len and output_len)");
    expect_bad("# only a comment\n", "r.csv: line 1: empty input (expected a header naming id, source, metric, "
                                     "measured, chip, model, batch, input_len and output_len)");
    expect_bad(HEAD "\n", "r.csv: line 2: no rows after the header (expected a measured run per row)");
    expect_bad("id,source,metric,measured,chip,model,input_len,output_len\nA,S,ttft_ms,1,h100,llama3-8b,1,1\n",
               "r.csv: line 1: column \"batch\": missing (the header must name id, source, metric, measured, chip, "
               "model, batch, input_len and output_len)");
    expect_bad(HEAD ",tp,tp\n", "r.csv: line 1: column \"tp\" given twice");
    expect_bad(HEAD "\nA,S,ttft,1,h100,llama3-8b,1,1,1\n",
               "r.csv: line 2: column \"metric\": expected ttft_ms, tpot_ms, decode_step_ms, e2e_latency_ms or "
               "throughput_tokens_per_s, got \"ttft\"");
    expect_bad(HEAD "\nA,S,ttft_ms,0,h100,llama3-8b,1,1,1\n",
               "r.csv: line 2: column \"measured\": expected a value above 0 (from 1e-6 to 1e12 in the metric's "
               "unit), got \"0\"");
    expect_bad(HEAD "\nA,S,ttft_ms,-3,h100,llama3-8b,1,1,1\n",
               "r.csv: line 2: column \"measured\": expected a value above 0 (from 1e-6 to 1e12 in the metric's "
               "unit), got \"-3\"");
    expect_bad(HEAD "\nA,S,ttft_ms,nan,h100,llama3-8b,1,1,1\n",
               "r.csv: line 2: column \"measured\": expected a value above 0 (from 1e-6 to 1e12 in the metric's "
               "unit), got \"nan\"");
    expect_bad(HEAD "\nA,S,ttft_ms,1,h100,llama3-8b,1,1,0\n",
               "r.csv: line 2: column \"output_len\": expected a positive integer of at most 16777216, got \"0\"");
    expect_bad(HEAD "\nA,S,ttft_ms,1,h100,llama3-8b,,1,1\n",
               "r.csv: line 2: column \"batch\": expected a positive integer, got an empty cell");
    expect_bad(HEAD "\nA,S,ttft_ms,1,,llama3-8b,1,1,1\n",
               "r.csv: line 2: column \"chip\": expected a value, got an empty cell");
    expect_bad(HEAD ",tp,pp,dp\nA,S,ttft_ms,1,h100,llama3-8b,1,1,1,4096,4096,2\n",
               "r.csv: line 2: columns \"tp\", \"pp\", \"dp\": the degrees multiply to more than 1048576 chips "
               "(tp 4096 x pp 4096 x dp 2)");
    expect_bad(HEAD "\nA,S,ttft_ms,1,h100,llama3-8b,1,1,1\n# x\nA,S,tpot_ms,1,h100,llama3-8b,1,1,1\n",
               "r.csv: line 4: column \"id\": \"A\" given twice (first on line 2): expected a unique id");
    expect_bad(HEAD ",sets\nA,S,ttft_ms,1,h100,llama3-8b,1,1,1,a=1;b\n",
               "r.csv: line 2: column \"sets\": expected KEY=VALUE overrides separated by ';', got \"b\"");
    expect_bad(HEAD "\nA,S,ttft_ms,1,h100,llama3-8b,1,1\n", "r.csv: line 2: expected 9 cells as the header, got 8");
    expect_bad(HEAD "\nA,S,ttft_ms,1,h100,\"llama3-8b,1,1,1\n", "r.csv: line 3: malformed CSV (error parsing data while strict checking enabled)");
}

/* APEs 50 and 100 (signed -50, +100): MAPE 75, median 75, max 100, bias +25. */
static void test_error_stats(void **state)
{
    (void)state;
    const double pred[2] = { 50, 40 }, meas[2] = { 100, 20 };
    const size_t ids[2] = { 7, 9 };
    struct error_stats s;
    error_stats_of(pred, meas, ids, 2, &s);
    assert_i64(s.count, 2);
    assert_close(s.mape_pct, 75);
    assert_close(s.median_ape_pct, 75);
    assert_close(s.max_ape_pct, 100);
    assert_close(s.bias_pct, 25);
    assert_int_equal(s.best, 7);
    assert_int_equal(s.worst, 9);
}

/* One configuration measured four ways, a model no LLM inference family
 * simulates and one that does not fit its chip, on the shipped configs. */
static void test_validate(void **state)
{
    (void)state;
    static const char csv[] = HEAD ",dp\n"
                              "T,S1,ttft_ms,100,h100,llama3-8b,4,1024,65,1\n"
                              "P,S1,tpot_ms,10,h100,llama3-8b,4,1024,65,1\n"
                              "E,S2,e2e_latency_ms,900,h100,llama3-8b,4,1024,65,1\n"
                              "X,S2,throughput_tokens_per_s,500,h100,llama3-8b,4,1024,65,3\n"
                              "D,S2,ttft_ms,5,h100,dlrm-s,4,1024,65,1\n"
                              "M,S2,ttft_ms,5,a100,llama3-70b,1,1024,65,1\n";
    struct run_table t;
    struct npu_err e;
    assert_int_equal(run_table_parse("r.csv", csv, strlen(csv), &t, &e), 0);
    struct run_predict_opts o = { "configs", NULL, 0, &profile_physical };
    struct run_validation v;
    if (runs_validate(&t, 1, &o, &v, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(v.n, 6);
    assert_int_equal(v.n_errors, 2);
    const struct run_result *r = v.rows;
    for (int i = 0; i < 4; i++)
        assert_true(r[i].ok);
    double ttft_ms = r[0].predicted, tpot = r[1].predicted;
    assert_true(ttft_ms > 0 && tpot > 0);
    assert_close(r[2].predicted, ttft_ms + 64 * tpot);
    assert_close(r[3].predicted, 3 * 4 * 65 / ((ttft_ms + 64 * tpot) / 1000));
    assert_close(r[0].error_pct, (ttft_ms - 100) / 100 * 100);
    assert_false(r[4].ok);
    assert_non_null(strstr(r[4].why, "not LLM inference"));
    assert_false(r[5].ok);
    assert_non_null(strstr(r[5].why, "out of memory"));
    assert_i64(v.overall.s.count, 4);
    assert_i64(v.overall.errors, 2);
    assert_int_equal(v.n_source, 2);
    assert_i64(v.by_source[1].s.count, 2);
    assert_i64(v.by_source[1].errors, 2);
    double mape = 0;
    for (int i = 0; i < 4; i++)
        mape += fabs(r[i].error_pct) / 4;
    assert_close(v.overall.s.mape_pct, mape);
    run_validation_free(&v);
    run_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metric_values), cmocka_unit_test(test_reader_rows),
        cmocka_unit_test(test_reader_errors), cmocka_unit_test(test_error_stats),
        cmocka_unit_test(test_validate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
