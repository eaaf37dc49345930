/* test_trace_memo.c — held traces (cli/trace_memo.c): a file read back from
 * memory gives what reading the file gives, and only a file still exactly
 * as written is served from memory (changed, replaced, over budget, not
 * recorded or after the end: the file is read). */
#define _DEFAULT_SOURCE /* utimensat's flags, mkdtemp */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>
#include <math.h>

#include "study/pyjson.h"
#include "study/rawjson.h"
#include "study/sim_facts.h"
#include "study/trace_memo.h"
#include "traces/trace_csv.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/npusim-memo-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    trace_memo_end();
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

/* Writes t with o to dir/name and records it as write_outputs does. */
static void write_and_put(const struct trace *t, const struct trace_csv_opts *o, const char *name, char *path)
{
    snprintf(path, 256, "%s/%s", dir, name);
    struct npu_err e;
    assert_int_equal(trace_write_csv(t, path, o, &e), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    trace_memo_put(&st, t, o);
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

/* trace_memo_read(path) gives what trace_read_csv(path) gives, and whether
 * it came from memory. */
static bool read_matches_file(const char *path)
{
    struct trace a, b;
    trace_init(&a);
    trace_init(&b);
    struct npu_err e;
    size_t hits = trace_memo_stats().hits;
    assert_int_equal(trace_memo_read(&a, path, &e), 0);
    bool from_memory = trace_memo_stats().hits == hits + 1;
    assert_int_equal(trace_read_csv(&b, path, &e), 0);
    char *ta = text_of(&a), *tb = text_of(&b);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);
    trace_free(&a);
    trace_free(&b);
    return from_memory;
}

/* A fresh memo recording what is written next, and the trace to write. */
static void begin_recording(struct trace *t)
{
    make_trace(t);
    trace_memo_begin(1 << 20);
    trace_memo_record(true);
}

static const struct trace_csv_opts prefill = { PHASE_PREFILL, false, false };

static void test_held_file_read_from_memory(void **state)
{
    (void)state;
    char path[256], path2[256], path3[256];
    struct trace t;
    begin_recording(&t);
    write_and_put(&t, &prefill, "p.csv", path);
    write_and_put(&t, NULL, "all.csv", path2);
    write_and_put(&t, NULL, "more.csv", path3);
    trace_memo_record(false);
    trace_free(&t);   /* the memo keeps its own ops */
    assert_i64(trace_memo_stats().held, 3);
    assert_true(trace_memo_stats().bytes > (2 + 3 + 3) * sizeof(struct op));
    assert_true(read_matches_file(path));
    assert_true(read_matches_file(path2));
    /* Handed over once: the next read is the file's. */
    assert_false(read_matches_file(path));
    /* Into a trace that holds ops already: appended after them. */
    struct trace r;
    trace_init(&r);
    op_set(&trace_push(&r)->name, "mine");
    struct npu_err e;
    size_t hits = trace_memo_stats().hits;
    assert_int_equal(trace_memo_read(&r, path3, &e), 0);
    assert_i64(trace_memo_stats().hits, hits + 1);
    assert_i64(r.n, 4);
    assert_string_equal(r.ops[0].name, "mine");
    assert_string_equal(r.ops[3].name, "op2");
    assert_int_equal(r.ops[2].stats_kind, STATS_EINSUM);
    trace_free(&r);
    /* Every held op has gone to its reader. */
    assert_true(trace_memo_stats().bytes < sizeof(struct op));
    trace_memo_end();
    assert_false(read_matches_file(path2));   /* after the end: the file */
}

/* A trace held for n readers serves n reads from memory (copies first, the
 * held ops last), each what the file gives; the next is the file's. With
 * no reader to come nothing is held. */
static void test_readers(void **state)
{
    (void)state;
    char path[256], none[256];
    struct trace t;
    begin_recording(&t);
    trace_memo_readers(3);
    write_and_put(&t, NULL, "three.csv", path);
    trace_memo_readers(0);
    write_and_put(&t, NULL, "none.csv", none);
    trace_memo_record(false);
    trace_free(&t);
    assert_i64(trace_memo_stats().held, 1);
    size_t bytes = trace_memo_stats().bytes;
    assert_true(read_matches_file(path));
    assert_true(read_matches_file(path));
    assert_i64(trace_memo_stats().bytes, bytes);   /* still held for the last */
    assert_true(read_matches_file(path));
    assert_true(trace_memo_stats().bytes < sizeof(struct op));
    assert_false(read_matches_file(path));
    assert_false(read_matches_file(none));
    trace_memo_end();
}

/* A file this process no longer has as written is read from disk. */
static void test_changed_or_replaced_file_read_from_disk(void **state)
{
    (void)state;
    char path[256], other[256];
    struct trace t;
    begin_recording(&t);
    write_and_put(&t, NULL, "changed.csv", path);
    write_and_put(&t, NULL, "replaced.csv", other);
    trace_memo_record(false);

    /* Rewritten in place (the same inode): size and time differ. */
    struct trace u;
    make_trace(&u);
    op_set(&u.ops[0].name, "rewritten");
    char *text = text_of(&u);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(text);
    assert_false(read_matches_file(path));
    trace_free(&u);

    /* Replaced by another file (a new inode). */
    make_trace(&u);
    op_set(&u.ops[0].name, "new");
    struct npu_err e;
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.new", other);
    assert_int_equal(trace_write_csv(&u, tmp, NULL, &e), 0);
    assert_int_equal(rename(tmp, other), 0);
    assert_false(read_matches_file(other));
    trace_free(&u);
    trace_free(&t);
    trace_memo_end();
}

/* Identity is the file's device, inode, size and time: a same-size edit
 * with the time put back goes unseen, which shows the held ops are what
 * is served (and is the documented limit of the check). */
static void test_identity_is_size_and_time(void **state)
{
    (void)state;
    char path[256];
    struct trace t;
    begin_recording(&t);
    write_and_put(&t, NULL, "same.csv", path);
    trace_memo_record(false);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    int fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    char *text = text_of(&t);
    char *at = strstr(text, "op0");
    at[2] = '9';   /* op0 -> op9, same size */
    assert_true(pwrite(fd, text, strlen(text), 0) == (ssize_t)strlen(text));
    close(fd);
    struct timespec times[2] = { st.st_atim, st.st_mtim };
    assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
    struct trace r;
    trace_init(&r);
    struct npu_err e;
    assert_int_equal(trace_memo_read(&r, path, &e), 0);
    assert_string_equal(r.ops[0].name, "op0");   /* held, not the file's op9 */
    trace_free(&r);
    free(text);
    trace_free(&t);
    trace_memo_end();
}

/* Nothing is held when not recording, past the budget, or with budget 0;
 * reading then falls back to the file, and errors are the file's. */
static void test_not_held(void **state)
{
    (void)state;
    struct trace t;
    make_trace(&t);
    char path[256];
    trace_memo_begin(1 << 20);
    write_and_put(&t, NULL, "unrecorded.csv", path);   /* recording is off */
    assert_i64(trace_memo_stats().held, 0);
    assert_false(read_matches_file(path));
    trace_memo_begin(0);
    trace_memo_record(true);
    write_and_put(&t, NULL, "nobudget.csv", path);
    assert_i64(trace_memo_stats().held, 0);
    trace_memo_begin(3 * sizeof(struct op) + 1000);   /* room for one file's ops, not two */
    trace_memo_record(true);
    write_and_put(&t, NULL, "first.csv", path);
    write_and_put(&t, NULL, "second.csv", path);
    trace_memo_record(false);
    assert_i64(trace_memo_stats().held, 1);
    assert_true(trace_memo_stats().bytes <= 3 * sizeof(struct op) + 1000);
    assert_false(read_matches_file(path));
    struct trace r;
    trace_init(&r);
    struct npu_err e;
    char missing[300];
    snprintf(missing, sizeof missing, "%s/missing.csv", dir);
    assert_int_equal(trace_memo_read(&r, missing, &e), -1);
    assert_non_null(strstr(e.msg, "missing.csv"));
    trace_free(&t);
    trace_memo_end();
}

/* Printed statistics files are held by identity, with their text and
 * facts: only an unchanged file whose bytes are the text counts; facts come
 * back only to a reader asking for as many bytes; each reader gets its own
 * copy of the text. */
static char *json_text_of(const char *path, size_t *len, void *facts, size_t n, bool *have)
{
    *len = 0;
    return trace_memo_json_text(path, len, facts, n, have);
}

static void test_printed_json(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/stats.json", dir);
    const char *text = "{\n    \"a\": 1\n}";
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    const double facts[2] = { 1.5, -2 };
    double got[2] = { 0, 0 };
    bool have = true;
    size_t len;
    trace_memo_begin(1 << 20);
    assert_null(json_text_of(path, &len, got, sizeof got, &have));
    assert_false(have);
    trace_memo_put_json(&st, facts, sizeof facts, strdup(text));   /* not recording: not held */
    assert_null(json_text_of(path, &len, NULL, 0, NULL));
    trace_memo_record(true);
    trace_memo_put_json(&st, facts, sizeof facts, strdup("{}"));   /* not the file's bytes: not held */
    assert_null(json_text_of(path, &len, NULL, 0, NULL));
    trace_memo_hold_stats(false);
    trace_memo_put_json(&st, facts, sizeof facts, strdup(text));   /* no reader to come: not held */
    assert_null(json_text_of(path, &len, NULL, 0, NULL));
    trace_memo_hold_stats(true);
    trace_memo_put_json(&st, facts, sizeof facts, strdup(text));
    trace_memo_record(false);
    char *a = json_text_of(path, &len, NULL, 0, NULL);
    assert_non_null(a);
    assert_i64((int64_t)len, (int64_t)strlen(text));
    assert_string_equal(a, text);
    char *b = json_text_of(path, &len, got, sizeof got[0], &have);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);   /* copies: each reader frees its own */
    assert_false(have);   /* another size: not these facts */
    assert_true(got[0] == 0);
    free(a);
    free(b);
    a = json_text_of(path, &len, got, sizeof got, &have);
    assert_non_null(a);
    assert_true(have);
    assert_memory_equal(got, facts, sizeof facts);
    free(a);
    assert_i64((int64_t)trace_memo_stats().json_hits, 3);
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    assert_int_equal(trace_memo_read(&t, path, &e), -1);   /* no ops held: read as a CSV, which it is not */
    assert_i64(trace_memo_stats().hits, 0);
    f = fopen(path, "ab");
    fputs("\n", f);
    fclose(f);
    assert_null(json_text_of(path, &len, NULL, 0, NULL));   /* changed since */

    /* Without facts: the text, no facts. */
    assert_int_equal(stat(path, &st), 0);
    char *longer = malloc(strlen(text) + 2);
    assert_non_null(longer);
    sprintf(longer, "%s\n", text);
    trace_memo_record(true);
    trace_memo_put_json(&st, NULL, 0, longer);
    trace_memo_record(false);
    a = json_text_of(path, &len, got, sizeof got, &have);
    assert_non_null(a);
    assert_i64((int64_t)len, (int64_t)strlen(text) + 1);
    assert_false(have);
    free(a);
    trace_memo_end();
}

