/* test_chart.c — the axes every figure shares (study/view/chart.h): the nice
 * axis ends and the tick labels, hand-derived; the line chart's y axis
 * ending at the data, not beyond; and the roofline's ceiling labels, whose
 * boxes (measured from the positions the SVG holds) never overlap on H100,
 * nor when efficiency lines crowd every ceiling. */
#include "testutil.h"

#include "chipsim/chip.h"
#include "study/view/chart.h"
#include "study/view/roofline.h"
#include "traces/fields.h"

static void test_nice_ceil(void **state)
{
    (void)state;
    static const struct { double v, want; } t[] = {
        { 0.9, 1 },     { 1, 1 },       { 1.01, 2 },  { 2, 2 },       { 2.2, 2.5 }, { 3, 5 },
        { 6, 10 },      { 66.9, 100 },  { 989.4, 1000 }, { 1979, 2000 }, { 0.03, 0.05 }, { 0, 1 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        assert_true(chart_nice_ceil(t[i].v) == t[i].want);
}

/* step = the nice ceiling of v/5, top = the first multiple of it at or
 * above v: e.g. 125.7 / 5 = 25.14 -> 50, 125.7 / 50 = 2.5 -> 3 steps, 150. */
/* How many times needle occurs in hay. */
static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_nice_axis(void **state)
{
    (void)state;
    static const struct { double v, step, top; int n; } t[] = {
        { 125.7, 50, 150, 3 }, { 4, 1, 4, 4 },         { 1, 0.2, 1, 5 },      { 5.01, 2, 6, 3 },
        { 0.9, 0.2, 1, 5 },    { 1978, 500, 2000, 4 }, { 11, 2.5, 12.5, 5 }, { 366.6, 100, 400, 4 },
        { 0.3, 0.1, 0.3, 3 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct nice_axis a = chart_nice_axis(t[i].v, 5);
        assert_true(a.step == t[i].step);
        assert_true(a.top == t[i].top);
        assert_int_equal(a.n, t[i].n);
    }
    /* always near the data: v <= top < 1.4 v (step < 2v/5, since nice steps
     * are at most twice apart), and 3 to 5 steps */
    for (double v = 0.0123; v < 1e6; v *= 1.037) {
        struct nice_axis a = chart_nice_axis(v, 5);
        assert_true(a.top >= v && a.top < 1.4 * v);
        assert_true(a.n >= 3 && a.n <= 5);
    }
}

static void test_tick_labels(void **state)
{
    (void)state;
    static const struct { double v; const char *want; } t[] = {
        { 0, "0" },         { 0.25, "0.25" },  { 2.5, "2.5" },    { 150, "150" },   { 1000, "1k" },
        { 1250, "1.25k" },  { 2e7, "20M" },    { 0.0005, "500µ" }, { 0.1, "0.1" },  { 0.001, "0.001" },
        { 999.4, "999" },   { 999.6, "1k" },   { 12345, "12.3k" }, { -2500, "-2.5k" }, { 1e-9, "1n" },
    };
    char buf[32];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        assert_string_equal(chart_tick(t[i].v, buf, sizeof buf), t[i].want);
}

/* Log axes: each decade, then the top when it is not one (H100's roofline
 * from 0.1 to 2k TFLOP/s); the scatter of predicted against measured
 * times up to 150 us ends at 200, not 1k. */
static void test_log_ticks(void **state)
{
    (void)state;
    double v[16];
    assert_int_equal(chart_log_ticks(-1, log10(2000), v, 16), 6);
    const double want[] = { 0.1, 1, 10, 100, 1000, 2000 };
    for (int i = 0; i < 6; i++)
        assert_true(fabs(v[i] - want[i]) <= 1e-9 * want[i]);
    assert_int_equal(chart_log_ticks(0, 3, v, 16), 4);   /* a decade top: not twice */
    assert_true(fabs(v[3] - 1000) < 1e-9);
    const double meas[] = { 2, 150 }, pred[] = { 3, 120 };
    const char *grp[] = { "gemm", "gemm" };
    struct scatter sc = { "t", 2, meas, pred, grp, grp, "us" };
    char *svg = scatter_svg(&sc);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "text-anchor=\"end\">200</text>"));
    assert_null(strstr(svg, ">1k</text>"));
    /* a row with an infinite value has no place: the axes and points are the two others' */
    const double meas3[] = { 2, INFINITY, 150 }, pred3[] = { 3, 5, 120 };
    const char *grp3[] = { "gemm", "gemm", "gemm" };
    struct scatter sc3 = { "t", 3, meas3, pred3, grp3, grp3, "us" };
    char *svg3 = scatter_svg(&sc3);
    assert_non_null(svg3);
    assert_null(strstr(svg3, "inf"));
    assert_int_equal(count(svg3, "<circle class=\"point\""), 2);
    assert_non_null(strstr(svg3, "text-anchor=\"end\">200</text>"));
    free(svg3);
    free(svg);
}

/* Output tokens/s per chip up to 366.6: the y axis ends at 400 in steps of
 * 100 (not 500 or 1000); x ticks through the same formatter (1k). */
static void test_line_chart_axis(void **state)
{
    (void)state;
    const double x[] = { 1, 8, 1000 }, y[] = { 9.4, 66.8, 366.6 };
    struct xy_series se = { "s", 3, x, y, true, false, false };
    struct line_chart c = { "t", "batch", "tokens/s", 1, &se, 0, NULL, false };
    char *svg = line_chart_svg(&c);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "text-anchor=\"end\">400</text>"));
    assert_null(strstr(svg, ">500</text>"));
    assert_non_null(strstr(svg, "text-anchor=\"end\">100</text>"));
    assert_non_null(strstr(svg, "text-anchor=\"middle\">1k</text>"));
    free(svg);
}

