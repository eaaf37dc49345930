/* test_fuzz.c — deterministic mutation loops over every text parser.
 *
 * libFuzzer is not part of the Debian toolchain we require, so each parser
 * gets a cheap, reproducible stand-in here: a fixed-seed generator applies a
 * few byte edits (overwrite, insert, delete, truncate) to a valid input and
 * the parser must either accept it or fail with a message naming the input.
 * Crashes, overflows and leaks surface under `make check` (ASan + UBSan).
 * The statistics-file JSON reader (cli/rawjson.c) and the suite file reader
 * (cli/suite_file.c) get loops of their own.
 * Each loop also asserts that both outcomes happened, so a mutator that never
 * breaks anything (or never leaves anything intact) fails the test. */
#include "testutil.h"
#include "traces/trace_csv.h"

#include "chipsim/chipsim.h"
#include "study/run/pyjson.h"
#include "base/rawjson.h"
#include "study/stages/results_tree.h"
#include "study/sweep/suite_file.h"
#include "study/sweep/sweep_spec.h"
#include "opsgen/builders.h"
#include "opsgen/model.h"
#include "power/energy.h"
#include "power/pg.h"

struct mutator { uint64_t seed; };

static uint32_t next(struct mutator *m)
{
    m->seed = m->seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(m->seed >> 33);
}

/* Copies src into buf (capacity cap, cap >= strlen(src) + 16) with 1-4 edits
 * drawn from `alphabet` or raw bytes; NUL-terminated, NULs inside are not
 * produced so C-string parsers see the whole mutation. */
static void mutate(struct mutator *m, const char *src, const char *alphabet, char *buf, size_t cap)
{
    size_t n = strlen(src);
    memcpy(buf, src, n);
    int edits = 1 + (int)(next(m) % 4);
    size_t na = strlen(alphabet);
    for (int k = 0; k < edits && n + 2 < cap; k++) {
        size_t at = n ? next(m) % n : 0;
        char ch = next(m) % 4 ? alphabet[next(m) % na] : (char)(1 + next(m) % 255);
        switch (next(m) % 3) {
        case 0: if (n) buf[at] = ch; break;
        case 1: memmove(buf + at + 1, buf + at, n - at); buf[at] = ch; n++; break;
        default: if (n) { memmove(buf + at, buf + at + 1, n - at - 1); n--; } break;
        }
    }
    if (next(m) % 19 == 0)
        n = next(m) % (n + 1);
    buf[n] = '\0';
}

/* --- chipsim: the op strings (config, in_shapes, out_shape) ------------- */

struct op_seed { const char *config, *in, *out; enum op_type type; int opcode; };

static const struct op_seed op_seeds[] = {
    { "XlaEinsum(a=1x64x128,b=128x4x32,eq=BLM;MND->BLND,memory_placements=0_0_0,type=DT_BFLOAT16)",
      "DT_BFLOAT16:[1,64,128],DT_BFLOAT16:[128,4,32]", "[DT_BFLOAT16:(1,64,4,32)]", OP_MXU, -1 },
    { "FlashAttention(q=1x64x4x32,k=1x64x4x32,v=1x64x4x32,memory_placements=[0, 0, 0],type=DT_BFLOAT16)",
      "DT_BFLOAT16:[1,64,4,32],DT_BFLOAT16:[1,64,4,32],DT_BFLOAT16:[1,64,4,32]", "[DT_BFLOAT16:(1,64,4,4)]",
      OP_MXU, -1 },
    { "Conv2D(a=2x8x16x16,b=8x8x3x3,c=2x8x16x16,eq=bf01;io01->bf01,window={size=3x3 stride=1x1 pad=0_1x0_1},"
      "memory_placements=0_0_0,type=DT_BFLOAT16)",
      "DT_BFLOAT16:[2,8,16,16],DT_BFLOAT16:[8,8,3,3]", "[DT_BFLOAT16:(2,8,16,16)]", OP_MXU, OPC_CONV2D },
    { "LayerNorm(x=4x256,type=DT_BFLOAT16)", "DT_BFLOAT16:[4,256]", "[DT_BFLOAT16:(4,256)]", OP_VPU, -1 },
    { "ReduceScatter(['8', '64', '256']->['8', '64', '32'])", "DT_BFLOAT16:[8,64,256]",
      "[DT_BFLOAT16:(8,64,32)]", OP_VPU, -1 },
};

