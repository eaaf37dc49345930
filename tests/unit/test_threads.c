/* test_threads.c — the simulation core is reentrant: threads running
 * configurations side by side, each with its own tile-search memo and op
 * string lookaside (thread-local), get exactly what one thread gets with a
 * cold memo, and op strings may be freed on another thread than the one that
 * made them; per-thread tables (traces/tls_table) come zeroed and go with
 * their thread; the cJSON allocator is chosen once, whichever thread asks
 * first; a size overflow fails its own generation only, not the thread's
 * next one. make check runs this under ASan/UBSan (and LeakSanitizer
 * sees the exiting threads' lookaside lists drained and tables freed). */
#define _GNU_SOURCE   /* RUSAGE_THREAD */
#include "testutil.h"

#include <malloc.h>
#include <sys/resource.h>
#include <threads.h>

#include "chipsim/chipsim.h"
#include "chipsim/cs_internal.h"   /* tile_memo_clear */
#include "opsgen/opsgen.h"
#include "opsgen/parallel.h"
#include "opsgen/sweep.h"
#include "traces/opstr.h"
#include "base/tls_table.h"
#include "study/run/config.h"
#include "study/run/family.h"
#include "study/run/op_predict.h"
#include "study/run/pipeline.h"
#include "study/run/pyjson.h"
#include "traces/trace_csv.h"

#define LLAMA3_8B test_model_text("llama3-8b")

#define NCFG 12   /* tp 1,2,4,8 x global batch 1,8,64 */
static const int64_t TP[4] = { 1, 2, 4, 8 }, GBS[3] = { 1, 8, 64 };

struct shared {
    struct model_config base;
    struct chip_config chip;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

/* Digest of configuration i (opsgen + chipsim): every op's strings and times. */
static uint64_t run_config(const struct shared *sh, int i)
{
    bool ovf = false;
    struct model_config m = sh->base;
    int64_t tp = TP[i % 4];
    struct parallel_cfg p = { tp, 1, tp, 1, 1, 1, 1, 1, 1 };
    sweep_apply_parallel(&m, &p, GBS[i / 4]);
    sweep_map_axes_llm("5p", &m);
    struct opsgen_links l = { .pcie_bw_GBps = 32.0, .ici_latency_ns = 3330, .dcn_latency_ns = 3700,
                              .pcie_latency_ns = 400, .ici_bw_GBps = 200, .dcn_bw_GBps = 25,
                              .hbm_size_GB = 95 };
    snprintf(l.chip_name, sizeof l.chip_name, "5p");
    strcpy(l.ICI_topology, "TORUS_3D");
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    if (opsgen_llm_inference(&m, &l, &profile_neusim, &t, &ovf, &e) ||
        chipsim_run(&t, &sh->chip, &profile_neusim, &e)) {
        trace_free(&t);
        return 0;
    }
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < t.n; k++) {
        const struct op *o = &t.ops[k];
        const char *s[] = { o->name, o->config, o->in_shapes, o->out_shape, o->tile_shapes, o->dim_labels };
        for (size_t j = 0; j < sizeof s / sizeof s[0]; j++)
            h = fnv(h, s[j], strlen(s[j]) + 1);
        h = fnv(h, &o->exe_ns, sizeof o->exe_ns);
        h = fnv(h, &o->bytes, sizeof o->bytes);
    }
    trace_free(&t);
    return h;
}

struct job {
    const struct shared *sh;
    int reverse;
    uint64_t got[NCFG];
    struct trace *to_free;   /* made on the main thread, freed here */
};

static int worker(void *arg)
{
    struct job *j = arg;
    if (j->to_free)
        trace_free(j->to_free);
    for (int rep = 0; rep < 3; rep++)
        for (int k = 0; k < NCFG; k++) {
            int i = j->reverse ? NCFG - 1 - k : k;
            j->got[i] = run_config(j->sh, i);
        }
    return 0;
}

