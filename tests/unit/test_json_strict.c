/* test_json_strict.c — the strict and lenient JSON readers and the did-you-mean hints
 * (base/json_strict.h), and the range of every config field. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "chipsim/chip.h"
#include "opsgen/model.h"
#include "power/pg.h"
#include "power/system.h"
#include "traces/fields.h"
#include "base/json_strict.h"

/* n: the text's length, or 0 for strlen (texts with a NUL byte inside give theirs). */
static void expect_bad(const char *text, size_t n, const char *needle)
{
    struct npu_err e;
    if (n == 0)
        n = strlen(text);
    cJSON *j = json_parse_strict(text, n, "f.json", &e);
    if (j)
        fail_msg("accepted: %s", text);
    if (!strstr(e.msg, needle))
        fail_msg("%s: message \"%s\" lacks \"%s\"", text, e.msg, needle);
}

static void test_strict_parse(void **state)
{
    (void)state;
    struct npu_err e;
    const char *ok = " {\"a\": [1, {\"b\": 2, \"c\": 3}], \"d\": {\"b\": 1}} \n\t";
    cJSON *j = json_parse_strict(ok, strlen(ok), "f.json", &e);
    assert_non_null(j);   /* the same key in two objects is no duplicate */
    cJSON_Delete(j);
    expect_bad("{\"a\": 1} x", 0, "f.json:1: invalid JSON: trailing text");
    expect_bad("{\"a\": 1}\n\n{}", 0, "f.json:3: invalid JSON: trailing text");
    expect_bad("{\"a\": 1, \"a\": 2}", 0, "duplicate key \"a\" in the top level");
    expect_bad("{\"x\": {\"k\": 1, \"j\": 0, \"k\": 2}}", 0, "duplicate key \"k\" in x");
    expect_bad("[{\"k\": 1, \"k\": 1}]", 0, "duplicate key \"k\"");
    expect_bad("{\"a\":\n 1\0}", 10, "f.json:2: a NUL byte");
    expect_bad("{\"a\": }", 0, "f.json:1: invalid JSON");
    expect_bad(" ", 1, "f.json:1: invalid JSON");
    /* Python's json writes Infinity and NaN (a Hugging Face config's
     * time_step_limit): the message says why; a word in a string does not */
    expect_bad("{\"a\": 1,\n \"t\": [0.0, Infinity]}", 0,
               "f.json:2: invalid JSON: Infinity and NaN are not JSON numbers");
    expect_bad("{\"a\": -Infinity}", 0, "Infinity and NaN are not JSON numbers");
    expect_bad("{\"a\": NaN}", 0, "Infinity and NaN are not JSON numbers");
    struct npu_err e2;
    assert_null(json_parse_strict("{\"a\": \"NaN\" x}", 14, "f.json", &e2));
    assert_string_equal(e2.msg, "f.json:1: invalid JSON");
}

/* json_read_file_python: Python's bare Infinity, -Infinity and NaN read as
 * null outside strings (a word in a string stays), every strict rule kept
 * (a duplicate key still refused); json_read_file_strict refuses the same
 * file. */
static void test_python_read(void **state)
{
    (void)state;
    char path[] = "/tmp/npusim-py-json-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *t = "{\"t\": [0.0, Infinity], \"b\": -Infinity, \"c\": NaN, \"s\": \"NaN \\\" Infinity\", \"n\": 2}";
    assert_int_equal(write(fd, t, strlen(t)), (ssize_t)strlen(t));
    close(fd);
    struct npu_err e;
    assert_null(json_read_file_strict(path, &e));
    cJSON *j = json_read_file_python(path, &e);
    assert_non_null(j);
    assert_true(cJSON_IsNull(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "t"), 1)));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "b")) && cJSON_IsNull(cJSON_GetObjectItem(j, "c")));
    assert_string_equal(cJSON_GetObjectItem(j, "s")->valuestring, "NaN \" Infinity");
    assert_int_equal((int)cJSON_GetObjectItem(j, "n")->valuedouble, 2);
    cJSON_Delete(j);
    FILE *f = fopen(path, "w");
    fputs("{\"a\": NaN, \"a\": 1}", f);
    fclose(f);
    assert_null(json_read_file_python(path, &e));
    assert_non_null(strstr(e.msg, "duplicate key \"a\""));
    unlink(path);
}