/* Digits dominate so that dimensions grow past the size limits too (the
 * cost model must refuse them rather than overflow int64). */
static const char op_alphabet[] = "01234567899999999x,;:[]()=-> '_DTBFLOAT";

static void test_fuzz_chipsim_strings(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct mutator m = { 0x9E3779B97F4A7C15ull };
    char cfg[512], in[512], out[256];
    int ok = 0, bad = 0;
    for (int iter = 0; iter < 3000; iter++) {
        const struct op_seed *s = &op_seeds[iter % (int)(sizeof op_seeds / sizeof op_seeds[0])];
        snprintf(cfg, sizeof cfg, "%s", s->config);
        snprintf(in, sizeof in, "%s", s->in);
        snprintf(out, sizeof out, "%s", s->out);
        switch (next(&m) % 3) {
        case 0: mutate(&m, s->config, op_alphabet, cfg, sizeof cfg); break;
        case 1: mutate(&m, s->in, op_alphabet, in, sizeof in); break;
        default: mutate(&m, s->out, op_alphabet, out, sizeof out); break;
        }
        struct trace t;
        trace_init(&t);
        struct op *o = test_op(&t, "fz", cfg, in, out, s->type, 1 << 20);
        if (s->opcode >= 0)
            o->opcode_type = s->opcode;
        struct npu_err e = {{0}};
        if (chipsim_run(&t, &c, &profile_neusim, &e) == 0) {
            ok++;
        } else {
            bad++;
            if (!strstr(e.msg, "\"fz\""))
                fail_msg("iteration %d: message \"%s\" does not name the op", iter, e.msg);
        }
        trace_free(&t);
    }
    print_message("accepted %d, rejected %d\n", ok, bad);
    assert_true(ok > 0);
    assert_true(bad > 0);
}

/* --- model configs --------------------------------------------------------- */

static const char json_alphabet[] = "{}[]\":,0123456789-.e tfnul_abcdefghijkmoprsvwxyz";

/* Mutates the JSON text, parses it and hands any object to `load`. Counts a
 * parse failure as a rejection the loader never saw. */
static void fuzz_json(const char *base, uint64_t seed, int iters,
                      int (*load)(const char *text, const cJSON *j, struct npu_err *e), int *ok, int *bad)
{
    struct mutator m = { seed };
    size_t cap = strlen(base) + 64;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (int iter = 0; iter < iters; iter++) {
        mutate(&m, base, json_alphabet, buf, cap);
        cJSON *j = cJSON_Parse(buf);
        if (!j)
            continue;
        struct npu_err e = {{0}};
        if (load(buf, j, &e) == 0) {
            (*ok)++;
        } else {
            (*bad)++;
            if (!e.msg[0])
                fail_msg("iteration %d: rejected without a message", iter);
        }
        cJSON_Delete(j);
    }
    free(buf);
}

static int load_model(const char *text, const cJSON *j, struct npu_err *e)
{
    (void)text;
    struct model_config mc;
    return model_config_from_json(&mc, j, NULL, e);
}

static void test_fuzz_model_configs(void **state)
{
    (void)state;
    static const char *const models[] = { "llama3-8b", "deepseekv3-671b", "dlrm-s", "dit-xl", "gligen" };
    int ok = 0, bad = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        fuzz_json(test_model_text(models[i]), 0xD1B54A32D192ED03ull + i, 800, load_model, &ok, &bad);
    print_message("accepted %d, rejected %d\n", ok, bad);
    assert_true(ok > 0);
    assert_true(bad > 0);
}