static void test_threads_match_cold_single_thread(void **state)
{
    (void)state;
    static struct shared sh;
    cJSON *js = cJSON_Parse(LLAMA3_8B);
    assert_non_null(js);
    struct npu_err e;
    assert_int_equal(model_config_from_json(&sh.base, js, NULL, &e), 0);
    cJSON_Delete(js);
    test_chip("tpuv5p", &sh.chip);

    uint64_t want[NCFG];
    for (int i = 0; i < NCFG; i++) {
        tile_memo_clear();
        want[i] = run_config(&sh, i);
        assert_true(want[i] != 0);
    }

    /* Traces built here, released on the workers. */
    struct trace mine[2];
    for (int w = 0; w < 2; w++) {
        trace_init(&mine[w]);
        for (int k = 0; k < 100; k++) {
            struct op *o = trace_push(&mine[w]);
            op_setf(&o->name, "op%d-%d-%0*d", w, k, k, 0);   /* assorted lengths */
            op_set(&o->config, "XlaEinsum(a=1x2,b=2x3,eq=ab;bc->ac)");
        }
    }
    static struct job jobs[2];
    thrd_t th[2];
    for (int w = 0; w < 2; w++) {
        jobs[w] = (struct job){ .sh = &sh, .reverse = w, .to_free = &mine[w] };
        assert_int_equal(thrd_create(&th[w], worker, &jobs[w]), thrd_success);
    }
    for (int w = 0; w < 2; w++) {
        int rc;
        assert_int_equal(thrd_join(th[w], &rc), thrd_success);
        for (int i = 0; i < NCFG; i++)
            assert_true(jobs[w].got[i] == want[i]);
    }
}

/* Copies of one trace share its strings across threads: each worker takes
 * copies and drops them while the others do the same and the original goes
 * too; every string must stay intact until its last owner lets go (ASan
 * under make check sees a use after that, or a double free). Each worker
 * also writes its first copy, so the shared strings' seals (opstr.h) are
 * made by racing writers: every CSV must be the one written from fresh,
 * unshared strings. */
#define SHARE_ROUNDS 200
struct share_job {
    const struct trace *src;
    struct trace keep;       /* the last copy, checked after the join */
    char *csv;               /* the first copy as CSV: its writer seals the */
    size_t csv_len;          /* shared strings while the others do too */
};

static int share_worker(void *arg)
{
    struct share_job *j = arg;
    for (int r = 0; r < SHARE_ROUNDS; r++) {
        struct trace t;
        trace_init(&t);
        trace_append(&t, j->src);
        if (r == 0) {
            FILE *f = open_memstream(&j->csv, &j->csv_len);
            struct npu_err e;
            if (!f || trace_write_csv_stream(&t, f, NULL, &e) != 0)
                abort();
            fclose(f);
        }
        if (r == SHARE_ROUNDS - 1)
            j->keep = t;
        else
            trace_free(&t);
    }
    return 0;
}

static void test_shared_strings_across_threads(void **state)
{
    (void)state;
    struct trace *src = malloc(sizeof *src);
    assert_non_null(src);
    trace_init(src);
    for (int k = 0; k < 50; k++) {
        struct op *o = trace_push(src);
        op_setf(&o->name, "shared-%d-%0*d", k, k, 0);
        op_set(&o->config, "XlaEinsum(a=1x2,b=2x3,eq=ab;bc->ac)");
        op_set(&o->description, k % 2 ? "say \"hi\"" : "plain");
    }
    /* What the CSV must be: written before any seal exists, from a copy
     * made of fresh strings (op_set: unshared). */
    struct trace fresh;
    trace_init(&fresh);
    for (size_t k = 0; k < src->n; k++) {
        struct op *o = trace_push(&fresh);
        op_set(&o->name, src->ops[k].name);
        op_set(&o->config, src->ops[k].config);
        op_set(&o->description, src->ops[k].description);
    }
    char *want_csv;
    size_t want_len;
    FILE *f = open_memstream(&want_csv, &want_len);
    struct npu_err e;
    assert_non_null(f);
    assert_int_equal(trace_write_csv_stream(&fresh, f, NULL, &e), 0);
    fclose(f);
    trace_free(&fresh);
    static struct share_job jobs[3];
    thrd_t th[3];
    for (int w = 0; w < 3; w++) {
        jobs[w] = (struct share_job){ .src = src };
        assert_int_equal(thrd_create(&th[w], share_worker, &jobs[w]), thrd_success);
    }
    for (int w = 0; w < 3; w++)
        assert_int_equal(thrd_join(th[w], NULL), thrd_success);
    trace_free(src);   /* the copies outlive the original */
    free(src);
    char want[128];
    for (int w = 0; w < 3; w++) {
        assert_int_equal(jobs[w].csv_len, want_len);
        assert_memory_equal(jobs[w].csv, want_csv, want_len);
        free(jobs[w].csv);
        assert_i64(jobs[w].keep.n, 50);
        for (int k = 0; k < 50; k++) {
            snprintf(want, sizeof want, "shared-%d-%0*d", k, k, 0);
            assert_string_equal(jobs[w].keep.ops[k].name, want);
        }
        trace_free(&jobs[w].keep);
    }
    free(want_csv);
}