/* json_parse: cJSON_ParseWithLength's leniency (text after the value,
 * duplicate keys, the first found) through the one reader, the error at a byte. */
static void test_lenient_parse(void **state)
{
    (void)state;
    struct npu_err e;
    const char *t = "{\"a\": 1.5, \"a\": 2, \"s\": \"x\"} tail";
    cJSON *j = json_parse(t, strlen(t), "f.json", &e);
    assert_non_null(j);
    assert_true(cJSON_GetObjectItemCaseSensitive(j, "a")->valuedouble == 1.5);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "s")->valuestring, "x");
    cJSON_Delete(j);
    j = json_parse("[1, 2]", 4, "f.json", &e);   /* only the first n bytes are read */
    assert_null(j);
    assert_string_equal(e.msg, "f.json: not JSON (at byte 4)");
    assert_null(json_parse("[{\"ph\": NaN}]", 13, "t.json", &e));   /* standard JSON: no NaN */
    assert_string_equal(e.msg, "t.json: not JSON (at byte 8)");
    assert_null(json_parse("", 0, "e.json", NULL));   /* no message wanted */
}

static void test_suggestions(void **state)
{
    (void)state;
    static const char *const c[] = { "num_chips", "num_heads", "run", "sweep", "d_model" };
    size_t n = sizeof c / sizeof c[0];
    assert_string_equal(suggest_closest("num_chip", c, n), "num_chips");   /* a deletion */
    assert_string_equal(suggest_closest("num_chisp", c, n), "num_chips");  /* a transposition */
    assert_string_equal(suggest_closest("rnu", c, n), "run");
    assert_string_equal(suggest_closest("d_modle", c, n), "d_model");
    assert_null(suggest_closest("zzzz", c, n));                             /* nothing close */
    assert_null(suggest_closest("ab", c, n));                               /* too short to guess */
    assert_null(suggest_closest("num_layers", c, n));                       /* 3 edits away */
    char hint[64];
    suggest_hint(hint, sizeof hint, "sweeq", c, n);
    assert_string_equal(hint, " (did you mean \"sweep\"?)");
    suggest_hint(hint, sizeof hint, "qqqq", c, n);
    assert_string_equal(hint, "");
    cJSON *o = cJSON_Parse("{\"run\": 1, \"swep\": 2}");
    assert_string_equal(json_unknown_key(o, c, n, hint, sizeof hint), "swep");
    assert_string_equal(hint, " (did you mean \"sweep\"?)");
    cJSON_Delete(o);
    /* Field names (traces/fields.h): a typo first, then another case, then
     * the shortest key a name cut short begins (the unit left off). */
    static const char *const f[] = { "hbm_bw_GBps", "hbm_bw_GBps_per_W", "hbm_size_GB", "num_chips",
                                     "tensor_parallelism_degree", "tensor_parallel_degree_dcn" };
    size_t nf = sizeof f / sizeof f[0];
    assert_string_equal(fields_suggest("hbm_bw", f, nf), "hbm_bw_GBps");
    assert_string_equal(fields_suggest("HBM_BW_GBPS", f, nf), "hbm_bw_GBps");
    assert_string_equal(fields_suggest("num_chip", f, nf), "num_chips");
    assert_string_equal(fields_suggest("tensor_parallel", f, nf), "tensor_parallelism_degree");
    assert_null(fields_suggest("hb", f, nf));                               /* too short to be cut */
    assert_null(fields_suggest("zzzz", f, nf));
    fields_suggest_hint(hint, sizeof hint, "hbm_size", f, nf);
    assert_string_equal(hint, " (did you mean \"hbm_size_GB\"?)");
}

/* Every config field table: the model families', the chip's, the system's. */
static int all_tables(const struct field_table **t)
{
    int n = model_all_tables(t, 14);
    t[n++] = &chip_fields;
    t[n++] = &system_fields;
    return n;
}

/* Every field has a range, the shipped configs' values lie inside it, and
 * the documented bounds are the ones checked. */
