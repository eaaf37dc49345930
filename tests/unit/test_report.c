/* test_report.c — the figures and pages of study/: bar chart geometry
 * (hand-derived heights and widths), the Pareto front of a sweep's rows,
 * the roofline's legend, the operator type a report groups by, and what a
 * run's statistics say when read back (report_files.h). */
#include "testutil.h"

#include "study/view/chart.h"
#include "study/view/report_files.h"
#include "study/view/report_html.h"
#include "study/view/report_sweep.h"
#include "study/view/roofline.h"
#include "base/rawjson.h"

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

/* Two bars of values {3, 1} and {1, 0}: the total 4 gives steps of 1 (4/5
 * = 0.8 rounds up to 1) and the axis top 4, so on the 320-unit plot the
 * segments are 320*3/4 = 240, 320*1/4 = 80 and 80 high; two bars take 150-unit slots (90 bar + 60 gap): the plot
 * is 2*150 + 60 = 360 wide and the document 80 + 360 + 200 = 640. */
static void test_bar_chart_geometry(void **state)
{
    (void)state;
    const char *bars[] = { "prefill", "decode" }, *series[] = { "Einsum", "Softmax" };
    const double v[] = { 3, 1, 1, 0 };
    struct bar_chart c = { "t", "s", 2, 2, bars, series, v };
    char *svg = bar_chart_svg(&c);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "width=\"640\" height=\"420\""));
    assert_non_null(strstr(svg, "height=\"240.00\""));
    assert_int_equal(count(svg, "height=\"80.00\""), 2);
    assert_non_null(strstr(svg, ">4</text>"));            /* the axis top: the data's maximum */
    assert_null(strstr(svg, ">5</text>"));
    assert_null(strstr(svg, "decode: Softmax"));          /* a zero segment is not drawn */
    free(svg);
    /* sixteen bars: 620/16 = 38 is below the 40-unit slot floor, so 40 (24 + 16):
     * 16*40 + 16 = 656 wide, the document 80 + 656 + 200 = 936 */
    const char *many[16];
    double mv[16];
    for (int i = 0; i < 16; i++)
        many[i] = "x", mv[i] = 1;
    struct bar_chart m = { "t", "s", 16, 1, many, series, mv };
    svg = bar_chart_svg(&m);
    assert_non_null(strstr(svg, "width=\"936\""));
    assert_non_null(strstr(svg, "width=\"24\""));
    free(svg);
}

/* Rows (TPOT ms, tokens/s per chip): (1, 10) (2, 20) (3, 15) (4, 30), and
 * (0.5, 100) that does not fit in memory. (3, 15) is beaten by (2, 20) on
 * both; (0.5, 100) would beat every row but is no answer: the front is 1, 2,
 * 4, in TPOT order, and the OOM row is drawn hollow in every figure. */
static void test_pareto_front(void **state)
{
    (void)state;
    struct sweep_report_row rows[5] = {
        { "m", "c", 1, 1, 1, 1, 1, 1, 4, 30, 10, false }, { "m", "c", 1, 1, 1, 1, 1, 1, 3, 15, 10, false },
        { "m", "c", 1, 1, 1, 1, 1, 1, 1, 10, 10, false }, { "m", "c", 1, 1, 1, 1, 1, 1, 2, 20, 10, false },
        { "m", "c", 1, 64, 1, 1, 1, 1, 0.5, 100, 90, true },
    };
    struct strbuf b = STRBUF_GROWING;
    char *fig[SWEEP_FIG_COUNT];
    sweep_report_section(&b, rows, 5, 2.5, fig);
    assert_non_null(b.s);
    const char *want[] = { "meets\">1</td><td>10</td>", "meets\">2</td><td>20</td>", "misses\">4</td><td>30</td>" };
    const char *at = b.s;
    for (int i = 0; i < 3; i++) {
        at = strstr(at, want[i]);
        assert_non_null(at);
    }
    assert_null(strstr(b.s, ">3</td><td>15</td>"));
    assert_null(strstr(b.s, ">0.5</td><td>100</td>"));        /* not on the front */
    assert_non_null(strstr(b.s, "1 of the 5 configurations do not fit in memory"));
    assert_non_null(strstr(fig[SWEEP_FIG_PARETO], "SLO 2.5 ms"));
    for (int k = 0; k < SWEEP_FIG_COUNT; k++) {   /* one hollow point each, named in the legend */
        assert_int_equal(count(fig[k], "class=\"point unfit\""), 1);
        assert_non_null(strstr(fig[k], ">does not fit in memory</text>"));
    }
    /* the front's line: only rows that fit (the OOM row's 0.5 ms would be its first point) */
    assert_non_null(strstr(fig[SWEEP_FIG_PARETO], "<title>Pareto front: 1, 10</title>"));
    assert_null(strstr(fig[SWEEP_FIG_PARETO], "<title>Pareto front: 0.5, 100</title>"));
    free(b.s);
    for (int k = 0; k < SWEEP_FIG_COUNT; k++)
        free(fig[k]);
}