/* ---- traces/tls_table: per-thread tables, freed at thread exit ---- */

#define TLS_BLOCK_BYTES (256 << 10)   /* mmapped by glibc: seen in mallinfo2's hblkhd */

static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

struct tls_job {
    void *block[TLS_TABLES_MAX];
    bool all_zero, full_refused;
    size_t grew;   /* bytes in use after the allocations minus before */
};

static int tls_worker(void *arg)
{
    struct tls_job *j = arg;
    size_t before = heap_in_use();
    j->all_zero = true;
    for (int i = 0; i < TLS_TABLES_MAX; i++) {
        unsigned char *p = j->block[i] = tls_table_calloc(TLS_BLOCK_BYTES);
        if (!p)
            return 1;
        for (size_t k = 0; k < TLS_BLOCK_BYTES; k++)
            j->all_zero &= p[k] == 0;
        memset(p, 0xab, TLS_BLOCK_BYTES);   /* the next thread must get zeros again */
    }
    j->full_refused = tls_table_calloc(16) == NULL;
    size_t after = heap_in_use();
    j->grew = after > before ? after - before : 0;
    return 0;
}

static void test_tls_tables_per_thread(void **state)
{
    (void)state;
    /* The main thread's own: zeroed, distinct, kept until exit. */
    unsigned char *a = tls_table_calloc(64), *b = tls_table_calloc(64);
    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    for (int k = 0; k < 64; k++)
        assert_int_equal(a[k] | b[k], 0);
    size_t base = heap_in_use();
    for (int round = 0; round < 2; round++) {
        struct tls_job j = { 0 };
        thrd_t th;
        int rc;
        assert_int_equal(thrd_create(&th, tls_worker, &j), thrd_success);
        assert_int_equal(thrd_join(th, &rc), thrd_success);
        assert_int_equal(rc, 0);
        assert_true(j.all_zero);
        assert_true(j.full_refused);   /* TLS_TABLES_MAX blocks per thread */
        for (int i = 0; i < TLS_TABLES_MAX; i++)
            assert_ptr_not_equal(j.block[i], a);
        /* Freed when the thread exited: what it allocated is no longer in
         * use. (Under ASan mallinfo2 does not see the allocations, grew is
         * 0, and LeakSanitizer checks the same at exit.) */
        size_t now = heap_in_use();
        if (j.grew >= TLS_TABLES_MAX * (size_t)TLS_BLOCK_BYTES)
            assert_true(now < base + j.grew / 2);
    }
}

/* Every page of a block is written at allocation, so a memo's first probe
 * (a read, then a write) takes no page fault: calloc's fresh pages would
 * fault twice each (zero page mapped, then replaced with a TLB flush on
 * every CPU running a thread of ours). */
static long thread_minor_faults(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt : -1;
}

static int probe_worker(void *arg)
{
    long *faults = arg;
    volatile unsigned char *p = tls_table_calloc(TLS_BLOCK_BYTES);
    if (!p)
        return 1;
    long before = thread_minor_faults();
    unsigned sum = 0;
    for (size_t k = 0; k < TLS_BLOCK_BYTES; k += 4096) {
        sum += p[k];
        p[k] = (unsigned char)(sum + 1);
    }
    *faults = thread_minor_faults() - before;
    return sum != 0;   /* and it was zeroed */
}

static void test_tls_tables_written_up_front(void **state)
{
    (void)state;
    /* A block of fresh pages, as in a new worker: mmapped, whatever
     * glibc's dynamic threshold became after the test above freed its. */
    mallopt(M_MMAP_THRESHOLD, TLS_BLOCK_BYTES / 2);
    long faults = -1;
    thrd_t th;
    int rc;
    assert_int_equal(thrd_create(&th, probe_worker, &faults), thrd_success);
    assert_int_equal(thrd_join(th, &rc), thrd_success);
    assert_int_equal(rc, 0);
    assert_int_equal(faults, 0);   /* ~2 a page when the pages are left to calloc */
}

/* ---- traces/opstr: string blocks outlive the thread that carved them ---- */

#define NSTR 8000   /* 8000 blocks of 32 bytes: four 64 KiB slabs */

struct str_job {
    char **s;
    bool make;       /* allocate s[0..NSTR) (else release them) */
    size_t grew;     /* heap bytes in use after minus before */
};

