/* test_results.c — a results tree in memory (study/run/results.h): what a stage
 * hands to the next is what reading its files gives (the ops as the CSV
 * reads back, the statistics tree as the JSON parses), found by the path the
 * next stage would read; taken once; bounded by its budget; and kept by
 * write_outputs_to beside the files it writes. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "study/run/pyjson.h"
#include "study/study.h"   /* the library's front door compiles on its own */
#include "base/rawjson.h"
#include "traces/trace_csv.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/npusim-results-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Three ops: two prefill, one decode; distinct names and times. */
static void make_trace(struct trace *t)
{
    trace_init(t);
    for (int i = 0; i < 3; i++) {
        struct op *op = trace_push(t);
        op_setf(&op->name, "op%d", i);
        op_set(&op->config, i == 1 ? "XlaEinsum(eq=ab;bc->ac)" : "Add(a=1)");
        op->stats_kind = i == 1 ? STATS_EINSUM : STATS_BASE;
        op->exe_ns = 100 * (i + 1);
        op->bounded_by = BOUND_MEMORY;
        op->flops_util = 0.125 * i;
        op->phase = i == 2 ? PHASE_DECODE : PHASE_PREFILL;
    }
}

/* The CSV text of a trace (to compare what two reads gave). */
static char *text_of(const struct trace *t)
{
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    struct npu_err e;
    assert_int_equal(trace_write_csv_stream(t, f, NULL, &e), 0);
    fclose(f);
    return p;
}

/* A statistics tree as the sweeps build one: numbers as their Python text,
 * sim_config printed once as raw text at its depth. */
static cJSON *make_stats(double idle_W)
{
    cJSON *sim = cJSON_CreateObject();
    cJSON_AddStringToObject(sim, "name", "5p");
    json_add_i64(sim, "num_chips", 4);
    json_add_f64(sim, "idle_power_W", idle_W);
    cJSON *j = cJSON_CreateObject();
    json_add_i64(j, "total_execution_time_ns", 4224368640);
    json_add_f64(j, "throughput_tokens_per_sec", 0.1);
    char *sim_text = pyjson_print_at(sim, 1);
    cJSON_AddItemToObject(j, "sim_config", cJSON_CreateRaw(sim_text));
    free(sim_text);
    cJSON_Delete(sim);
    return j;
}

/* A kept result is found by its key under the tree's root, and taking it
 * gives the trace the CSV reads back and the tree the JSON parses to. */
static void test_kept_result_equals_the_files(void **state)
{
    (void)state;
    struct results r;
    results_init(&r, 1 << 20);
    results_begin(&r, "out/raw", NULL);
    struct trace t;
    make_trace(&t);
    const struct trace_csv_opts prefill = { PHASE_PREFILL, false, false };
    cJSON *stats = make_stats(16.5);
    char *want_json = pyjson_print(stats);
    struct npu_err e;
    assert_int_equal(results_put(&r, "out/raw/m/p/inference-v5p_prefill.json", stats, &t, &prefill, NULL, 0, &e), 0);
    assert_int_equal(r.n, 1);

    assert_null(results_find(&r, "out/raw_None", "m/p/inference-v5p_prefill"));   /* another tree */
    assert_null(results_find(&r, "out/raw", "m/p/inference-v5p_decode"));         /* no such file */
    assert_non_null(results_find(&r, "out/raw", "m/p/inference-v5p_prefill"));

    cJSON *j = NULL;
    struct trace ops;
    trace_init(&ops);
    assert_true(results_take(&r, "out/raw", "m/p/inference-v5p_prefill", &j, &ops));
    /* The tree: sim_config is an object now, and the whole prints as the file. */
    assert_true(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "sim_config")));
    char *got_json = pyjson_print(j);
    assert_string_equal(got_json, want_json);
    /* The ops: what writing the CSV and reading it back gives (prefill only). */
    char path[256];
    snprintf(path, sizeof path, "%s/t.csv", dir);
    assert_int_equal(trace_write_csv(&t, path, &prefill, &e), 0);
    struct trace back;
    trace_init(&back);
    assert_int_equal(trace_read_csv(&back, path, &e), 0);
    assert_int_equal(ops.n, 2);
    char *a = text_of(&ops), *b = text_of(&back);
    assert_string_equal(a, b);

    /* Taken once: a second reader reads the files. */
    cJSON *j2 = NULL;
    struct trace ops2;
    trace_init(&ops2);
    assert_false(results_take(&r, "out/raw", "m/p/inference-v5p_prefill", &j2, &ops2));
    assert_int_equal(r.n, 0);
    assert_int_equal(r.bytes, 0);
    assert_int_equal(r.found, 2);
    assert_int_equal(r.missed, 3);
    free(a);
    free(b);
    free(got_json);
    free(want_json);
    cJSON_Delete(j);
    trace_free(&ops);
    trace_free(&back);
    trace_free(&t);
    results_free(&r);
}