static void test_roofline_legend(void **state)
{
    (void)state;
    struct chip_config chip;
    chip_config_default(&chip);
    struct roofline_point p[2] = { { 10, 1, "gemm", false, "a" }, { 10, 2, "gemm", true, "b" } };
    char *svg = roofline_svg(&chip, "c", p, 1);
    assert_non_null(strstr(svg, ">predicted</text>"));
    assert_null(strstr(svg, ">measured</text>"));   /* a run's operators: no measured marker */
    free(svg);
    svg = roofline_svg(&chip, "c", p, 2);
    assert_non_null(strstr(svg, ">predicted</text>"));
    assert_non_null(strstr(svg, ">measured</text>"));
    free(svg);
}

static void test_op_type(void **state)
{
    (void)state;
    struct op op;
    memset(&op, 0, sizeof op);
    assert_string_equal(report_op_type(&op), "other");
    op.opcode = "Einsum";
    assert_string_equal(report_op_type(&op), "Einsum");
    op.parsed_op_type = "FlashAttention";
    assert_string_equal(report_op_type(&op), "FlashAttention");
}

/* Statistics read back: the end-to-end throughput where written (else the
 * decode rate), the larger memory, energy summed over the phases. */
static void test_run_figures(void **state)
{
    (void)state;
    static const char *pre = "{\"TTFT_sec\": 0.5, \"mem_footprint_GB\": 10, \"total_energy_J\": 2.5, "
                             "\"out_of_memory\": false, \"sim_config\": {\"model_name\": \"m\", \"name\": \"5p\", "
                             "\"num_chips\": 4, \"global_batch_size\": 8, \"data_parallelism_degree\": 2, "
                             "\"tensor_parallelism_degree\": 2, \"pipeline_parallelism_degree\": 1}}";
    static const char *dec = "{\"TPOT_ms_request\": 6.5, \"throughput_tokens_per_sec\": 300, "
                             "\"e2e_throughput_tokens_per_sec\": 200, \"mem_footprint_GB\": 12, \"total_energy_J\": 7.5, "
                             "\"out_of_memory\": true, \"sim_config\": {}}";
    cJSON *stats[2] = { rawjson_parse(pre, strlen(pre), JSON_NUMBERS_TEXT, NULL),
                        rawjson_parse(dec, strlen(dec), JSON_NUMBERS_TEXT, NULL) };
    struct run_figures f;
    run_figures_from((const cJSON *const *)stats, true, &f);
    assert_string_equal(f.model, "m");
    assert_string_equal(f.chip, "5p");
    assert_i64(f.chips, 4);
    assert_i64(f.batch, 8);
    assert_i64(f.dp, 2);
    assert_close(f.ttft_s, 0.5);
    assert_close(f.tpot_ms, 6.5);
    assert_close(f.tput, 200);
    assert_close(f.mem_GB, 12);
    assert_close(f.energy_J, 10);
    assert_true(f.oom);
    cJSON_DeleteItemFromObject(stats[1], "e2e_throughput_tokens_per_sec");
    run_figures_from((const cJSON *const *)stats, true, &f);
    assert_close(f.tput, 300);
    cJSON_Delete(stats[0]);
    cJSON_Delete(stats[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bar_chart_geometry), cmocka_unit_test(test_pareto_front),
        cmocka_unit_test(test_roofline_legend),    cmocka_unit_test(test_op_type),
        cmocka_unit_test(test_run_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
