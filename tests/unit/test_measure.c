/* test_measure.c — the pieces of npusim measure that have a right answer:
 * fp8 and bf16 bits (hand-derived from the formats' definitions), block
 * scales, the cache hierarchy read from a sysfs tree of our own, the thread
 * team's split of the work, and the host chip built from given results. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "calib/host.h"
#include "calib/measure.h"
#include "calib/quantize.h"
#include "calib/team.h"
#include "traces/precision.h"

static void test_fp8_e4m3_codes(void **state)
{
    (void)state;
    /* 448 = 1.75 x 2^8: exponent 8 + bias 7 = 15, mantissa .110 -> 0 1111 110 */
    assert_int_equal(fp8_encode(&fp8_e4m3, 448), 0x7e);
    assert_int_equal(fp8_encode(&fp8_e4m3, -448), 0xfe);
    assert_int_equal(fp8_encode(&fp8_e4m3, 1000), 0x7e);      /* saturates: e4m3fn has no infinity */
    assert_int_equal(fp8_encode(&fp8_e4m3, 1.0), 0x38);       /* exponent 0 + 7 = 0111, mantissa 000 */
    assert_int_equal(fp8_encode(&fp8_e4m3, 0x1p-9), 0x01);    /* the smallest subnormal: 2^-6 x 1/8 */
    assert_int_equal(fp8_encode(&fp8_e4m3, 0x1p-10), 0x00);   /* half of it: a tie, to even (zero) */
    assert_int_equal(fp8_encode(&fp8_e4m3, 0x1.8p-10), 0x01); /* three quarters: up */
    /* 0.3 = 1.2 x 2^-2: the spacing there is 2^-5, 0.3 / 2^-5 = 9.6 -> 10 -> 0.3125 */
    assert_true(fp8_round(&fp8_e4m3, 0.3) == 0.3125);
    /* 1 + 1/16 lies halfway between 1 and 1.125: ties to even -> 1 */
    assert_true(fp8_round(&fp8_e4m3, 1.0625) == 1.0);
    assert_true(fp8_round(&fp8_e4m3, 1.1875) == 1.25);         /* halfway 1.125 | 1.25: to even 1.25 */
    assert_true(isnan(fp8_decode(&fp8_e4m3, 0x7f)));
    /* every finite code round-trips */
    for (int c = 0; c < 256; c++) {
        double v = fp8_decode(&fp8_e4m3, (uint8_t)c);
        if (!isnan(v) && c != 0x80)
            assert_int_equal(fp8_encode(&fp8_e4m3, v), c);
    }
}

static void test_fp8_e5m2_codes(void **state)
{
    (void)state;
    /* 57344 = 1.75 x 2^15: exponent 15 + 15 = 30 = 11110, mantissa 11 */
    assert_int_equal(fp8_encode(&fp8_e5m2, 57344), 0x7b);
    assert_int_equal(fp8_encode(&fp8_e5m2, 1e6), 0x7b);       /* saturating, not infinity */
    assert_int_equal(fp8_encode(&fp8_e5m2, 1.0), 0x3c);       /* 01111 00 */
    assert_int_equal(fp8_encode(&fp8_e5m2, 0x1p-16), 0x01);   /* 2^-14 x 1/4 */
    assert_true(isinf(fp8_decode(&fp8_e5m2, 0x7c)));
    for (int c = 0; c < 256; c++) {
        double v = fp8_decode(&fp8_e5m2, (uint8_t)c);
        if (isfinite(v) && c != 0x80)
            assert_int_equal(fp8_encode(&fp8_e5m2, v), c);
    }
}

static void test_bf16_round(void **state)
{
    (void)state;
    assert_true(bf16_round(1.0f + 0x1p-8f) == 1.0f);                 /* halfway: to even */
    assert_true(bf16_round(1.0f + 3 * 0x1p-8f) == 1.0f + 0x1p-6f);   /* halfway 1+2^-7 | 1+2^-6: even */
    assert_true(bf16_round(1.0f + 0x1p-7f) == 1.0f + 0x1p-7f);       /* representable: kept */
    assert_true(isinf(bf16_round(INFINITY)));
}

/* Blocks of 1 x 2 over a 2 x 3 matrix: scales are the blocks' largest
 * magnitudes over 448, and values that are a scale times a code come back
 * exactly. */
