/* test_traces.c — the trace CSV writer/reader and atomic output files.
 *
 * The strongest checks are byte identity: reference excerpts (tests/golden/
 * traces/, taken verbatim from NeuSim outputs) must come back unchanged after
 * read + write, and write -> read -> write must be a fixed point. Around them,
 * small hand-built ops pin down each cell rule (quoting, float repr, blank
 * statistics, int-0 energies), every reader error names file and line/column,
 * and a deterministic mutation loop checks the reader never crashes. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <threads.h>
#include <unistd.h>

#include <zlib.h>

#include "base/atomic.h"
#include "base/pyfmt.h"
#include "traces/trace_csv.h"

#define GOLDEN(p) TEST_DATA("golden/traces/" p)

/* ---- helpers ------------------------------------------------------------ */

struct mem {
    char *p;
    size_t n;
};

static struct mem write_mem(const struct trace *t, const struct trace_csv_opts *o)
{
    struct mem m = { 0 };
    FILE *f = open_memstream(&m.p, &m.n);
    assert_non_null(f);
    struct npu_err e = { { 0 } };
    assert_int_equal(trace_write_csv_stream(t, f, o, &e), 0);
    assert_int_equal(fclose(f), 0);
    return m;
}

/* Whole file, gzip or plain, into memory. */
static struct mem slurp(const char *path)
{
    struct mem m = { 0 };
    gzFile gz = gzopen(path, "rb");
    assert_non_null(gz);
    size_t cap = 0;
    for (;;) {
        if (cap - m.n < 4096) {
            cap = cap ? 2 * cap : 65536;
            m.p = realloc(m.p, cap);
            assert_non_null(m.p);
        }
        int got = gzread(gz, m.p + m.n, (unsigned)(cap - m.n));
        assert_true(got >= 0);
        if (got == 0)
            break;
        m.n += (size_t)got;
    }
    gzclose(gz);
    return m;
}

static void assert_mem_equal(struct mem a, struct mem b)
{
    assert_i64(a.n, b.n);
    assert_memory_equal(a.p, b.p, a.n);
}

static int col_index(const char *name)
{
    for (int c = 0; c < TRACE_CSV_NCOLS; c++)
        if (strcmp(trace_csv_columns[c], name) == 0)
            return c;
    fail_msg("no column %s", name);
    return -1;
}

/* Cell `name` of the first data row of a one-op CSV whose cells hold no
 * quoted commas (true for every op built by make_op). */
static char cellbuf[256];
static const char *cell_of(const struct mem *m, const char *name)
{
    int want = col_index(name);
    const char *s = memchr(m->p, '\n', m->n);
    assert_non_null(s);
    s++;
    for (int c = 0; c < want; c++) {
        s = strchr(s, ',');
        assert_non_null(s);
        s++;
    }
    size_t n = strcspn(s, ",\r\n");
    assert_true(n < sizeof cellbuf);
    memcpy(cellbuf, s, n);
    cellbuf[n] = '\0';
    return cellbuf;
}

/* A timed, einsum-like op with values distinct enough to catch swapped cells. */
static struct op *make_op(struct trace *t, const char *config)
{
    struct op *op = trace_push(t);
    op->fusion_id = 7;
    op_set(&op->description, "desc");
    op_set(&op->config, config);
    op_set(&op->name, "opname");
    op_set(&op->opcode, "Einsum");
    op_set(&op->in_shapes, "DT_BFLOAT16:[4096]");
    op_set(&op->out_shape, "[DT_BFLOAT16:(4096)]");
    op_set(&op->parsed_op_type, "Einsum");
    op_set(&op->dim_labels, "BM;MN->BN");
    op_set(&op->tile_shapes, "[[1]]");
    op->type = OP_MXU;
    op->count = 32;
    op->flops = 2000000;
    op->weight_bytes = 11;
    op->bounded_by = BOUND_MEMORY;
    op->exe_ns = 1000;
    op->mem_ns = 1000;
    op->sa_ns = 300;
    op->vu_ns = 400;
    op->vmem_ns = 5;
    op->bytes = 1073741824;
    op->num_tiles = 3;
    op->max_vmem_demand_bytes = 12;
    op->num_sa_ops = 13;
    op->einsum_b = 14;
    op->einsum_m = 15;
    op->einsum_n = 16;
    op->einsum_k = 17;
    op->vu_softmax_ns = 18;
    op->flops_util = 0.25;
    op->hbm_bw_util = 0.5;
    return op;
}

/* ---- columns and cells -------------------------------------------------- */

static void test_columns(void **state)
{
    (void)state;
    assert_string_equal(trace_csv_columns[0], "Fusion index");
    assert_string_equal(trace_csv_columns[8], "Compute time");
    assert_string_equal(trace_csv_columns[29], "Output Shape");
    assert_string_equal(trace_csv_columns[43], "DVFS SA Policy");
    assert_string_equal(trace_csv_columns[58], "Vmem time");
    assert_string_equal(trace_csv_columns[59], "static_energy_sa_J");
    assert_string_equal(trace_csv_columns[86], "DVFS SA Scaling Time (ns)");
    assert_string_equal(trace_csv_columns[95], "DVFS ICI Power Efficiency (%)");
    assert_string_equal(trace_csv_columns[100], "DVFS ICI Activity Factor");
    for (int i = 0; i < TRACE_CSV_NCOLS; i++)
        for (int j = i + 1; j < TRACE_CSV_NCOLS; j++)
            assert_string_not_equal(trace_csv_columns[i], trace_csv_columns[j]);
    /* The header line is exactly the reference one. */
    struct trace t;
    trace_init(&t);
    struct mem m = write_mem(&t, NULL);
    struct mem ref = slurp(GOLDEN("raw_excerpt.csv.gz"));
    const char *eol = memchr(ref.p, '\n', ref.n);
    assert_i64(m.n, eol - ref.p + 1);
    assert_memory_equal(m.p, ref.p, m.n);
    free(m.p);
    free(ref.p);
}

/* Strings far longer than the writer's buffer (80 KiB, grown mid-row) and
 * than its row reservation, plain, quoted and full of quotes, between the
 * number cells of rows written to three outputs at once: every byte lands
 * (the sanitizer build would see a write past the buffer) and reads back. */
static void test_long_strings(void **state)
{
    (void)state;
    struct trace t;
    trace_init(&t);
    size_t n = 300000;
    char *plain = malloc(n + 1), *comma = malloc(n + 1), *quotes = malloc(n + 1);
    assert_true(plain && comma && quotes);
    for (size_t i = 0; i < n; i++) {
        plain[i] = (char)('a' + i % 26);
        comma[i] = i % 1000 == 999 ? ',' : 'b';
        quotes[i] = i % 3 ? '"' : 'q';
    }
    plain[n] = comma[n] = quotes[n] = '\0';
    for (int i = 0; i < 6; i++) {
        struct op *op = make_op(&t, "Mul(x)");
        op->phase = i % 2 ? PHASE_DECODE : PHASE_PREFILL;
        op_set(&op->description, i % 3 == 0 ? plain : i % 3 == 1 ? comma : quotes);
        op_set(&op->in_shapes, i % 3 == 2 ? plain : comma);
        strcpy(op->dvfs[0].policy, i % 2 ? "a,b" : "q\"q");
    }
    FILE *f[3];
    char *buf[3];
    size_t len[3];
    struct trace_csv_opts opts[3] = { { PHASE_NONE, false, false }, { PHASE_PREFILL, false, false },
                                      { PHASE_DECODE, false, true } };
    for (int k = 0; k < 3; k++)
        assert_non_null(f[k] = open_memstream(&buf[k], &len[k]));
    struct npu_err e;
    assert_int_equal(trace_write_csv_multi(&t, f, opts, 3, &e), 0);
    for (int k = 0; k < 3; k++) {
        fclose(f[k]);
        struct trace u;
        trace_init(&u);
        assert_int_equal(trace_read_csv_buffer(&u, buf[k], len[k], "long.csv", &e), 0);
        assert_i64(u.n, k == 0 ? 6 : 3);
        for (size_t i = 0; i < u.n; i++) {
            const struct op *want = &t.ops[k == 0 ? i : 2 * i + (k == 2)];
            assert_string_equal(u.ops[i].description, want->description);
            assert_string_equal(u.ops[i].in_shapes, want->in_shapes);
            assert_string_equal(u.ops[i].dvfs[0].policy, want->dvfs[0].policy);
            assert_i64(u.ops[i].exe_ns, want->exe_ns);
        }
        trace_free(&u);
        free(buf[k]);
    }
    trace_free(&t);

    /* Descriptions ending within a row's length of the buffer's end (its
     * first size, 128 KiB, less the row's start): the cells after them must
     * not run past it. */
    trace_init(&t);
    for (size_t l = 131072 - 4096; l <= 131072; l += 64) {
        struct op *op = make_op(&t, "Mul(x)");
        plain[l] = '\0';
        op_set(&op->description, plain);
        plain[l] = (char)('a' + l % 26);
    }
    FILE *g = open_memstream(&buf[0], &len[0]);
    assert_non_null(g);
    assert_int_equal(trace_write_csv_multi(&t, &g, opts, 1, &e), 0);
    fclose(g);
    struct trace u;
    trace_init(&u);
    assert_int_equal(trace_read_csv_buffer(&u, buf[0], len[0], "long.csv", &e), 0);
    assert_i64(u.n, t.n);
    for (size_t i = 0; i < u.n; i++)
        assert_string_equal(u.ops[i].description, t.ops[i].description);
    trace_free(&u);
    free(buf[0]);
    free(plain);
    free(comma);
    free(quotes);
    trace_free(&t);
}