static int load_chip(const char *text, const cJSON *j, struct npu_err *e)
{
    (void)text;
    struct chip_config c;
    chip_config_default(&c);
    if (fields_from_json(&chip_fields, &c, j, NULL, e))
        return -1;
    /* An accepted chip must be simulable: time every seed op on it. */
    struct trace t;
    trace_init(&t);
    for (size_t i = 0; i < sizeof op_seeds / sizeof op_seeds[0]; i++) {
        struct op *o = test_op(&t, "fz", op_seeds[i].config, op_seeds[i].in, op_seeds[i].out, op_seeds[i].type,
                               1 << 20);
        if (op_seeds[i].opcode >= 0)
            o->opcode_type = op_seeds[i].opcode;
    }
    struct npu_err e2;
    if (chipsim_run(&t, &c, &profile_neusim, &e2))
        fail_msg("accepted chip config failed to simulate: %s", e2.msg);
    for (size_t i = 0; i < t.n; i++)
        if (t.ops[i].exe_ns < 1)
            fail_msg("accepted chip config gave op %zu an execution time of %lld ns", i,
                     (long long)t.ops[i].exe_ns);
    trace_free(&t);
    return 0;
}

static void test_fuzz_chip_configs(void **state)
{
    (void)state;
    static const char *const chips[] = { "tpuv4", "tpuv5e", "tpuv5p", "tpuv6e" };
    int ok = 0, bad = 0;
    for (size_t i = 0; i < sizeof chips / sizeof chips[0]; i++)
        fuzz_json(test_config_text("chips", chips[i]), 0x8BB84B93962EACC9ull + i, 800, load_chip, &ok, &bad);
    print_message("accepted %d, rejected %d\n", ok, bad);
    assert_true(ok > 0);
    assert_true(bad > 0);
}

/* --- power-gating strategies ---------------------------------------------- */

static int load_pg(const char *text, const cJSON *j, struct npu_err *e)
{
    (void)j;
    struct pg_strategy s;
    return pg_strategy_from_json_text(text, "fuzz-pg", &s, e);
}

static void test_fuzz_pg_strategies(void **state)
{
    (void)state;
    int ok = 0, bad = 0;
    for (int i = 0; i < pg_builtin_count(); i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        assert_int_equal(pg_strategy_write_json(pg_builtin(i), f), 0);
        fclose(f);
        fuzz_json(text, 0xA0761D6478BD642Full + (uint64_t)i, 600, load_pg, &ok, &bad);
        free(text);
    }
    print_message("accepted %d, rejected %d\n", ok, bad);
    assert_true(ok > 0);
    assert_true(bad > 0);
}

/* --- sweep specs ------------------------------------------------------------ */

static int load_spec(const char *text, const cJSON *j, struct npu_err *e)
{
    (void)j;
    struct sweep_spec s;
    int rc = sweep_spec_parse(text, "fuzz.json", &s, e);
    if (rc == 0)
        sweep_spec_free(&s);
    return rc;
}

static void test_fuzz_sweep_specs(void **state)
{
    (void)state;
    static const char spec[] =
        "{\"models\": [\"llama3-8b\"], \"chips\": [\"tpuv5p\", \"tpuv6e\"], \"num_chips\": [1, 4, 16],"
        " \"batch_sizes\": {\"from\": 1, \"to\": 16, \"step\": 5}, \"workload\": \"inference\","
        " \"fields\": {\"hbm_bw_GBps\": {\"from\": 1000, \"to\": 8000, \"step\": 500},"
        " \"num_sa\": [4, 8, 16], \"vmem_size_MB\": [64, 128], \"unet_config.num_heads\": [8]}}";
    int ok = 0, bad = 0;
    fuzz_json(spec, 0xE7037ED1A0B428DBull, 3000, load_spec, &ok, &bad);
    print_message("accepted %d, rejected %d\n", ok, bad);
    assert_true(ok > 0);
    assert_true(bad > 0);
}

/* --- the number-keeping JSON reader of the statistics files ------------- */

/* Every mutation either parses or is refused with a line number; what
 * parses prints (pyjson) to text that parses again to the same print, and
 * keeps the number text byte for byte (the whole point of the parser). */