/* Files written under a staging folder are kept by their place under the
 * tree's root; a newer write of the same file replaces the older; a path
 * outside the tree is an error and frees the tree. */
static void test_staged_keys_and_replacement(void **state)
{
    (void)state;
    struct results r;
    results_init(&r, 1 << 20);
    results_begin(&r, "out/raw", "out/raw.tmp.1.0");
    struct npu_err e;
    assert_int_equal(results_put(&r, "out/raw.tmp.1.0/m/p/training-v4.json", make_stats(1), NULL, NULL, NULL, 0, &e), 0);
    assert_int_equal(results_put(&r, "out/raw.tmp.1.0/m/p/training-v4.json", make_stats(2), NULL, NULL, NULL, 0, &e), 0);
    assert_int_equal(r.n, 1);
    const struct result *res = results_find(&r, "out/raw", "m/p/training-v4");
    assert_non_null(res);
    assert_false(res->has_ops);
    char *text = pyjson_print(res->stats);
    assert_non_null(strstr(text, "\"idle_power_W\": 2.0"));
    free(text);
    assert_int_equal(results_put(&r, "elsewhere/m/p/training-v4.json", make_stats(3), NULL, NULL, NULL, 0, &e), -1);
    assert_non_null(strstr(e.msg, "not a statistics file under out/raw"));
    assert_int_equal(results_put(&r, "out/raw.tmp.1.0/m/p/training-v4.csv", make_stats(3), NULL, NULL, NULL, 0, &e), -1);
    /* A new root drops what was kept of the old one. */
    results_begin(&r, "out/raw_None", NULL);
    assert_int_equal(r.n, 0);
    results_free(&r);
}

/* The energy of each strategy is kept typed, in order, with its finiteness. */
static void test_energy_kept_typed(void **state)
{
    (void)state;
    struct results r;
    results_init(&r, 1 << 20);
    results_begin(&r, "out/raw_None", NULL);
    struct result_energy en[2] = { { "NoPG", { .total_energy_J = 2.5, .slowdown = 1 }, true },
                                   { "Full", { .total_energy_J = NAN, .slowdown = 1 }, false } };
    struct npu_err e;
    assert_int_equal(results_put_key(&r, "m/p/inference-v5p_decode", make_stats(1), NULL, NULL, en, 2, NULL, &e), 0);
    const struct result *res = results_find(&r, "out/raw_None", "m/p/inference-v5p_decode");
    assert_non_null(res);
    assert_int_equal(res->nenergy, 2);
    assert_string_equal(res->energy[1].name, "Full");
    assert_true(res->energy[0].finite);
    assert_false(res->energy[1].finite);
    assert_true(res->energy[0].es.total_energy_J == 2.5);
    results_free(&r);
}

/* Nothing is kept beyond the budget (not an error: the next stage reads the
 * file); with budget 0, nothing at all. */
static void test_budget(void **state)
{
    (void)state;
    struct results r;
    results_init(&r, 0);
    results_begin(&r, "t", NULL);
    struct npu_err e;
    assert_int_equal(results_put_key(&r, "a", make_stats(1), NULL, NULL, NULL, 0, NULL, &e), 0);
    assert_int_equal(r.n, 0);
    assert_null(results_find(&r, "t", "a"));
    results_free(&r);

    results_init(&r, 4096);
    results_begin(&r, "t", NULL);
    int kept = 0;
    for (int i = 0; i < 100; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        assert_int_equal(results_put_key(&r, key, make_stats(i), NULL, NULL, NULL, 0, NULL, &e), 0);
        kept += results_find(&r, "t", key) != NULL;
    }
    assert_true(kept > 0 && kept < 100);
    assert_true(r.bytes <= 4096);
    assert_int_equal((int)r.n, kept);
    results_free(&r);
}