static void test_block_scales(void **state)
{
    (void)state;
    const float x[6] = { 448, -224, 7, 0, 0, 1 };
    uint8_t q[6];
    float s[4], table[256], back[6];
    fp8_quantize_blocks(&fp8_e4m3, x, 2, 3, 1, 2, q, s);
    assert_true(s[0] == 1.0f);           /* row 0, columns 0-1: amax 448 */
    assert_true(s[1] == 7.0f / 448);     /* row 0, column 2 */
    assert_true(s[2] == 1.0f);           /* row 1, columns 0-1: all zero -> 1 */
    assert_true(s[3] == 1.0f / 448);
    fp8_table(&fp8_e4m3, table);
    fp8_dequantize_blocks(table, q, s, 2, 3, 1, 2, back);
    for (int i = 0; i < 6; i++)
        assert_true(fabsf(back[i] - x[i]) <= 1e-6f * fabsf(x[i]));
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void mkindex(const char *root, int i, const char *level, const char *type, const char *size,
                    const char *shared)
{
    char d[512];
    snprintf(d, sizeof d, "%s/index%d", root, i);
    mkdir(d, 0755);
    put(d, "level", level);
    put(d, "type", type);
    put(d, "size", size);
    put(d, "shared_cpu_list", shared);
}

static void test_caches_from_sysfs(void **state)
{
    (void)state;
    char root[] = "/tmp/npusim-sysfs-XXXXXX";
    assert_non_null(mkdtemp(root));
    mkindex(root, 0, "1\n", "Data\n", "48K\n", "0-1\n");
    mkindex(root, 1, "1\n", "Instruction\n", "32K\n", "0-1\n");
    mkindex(root, 2, "3\n", "Unified\n", "32768K\n", "0-7,16-23\n");
    mkindex(root, 3, "2\n", "Unified\n", "2M\n", "0\n");
    struct host_info h = { 0 };
    struct npu_err e;
    assert_int_equal(host_caches_read(root, &h, &e), 0);
    assert_int_equal(h.n_caches, 3);                    /* the instruction cache skipped */
    assert_int_equal(h.caches[0].level, 1);
    assert_int_equal(h.caches[1].level, 2);             /* sorted by level, not index */
    assert_int_equal(h.caches[1].size_bytes, 2 << 20);
    assert_int_equal(h.caches[2].shared_cpus, 16);
    assert_int_equal(host_level_bytes(&h, 1, 4), 2 * 48 * 1024);   /* 4 threads, 2 per L1 */
    assert_int_equal(host_level_bytes(&h, 3, 4), 32 << 20);        /* one L3 for all */
    assert_int_equal(host_level_bytes(&h, 4, 4), 0);
    mkindex(root, 4, "2\n", "Unified\n", "lots\n", "0\n");
    assert_int_equal(host_caches_read(root, &h, &e), -1);
    assert_non_null(strstr(e.msg, "index4"));
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
}

static int seen[1000];
static void mark(void *arg, int tid, int n)
{
    long lo, hi;
    team_share(1000, tid, n, &lo, &hi);
    for (long i = lo; i < hi; i++)
        seen[i] += *(int *)arg;
}

/* Every item is covered once per run, whatever the team's size. */
static void test_team_shares(void **state)
{
    (void)state;
    for (int n = 1; n <= 5; n++) {
        struct team t;
        memset(seen, 0, sizeof seen);
        assert_int_equal(team_start(&t, n), 0);
        int one = 1;
        team_run(&t, mark, &one);
        team_run(&t, mark, &one);
        team_stop(&t);
        for (int i = 0; i < 1000; i++)
            assert_int_equal(seen[i], 2);
    }
}

/* The host chip from given results: the best GEMM per format, the best DRAM
 * stream, the caches one level out. */
static void test_host_chip(void **state)
{
    (void)state;
    struct measure_result r[] = {
        { .op = "gemm", .prec = PREC_FP32, .level = "", .status = MEASURE_PASS, .median_us = 1000, .flops = 100000000 },
        { .op = "gemm", .prec = PREC_FP32, .level = "", .status = MEASURE_PASS, .median_us = 1000, .flops = 50000000 },
        { .op = "gemm", .prec = PREC_FP64, .level = "", .status = MEASURE_FAIL, .median_us = 1, .flops = 100000000 },
        { .op = "triad", .prec = PREC_FP64, .level = "DRAM", .status = MEASURE_PASS, .median_us = 1000, .bytes = 20000000 },
        { .op = "add", .prec = PREC_FP32, .level = "DRAM", .status = MEASURE_PASS, .median_us = 1000, .bytes = 24000000 },
        { .op = "triad", .prec = PREC_FP64, .level = "L3", .status = MEASURE_PASS, .median_us = 1000, .bytes = 50000000 },
        { .op = "triad", .prec = PREC_FP64, .level = "L2", .status = MEASURE_PASS, .median_us = 1000, .bytes = 90000000 },
    };
    struct measure_run m = { .threads = 4, .r = r, .n = 7 };
    m.host.cpus = 4;
    m.host.freq_GHz = 3.0;
    m.host.mem_bytes = 16LL << 30;
    m.host.n_caches = 3;
    m.host.caches[0] = (struct host_cache){ 1, "Data", 32 << 10, 1 };
    m.host.caches[1] = (struct host_cache){ 2, "Unified", 1 << 20, 1 };
    m.host.caches[2] = (struct host_cache){ 3, "Unified", 16 << 20, 4 };
    struct chip_config c;
    measure_host_chip(&m, &c);
    assert_true(fabs(c.matrix_tflops[PREC_FP32] - 0.1) < 1e-12);   /* 1e8 FLOPs in 1 ms */
    assert_true(c.matrix_tflops[PREC_FP64] == 0);                   /* a failed kernel counts for nothing */
    assert_true(fabs(c.hbm_bw_GBps - 24) < 1e-9);                   /* add's 24 MB in 1 ms beats triad's 20 */
    assert_int_equal(c.memory_levels.n, 2);                          /* L2 and L3: L1 is the BLAS's */
    assert_true(fabs(c.memory_levels.l[0].fill_GBps - 50) < 1e-9);  /* L2 filled at L3's rate */
    assert_true(fabs(c.memory_levels.l[1].fill_GBps - 24) < 1e-9);  /* L3 at DRAM's */
    assert_true(c.memory_levels.l[0].capacity_KiB == 1024);
    assert_int_equal(c.vmem_size_MB, 16);
    assert_int_equal(c.hbm_size_GB, 16);
    assert_true(c.TDP_W == 0 && c.static_power_W_per_sa == 0);      /* no power measured */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp8_e4m3_codes),  cmocka_unit_test(test_fp8_e5m2_codes),
        cmocka_unit_test(test_bf16_round),      cmocka_unit_test(test_block_scales),
        cmocka_unit_test(test_caches_from_sysfs), cmocka_unit_test(test_team_shares),
        cmocka_unit_test(test_host_chip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