static void test_fuzz_rawjson(void **state)
{
    (void)state;
    static const char stats[] =
        "{\n    \"total_execution_time_ns\": 4224368640,\n    \"TPOT_ms_request\": 16.51476,\n"
        "    \"throughput\": 3.8784493959315064e+03,\n    \"odd\": [NaN, Infinity, -Infinity, -0, 1E-7],\n"
        "    \"out_of_memory\": false,\n    \"sim_config\": {\"name\": \"5p\\u00e9\\n\", \"num_sa\": 8,"
        " \"none\": null, \"nested\": [[1, 2], {}, []]}\n}";
    int ok = 0, bad = 0;
    int line = 0;
    cJSON *base = rawjson_parse(stats, strlen(stats), JSON_NUMBERS_TEXT, &line);
    assert_non_null(base);
    char *base_text = pyjson_print(base);
    assert_non_null(strstr(base_text, "3.8784493959315064e+03"));
    assert_non_null(strstr(base_text, "[\n        NaN,\n        Infinity,\n        -Infinity,\n        -0,\n"));
    free(base_text);
    cJSON_Delete(base);
    struct mutator m = { 0x5EEDBA5Eull };
    size_t cap = sizeof stats + 64;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (int iter = 0; iter < 4000; iter++) {
        mutate(&m, stats, json_alphabet, buf, cap);
        bool py = iter % 2;
        line = 0;
        cJSON *j = rawjson_parse(buf, strlen(buf), py ? JSON_NUMBERS_PYTHON : JSON_NUMBERS_TEXT, &line);
        if (!j) {
            bad++;
            assert_true(line >= 1);
            continue;
        }
        ok++;
        char *t1 = pyjson_print(j);
        cJSON *j2 = rawjson_parse(t1, strlen(t1), py ? JSON_NUMBERS_PYTHON : JSON_NUMBERS_TEXT, &line);
        if (!j2)
            fail_msg("iteration %d: printed text does not parse again:\n%s", iter, t1);
        char *t2 = pyjson_print(j2);
        assert_string_equal(t1, t2);
        free(t1);
        free(t2);
        cJSON_Delete(j2);
        cJSON_Delete(j);
    }
    free(buf);
    print_message("accepted %d, rejected %d\n", ok, bad);
    assert_true(ok > 0);
    assert_true(bad > 0);
}

/* --- suite files ------------------------------------------------------------ */

/* Every mutation either parses into lines of a known kind with a field count
 * in range, each field a non-empty run of non-blanks, or is refused with
 * "fuzz.suite:LINE: ..." (LINE within the file). */
static void test_fuzz_suite_files(void **state)
{
    (void)state;
    static const char suite[] =
        "# a study\nsweep llama3-8b inference 4,5p 1,2,4 1,16\nsweep llama3-70b inference 5p 8 8 2048_128\n"
        "\nenergy NoPG,Full None\ncarbon NoPG None 0.0624 0.6 1\r\nslo None NoPG 0.0624 0.6\n";
    static const char alphabet[] = "sweepnrgycabolfi #\n\t\r ,.0123456789";
    static const int min[] = { 5, 2, 5, 4 }, max[] = { 6, 2, 5, 4 };
    struct mutator m = { 0x5A17E5ull };
    char buf[sizeof suite + 64];
    int ok = 0, bad = 0;
    for (int iter = 0; iter < 4000; iter++) {
        mutate(&m, suite, alphabet, buf, sizeof buf);
        int nlines = 1;
        for (const char *p = buf; *p; p++)
            nlines += *p == '\n';
        struct suite st;
        struct npu_err e;
        char *text = strdup(buf);
        assert_non_null(text);
        if (suite_parse(&st, text, "fuzz.suite", &e)) {
            int line = 0;
            if (sscanf(e.msg, "fuzz.suite:%d: ", &line) != 1 || line < 1 || line > nlines)
                fail_msg("iteration %d: message \"%s\" names no line of the file", iter, e.msg);
            bad++;
        } else {
            ok++;
            for (int i = 0; i < st.n; i++) {
                const struct suite_line *l = &st.line[i];
                assert_true(l->kind >= 0 && l->kind < SUITE_NKINDS);
                assert_in_range(l->n, min[l->kind], max[l->kind]);
                assert_in_range(l->lineno, 1, nlines);
                for (int f = 0; f < l->n; f++)
                    assert_true(l->f[f][0] && !strpbrk(l->f[f], " \t\r\n"));
            }
        }
        suite_free(&st);
    }
    print_message("accepted %d, rejected %d\n", ok, bad);
    assert_true(ok > 0);
    assert_true(bad > 0);
}