/* Points a read file can hold but an axis cannot place (0 and a negative on
 * a log axis, infinities, NaN): left out of the axes and the drawing, the
 * others drawn as alone. The fuzzer's find: all x 0 gave a log range of
 * -inf..-inf, and its NaN width was cast to int. */
static void test_line_chart_unplaceable_points(void **state)
{
    (void)state;
    const double zx[] = { 0, 0 }, zy[] = { 1, 2 };
    struct xy_series z = { "z", 2, zx, zy, true, false, false };
    struct line_chart c = { "t", "x", "y", 1, &z, INFINITY, "m", false };
    char *svg = line_chart_svg(&c);
    assert_non_null(svg);
    assert_null(strstr(svg, "<circle class=\"point\""));
    assert_null(strstr(svg, "nan"));
    assert_null(strstr(svg, "inf"));
    free(svg);
    const double x[] = { 1, -5, INFINITY, 10, NAN }, y[] = { 100, 7, 8, 200, 9 };
    struct xy_series se = { "s", 5, x, y, true, false, false };
    struct line_chart d = { "t", "x", "y", 1, &se, 0, NULL, false };
    svg = line_chart_svg(&d);
    const double x2[] = { 1, 10 }, y2[] = { 100, 200 };
    struct xy_series two = { "s", 2, x2, y2, true, false, false };
    struct line_chart e = { "t", "x", "y", 1, &two, 0, NULL, false };
    char *alone = line_chart_svg(&e);
    assert_non_null(svg);
    assert_non_null(alone);
    assert_string_equal(svg, alone);
    free(svg);
    free(alone);
}

static void load_h100(struct chip_config *c)
{
    FILE *f = fopen("configs/chips/h100.json", "rb");
    assert_non_null(f);
    static char text[1 << 15];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    chip_config_default(c);
    struct npu_err e;
    assert_int_equal(fields_from_json(&chip_fields, c, j, NULL, &e), 0);
    cJSON_Delete(j);
}

/* Every ceiling label's box: right-aligned at x, from ASCENT above the
 * baseline y to DESCENT below, CHAR_W per character; no two may overlap.
 * Returns the number of labels; *found_fp64 if one names matrix fp64 and
 * vector fp32 (their own labels or one shared). */
static int check_label_boxes(const char *svg, bool *found_fp64, bool *found_vec)
{
    double x0[64], x1[64], y0[64], y1[64];
    int n = 0;
    *found_fp64 = *found_vec = false;
    for (const char *p = svg; (p = strstr(p, "<text x=\"")) != NULL && n < 64; p++) {
        double x, y;
        int used = 0;
        if (sscanf(p, "<text x=\"%lf\" y=\"%lf\" class=\"ceiling\">%n", &x, &y, &used) != 2 || !used)
            continue;
        const char *body = p + used, *end = strstr(body, "</text>");
        assert_non_null(end);
        size_t len = (size_t)(end - body);
        char label[256];
        snprintf(label, sizeof label, "%.*s", (int)len, body);
        *found_fp64 |= strstr(label, "matrix fp64") != NULL;
        *found_vec |= strstr(label, "vector fp32") != NULL;
        x0[n] = x - (double)len * ROOFLINE_LABEL_CHAR_W, x1[n] = x;
        y0[n] = y - ROOFLINE_LABEL_ASCENT, y1[n] = y + ROOFLINE_LABEL_DESCENT;
        for (int k = 0; k < n; k++) {
            bool overlap = x0[n] < x1[k] && x0[k] < x1[n] && y0[n] < y1[k] && y0[k] < y1[n];
            if (overlap)
                fprintf(stderr, "labels overlap: \"%s\" at y %.1f and the one at y %.1f\n", label, y,
                        y0[k] + ROOFLINE_LABEL_ASCENT);
            assert_false(overlap);
        }
        n++;
    }
    return n;
}

/* H100: matrix fp64 67 and vector fp32 66.9 TFLOP/s, 0.001 decade apart,
 * used to be drawn on top of each other. Then gemm efficiency 0.97 on every
 * format: a dashed line 3% under each ceiling, so 9 labels in pairs a few
 * units apart. The y axis ends at 2k, just above the fp8 ceiling (1979). */
static void test_roofline_labels(void **state)
{
    (void)state;
    struct chip_config chip;
    load_h100(&chip);
    char *svg = roofline_svg(&chip, "h100", NULL, 0);
    assert_non_null(svg);
    bool fp64, vec;
    assert_true(check_label_boxes(svg, &fp64, &vec) >= 4);
    assert_true(fp64 && vec);
    assert_non_null(strstr(svg, "class=\"tick\" text-anchor=\"end\">2k</text>"));
    assert_null(strstr(svg, "text-anchor=\"end\">10k</text>"));
    free(svg);
    chip.kernel_eff[KC_gemm].e_max = 0.97;
    svg = roofline_svg(&chip, "h100", NULL, 0);
    assert_true(check_label_boxes(svg, &fp64, &vec) >= 8);
    free(svg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nice_ceil),       cmocka_unit_test(test_nice_axis),
        cmocka_unit_test(test_tick_labels),     cmocka_unit_test(test_line_chart_axis),
        cmocka_unit_test(test_line_chart_unplaceable_points),
        cmocka_unit_test(test_roofline_labels), cmocka_unit_test(test_log_ticks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