/* Many entries: the index grows, and taking half of them (holes in the
 * probe sequences) leaves every other one findable. */
static void test_index_grows_and_takes(void **state)
{
    (void)state;
    struct results r;
    results_init(&r, (size_t)1 << 30);
    results_begin(&r, "t", NULL);
    struct trace t;
    make_trace(&t);
    struct npu_err e;
    enum { N = 3000 };
    for (int i = 0; i < N; i++) {
        char key[32];
        snprintf(key, sizeof key, "m/p%d/inference-v4", i);
        assert_int_equal(results_put_key(&r, key, make_stats(i), i % 2 ? &t : NULL, NULL, NULL, 0, NULL, &e), 0);
    }
    assert_int_equal(r.n, N);
    for (int i = 1; i < N; i += 2) {
        char key[32];
        snprintf(key, sizeof key, "m/p%d/inference-v4", i);
        cJSON *j = NULL;
        struct trace ops;
        trace_init(&ops);
        assert_true(results_take(&r, "t", key, &j, &ops));
        assert_int_equal(ops.n, 3);
        cJSON_Delete(j);
        trace_free(&ops);
    }
    assert_int_equal(r.n, N / 2);
    for (int i = 0; i < N; i++) {
        char key[32];
        snprintf(key, sizeof key, "m/p%d/inference-v4", i);
        assert_true((results_find(&r, "t", key) != NULL) == (i % 2 == 0));
    }
    trace_free(&t);
    results_free(&r);
}

/* write_outputs_to keeps each statistics tree with the trace of its CSV
 * twin (<stem>.csv beside <stem>.json), only once the files are in place. */
static void test_write_outputs_keeps(void **state)
{
    (void)state;
    struct results r;
    results_init(&r, 1 << 20);
    results_begin(&r, dir, NULL);
    struct trace t;
    make_trace(&t);
    struct output o[3];
    output_clear(o, 3);
    snprintf(o[0].path, sizeof o[0].path, "%s/m/p/x_decode.csv", dir);
    o[0].trace = &t;
    o[0].opts = (struct trace_csv_opts){ PHASE_DECODE, false, false };
    snprintf(o[1].path, sizeof o[1].path, "%s/m/p/x_decode.json", dir);
    o[1].tree = make_stats(1);
    o[1].text = pyjson_print(o[1].tree);
    snprintf(o[2].path, sizeof o[2].path, "%s/m/p/x_config.json", dir);
    o[2].text = strdup("{}");
    struct npu_err e;
    assert_int_equal(write_outputs_to(o, 3, &(struct output_sink){ .keep = &r }, &e), 0);
    assert_int_equal(r.n, 1);
    const struct result *res = results_find(&r, dir, "m/p/x_decode");
    assert_non_null(res);
    assert_true(res->has_ops);
    assert_int_equal(res->ops.n, 1);   /* the decode view */
    char path[256];
    snprintf(path, sizeof path, "%s/m/p/x_decode.json", dir);
    assert_int_equal(access(path, F_OK), 0);

    /* A failed write keeps nothing (and leaves no file). */
    results_clear(&r);
    output_clear(o, 2);
    snprintf(o[0].path, sizeof o[0].path, "%s/m/p/y.json", dir);
    o[0].tree = make_stats(1);
    o[0].text = pyjson_print(o[0].tree);
    snprintf(o[1].path, sizeof o[1].path, "%s/m/p/x_decode.json/z.json", dir);   /* under a file */
    o[1].text = strdup("{}");
    assert_int_equal(write_outputs_to(o, 2, &(struct output_sink){ .keep = &r }, &e), -1);
    assert_int_equal(r.n, 0);
    snprintf(path, sizeof path, "%s/m/p/y.json", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    trace_free(&t);
    results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kept_result_equals_the_files, setup, teardown),
        cmocka_unit_test(test_staged_keys_and_replacement),
        cmocka_unit_test(test_energy_kept_typed),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_index_grows_and_takes),
        cmocka_unit_test_setup_teardown(test_write_outputs_keeps, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