/* A sim_config tree and its printed text, parsed back as the energy and
 * carbon stages parse it, give the same facts, byte for byte: the sweep's
 * facts stand for the parse they replace. Every chip of configs/chips, and
 * chips of random values (doubles of any magnitude and digit count). */
static void check_facts_round_trip(const struct chip_config *chip, const struct system_config *sys, double num_chips)
{
    cJSON *sim = cJSON_CreateObject();
    fields_to_json(&chip_fields, chip, sim, false);
    fields_to_json(&system_fields, sys, sim, false);
    if (num_chips >= 0)
        cJSON_AddNumberToObject(sim, "num_chips", num_chips);
    struct sim_facts want, got;
    struct npu_err e;
    assert_int_equal(sim_facts_from_json(&want, sim, &e), 0);
    char *text = pyjson_print(sim);
    for (int py = 0; py < 2; py++) {
        int line;
        cJSON *back = rawjson_parse(text, strlen(text), py, &line);
        assert_non_null(back);
        assert_int_equal(sim_facts_from_json(&got, back, &e), 0);
        assert_memory_equal(&got, &want, sizeof want);
        cJSON_Delete(back);
    }
    free(text);
    cJSON_Delete(sim);
}

static void test_sim_facts_round_trip(void **state)
{
    (void)state;
    struct system_config sys;
    system_config_default(&sys);
    int chips = 0;
    struct dirent *d;
    DIR *dp = opendir("configs/chips");
    assert_non_null(dp);
    while ((d = readdir(dp)) != NULL) {
        size_t len = strlen(d->d_name);
        if (len <= 5 || strcmp(d->d_name + len - 5, ".json") != 0)
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len - 5), d->d_name);   /* less ".json" */
        struct chip_config chip;
        test_chip(name, &chip);
        check_facts_round_trip(&chip, &sys, 8);
        chips++;
    }
    closedir(dp);
    assert_true(chips >= 4);

    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < 300; i++) {
        struct chip_config chip;
        chip_config_default(&chip);
        for (size_t k = 0; k < chip_fields.n; k++) {
            const struct field_desc *fd = &chip_fields.f[k];
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            void *at = (char *)&chip + fd->offset;
            if (fd->type == FT_DOUBLE) {
                double v = (double)(x >> 11) / (double)(1ull << 53) * pow(10, (int)(x % 24) - 8);
                double lo, hi;   /* within the field's range, as every loaded config is */
                fields_range(fd, &lo, &hi);
                v = v < lo ? v + lo : v > hi ? hi : v;
                memcpy(at, &v, sizeof v);
            } else if (fd->type == FT_INT) {
                double lo, hi;
                fields_range(fd, &lo, &hi);
                int64_t v = (int64_t)(x % 100000) + 1;
                if ((double)v > hi)
                    v = (int64_t)hi;
                memcpy(at, &v, sizeof v);
            }
        }
        sys.PUE = 1 + (double)(x % 1000) / 997;
        check_facts_round_trip(&chip, &sys, i % 3 ? (double)(i + 1) : -1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_held_file_read_from_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_or_replaced_file_read_from_disk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_identity_is_size_and_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_held, setup, teardown),
        cmocka_unit_test_setup_teardown(test_printed_json, setup, teardown),
        cmocka_unit_test(test_sim_facts_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