static void test_quoting_and_crlf(void **state)
{
    (void)state;
    struct trace t;
    trace_init(&t);
    struct op *op = make_op(&t, "Mul(x)");
    op_set(&op->description, "a,b \"c\"");
    op_set(&op->name, "line1\nline2");
    op_set(&op->opcode, "no quote needed; 'single'");
    /* Strings are written from their seal (traces/opstr.h), made by the
     * first writer: a comma or a lone CR quotes; a NUL within the given
     * length cuts the string there, as C strings go. */
    op_setf(&op->in_shapes, "[%d, %d]", 1, 2);
    op_set(&op->out_shape, "x\ry");
    op_setn(&op->parsed_op_type, "ab\0,c", 5);
    struct mem m = write_mem(&t, NULL);
    /* Row starts right after the header's CRLF. */
    const char *row = strstr(m.p, "\r\n") + 2;
    static const char want[] = "7,\"a,b \"\"c\"\"\",Mul(x),\"line1\nline2\",MXU,32,Memory,1000,400,";
    assert_memory_equal(row, want, sizeof want - 1);
    assert_non_null(strstr(row, ",no quote needed; 'single',"));
    assert_non_null(strstr(row, ",\"[1, 2]\",\"x\ry\","));
    assert_non_null(strstr(row, ",[],ab,"));
    /* Every line ends CRLF; the only bare LFs are inside the quoted name
     * (printed twice: "Name" and "Op Name"). */
    assert_true(m.n >= 2 && m.p[m.n - 2] == '\r' && m.p[m.n - 1] == '\n');
    int lf = 0, crlf = 0;
    for (size_t i = 0; i < m.n; i++)
        if (m.p[i] == '\n') {
            lf++;
            crlf += i > 0 && m.p[i - 1] == '\r';
        }
    assert_int_equal(lf, 4);
    assert_int_equal(crlf, 2);
    free(m.p);

    /* ... and it reads back to the same strings. */
    m = write_mem(&t, NULL);
    struct trace u;
    trace_init(&u);
    struct npu_err e;
    assert_int_equal(trace_read_csv_buffer(&u, m.p, m.n, "q.csv", &e), 0);
    assert_i64(u.n, 1);
    assert_string_equal(u.ops[0].description, "a,b \"c\"");
    assert_string_equal(u.ops[0].name, "line1\nline2");
    free(m.p);
    trace_free(&u);
    trace_free(&t);
}

static void test_cells_timed_no_energy(void **state)
{
    (void)state;
    struct trace t;
    trace_init(&t);
    struct op *op = make_op(&t, "XlaEinsum(a=1)");
    op->stats_kind = STATS_EINSUM;
    op->dvfs[COMP_ICI].efficiency_pct = 88.5;
    struct mem m = write_mem(&t, NULL);
    assert_string_equal(cell_of(&m, "Compute time"), "400");
    assert_string_equal(cell_of(&m, "Compute Time (ns)"), "400");
    assert_string_equal(cell_of(&m, "Bytes accessed"), "1073741824");
    assert_string_equal(cell_of(&m, "Bytes Accessed"), "1073741824");
    assert_string_equal(cell_of(&m, "Op Name"), "opname");
    assert_string_equal(cell_of(&m, "Output Shape"), "[]");
    assert_string_equal(cell_of(&m, "Transpose time"), "0");
    assert_string_equal(cell_of(&m, "DVFS SA Policy"), "None");
    assert_string_equal(cell_of(&m, "DVFS HBM Voltage (V)"), "0.0");
    assert_string_equal(cell_of(&m, "DVFS VU Frequency (GHz)"), "0.0");
    assert_string_equal(cell_of(&m, "DVFS SA Scaling Time (ns)"), "20");
    assert_string_equal(cell_of(&m, "DVFS SA Power Efficiency (%)"), "100.0");
    assert_string_equal(cell_of(&m, "DVFS ICI Power Efficiency (%)"), "88.5");
    assert_string_equal(cell_of(&m, "DVFS SRAM Activity Factor"), "1.0");
    /* No energy pass: int 0 energies, float 0.0 powers. */
    assert_string_equal(cell_of(&m, "static_energy_sa_J"), "0");
    assert_string_equal(cell_of(&m, "dynamic_energy_other_J"), "0");
    assert_string_equal(cell_of(&m, "total_energy_J"), "0");
    assert_string_equal(cell_of(&m, "static_power_W"), "0.0");
    assert_string_equal(cell_of(&m, "total_power_W"), "0.0");
    /* 2e6 flop in 1000 ns = 2 TFLOP/s; 1 GiB in 1000 ns = 1e6 GB/s. */
    assert_string_equal(cell_of(&m, "tflops_per_sec"), "2.0");
    assert_string_equal(cell_of(&m, "hbm_bw_GBps"), "1000000.0");
    assert_string_equal(cell_of(&m, "flops_util"), "0.25");
    assert_string_equal(cell_of(&m, "hbm_bw_util"), "0.5");
    free(m.p);

    /* Zero time: the int sentinels. Untimed: int 0 utilisations. */
    op->exe_ns = 0;
    op->bounded_by = BOUND_NONE;
    m = write_mem(&t, NULL);
    assert_string_equal(cell_of(&m, "Bounded-by"), "");
    assert_string_equal(cell_of(&m, "static_power_W"), "-1");
    assert_string_equal(cell_of(&m, "dynamic_power_W"), "-1");
    assert_string_equal(cell_of(&m, "tflops_per_sec"), "0");
    assert_string_equal(cell_of(&m, "hbm_bw_GBps"), "0");
    assert_string_equal(cell_of(&m, "flops_util"), "0");
    assert_string_equal(cell_of(&m, "hbm_bw_util"), "0");
    free(m.p);
    trace_free(&t);
}

static void test_cells_energy(void **state)
{
    (void)state;
    struct trace t;
    trace_init(&t);
    struct op *op = make_op(&t, "Add(a=1)");
    op->energy_done = true;
    for (int c = 0; c < NUM_COMP; c++) {
        op->dvfs[c].voltage_V = 0.7;
        op->dvfs[c].freq_GHz = 1.7;
        op->dvfs[c].scaling_time_ns = 0;
    }
    op->static_J[EN_SA] = 0.5;
    op->static_J[EN_OTHER] = 0.25;
    op->dynamic_J[EN_HBM] = 1e-05;
    struct mem m = write_mem(&t, NULL);
    assert_string_equal(cell_of(&m, "DVFS SA Voltage (V)"), "0.7");
    assert_string_equal(cell_of(&m, "DVFS ICI Frequency (GHz)"), "1.7");
    assert_string_equal(cell_of(&m, "DVFS HBM Scaling Time (ns)"), "0");
    assert_string_equal(cell_of(&m, "static_energy_sa_J"), "0.5");
    assert_string_equal(cell_of(&m, "static_energy_vu_J"), "0.0");
    assert_string_equal(cell_of(&m, "dynamic_energy_hbm_J"), "1e-05");
    assert_string_equal(cell_of(&m, "static_energy_J"), "0.75");
    assert_string_equal(cell_of(&m, "dynamic_energy_J"), "1e-05");
    assert_string_equal(cell_of(&m, "total_energy_J"), "0.75001");
    /* 0.75 J over 1000 ns = 7.5e5 W; computed as E / exe * 1e9. */
    assert_string_equal(cell_of(&m, "static_power_W"), "750000.0");
    assert_string_equal(cell_of(&m, "dynamic_power_W"), "10.0");
    free(m.p);
    trace_free(&t);
}

static void test_blank_stats_per_kind(void **state)
{
    (void)state;
    static const char *const stats[] = { "dim_labels", "tile_shapes", "num_tiles",
        "max_vmem_demand_bytes", "einsum_B_size", "einsum_M_size", "einsum_N_size",
        "einsum_K_size" };
    static const char *const want[3][8] = {
        [STATS_BASE] = { "", "", "", "", "", "", "", "" },
        [STATS_EINSUM] = { "BM;MN->BN", "[[1]]", "3", "12", "14", "15", "16", "17" },
        [STATS_FA] = { "BM;MN->BN", "[[1]]", "", "12", "14", "15", "16", "17" },
    };
    for (int k = STATS_BASE; k <= STATS_FA; k++) {
        struct trace t;
        trace_init(&t);
        make_op(&t, "Foo()")->stats_kind = (enum op_stats_kind)k;
        struct mem m = write_mem(&t, NULL);
        for (int i = 0; i < 8; i++)
            assert_string_equal(cell_of(&m, stats[i]), want[k][i]);
        /* Always printed, whatever the kind. */
        assert_string_equal(cell_of(&m, "num_mxu_ops"), "13");
        assert_string_equal(cell_of(&m, "vu_softmax_time_ns"), "18");
        free(m.p);
        trace_free(&t);
    }
}