static int str_worker(void *arg)
{
    struct str_job *j = arg;
    size_t before = heap_in_use();
    for (int i = 0; i < NSTR; i++) {
        if (j->make) {
            j->s[i] = opstr_alloc(20);
            snprintf(j->s[i], 20, "s%d", i);
        } else {
            opstr_release(j->s[i]);
        }
    }
    size_t after = heap_in_use();
    j->grew = after > before ? after - before : 0;
    return 0;
}

static void run_str_job(struct str_job *j)
{
    thrd_t th;
    assert_int_equal(thrd_create(&th, str_worker, j), thrd_success);
    assert_int_equal(thrd_join(th, NULL), thrd_success);
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (char *const *)a, y = (uintptr_t) * (char *const *)b;
    return (x > y) - (x < y);
}

static void test_string_blocks_reused_across_threads(void **state)
{
    (void)state;
    char **s = calloc(NSTR, sizeof *s), **again = calloc(NSTR, sizeof *again);
    assert_non_null(s);
    assert_non_null(again);
    /* Made on one thread, released on a second after the first exited, made
     * again on a third: the third takes the second's spilled blocks. */
    struct str_job make = { s, true, 0 }, release = { s, false, 0 }, remake = { again, true, 0 };
    run_str_job(&make);
    for (int i = 0; i < NSTR; i++) {
        char want[20];
        snprintf(want, sizeof want, "s%d", i);
        assert_string_equal(s[i], want);
        assert_int_equal((uintptr_t)s[i] % 8, 0);
    }
    run_str_job(&release);
    run_str_job(&remake);
    /* Under ASan every block is its own malloc and mallinfo2 sees none. */
    if (make.grew >= NSTR * (size_t)32)
        assert_true(remake.grew < make.grew / 4);
    /* Every block handed out once. */
    qsort(again, NSTR, sizeof *again, cmp_ptr);
    for (int i = 1; i < NSTR; i++)
        assert_true(again[i - 1] != again[i]);
    for (int i = 0; i < NSTR; i++)
        opstr_release(again[i]);
    free(s);
    free(again);
}

/* Strings made on worker threads and released on this one (a summary
 * sweep's writer): the blocks go back to the makers, so the heap stops
 * growing after the first rounds. */
static void test_string_blocks_bounded_when_freed_elsewhere(void **state)
{
    (void)state;
    char **s = calloc(NSTR, sizeof *s);
    assert_non_null(s);
    size_t after_first = 0;
    for (int round = 0; round < 16; round++) {
        struct str_job make = { s, true, 0 };
        run_str_job(&make);
        for (int i = 0; i < NSTR; i++)
            opstr_release(s[i]);
        if (round == 1)
            after_first = heap_in_use();
    }
    size_t grew = heap_in_use() - after_first;   /* 14 rounds of 4 slabs each when they pile up here */
    if (after_first > NSTR * (size_t)32)          /* not under ASan (see above) */
        assert_true(grew < 4 * (64u << 10));
    free(s);
}

/* ---- study/run/pyjson: the cJSON allocator, chosen once by whoever comes first ---- */

static int json_worker(void *arg)
{
    cJSON **out = arg;
    pyjson_allocator_init();   /* every entry point calls it; the first installs the hooks */
    cJSON *j = cJSON_CreateObject();
    for (int i = 0; i < 200; i++) {
        char k[16];
        snprintf(k, sizeof k, "key%d", i);
        cJSON_AddNumberToObject(j, k, i);
    }
    char *text = cJSON_PrintUnformatted(j);
    static const char head[] = "{\"key0\":0,\"key1\":1,";
    int bad = !text || strncmp(text, head, sizeof head - 1) != 0;
    cJSON_free(text);   /* cJSON's buffer goes back to cJSON's allocator */
    *out = j;           /* deleted on the main thread */
    return bad;
}

/* Last: from here on cJSON allocates from the lookaside lists, as in the
 * program. Threads racing to the call all see it made (pthread_once), and a
 * tree made on one thread may be deleted on another. */
static void test_json_allocator_chosen_once(void **state)
{
    (void)state;
    enum { N = 4 };
    thrd_t th[N];
    cJSON *trees[N] = { 0 };
    for (int i = 0; i < N; i++)
        assert_int_equal(thrd_create(&th[i], json_worker, &trees[i]), thrd_success);
    for (int i = 0; i < N; i++) {
        int rc = -1;
        assert_int_equal(thrd_join(th[i], &rc), thrd_success);
        assert_int_equal(rc, 0);
        assert_int_equal(cJSON_GetArraySize(trees[i]), 200);
        cJSON_Delete(trees[i]);
    }
    pyjson_allocator_init();   /* again: no effect */
    cJSON *j = cJSON_Parse("[1, \"two\"]");   /* tests may call cJSON's parser (tests/layering.sh) */
    assert_non_null(j);
    cJSON_Delete(j);
}