/* --- ops held as data against the same ops read from CSV text (differential) */

/* One random builder op. */
static void random_op(struct mutator *m, struct trace *t)
{
    bool ovf = false;
    /* up to 4096: the builders multiply sizes unchecked (real models stay far below) */
    static const int64_t dims[] = { 0, 1, 2, 3, 7, 64, 128, 1000, 2048, 4096, -1 };
    static const char *const dtypes[] = { "DT_BFLOAT16", "DT_FLOAT32", "DT_INT8", "DT_FLOAT", "DT_FLOAT64", "DT_BOOL" };
    static const char *const eqs[] = { "BLM;MND->BLND", "BM;MN->BN", "BLND;NDM->BLM", "BMK;BKN->BMN", "B M;MN->BN" };
    static const char *const unary[] = { "Softmax", "LayerNorm", "RMSNorm", "Pointwise Mul." };
    const char *dt = dtypes[next(m) % 6];
#define D() dims[next(m) % 11]
    switch (next(m) % 4) {
    case 0: {
        const char *eq = eqs[next(m) % 5];
        /* shapes from the letters: each distinct letter one size */
        int64_t size[128] = {0};
        struct shape a = { 0, {0} }, b = { 0, {0} };
        const char *semi = strchr(eq, ';'), *arrow = strstr(eq, "->");
        for (const char *p = eq; p < semi; p++) {
            if (!size[(unsigned char)*p]) size[(unsigned char)*p] = D();
            a.d[a.nd++] = size[(unsigned char)*p];
        }
        for (const char *p = semi + 1; p < arrow; p++) {
            if (!size[(unsigned char)*p]) size[(unsigned char)*p] = D();
            b.d[b.nd++] = size[(unsigned char)*p];
        }
        b_einsum(t, &ovf, 1, 1, "Fwd-x", "x = MatMul(a, b)", a, b, eq, "0_0_0", dt);
        break;
    }
    case 1:
        b_unary(t, &ovf, 1, 1, "Fwd-n", "y = Norm(x)", unary[next(m) % 4], SHP(D(), D(), D()), "0_0", dt);
        break;
    case 2:
        b_binary(t, &ovf, 1, 1, "Fwd-a", "z = Add(x, y)", next(m) % 2 ? "Add" : "Mul", SHP(D(), D()), "0_0_0", dt,
                 next(m) % 2);
        break;
    default: {
        int64_t bb = D(), q = D(), h = D(), d = D(), kv = D();
        b_flash_attention(t, &ovf, 1, 1, "Fwd-fa", "o = FA(q, k, v)", SHP(bb, q, h, d), SHP(bb, kv, h, d),
                          SHP(bb, kv, h, d), dt, next(m) % 2);
        break;
    }
    }
#undef D
}