static void test_field_ranges(void **state)
{
    (void)state;
    const struct field_table *t[16];
    int n = all_tables(t);
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < t[i]->n; k++) {
            const struct field_desc *f = &t[i]->f[k];
            double lo, hi;
            fields_range(f, &lo, &hi);
            if (f->type == FT_INT || f->type == FT_DOUBLE || f->type == FT_INT_LIST)
                if (!(lo < hi) || hi > 1e15)
                    fail_msg("%s: range %g to %g", f->key, lo, hi);
            if ((f->type == FT_INT || f->type == FT_DOUBLE) && !(f->flags & FF_REQUIRED) &&
                !(f->def_num >= lo && f->def_num <= hi))
                fail_msg("%s: default %g outside %g to %g", f->key, f->def_num, lo, hi);
        }
    const struct field_desc *d = fields_find(&model_base_fields, "num_chips");
    double lo, hi;
    fields_range(d, &lo, &hi);
    assert_true(lo == 1 && hi == 1048576);
    fields_range(fields_find(&model_llm_fields, "d_model"), &lo, &hi);
    assert_true(lo == 1 && hi == 16777216);
    fields_range(fields_find(&chip_fields, "hbm_bw_GBps"), &lo, &hi);
    assert_true(lo == 1e-3 && hi == 1e9);
    fields_range(fields_find(&model_llm_fields, "num_kv_heads"), &lo, &hi);
    assert_true(lo == -1);
}

/* Every field says what it means (docs/configs.md prints it in a Markdown
 * table: one sentence or two, no '|'), and the unit column reads the key's
 * suffix, longest first. */
static void check_doc(const char *key, const char *doc)
{
    size_t n = doc ? strlen(doc) : 0;
    if (n < 10 || doc[n - 1] != '.' || strchr(doc, '|') || strchr(doc, '\n'))
        fail_msg("%s: meaning \"%s\"", key, doc ? doc : "(none)");
}

static void test_field_docs(void **state)
{
    (void)state;
    const struct field_table *t[16];
    int n = all_tables(t);
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < t[i]->n; k++)
            check_doc(t[i]->f[k].key, t[i]->f[k].doc);
    assert_int_equal(pg_field_count(), 40);
    for (int i = 0; i < pg_field_count(); i++) {
        struct pg_field_doc d;
        pg_field_describe(i, &d);
        check_doc(d.key, d.doc);
    }
    static const struct { const struct field_table *t; const char *key, *unit; } units[] = {
        { &chip_fields, "hbm_bw_GBps", "GB/s" },
        { &chip_fields, "dynamic_power_ici_W_per_GBps", "W per GB/s" },
        { &chip_fields, "HBM_GBps_per_W", "GB/s per W" },
        { &chip_fields, "static_power_W_per_sa", "W per SA" },
        { &chip_fields, "TDP_W", "W" },
        { &chip_fields, "hbm_size_GB", "GiB" },
        { &chip_fields, "matrix_tflops.fp8_e4m3", "TFLOP/s" },
        { &chip_fields, "kernel_efficiency.gemm.bf16_t0_ns", "ns" },
        { &chip_fields, "kernel_efficiency.collective.n_half", "bytes" },
        { &chip_fields, "kernel_efficiency.gemm.e_max", "" },
        { &system_fields, "carbon_intensity_kgCO2_per_kWh", "kgCO2e/kWh" },
        { &model_llm_fields, "input_seqlen", "tokens" },
        { &model_llm_fields, "d_model", "" },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        assert_string_equal(fields_unit(fields_find(units[i].t, units[i].key)), units[i].unit);
    struct pg_field_doc d;
    pg_field_describe(1, &d);
    assert_string_equal(d.key, "SA_PG_enabled");
    assert_string_equal(d.allowed, "true or false");
    pg_field_describe(2, &d);
    assert_string_equal(d.allowed, "`HW`, `SW`");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strict_parse),
        cmocka_unit_test(test_lenient_parse),
        cmocka_unit_test(test_python_read),
        cmocka_unit_test(test_suggestions),
        cmocka_unit_test(test_field_ranges),
        cmocka_unit_test(test_field_docs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