static void test_phase_column_and_filter(void **state)
{
    (void)state;
    struct trace t;
    trace_init(&t);
    make_op(&t, "A()")->phase = PHASE_PREFILL;
    make_op(&t, "B()")->phase = PHASE_DECODE;
    make_op(&t, "C()")->phase = PHASE_DECODE;
    struct trace_csv_opts o = { PHASE_DECODE, true, false };
    struct mem m = write_mem(&t, &o);
    const char *hdr_end = strstr(m.p, "\r\n");
    assert_true(hdr_end - m.p > 7 && memcmp(hdr_end - 6, ",Phase", 6) == 0);
    int rows = 0;
    for (const char *s = hdr_end + 2; (s = strstr(s, ",decode\r\n")) != NULL; s++)
        rows++;
    assert_int_equal(rows, 2);
    assert_null(strstr(m.p, "prefill"));

    struct trace u;
    trace_init(&u);
    struct npu_err e;
    assert_int_equal(trace_read_csv_buffer(&u, m.p, m.n, "p.csv", &e), 0);
    assert_i64(u.n, 2);
    assert_int_equal(u.ops[0].phase, PHASE_DECODE);
    assert_string_equal(u.ops[1].config, "C()");
    free(m.p);
    trace_free(&u);
    trace_free(&t);
}

static void test_reader_classifies_config(void **state)
{
    (void)state;
    static const struct {
        const char *config;
        enum opcode_type opc;
        enum op_stats_kind kind;
    } cases[] = {
        { "XlaEinsum(a=1)", OPC_EINSUM, STATS_EINSUM },
        { "BatchMatMul(a=1)", OPC_EINSUM, STATS_EINSUM },
        { "Conv2D(a=1)", OPC_CONV2D, STATS_EINSUM },
        { "FlashAttention(q=1)", OPC_FLASH_ATTENTION, STATS_FA },
        { "XlaEinsumX(a=1)", OPC_OTHER, STATS_BASE },
        { "Add(a=1)", OPC_OTHER, STATS_BASE },
        { "", OPC_OTHER, STATS_BASE },
    };
    struct trace t;
    trace_init(&t);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        make_op(&t, cases[i].config)->stats_kind = cases[i].kind;
    struct mem m = write_mem(&t, NULL);
    struct trace u;
    trace_init(&u);
    struct npu_err e;
    assert_int_equal(trace_read_csv_buffer(&u, m.p, m.n, "k.csv", &e), 0);
    assert_i64(u.n, t.n);
    for (size_t i = 0; i < u.n; i++) {
        assert_int_equal(u.ops[i].opcode_type, cases[i].opc);
        assert_int_equal(u.ops[i].stats_kind, cases[i].kind);
    }
    /* Every field the writer prints survives the trip. */
    const struct op *a = &t.ops[0], *b = &u.ops[0];
    assert_i64(b->fusion_id, a->fusion_id);
    assert_i64(b->count, a->count);
    assert_i64(b->exe_ns, a->exe_ns);
    assert_i64(b->sa_ns, a->sa_ns);
    assert_i64(b->vu_ns, a->vu_ns);
    assert_i64(b->bytes, a->bytes);
    assert_i64(b->num_tiles, a->num_tiles);
    assert_i64(b->einsum_k, a->einsum_k);
    assert_int_equal(b->type, OP_MXU);
    assert_int_equal(b->bounded_by, BOUND_MEMORY);
    assert_false(b->energy_done);
    assert_true(b->hbm_bw_util == 0.5);
    free(m.p);
    trace_free(&u);
    trace_free(&t);
}

/* ---- byte identity ------------------------------------------------------ */

/* read(path) then write must give exactly the bytes of expect_path. */
static void check_identity(const char *path, const char *expect_path)
{
    struct trace t;
    trace_init(&t);
    struct npu_err e = { { 0 } };
    if (trace_read_csv(&t, path, &e) != 0)
        fail_msg("%s", e.msg);
    assert_true(t.n > 0);
    struct mem out = write_mem(&t, NULL);
    struct mem ref = slurp(expect_path);
    assert_mem_equal(out, ref);
    free(out.p);
    free(ref.p);
    trace_free(&t);
}

static void test_reference_raw_identity(void **state)
{
    (void)state;
    check_identity(GOLDEN("raw_excerpt.csv.gz"), GOLDEN("raw_excerpt.csv.gz"));
}

/* Energy-pass outputs carry 10 trailing slack columns the op record does not
 * hold; the reader ignores them and the 101 reference columns come back
 * byte for byte (energy_excerpt.csv.gz is the 111-column excerpt cut to 101
 * columns with Python's csv module). */
static void test_reference_energy_identity(void **state)
{
    (void)state;
    /* The energy stage's 10 slack columns are kept. */
    check_identity(GOLDEN("energy_excerpt_111.csv.gz"), GOLDEN("energy_excerpt_111.csv.gz"));
    check_identity(GOLDEN("energy_excerpt.csv.gz"), GOLDEN("energy_excerpt.csv.gz"));
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    assert_int_equal(trace_read_csv(&t, GOLDEN("energy_excerpt.csv.gz"), &e), 0);
    assert_true(t.ops[0].energy_done);
    assert_true(t.ops[0].dvfs[COMP_SA].freq_GHz == 1.7);
    trace_free(&t);
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/npusim-test-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void roundtrip_file(const char *file, const struct trace_csv_opts *o)
{
    struct trace t;
    trace_init(&t);
    struct npu_err e = { { 0 } };
    assert_int_equal(trace_read_csv(&t, GOLDEN("raw_excerpt.csv.gz"), &e), 0);
    assert_int_equal(trace_read_csv(&t, GOLDEN("energy_excerpt.csv.gz"), &e), 0);
    for (size_t i = 0; i < t.n; i++)
        t.ops[i].phase = i % 3 == 0 ? PHASE_NONE : i % 3 == 1 ? PHASE_PREFILL : PHASE_DECODE;
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, file);
    if (trace_write_csv(&t, path, o, &e) != 0)
        fail_msg("%s", e.msg);
    struct mem first = slurp(path);

    struct trace u;
    trace_init(&u);
    if (trace_read_csv(&u, path, &e) != 0)
        fail_msg("%s", e.msg);
    assert_i64(u.n, t.n);
    struct mem second = write_mem(&u, o);
    assert_mem_equal(first, second);
    if (o && o->phase_column)
        for (size_t i = 0; i < u.n; i++)
            assert_int_equal(u.ops[i].phase, t.ops[i].phase);
    free(first.p);
    free(second.p);
    trace_free(&u);
    trace_free(&t);
}

static void test_roundtrip_plain(void **state)
{
    (void)state;
    roundtrip_file("plain.csv", NULL);
}

static void test_roundtrip_phase(void **state)
{
    (void)state;
    struct trace_csv_opts o = { PHASE_NONE, true, false };
    roundtrip_file("phase.csv", &o);
}