static void test_fuzz_form_matches_text(void **state)
{
    (void)state;
    static const char *const chips[] = { "tpuv4", "tpuv5p", "tpuv6e" };
    struct chip_config c[3];
    for (int i = 0; i < 3; i++)
        test_chip(chips[i], &c[i]);
    struct mutator mf = { 0x5851F42D4C957F2Dull };
    int ok = 0, bad = 0, unreadable = 0;
    for (int iter = 0; iter < 1500; iter++) {
        /* The same op twice: held as data, and as the text a CSV gives. */
        struct trace full, back;
        trace_init(&full);
        trace_init(&back);
        random_op(&mf, &full);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        struct npu_err ew;
        assert_int_equal(trace_write_csv_stream(&full, f, NULL, &ew), 0);
        fclose(f);
        int rr = trace_read_csv_buffer(&back, text, len, "fuzz.csv", &ew);
        free(text);
        if (rr) {   /* the reader refuses what no file may hold (a negative FLOP count) */
            assert_non_null(strstr(ew.msg, "expected an integer >= 0"));
            unreadable++;
            trace_free(&full);
            trace_free(&back);
            continue;
        }
        assert_int_equal(full.n, back.n);
        const struct chip_config *ch = &c[iter % 3];
        struct npu_err e1 = {{0}}, e2 = {{0}};
        int r1 = full.n ? chipsim_run(&full, ch, &profile_neusim, &e1) : 0;
        int r2 = back.n ? chipsim_run(&back, ch, &profile_neusim, &e2) : 0;
        assert_int_equal(r1, r2);
        if (r1) {
            assert_string_equal(e1.msg, e2.msg);
            bad++;
        } else if (full.n) {
            r1 = power_default_pass(&full, ch, &profile_neusim, &e1);
            r2 = power_default_pass(&back, ch, &profile_neusim, &e2);
            assert_int_equal(r1, r2);
            if (r1)
                assert_string_equal(e1.msg, e2.msg);
            const struct op *a = &full.ops[0], *b = &back.ops[0];
            assert_true(a->exe_ns == b->exe_ns && a->mem_ns == b->mem_ns && a->sa_ns == b->sa_ns &&
                        a->vu_ns == b->vu_ns && a->vmem_ns == b->vmem_ns && a->bytes == b->bytes &&
                        a->num_tiles == b->num_tiles && a->bounded_by == b->bounded_by &&
                        a->flops == b->flops && a->num_sa_ops == b->num_sa_ops);
            assert_memory_equal(a->static_J, b->static_J, sizeof a->static_J);
            assert_memory_equal(a->dynamic_J, b->dynamic_J, sizeof a->dynamic_J);
            assert_string_equal(a->parsed_op_type, b->parsed_op_type);
            char *ta = NULL, *tb = NULL;   /* and they write the same row */
            size_t na = 0, nb = 0;
            FILE *fa = open_memstream(&ta, &na), *fb = open_memstream(&tb, &nb);
            assert_int_equal(trace_write_csv_stream(&full, fa, NULL, &ew), 0);
            assert_int_equal(trace_write_csv_stream(&back, fb, NULL, &ew), 0);
            fclose(fa);
            fclose(fb);
            assert_string_equal(ta, tb);
            free(ta);
            free(tb);
            ok++;
        }
        trace_free(&full);
        trace_free(&back);
    }
    print_message("form = text: %d simulated, %d refused alike, %d not readable\n", ok, bad, unreadable);
    assert_true(ok > 100);
    assert_true(bad > 100);
}

/* The reader's and printer's plain-byte table is the predicate it replaced. */
static void test_json_plain_table(void **state)
{
    (void)state;
    int plain = 0;
    for (int c = 0; c < 256; c++) {
        bool want = c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
        assert_int_equal(json_plain_byte[c], want);
        plain += want;
    }
    assert_int_equal(plain, 94);
}

/* Numbers as the reference's json.dump prints the values they stand for:
 * integral doubles below 2^53 as ints ("%.0f", so negative zero is "-0"),
 * every other one as Python's repr; and every item kind in place. */
static void test_pyjson_print_values(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    const double v[] = { -0.0, 0.0, 12345678901234.0, -7, 2.5, 9007199254740991.0, -9007199254740991.0,
                         9007199254740992.0, 1e300, 0.1 };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char k[8];
        snprintf(k, sizeof k, "n%zu", i);
        cJSON_AddNumberToObject(o, k, v[i]);
    }
    cJSON_AddItemToObject(o, "t", cJSON_CreateTrue());
    cJSON_AddItemToObject(o, "f", cJSON_CreateFalse());
    cJSON_AddItemToObject(o, "z", cJSON_CreateNull());
    cJSON_AddItemToObject(o, "s", cJSON_CreateString("a\"b"));
    cJSON_AddItemToObject(o, "r", cJSON_CreateRaw("1.50"));
    cJSON_AddItemToObject(o, "e", cJSON_CreateArray());
    char *got = pyjson_print(o);
    const char *want = "{\n    \"n0\": -0,\n    \"n1\": 0,\n    \"n2\": 12345678901234,\n    \"n3\": -7,\n"
                       "    \"n4\": 2.5,\n    \"n5\": 9007199254740991,\n    \"n6\": -9007199254740991,\n"
                       "    \"n7\": 9007199254740992.0,\n    \"n8\": 1e+300,\n    \"n9\": 0.1,\n"
                       "    \"t\": true,\n    \"f\": false,\n    \"z\": null,\n    \"s\": \"a\\\"b\",\n"
                       "    \"r\": 1.50,\n    \"e\": []\n}";
    assert_string_equal(got, want);
    free(got);
    cJSON_Delete(o);
}