/* ---- a size past int64 is the generation's error, not the thread's ---- */

#define OVERFLOW_MSG "llama3-8b: an operator's size, FLOP count or time exceeds int64 (or a tensor 2^48 " \
                     "elements): the model's dimensions, batch, sequence lengths and parallelism multiply " \
                     "out of scale"

struct gen_job {
    const struct loaded_config *c;
    int rc;
    size_t n;
    struct npu_err e;
};

static int gen_job_run(void *arg)
{
    struct gen_job *j = arg;
    struct trace t;
    trace_init(&t);
    j->rc = family_generate(&fam_llm_inference, j->c, &profile_physical, &t, &j->e);
    j->n = t.n;
    trace_free(&t);
    return 0;
}

static void load_llama8b(struct loaded_config *c, const char *const *sets, int nsets)
{
    struct config_request r = { "configs", "llama3-8b", NULL, NULL, sets, nsets, true };
    struct npu_err e;
    if (config_load(&r, c, &e))
        fail_msg("%s", e.msg);
}

/* A batch x sequence x width past int64 fails its generation with the
 * message naming the model, whether the next generation runs on the same
 * thread or beside it on another: that one succeeds. */
static void test_size_overflow_is_the_calls_error(void **s)
{
    (void)s;
    static const char *const huge[] = { "microbatch_size_ici=16777216", "input_seqlen=1000000",
                                        "d_model=1000000" };
    struct loaded_config big, ok;
    load_llama8b(&big, huge, 3);
    load_llama8b(&ok, NULL, 0);
    struct gen_job a = { .c = &big }, b = { .c = &ok };
    thrd_t ta, tb;
    assert_int_equal(thrd_create(&ta, gen_job_run, &a), thrd_success);
    assert_int_equal(thrd_create(&tb, gen_job_run, &b), thrd_success);
    thrd_join(ta, NULL);
    thrd_join(tb, NULL);
    for (int round = 0; round < 2; round++) {
        assert_int_equal(a.rc, -1);
        assert_string_equal(a.e.msg, OVERFLOW_MSG);
        assert_int_equal(b.rc, 0);
        assert_true(b.n > 0);
        a = (struct gen_job){ .c = &big };   /* again, one after the other on this thread */
        b = (struct gen_job){ .c = &ok };
        gen_job_run(&a);
        gen_job_run(&b);
    }
    /* The generator alone: 0 with the caller's flag set (the sizes that overflowed are 0). */
    struct opsgen_links l;
    config_links(&big.chip, &l);
    struct trace t;
    trace_init(&t);
    bool ovf = false;
    struct npu_err e;
    assert_int_equal(opsgen_llm_inference(&big.model, &l, &profile_physical, &t, &ovf, &e), 0);
    assert_true(ovf);
    trace_free(&t);
    /* One operator (npusim op) likewise. */
    struct op_request r;
    struct op_prediction p;
    for (int round = 0; round < 2; round++) {
        op_request_init(&r);
        snprintf(r.op, sizeof r.op, "add");
        r.m = r.n = 2147483648LL;   /* 2^62 elements */
        assert_int_equal(op_predict(&r, &ok.chip, &profile_physical, &p, &e), -1);
        assert_string_equal(e.msg, "add: the sizes overflow 64-bit counts");
        r.m = r.n = 1024;
        assert_int_equal(op_predict(&r, &ok.chip, &profile_physical, &p, &e), 0);
        assert_true(p.time_us > 0);
    }
    config_free(&big);
    config_free(&ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_match_cold_single_thread),
        cmocka_unit_test(test_shared_strings_across_threads),
        cmocka_unit_test(test_tls_tables_per_thread),
        cmocka_unit_test(test_tls_tables_written_up_front),
        cmocka_unit_test(test_string_blocks_reused_across_threads),
        cmocka_unit_test(test_string_blocks_bounded_when_freed_elsewhere),
        cmocka_unit_test(test_size_overflow_is_the_calls_error),
        cmocka_unit_test(test_json_allocator_chosen_once),   /* last: it changes cJSON's allocator */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