static void test_roundtrip_gz(void **state)
{
    (void)state;
    struct trace_csv_opts o = { PHASE_NONE, true, false };
    roundtrip_file("trace.csv.gz", &o);
    /* The file really is gzip (magic 1f 8b), not plain text. */
    char path[256];
    snprintf(path, sizeof path, "%s/trace.csv.gz", tmpdir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char magic[2];
    assert_int_equal(fread(magic, 1, 2, f), 2);
    fclose(f);
    assert_int_equal(magic[0], 0x1f);
    assert_int_equal(magic[1], 0x8b);
}

/* ---- reader errors ------------------------------------------------------ */

/* A valid one-op CSV (header + row) in a malloc'ed buffer. */
static struct mem valid_csv(void)
{
    struct trace t;
    trace_init(&t);
    make_op(&t, "XlaEinsum(a=1)")->stats_kind = STATS_EINSUM;
    make_op(&t, "Add(a=1)");
    struct mem m = write_mem(&t, NULL);
    trace_free(&t);
    return m;
}

static void replace_once(struct mem *m, const char *from, const char *to)
{
    char *at = strstr(m->p, from);
    assert_non_null(at);
    size_t nf = strlen(from), nt = strlen(to), head = (size_t)(at - m->p);
    char *p = malloc(m->n - nf + nt + 1);
    memcpy(p, m->p, head);
    memcpy(p + head, to, nt);
    memcpy(p + head + nt, at + nf, m->n - head - nf + 1);
    free(m->p);
    m->p = p;
    m->n = m->n - nf + nt;
}

/* Reading bad input fails, names the input and `needle`, and leaves the
 * trace (which already holds one op) untouched. */
static void expect_error(const struct mem *m, const char *needle)
{
    struct trace t;
    trace_init(&t);
    make_op(&t, "Keep()");
    struct npu_err e = { { 0 } };
    assert_int_equal(trace_read_csv_buffer(&t, m->p, m->n, "bad.csv", &e), -1);
    if (!strstr(e.msg, "bad.csv") || !strstr(e.msg, needle))
        fail_msg("message \"%s\" lacks \"%s\"", e.msg, needle);
    assert_i64(t.n, 1);
    assert_string_equal(t.ops[0].config, "Keep()");
    trace_free(&t);
}

/* The valid CSV with one edit (from -> to, first occurrence) must fail
 * with needle in the message. */
static void expect_edit_error(const char *from, const char *to, const char *needle)
{
    struct mem m = valid_csv();
    replace_once(&m, from, to);
    expect_error(&m, needle);
    free(m.p);
}

static void test_error_missing_column(void **state)
{
    (void)state;
    expect_edit_error(",Count,", ",Cnt,", "bad.csv:1: missing column \"Count\"");
}

static void test_error_bad_int(void **state)
{
    (void)state;
    /* Count of the second row (line 3). */
    expect_edit_error("Add(a=1),opname,MXU,32,", "Add(a=1),opname,MXU,abc,",
                      "bad.csv:3: column \"Count\": expected an integer from 0 to 2^40, got \"abc\"");
    expect_edit_error(",1000,400,", ",1000 ,400,",
                      "bad.csv:2: column \"Execution time\": expected an integer >= 0, got \"1000 \"");
    expect_edit_error(",MXU,", ",GPU,", "bad.csv:2: column \"OpType\"");
    expect_edit_error(",0.25,", ",0.25x,", "bad.csv:2: column \"flops_util\": expected a finite number");
    expect_edit_error(",0.25,", ",nan,", "bad.csv:2: column \"flops_util\": expected a finite number");
    expect_edit_error(",0.25,", ",-inf,", "bad.csv:2: column \"flops_util\": expected a finite number");
    expect_edit_error(",1000,400,", ",-1000,400,", "bad.csv:2: column \"Execution time\": expected an integer >= 0");
}

/* Integer cells: decimal digits only, no int64 overflow (the reader parses
 * them by hand, not with strtoll); a Count from 0 to 2^40. */
static void test_int_cell_range(void **state)
{
    (void)state;
    static const struct { const char *text; int ok; int64_t v; } cases[] = {
        { "1099511627776", 1, (int64_t)1 << 40 },
        { "1099511627777", 0, 0 },
        { "9223372036854775807", 0, 0 },
        { "-9223372036854775808", 0, 0 },
        { "-1", 0, 0 },
        { "007", 1, 7 },
        { "-0", 1, 0 },
        { "9223372036854775808", 0, 0 },
        { "-9223372036854775809", 0, 0 },
        { "99999999999999999999", 0, 0 },
        { "+5", 0, 0 },
        { "-", 0, 0 },
        { "0x10", 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mem m = valid_csv();
        char to[64];
        snprintf(to, sizeof to, "Add(a=1),opname,MXU,%s,", cases[i].text);
        replace_once(&m, "Add(a=1),opname,MXU,32,", to);
        if (!cases[i].ok) {
            expect_error(&m, "column \"Count\": expected an integer");
        } else {
            struct trace t;
            trace_init(&t);
            struct npu_err e = { { 0 } };
            assert_int_equal(trace_read_csv_buffer(&t, m.p, m.n, "ok.csv", &e), 0);
            assert_i64(t.ops[1].count, cases[i].v);
            trace_free(&t);
        }
        free(m.p);
    }
}

/* Float cells: "N.0" takes a short path (traces/trace_csv.c parse_double);
 * every form must read as strtod reads it, and the near misses (other
 * fractions, signs, 16+ digits, a trailing byte) take the general parser. */
static void test_float_cell_forms(void **state)
{
    (void)state;
    static const char *const ok[] = {
        "0.0", "1.0", "100.0", "007.0", "123456789012345.0", "1234567890123456.0",
        "99999999999999999999.0", "1.00", "1.05", "-1.0", "-0.0", "+1.0", ".0", "1.", "1e3", "0.25",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        struct mem m = valid_csv();
        char to[64];
        snprintf(to, sizeof to, ",%s,", ok[i]);
        replace_once(&m, ",0.25,", to);
        struct trace t;
        trace_init(&t);
        struct npu_err e = { { 0 } };
        assert_int_equal(trace_read_csv_buffer(&t, m.p, m.n, "f.csv", &e), 0);
        double want = strtod(ok[i], NULL);
        if (memcmp(&t.ops[0].flops_util, &want, sizeof want) != 0)
            fail_msg("\"%s\" read as %.17g, strtod says %.17g", ok[i], t.ops[0].flops_util, want);
        trace_free(&t);
        free(m.p);
    }
    static const char *const bad[] = { "1.0x", "1.0 ", "1..0", "1.0.0", "1.0e" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char to[64];
        snprintf(to, sizeof to, ",%s,", bad[i]);
        expect_edit_error(",0.25,", to, "column \"flops_util\": expected a finite number");
    }
}

static void test_error_field_count(void **state)
{
    (void)state;
    expect_edit_error("Add(a=1),", "Add(a=1),extra,", "bad.csv:3: expected 101 fields, got 102");
    expect_edit_error("7,desc,XlaEinsum(a=1),", "7,XlaEinsum(a=1),",
                      "bad.csv:2: expected 101 fields, got 100");
    /* Cells are parsed as libcsv hands them over, but a row's field count is
     * still reported before any of its bad cells. */
    expect_edit_error("Add(a=1),opname,MXU,32,", "Add(a=1),opname,MXU,abc,extra,",
                      "bad.csv:3: expected 101 fields, got 102");
    /* A quoted cell over two lines: errors name the row's last line. */
    expect_edit_error("Add(a=1),opname,MXU,32,", "\"Add(a=1\n)\",opname,MXU,3x2,",
                      "bad.csv:4: column \"Count\": expected an integer from 0 to 2^40, got \"3x2\"");
}

static void test_error_malformed_and_empty(void **state)
{
    (void)state;
    expect_edit_error(",desc,", ",de\"sc,", "bad.csv:2: malformed CSV");
    expect_edit_error("7,desc,", "7,\"desc,", "malformed CSV");
    /* A NUL byte inside a field is refused with its line and field, not cut
     * short (the reader scans the whole input for one first, and the fields
     * only when it finds one); one in the last row is found too. */
    struct mem m = valid_csv();
    char *d = strstr(m.p, ",desc,");
    assert_non_null(d);
    d[3] = '\0';
    expect_error(&m, "bad.csv:2: field 2 contains a NUL byte");
    free(m.p);
    m = valid_csv();
    d = strstr(m.p, "Add(a=1)");
    assert_non_null(d);
    d[4] = '\0';
    expect_error(&m, "bad.csv:3: field 3 contains a NUL byte");
    free(m.p);
    struct mem empty = { (char *)"", 0 };
    expect_error(&empty, "empty input");
    struct mem blank = { (char *)"\r\n\r\n", 4 };
    expect_error(&blank, "empty input");
}

static void test_error_missing_file(void **state)
{
    (void)state;
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    assert_int_equal(trace_read_csv(&t, "tests/golden/traces/no-such.csv", &e), -1);
    assert_non_null(strstr(e.msg, "tests/golden/traces/no-such.csv"));
    assert_non_null(strstr(e.msg, strerror(ENOENT)));
    assert_i64(t.n, 0);
}

static void test_header_only_is_empty_trace(void **state)
{
    (void)state;
    struct trace t;
    trace_init(&t);
    struct mem m = write_mem(&t, NULL);
    struct npu_err e;
    assert_int_equal(trace_read_csv_buffer(&t, m.p, m.n, "h.csv", &e), 0);
    assert_i64(t.n, 0);
    free(m.p);
}

/* Deterministic mutations of a valid CSV: the reader may accept or reject
 * each, but must never crash, and a rejected read leaves the trace as it
 * was (leaks are caught by `make check`, which runs under ASan). */
static void test_fuzz_mutations(void **state)
{
    (void)state;
    struct mem base = valid_csv();
    uint64_t seed = 0x2545F4914F6CDD1Dull;
#define LCG() (seed = seed * 6364136223846793005ull + 1442695040888963407ull, (uint32_t)(seed >> 33))
    static const char alphabet[] = ",\"\r\n0a-.e\0 9(";
    char *buf = malloc(base.n + 64);
    int ok = 0, bad = 0;
    for (int iter = 0; iter < 2000; iter++) {
        size_t n = base.n;
        memcpy(buf, base.p, n);
        int edits = 1 + (int)(LCG() % 4);
        for (int k = 0; k < edits; k++) {
            size_t at = n ? LCG() % n : 0;
            char ch = LCG() % 2 ? alphabet[LCG() % (sizeof alphabet - 1)] : (char)LCG();
            switch (LCG() % 3) {
            case 0: if (n) buf[at] = ch; break;
            case 1: memmove(buf + at + 1, buf + at, n - at); buf[at] = ch; n++; break;
            default: if (n) { memmove(buf + at, buf + at + 1, n - at - 1); n--; } break;
            }
        }
        /* Occasionally truncate, to exercise end-of-input paths. */
        if (iter % 17 == 0)
            n = LCG() % (n + 1);
        struct trace t;
        trace_init(&t);
        struct npu_err e;
        if (trace_read_csv_buffer(&t, buf, n, "fuzz.csv", &e) == 0) {
            ok++;
        } else {
            bad++;
            assert_i64(t.n, 0);
            assert_non_null(strstr(e.msg, "fuzz.csv"));
        }
        trace_free(&t);
    }
#undef LCG
    /* The mutations must exercise both outcomes to mean anything. */
    assert_true(ok > 0);
    assert_true(bad > 0);
    free(buf);
    free(base.p);
}

/* ---- read-back without the text ---------------------------------------- */

/* a and b hold the same values: the strings by content, every other byte of
 * the record (numbers bit for bit, so NaN == NaN and 0.0 != -0.0) as is.
 * Both come from op_init, so padding and the policy arrays' tails agree. */
static void assert_same_op(const struct op *a, const struct op *b, size_t i)
{
    struct op x = *a, y = *b;
#define STR(f) \
    if (strcmp(a->f, b->f) != 0) \
        fail_msg("op %zu: %s \"%s\" != \"%s\"", i, #f, a->f, b->f); \
    x.f = y.f = NULL;
    STR(description) STR(config) STR(name) STR(opcode) STR(in_shapes) STR(out_shape)
    STR(parsed_op_type) STR(dim_labels) STR(tile_shapes)
#undef STR
    const unsigned char *px = (const unsigned char *)&x, *py = (const unsigned char *)&y;
    for (size_t k = 0; k < sizeof x; k++)
        if (px[k] != py[k])
            fail_msg("op %zu: the records differ at byte %zu of %zu", i, k, sizeof x);
}

/* trace_csv_readback(t, o) must be what reading t's text back gives. */
static void check_readback(const struct trace *t, const struct trace_csv_opts *o)
{
    struct mem m = write_mem(t, o);
    struct trace read, proj;
    trace_init(&read);
    trace_init(&proj);
    struct npu_err e = { { 0 } };
    if (trace_read_csv_buffer(&read, m.p, m.n, "readback.csv", &e) != 0)
        fail_msg("%s", e.msg);
    trace_csv_readback(&proj, t, o);
    assert_i64(proj.n, read.n);
    /* A suite holds thousands of these: exactly their ops' room, no
     * doubling (which cost a third of the sweep stage's page faults). */
    assert_i64(proj.cap, proj.n);
    for (size_t i = 0; i < read.n; i++)
        assert_same_op(&proj.ops[i], &read.ops[i], i);
    trace_free(&read);
    trace_free(&proj);
    free(m.p);
}

/* trace_reserve makes exactly the room asked for; pushes within it keep
 * the ops in place, and the next push grows the trace again. */
static void test_trace_reserve(void **state)
{
    (void)state;
    struct trace t;
    trace_init(&t);
    trace_reserve(&t, 0);
    assert_i64(t.cap, 0);
    trace_reserve(&t, 3);
    assert_i64(t.cap, 3);
    struct op *ops = t.ops;
    for (int i = 0; i < 3; i++)
        trace_push(&t)->count = i + 1;
    assert_ptr_equal(t.ops, ops);
    assert_i64(t.cap, 3);
    trace_reserve(&t, 2);
    assert_i64(t.cap, 5);
    trace_push(&t);
    trace_push(&t);
    trace_push(&t)->count = 6;
    assert_true(t.cap >= 6);
    assert_i64(t.n, 6);
    assert_i64(t.ops[2].count, 3);
    assert_i64(t.ops[5].count, 6);
    trace_free(&t);
}

static const struct trace_csv_opts readback_opts[] = {
    { PHASE_NONE, false, false }, { PHASE_PREFILL, false, false }, { PHASE_DECODE, false, false },
    { PHASE_NONE, true, false }, { PHASE_DECODE, true, true }, { PHASE_NONE, false, true },
};
#define N_READBACK_OPTS (sizeof readback_opts / sizeof readback_opts[0])

/* The reference's own traces, raw and after the energy pass. */
static void test_readback_reference(void **state)
{
    (void)state;
    static const char *const files[] = { GOLDEN("raw_excerpt.csv.gz"), GOLDEN("energy_excerpt.csv.gz"),
                                         GOLDEN("energy_excerpt_111.csv.gz") };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        struct trace t;
        trace_init(&t);
        struct npu_err e = { { 0 } };
        assert_int_equal(trace_read_csv(&t, files[f], &e), 0);
        for (size_t i = 0; i < t.n; i++) {
            t.ops[i].phase = (enum phase)(i % 3);
            t.ops[i].group = f == 1 ? (int32_t)(i % 2) : 0;
        }
        for (size_t k = 0; k < N_READBACK_OPTS; k++)
            check_readback(&t, &readback_opts[k]);
        trace_free(&t);
    }
}

/* Random ops: every field drawn from values that stress a cell rule
 * (quoting, NaN and signed zero, int64 limits, blank statistics, the int-0
 * energies, a statistics kind the config does not imply). */
static void test_readback_random(void **state)
{
    (void)state;
    static const char *const strs[] = { "", "a", "x,y", "say \"hi\"", "two\r\nlines", " pad ", "\"", "c\rd",
                                        "XlaEinsum(eq=a)", "FlashAttention(x)", "Conv2D(s)", "BatchMatMul(1)",
                                        "Add(a=1)", "DT_BFLOAT16:[1,2],DT_BFLOAT16:[2]", "[DT_BFLOAT16:(1,2)]" };
    /* Finite numbers only, times and sizes >= 0 and counts up to 2^40: what
     * the reader accepts (test_bad_cells covers the rest). */
    static const double dbls[] = { 0.0, -0.0, 1.0, 0.1, 1.7, -88.5, 1e300, 5e-324, 1e16, 9007199254740993.0,
                                   123456789012345.6, -1e300 };
    static const int64_t ints[] = { 0, 1, -1, 20, 1073741824, INT64_MAX, INT64_MIN, 999999999999 };
    static const int64_t nonneg[] = { 0, 1, 20, 1073741824, INT64_MAX, 999999999999 };
    static const int64_t counts[] = { 0, 1, 20, 1073741824, (int64_t)1 << 40 };
    static const char *const policies[] = { "None", "Ideal", "", "a,b", "fifteen chars!!" };
    uint64_t seed = 0x9E3779B97F4A7C15ull;
#define LCG() (seed = seed * 6364136223846793005ull + 1442695040888963407ull, (uint32_t)(seed >> 33))
#define PICK(a) (a[LCG() % (sizeof a / sizeof a[0])])
    for (int iter = 0; iter < 300; iter++) {
        struct trace t;
        trace_init(&t);
        int nops = (int)(LCG() % 5);
        for (int k = 0; k < nops; k++) {
            struct op *op = trace_push(&t);
#define S(f) op_set(&op->f, PICK(strs));
            S(description) S(config) S(name) S(opcode) S(in_shapes) S(out_shape) S(parsed_op_type)
            S(dim_labels) S(tile_shapes)
#undef S
            int64_t *iv[] = { &op->flops, &op->weight_bytes, &op->ici_out_bytes,
                              &op->ici_in_bytes, &op->pcie_ns, &op->exe_ns, &op->mem_ns, &op->ici_ns,
                              &op->sa_ns, &op->vu_ns, &op->vmem_ns, &op->bytes, &op->num_tiles,
                              &op->max_vmem_demand_bytes, &op->num_sa_ops, &op->einsum_b, &op->einsum_m,
                              &op->einsum_n, &op->einsum_k, &op->vu_softmax_ns };
            for (size_t v = 0; v < sizeof iv / sizeof iv[0]; v++)
                *iv[v] = PICK(nonneg);
            op->fusion_id = PICK(ints);
            op->count = PICK(counts);
            op->type = (enum op_type)(LCG() % 4);
            op->bounded_by = (enum bounded_by)(LCG() % 4);
            op->stats_kind = (enum op_stats_kind)(LCG() % 3);
            op->opcode_type = (enum opcode_type)(LCG() % 9);
            op->phase = (enum phase)(LCG() % 3);
            op->group = LCG() % 4 == 0 ? (int32_t)(LCG() % 7) : 0;
            op->flops_util = PICK(dbls);
            op->hbm_bw_util = PICK(dbls);
            op->energy_done = LCG() % 2;
            op->has_slack = LCG() % 3 == 0;
            for (int c = 0; c < NUM_COMP; c++) {
                strcpy(op->dvfs[c].policy, PICK(policies));
                op->dvfs[c].voltage_V = PICK(dbls);
                op->dvfs[c].freq_GHz = PICK(dbls);
                op->dvfs[c].scaling_time_ns = PICK(ints);
                op->dvfs[c].efficiency_pct = PICK(dbls);
                op->dvfs[c].activity = PICK(dbls);
                op->num_setpm[c] = PICK(ints);
            }
            for (int c = 0; c < NUM_EN; c++) {
                op->static_J[c] = PICK(dbls);
                op->dynamic_J[c] = PICK(dbls);
            }
            for (int c = 0; c < NUM_SLACK; c++) {
                op->dvfs_extra_ns[c] = PICK(ints);
                op->dvfs_extra_ratio[c] = PICK(dbls);
            }
        }
        check_readback(&t, &readback_opts[LCG() % N_READBACK_OPTS]);
        trace_free(&t);
    }
#undef PICK
#undef LCG
}

/* pyfmt's layout of the shortest digits (positional or scientific, as
 * Python's repr; the digits themselves are tested in test_shortest.c). */
static void test_float_repr(void **state)
{
    (void)state;
    static const struct {
        double x;
        const char *repr;
    } cases[] = {
        { 0.1, "0.1" }, { 1e-05, "1e-05" }, { 1.2345e+17, "1.2345e+17" },
        { 0.1 + 0.2, "0.30000000000000004" }, { 1e16, "1e+16" },
        { 9999999999999998.0, "9999999999999998.0" }, { 123456789012345.6, "123456789012345.6" },
        { 0.00024011023283582094, "0.00024011023283582094" }, { -88.5, "-88.5" },
        { 2.2250738585072014e-308, "2.2250738585072014e-308" },
        { 1.7976931348623157e308, "1.7976931348623157e+308" },
        { 4.7e-312, "4.7e-312" }, { 5e-324, "5e-324" },
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(py_repr_double(cases[i].x, buf, sizeof buf), cases[i].repr);
}

/* "-" reads standard input. */
static void test_read_stdin(void **state)
{
    (void)state;
    int saved = dup(0);
    assert_true(saved >= 0);
    FILE *f = fopen(GOLDEN("raw_excerpt.csv.gz"), "rb");
    assert_non_null(f);
    assert_true(dup2(fileno(f), 0) == 0);
    fclose(f);
    struct trace t;
    trace_init(&t);
    struct npu_err e = { { 0 } };
    int rc = trace_read_csv(&t, "-", &e);
    dup2(saved, 0);
    close(saved);
    if (rc != 0)
        fail_msg("%s", e.msg);
    struct trace u;
    trace_init(&u);
    assert_int_equal(trace_read_csv(&u, GOLDEN("raw_excerpt.csv.gz"), &e), 0);
    assert_true(t.n > 20);
    assert_i64(t.n, u.n);
    trace_free(&t);
    trace_free(&u);
}

/* ---- atomic files ------------------------------------------------------- */

static int count_entries(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

/* atomic_commit_all: when a rename fails after others succeeded, the files
 * those created are removed again and a file that stood there before keeps
 * its new content (it cannot come back); make_dirs_undoable takes back the
 * folders it made, innermost first, and only those. */
static void test_atomic_commit_all_and_undo(void **state)
{
    (void)state;
    char root[300], dir[400], p[3][500];
    snprintf(root, sizeof root, "%s/commit_all", tmpdir);
    struct npu_err e;
    struct made_dirs m;
    snprintf(dir, sizeof dir, "%s/x/y/z", root);
    assert_int_equal(make_dirs(root, &e), 0);
    assert_int_equal(make_dirs_undoable(dir, &m, &e), 0);
    assert_int_equal(m.n, 3);                 /* x, x/y, x/y/z */
    for (int i = 0; i < 3; i++)
        snprintf(p[i], sizeof p[i], "%s/f%d.txt", dir, i);
    FILE *f = fopen(p[0], "w");               /* f0 exists before: replaced, kept */
    fputs("old", f);
    fclose(f);
    struct atomic_file a[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(atomic_open(&a[i], p[i], &e), 0);
        fputs("new", a[i].f);
    }
    assert_int_equal(mkdir(p[2], 0777), 0);   /* the third rename now fails */
    assert_int_equal(atomic_commit_all(a, 3, &e), -1);
    assert_non_null(strstr(e.msg, "f2.txt"));
    struct stat st;
    assert_int_equal(stat(p[0], &st), 0);     /* replaced before the failure */
    assert_int_not_equal(stat(p[1], &st), 0); /* created, then removed again */
    assert_int_equal(rmdir(p[2]), 0);
    assert_int_equal(unlink(p[0]), 0);
    made_dirs_undo(&m);                       /* now empty: all three go */
    snprintf(dir, sizeof dir, "%s/x", root);
    assert_int_not_equal(stat(dir, &st), 0);
    assert_int_equal(stat(root, &st), 0);     /* not made by it: stays */
    /* A folder left non-empty is kept (rmdir only). */
    snprintf(dir, sizeof dir, "%s/k/l", root);
    assert_int_equal(make_dirs_undoable(dir, &m, &e), 0);
    snprintf(p[0], sizeof p[0], "%s/k/keep", root);
    fclose(fopen(p[0], "w"));
    made_dirs_undo(&m);
    snprintf(dir, sizeof dir, "%s/k", root);
    assert_int_equal(stat(dir, &st), 0);
    snprintf(dir, sizeof dir, "%s/k/l", root);
    assert_int_not_equal(stat(dir, &st), 0);
}

static void test_atomic_abort_and_commit(void **state)
{
    (void)state;
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "%s/atomic/a/b", tmpdir);
    struct npu_err e;
    assert_int_equal(make_dirs(dir, &e), 0);
    assert_int_equal(make_dirs(dir, &e), 0); /* already there: fine */
    snprintf(path, sizeof path, "%s/out.csv", dir);

    struct atomic_file a;
    assert_int_equal(atomic_open(&a, path, &e), 0);
    fputs("partial", a.f);
    assert_int_equal(count_entries(dir), 1); /* the temporary */
    atomic_abort(&a);
    assert_int_equal(count_entries(dir), 0);

    assert_int_equal(atomic_write_string(path, "hello\n", &e), 0);
    assert_int_equal(count_entries(dir), 1);
    struct mem m = slurp(path);
    assert_i64(m.n, 6);
    assert_memory_equal(m.p, "hello\n", 6);
    free(m.p);

    /* A .gz target is gzip on disk and decompresses to what was written. */
    snprintf(path, sizeof path, "%s/out.txt.gz", dir);
    assert_int_equal(atomic_write_string(path, "zipped", &e), 0);
    m = slurp(path);
    assert_i64(m.n, 6);
    assert_memory_equal(m.p, "zipped", 6);
    free(m.p);
    assert_int_equal(count_entries(dir), 2);

    /* Errors name the path and the reason. */
    snprintf(path, sizeof path, "%s/missing/x.csv", dir);
    assert_int_equal(atomic_write_string(path, "x", &e), -1);
    assert_non_null(strstr(e.msg, path));
    assert_non_null(strstr(e.msg, strerror(ENOENT)));
    snprintf(path, sizeof path, "%s/out.csv/sub", dir);
    assert_int_equal(make_dirs(path, &e), -1);
    assert_non_null(strstr(e.msg, path));

    /* make_dirs: several missing levels, doubled and trailing slashes, a
     * relative path; a file in the way is named in the error. */
    char deep[400], probe[460];
    snprintf(deep, sizeof deep, "%s/md/x//y/z/", tmpdir);
    assert_int_equal(make_dirs(deep, &e), 0);
    snprintf(probe, sizeof probe, "%s/md/x/y/z", tmpdir);
    struct stat st;
    assert_int_equal(stat(probe, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(make_dirs(deep, &e), 0);
    snprintf(probe, sizeof probe, "%s/md/x/y/z/f", tmpdir);
    assert_int_equal(atomic_write_string(probe, "f", &e), 0);
    snprintf(deep, sizeof deep, "%s/md/x/y/z/f/g/h", tmpdir);
    assert_int_equal(make_dirs(deep, &e), -1);
    assert_non_null(strstr(e.msg, deep));
    assert_non_null(strstr(e.msg, strerror(ENOTDIR)));
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(probe, sizeof probe, "%s/md", tmpdir);
    assert_int_equal(chdir(probe), 0);
    assert_int_equal(make_dirs("rel/a/b", &e), 0);
    assert_int_equal(stat("rel/a/b", &st), 0);
    /* make_dirs_n: the folder of a file's path (its first n bytes), not the
     * file; n = 0 makes nothing; a failure names the whole path. */
    const char *file = "rel/c/d/file.json";
    assert_int_equal(make_dirs_n(file, strlen("rel/c/d"), &e), 0);
    assert_int_equal(stat("rel/c/d", &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(stat(file, &st), -1);
    assert_int_equal(make_dirs_n(file, 0, &e), 0);
    assert_int_equal(atomic_write_string("rel/c/d/f", "f", &e), 0);
    assert_int_equal(make_dirs_n("rel/c/d/f/g/x.json", strlen("rel/c/d/f/g"), &e), -1);
    assert_non_null(strstr(e.msg, "rel/c/d/f/g/x.json: "));
    assert_non_null(strstr(e.msg, strerror(ENOTDIR)));
    assert_int_equal(chdir(cwd), 0);

    /* A staged file is written under its own name: no temporary beside it,
     * abort removes it, and an existing file is never overwritten. */
    char sdir[300];
    snprintf(sdir, sizeof sdir, "%s/staged", tmpdir);
    assert_int_equal(make_dirs(sdir, &e), 0);
    snprintf(path, sizeof path, "%s/s.csv", sdir);
    assert_int_equal(atomic_open_staged(&a, path, &e), 0);
    fputs("staged", a.f);
    assert_int_equal(count_entries(sdir), 1);
    atomic_abort(&a);
    assert_int_equal(count_entries(sdir), 0);
    assert_int_equal(atomic_open_staged(&a, path, &e), 0);
    fputs("staged", a.f);
    assert_int_equal(atomic_commit(&a, &e), 0);
    assert_int_equal(count_entries(sdir), 1);
    m = slurp(path);
    assert_i64(m.n, 6);
    assert_memory_equal(m.p, "staged", 6);
    free(m.p);
    assert_int_equal(atomic_open_staged(&a, path, &e), -1);
    assert_non_null(strstr(e.msg, path));
    assert_non_null(strstr(e.msg, strerror(EEXIST)));
    /* Created 0666 less the umask, as the renamed temporaries are. */
    mode_t mask = umask(022);
    umask(mask);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
    snprintf(probe, sizeof probe, "%s/t.csv", sdir);
    assert_int_equal(atomic_write_string(probe, "t", &e), 0);
    assert_int_equal(stat(probe, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);

    /* A failed trace write leaves nothing behind either. */
    snprintf(path, sizeof path, "%s/nodir/t.csv", dir);
    struct trace t;
    trace_init(&t);
    assert_int_equal(trace_write_csv(&t, path, NULL, &e), -1);
    assert_int_equal(count_entries(dir), 2);
}

/* Empty string fields share one read-only "" (op.c), and copies share the
 * rest (opstr.c counts owners): every way of setting, copying, sharing and
 * freeing them must keep ownership straight (ASan checks the frees and any
 * use after the last owner let go under make check). */
static void test_op_string_lifetime(void **state)
{
    (void)state;
    struct trace t, u;
    trace_init(&t);
    trace_init(&u);
    struct op *o = trace_push(&t);
    assert_string_equal(o->name, "");
    assert_string_equal(o->tile_shapes, "");
    assert_ptr_equal(o->name, o->config);          /* the shared empty string */
    op_set(&o->name, "abc");
    op_setn(&o->config, "xyz!", 3);
    op_setf(&o->in_shapes, "%s:[%d]", "DT_BFLOAT16", 4);
    op_setn(&o->opcode, "abc", 0);                 /* empty: the shared "" again */
    op_set(&o->dim_labels, "");
    assert_string_equal(o->name, "abc");
    assert_string_equal(o->config, "xyz");
    assert_string_equal(o->in_shapes, "DT_BFLOAT16:[4]");
    assert_string_equal(o->opcode, "");
    assert_string_equal(o->dim_labels, "");
    /* A copy shares the strings (counted); each owner lets go on its own. */
    assert_int_equal(trace_append(&u, &t), 0);
    assert_string_equal(u.ops[0].name, "abc");
    assert_ptr_equal(u.ops[0].name, o->name);
    op_set(&o->name, "");
    op_set(&o->config, "");
    assert_string_equal(u.ops[0].name, "abc");
    assert_string_equal(u.ops[0].config, "xyz");
    struct op *w = trace_push(&u);
    op_share(&w->tile_shapes, o->in_shapes);       /* a third owner */
    op_share(&w->name, w->name);                   /* sharing with itself keeps it */
    trace_free(&t);
    assert_string_equal(u.ops[0].in_shapes, "DT_BFLOAT16:[4]");
    assert_string_equal(w->tile_shapes, "DT_BFLOAT16:[4]");
    assert_string_equal(w->name, "");
    op_free(&u.ops[0]);
    op_init(&u.ops[0]);
    assert_string_equal(w->tile_shapes, "DT_BFLOAT16:[4]");   /* the last owner */
    trace_free(&u);
}

/* ---- the row-tail memo of the CSV writer ---- */

/* The CSV text of t (slack columns on) into a malloc'ed string. */
static char *csv_text(const struct trace *t)
{
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    struct npu_err e;
    const struct trace_csv_opts o = { PHASE_NONE, false, true };
    assert_non_null(f);
    assert_int_equal(trace_write_csv_stream(t, f, &o, &e), 0);
    fclose(f);
    return text;
}

/* The last line of a CSV text (its last data row). */
static const char *last_row(const char *csv)
{
    size_t n = strlen(csv);
    assert_true(n > 2);
    const char *p = csv + n - 2;   /* before the final \r\n */
    while (p > csv && p[-1] != '\n')
        p--;
    return p;
}

struct cold_job {
    const struct op *op;
    char *csv;
};

/* Writes the op alone on a new thread: a memo that has seen nothing. */
static int cold_writer(void *arg)
{
    struct cold_job *j = arg;
    struct trace t;
    trace_init(&t);
    op_copy(trace_push(&t), j->op);
    j->csv = csv_text(&t);
    trace_free(&t);
    return 0;
}

/* One op field printed in the row's tail, changed. */
static void change_tail_field(struct op *o, int which)
{
    int k = which % 5;
    switch (which / 5) {
    case 0: snprintf(o->dvfs[k].policy, sizeof o->dvfs[k].policy, "Ideal"); break;
    case 1: o->dvfs[k].voltage_V += 0.05; break;
    case 2: o->dvfs[k].freq_GHz += 0.25; break;
    case 3: o->dvfs[k].scaling_time_ns += 3; break;
    case 4: o->dvfs[k].efficiency_pct -= 1.5; break;
    case 5: o->dvfs[k].activity = 0.5; break;
    case 6: o->static_J[k] *= 3; break;
    case 7: o->dynamic_J[k] *= 3; break;
    case 8: o->num_setpm[k] += 2; break;
    case 9: o->dvfs_extra_ns[k] += 11; break;
    case 10: o->dvfs_extra_ratio[k] += 0.125; break;
    case 11:
        switch (k) {
        case 0: o->static_J[NUM_EN - 1] += 1e-3; break;   /* "other": not a component */
        case 1: o->dynamic_J[NUM_EN - 1] += 1e-3; break;
        case 2: o->flops_util = 0.25; break;
        case 3: o->hbm_bw_util = 0.75; break;
        default: o->vmem_ns += 5; break;
        }
        break;
    case 13: o->energy_done = false; break;   /* which == 65 only */
    default:
        switch (k) {
        case 0: o->exe_ns += 1000; break;
        case 1: o->flops *= 2; break;
        case 2: o->bytes *= 2; break;
        case 3: o->bounded_by = BOUND_MEMORY; break;
        default: o->has_slack = false; break;
        }
        break;
    }
}
#define TAIL_FIELD_CHANGES (13 * 5 + 1)

/* A row's tail (energies, DVFS, rates, slack) comes from a memo when an
 * earlier row printed the same fields: an op that differs from one written
 * just before in any single such field prints what it prints alone, on a
 * thread whose memo is empty. And the memo's copy is the text itself. */
static void test_row_tail_memo(void **state)
{
    (void)state;
    struct op base;
    op_init(&base);
    op_set(&base.name, "matmul");
    op_set(&base.description, "d");
    op_set(&base.config, "XlaEinsum(x)");
    base.type = OP_MXU;
    base.bounded_by = BOUND_COMPUTE;
    base.exe_ns = 12345;
    base.sa_ns = 12000;
    base.mem_ns = 9000;
    base.vmem_ns = 700;
    base.flops = 1000000007;
    base.bytes = 33554432;
    base.flops_util = 0.8125;
    base.hbm_bw_util = 0.4375;
    base.energy_done = true;
    for (int c = 0; c < NUM_COMP; c++) {
        snprintf(base.dvfs[c].policy, sizeof base.dvfs[c].policy, "None");
        base.dvfs[c].voltage_V = 0.7;
        base.dvfs[c].freq_GHz = 1.75;
        base.num_setpm[c] = c;
    }
    for (int c = 0; c < NUM_EN; c++) {
        base.static_J[c] = 1e-4 * (c + 1) / 3;
        base.dynamic_J[c] = 2e-5 * (c + 2) / 7;
    }
    base.has_slack = true;
    for (int c = 0; c < NUM_SLACK; c++) {
        base.dvfs_extra_ns[c] = 100 * c + 1;
        base.dvfs_extra_ratio[c] = 0.1 * (c + 1);
    }
    for (int which = 0; which < TAIL_FIELD_CHANGES; which++) {
        struct trace t;
        trace_init(&t);
        op_copy(trace_push(&t), &base);
        struct op *changed = trace_push(&t);
        op_copy(changed, &base);
        change_tail_field(changed, which);
        char *warm = csv_text(&t);   /* base's tail is in this thread's memo now */
        struct cold_job j = { changed, NULL };
        thrd_t th;
        assert_int_equal(thrd_create(&th, cold_writer, &j), thrd_success);
        assert_int_equal(thrd_join(th, NULL), thrd_success);
        if (strcmp(last_row(warm), last_row(j.csv)) != 0)
            fail_msg("change %d: warm row\n%s\ncold row\n%s", which, last_row(warm), last_row(j.csv));
        /* The change shows in the row (else it would test nothing). */
        const char *row2 = last_row(warm);
        const char *row1 = row2 - 2;
        while (row1 > warm && row1[-1] != '\n')
            row1--;
        if (strncmp(row1, row2, (size_t)(row2 - row1)) == 0)
            fail_msg("change %d does not show in the row", which);
        /* The same op again: from the memo, the same text. */
        char *again = csv_text(&t);
        assert_string_equal(again, warm);
        free(again);
        free(warm);
        free(j.csv);
        trace_free(&t);
    }
    op_free(&base);
}

/* One op field printed in the row's head (the 43 columns before the power
 * columns), changed; false past the last. */
static bool change_head_field(struct op *o, int which)
{
    switch (which) {
    case 0: o->fusion_id += 1; break;
    case 1: op_set(&o->description, "d2"); break;
    case 2: op_set(&o->config, "XlaEinsum(y)"); break;
    case 3: op_set(&o->name, "matmul2"); break;
    case 4: o->type = OP_VPU; break;
    case 5: o->count += 1; break;
    case 6: o->bounded_by = BOUND_MEMORY; break;
    case 7: o->exe_ns += 1; break;
    case 8: o->sa_ns += 1; break;
    case 9: o->vu_ns += 1; break;
    case 10: o->mem_ns += 1; break;
    case 11: o->ici_ns += 1; break;
    case 12: o->ici_out_bytes += 1; break;
    case 13: o->ici_in_bytes += 1; break;
    case 14: o->pcie_ns += 1; break;
    case 15: o->bytes += 1; break;
    case 16: op_set(&o->in_shapes, "DT_BFLOAT16:[2,3]"); break;
    case 17: op_set(&o->out_shape, "[DT_BFLOAT16:(2,3)]"); break;
    case 18: o->flops += 1; break;
    case 19: op_set(&o->opcode, "Conv"); break;
    case 20: o->weight_bytes += 1; break;
    case 21: op_set(&o->parsed_op_type, "Conv"); break;
    case 22: o->stats_kind = STATS_BASE; break;
    case 23: op_set(&o->dim_labels, "ab,bc->ac"); break;
    case 24: op_set(&o->tile_shapes, "[(2, 2)]"); break;
    case 25: o->num_tiles += 1; break;
    case 26: o->max_vmem_demand_bytes += 1; break;
    case 27: o->num_sa_ops += 1; break;
    case 28: o->einsum_b += 1; break;
    case 29: o->einsum_m += 1; break;
    case 30: o->einsum_n += 1; break;
    case 31: o->einsum_k += 1; break;
    case 32: o->vu_softmax_ns += 1; break;
    case 33:   /* the config printed from a form (traces/op_form.h) */
        o->form.layout = FORM_ABS;
        strcpy(o->form.kind, "Abs");
        strcpy(o->form.dtype, "DT_INT8");
        break;
    case 34:   /* held shapes */
        o->form.in_held = o->form.out_held = true;
        o->form.n_in = 1;
        o->form.nd[0] = o->form.nd[FORM_OUT] = 1;
        o->form.d[0][0] = o->form.d[FORM_OUT][0] = 7;
        strcpy(o->form.dtype, "DT_INT8");
        break;
    default: return false;
    }
    return true;
}

/* CSV texts of t[0..n) written together (trace_write_csv_each). */
static void csv_each(const struct trace *const *t, int n, char **text)
{
    FILE *f[4];
    size_t len[4];
    struct trace_csv_opts o[4];
    struct npu_err e;
    for (int k = 0; k < n; k++) {
        f[k] = open_memstream(&text[k], &len[k]);
        assert_non_null(f[k]);
        o[k] = (struct trace_csv_opts){ PHASE_NONE, false, true };
    }
    assert_int_equal(trace_write_csv_each(t, f, o, n, &e), 0);
    for (int k = 0; k < n; k++)
        fclose(f[k]);
}

/* Every layout of a form printed at its largest (every dim and number
 * INT64_MIN, every token at its field's length) stays inside OP_CELL_MAX,
 * the room the printers assume; and a short buffer gets the cell cut, as
 * snprintf would cut it. */
static void test_form_cell_bound(void **state)
{
    (void)state;
    struct op op;
    op_init(&op);
    struct op_form *f = &op.form;
    memset(f->kind, 'K', sizeof f->kind - 1);
    memset(f->eq, 'e', sizeof f->eq - 1);
    memset(f->placements, '0', sizeof f->placements - 1);
    memset(f->dtype, 'D', sizeof f->dtype - 1);
    f->in_held = f->out_held = true;
    f->n_in = OP_SHAPES_MAX_IN;
    for (int t = 0; t <= FORM_OUT; t++) {
        f->nd[t] = OP_SHAPE_MAX_DIMS;
        for (int d = 0; d < OP_SHAPE_MAX_DIMS; d++)
            f->d[t][d] = INT64_MIN;
    }
    f->stride = f->pad = f->scale = INT64_MIN;
    char cell[OP_CELL_MAX];
    size_t longest = 0;
    for (int l = FORM_TEXT + 1; l <= FORM_EMBEDDING_BAG; l++) {
        f->layout = (uint8_t)l;
        size_t n = op_form_print_config(cell, f);
        assert_int_equal(n, strlen(cell));
        longest = n > longest ? n : longest;
    }
    assert_true(op_form_print_inputs(cell, f) < OP_CELL_MAX);
    assert_true(op_form_print_output(cell, f) < OP_CELL_MAX);
    op.tiling.held = true;
    op.tiling.rows = OP_TILE_ROWS;
    for (int r = 0; r < OP_TILE_ROWS; r++) {
        op.tiling.len[r] = OP_SHAPE_MAX_DIMS;
        for (int d = 0; d < OP_SHAPE_MAX_DIMS; d++)
            op.tiling.d[r][d] = INT64_MIN;
    }
    assert_true(op_tiling_print_tiles(cell, &op.tiling) < OP_CELL_MAX);
    assert_true(longest > 700 && longest < OP_CELL_MAX);   /* the conv config, as op_form.h works out */
    f->layout = FORM_EINSUM;
    char small[12];
    assert_string_equal(op_config_text(&op, small, sizeof small), "KKKKKKKKKKK");
    f->layout = FORM_LIST;
    f->nd[0] = 2;
    f->d[0][0] = -1;
    f->d[0][1] = 4096;
    char full[64];
    assert_string_equal(op_config_text(&op, full, sizeof full), "KKKKKKKKKKKKKKKKKKKKKKK([-1, 4096])");
    op_free(&op);
}

/* Copies of a trace written together (an energy run's strategies) share
 * their heads' text: a copy that differs from the first in any single
 * head field prints what it prints alone, the field's change included. */
static void test_copied_heads(void **state)
{
    (void)state;
    struct trace a;
    trace_init(&a);
    struct op *base = trace_push(&a);
    op_set(&base->name, "matmul");
    op_set(&base->description, "d");
    op_set(&base->config, "XlaEinsum(x)");
    op_set(&base->opcode, "MatMul");
    op_set(&base->in_shapes, "DT_BFLOAT16:[1,4096],DT_BFLOAT16:[4096,128]");
    op_set(&base->out_shape, "[DT_BFLOAT16:(1,128)]");
    op_set(&base->parsed_op_type, "XlaEinsum");
    op_set(&base->dim_labels, "BLM,MND->BLND");
    op_set(&base->tile_shapes, "[(1, 4096), (4096, 128)]");
    base->type = OP_MXU;
    base->stats_kind = STATS_EINSUM;
    base->bounded_by = BOUND_COMPUTE;
    int64_t *ints[] = { &base->fusion_id, &base->count, &base->exe_ns, &base->sa_ns, &base->vu_ns,
                        &base->mem_ns, &base->ici_ns, &base->ici_out_bytes, &base->ici_in_bytes,
                        &base->pcie_ns, &base->bytes, &base->flops, &base->weight_bytes, &base->num_tiles,
                        &base->max_vmem_demand_bytes, &base->num_sa_ops, &base->einsum_b, &base->einsum_m,
                        &base->einsum_n, &base->einsum_k, &base->vu_softmax_ns };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        *ints[i] = 1000 + 37 * (int64_t)i;
    char *alone_a = csv_text(&a);
    for (int which = -1;; which++) {
        struct trace b;
        trace_init(&b);
        assert_int_equal(trace_append(&b, &a), 0);   /* shares a's strings */
        if (which >= 0 && !change_head_field(&b.ops[0], which)) {
            trace_free(&b);
            break;
        }
        const struct trace *both[2] = { &a, &b };
        char *text[2];
        csv_each(both, 2, text);
        char *alone_b = csv_text(&b);
        assert_string_equal(text[0], alone_a);
        if (strcmp(text[1], alone_b) != 0)
            fail_msg("change %d: written with its original\n%s\nalone\n%s", which, last_row(text[1]),
                     last_row(alone_b));
        /* The change shows in the row (else it would test nothing). */
        if (which >= 0 && strcmp(alone_a, alone_b) == 0)
            fail_msg("change %d does not show in the row", which);
        free(text[0]);
        free(text[1]);
        free(alone_b);
        trace_free(&b);
    }
    free(alone_a);
    trace_free(&a);
}

/* A stream trace's provenance line: written, read back field for field, and
 * the CSV after it read as if it were not there, its lines still counted
 * from the file's first (a bad row on line 3 is named line 3). */
static void test_provenance_line(void **state)
{
    (void)state;
    struct trace_provenance p = { "0.2.0", "physical", "llama3-8b", "tpu \"v5p\"", "system_config" }, q;
    char line[1200];
    trace_provenance_line(&p, line, sizeof line);
    assert_string_equal(line, "# npusim {\"version\":\"0.2.0\",\"profile\":\"physical\",\"model\":\"llama3-8b\","
                              "\"chip\":\"tpu \\\"v5p\\\"\",\"system\":\"system_config\"}\n");
    char path[] = "/tmp/npusim-prov-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(line, f);
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    fputs("Fusion index,Description\n", f);
    fclose(f);
    bool has = false;
    assert_int_equal(trace_read_csv_prov(&t, path, &q, &has, &e), -1);   /* missing columns, but the line read */
    assert_true(has);
    assert_string_equal(q.chip, "tpu \"v5p\"");
    assert_string_equal(q.system, "system_config");
    assert_non_null(strstr(e.msg, ":2:"));   /* the header is line 2 of the file */
    /* a first line that is not npusim's: skipped, no provenance */
    f = fopen(path, "w");
    fputs("# something else\nFusion index\n", f);
    fclose(f);
    assert_int_equal(trace_read_csv_prov(&t, path, &q, &has, &e), -1);
    assert_false(has);
    assert_string_equal(q.model, "");
    remove(path);
    trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_quoting_and_crlf),
        cmocka_unit_test(test_long_strings),
        cmocka_unit_test(test_cells_timed_no_energy),
        cmocka_unit_test(test_cells_energy),
        cmocka_unit_test(test_blank_stats_per_kind),
        cmocka_unit_test(test_phase_column_and_filter),
        cmocka_unit_test(test_reader_classifies_config),
        cmocka_unit_test(test_reference_raw_identity),
        cmocka_unit_test(test_reference_energy_identity),
        cmocka_unit_test(test_roundtrip_plain),
        cmocka_unit_test(test_roundtrip_phase),
        cmocka_unit_test(test_roundtrip_gz),
        cmocka_unit_test(test_error_missing_column),
        cmocka_unit_test(test_error_bad_int),
        cmocka_unit_test(test_int_cell_range),
        cmocka_unit_test(test_error_field_count),
        cmocka_unit_test(test_float_cell_forms),
        cmocka_unit_test(test_error_malformed_and_empty),
        cmocka_unit_test(test_error_missing_file),
        cmocka_unit_test(test_header_only_is_empty_trace),
        cmocka_unit_test(test_fuzz_mutations),
        cmocka_unit_test(test_readback_reference),
        cmocka_unit_test(test_readback_random),
        cmocka_unit_test(test_trace_reserve),
        cmocka_unit_test(test_float_repr),
        cmocka_unit_test(test_read_stdin),
        cmocka_unit_test(test_atomic_abort_and_commit),
        cmocka_unit_test(test_atomic_commit_all_and_undo),
        cmocka_unit_test(test_op_string_lifetime),
        cmocka_unit_test(test_row_tail_memo),
        cmocka_unit_test(test_copied_heads),
        cmocka_unit_test(test_form_cell_bound),
        cmocka_unit_test(test_provenance_line),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