/* A value printed at its depth (pyjson_print_at) and placed as a raw item
 * prints as the tree that holds the value itself, at depths 1 and 2. */
static void test_pyjson_print_at(void **state)
{
    (void)state;
    for (int depth = 1; depth <= 2; depth++) {
        cJSON *v = cJSON_CreateObject(), *arr = cJSON_CreateArray();
        cJSON_AddItemToObject(v, "k", cJSON_CreateRaw("1.5"));
        cJSON_AddItemToArray(arr, cJSON_CreateRaw("3"));
        cJSON_AddItemToArray(arr, cJSON_CreateString("x"));
        cJSON_AddItemToObject(v, "list", arr);
        cJSON_AddItemToObject(v, "empty", cJSON_CreateObject());
        char *text = pyjson_print_at(v, depth);
        /* depth 1: {"a": 1, "v": v}; depth 2: {"o": {"v": v}} */
        cJSON *whole = cJSON_CreateObject(), *raw = cJSON_CreateObject();
        cJSON *in_whole = whole, *in_raw = raw;
        if (depth == 2) {
            in_whole = cJSON_AddObjectToObject(whole, "o");
            in_raw = cJSON_AddObjectToObject(raw, "o");
        } else {
            cJSON_AddItemToObject(whole, "a", cJSON_CreateRaw("1"));
            cJSON_AddItemToObject(raw, "a", cJSON_CreateRaw("1"));
        }
        cJSON_AddItemToObject(in_whole, "v", v);
        cJSON_AddItemToObject(in_raw, "v", cJSON_CreateRaw(text));
        char *want = pyjson_print(whole), *got = pyjson_print(raw);
        assert_string_equal(got, want);
        assert_non_null(strstr(want, depth == 1 ? "\n        \"k\": 1.5" : "\n            \"k\": 1.5"));
        free(want);
        free(got);
        free(text);
        cJSON_Delete(whole);
        cJSON_Delete(raw);
    }
}

/* Direct text: an object written key by key reads as pyjson_print prints
 * the same object nested at that depth (here depth 1, inside {"a": ...}),
 * including an empty object, escaped keys and raw numbers. */
static void test_pyjson_text(void **state)
{
    (void)state;
    struct pyjson_text t;
    pyjson_text_begin(&t, 1);
    pyjson_text_raw(&t, "x", "1.5");
    pyjson_text_object(&t, "NoPG");
    pyjson_text_raw(&t, "n", "NaN");
    pyjson_text_object(&t, "empty");
    pyjson_text_end(&t);
    pyjson_text_raw(&t, "q\"\u00e9", "0");
    pyjson_text_end(&t);
    pyjson_text_end(&t);
    char *text = pyjson_text_take(&t);
    assert_string_equal(text, "{\n        \"x\": 1.5,\n        \"NoPG\": {\n            \"n\": NaN,\n"
                              "            \"empty\": {},\n            \"q\\\"\\u00e9\": 0\n        }\n    }");
    cJSON *root = cJSON_CreateObject(), *a = cJSON_AddObjectToObject(root, "a");
    cJSON_AddRawToObject(a, "x", "1.5");
    cJSON *n = cJSON_AddObjectToObject(a, "NoPG");
    cJSON_AddRawToObject(n, "n", "NaN");
    cJSON_AddObjectToObject(n, "empty");
    cJSON_AddRawToObject(n, "q\"\u00e9", "0");
    cJSON *root2 = cJSON_CreateObject();
    cJSON_AddRawToObject(root2, "a", text);
    char *want = pyjson_print(root), *got = pyjson_print(root2);
    assert_string_equal(got, want);
    free(want);
    free(got);
    free(text);
    cJSON_Delete(root);
    cJSON_Delete(root2);
    pyjson_text_begin(&t, 0);
    pyjson_text_end(&t);
    text = pyjson_text_take(&t);
    assert_string_equal(text, "{}");
    free(text);
    /* A key printed once (pyjson_key_text) and reused: the same text. */
    char key[16];
    assert_int_equal(pyjson_key_text("q\"\u00e9", key, sizeof key), strlen("\"q\\\"\\u00e9\": "));
    assert_int_equal(pyjson_key_text("much too long for it", key, 8), 0);
    size_t klen = pyjson_key_text("q\"\u00e9", key, sizeof key);
    pyjson_text_begin(&t, 1);
    pyjson_text_raw_keyed(&t, key, klen, "0.5", 3);
    pyjson_text_raw_keyed(&t, key, klen, "7", 1);
    pyjson_text_end(&t);
    text = pyjson_text_take(&t);
    struct pyjson_text u;
    pyjson_text_begin(&u, 1);
    pyjson_text_raw(&u, "q\"\u00e9", "0.5");
    pyjson_text_raw(&u, "q\"\u00e9", "7");
    pyjson_text_end(&u);
    char *want_text = pyjson_text_take(&u);
    assert_string_equal(text, want_text);
    free(text);
    free(want_text);
}

/* --- printed statistics read back (what a suite hands on in memory) --------- */

/* A suite's stages hand statistics trees to the next stage instead of the
 * files (study/run/results.h); that is exact because a printed tree parses back
 * (in the number mode it was read in: Python's, or the tokens kept) to a
 * tree that prints the same text. Checked on the rawjson mutations'
 * survivors. */
static void test_printed_tree_reads_back(void **state)
{
    (void)state;
    static const char stats[] =
        "{\n    \"total_execution_time_ns\": 4224368640,\n    \"idle_power_W\": 16.5,\n"
        "    \"odd\": [NaN, {\"idle_power_W\": 1e300}, \"\\n    \\\"x\\\": 1\"],\n    \"e\": {},\n"
        "    \"q\\\"\\u00e9\": \"v\",\n    \"sim_config\": {\"name\": \"5p\", \"nested\": [[1, -0.0], {}, []]}\n}";
    struct mutator m = { 0x5B11CEull };
    size_t cap = sizeof stats + 64;
    char *buf = malloc(cap);
    assert_non_null(buf);
    int checked = 0;
    for (int iter = 0; iter < 3000; iter++) {
        mutate(&m, stats, json_alphabet, buf, cap);
        int line = 0;
        cJSON *j = rawjson_parse(buf, strlen(buf), iter % 2 ? JSON_NUMBERS_PYTHON : JSON_NUMBERS_TEXT, &line);
        if (!j)
            continue;
        char *text = pyjson_print(j);
        cJSON *back = rawjson_parse(text, strlen(text), iter % 2 ? JSON_NUMBERS_PYTHON : JSON_NUMBERS_TEXT, &line);
        if (!back)
            fail_msg("iteration %d: printed tree does not parse:\n%s", iter, text);
        char *again = pyjson_print(back);
        assert_string_equal(again, text);
        checked++;
        free(again);
        free(text);
        cJSON_Delete(back);
        cJSON_Delete(j);
    }
    free(buf);
    assert_true(checked > 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fuzz_chipsim_strings),
        cmocka_unit_test(test_fuzz_model_configs),
        cmocka_unit_test(test_fuzz_chip_configs),
        cmocka_unit_test(test_fuzz_pg_strategies),
        cmocka_unit_test(test_fuzz_sweep_specs),
        cmocka_unit_test(test_fuzz_rawjson),
        cmocka_unit_test(test_fuzz_suite_files),
        cmocka_unit_test(test_fuzz_form_matches_text),
        cmocka_unit_test(test_json_plain_table),
        cmocka_unit_test(test_pyjson_print_values),
        cmocka_unit_test(test_pyjson_text),
        cmocka_unit_test(test_pyjson_print_at),
        cmocka_unit_test(test_printed_tree_reads_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
