/* test_strbuf.c — the printf-free text appends must print exactly what
 * snprintf printed before them, truncation included: every shape, config and
 * tile string of the traces goes through them. */
#include "testutil.h"

#include <stdio.h>

#include "base/strbuf.h"

/* Integers compared with "%lld" over a range of magnitudes and both limits. */
static void test_puti_matches_printf(void **state)
{
    (void)state;
    const int64_t v[] = { 0, 1, -1, 9, 10, -10, 99, 100, 4096, 123456789, -987654321,
                          INT64_MAX, INT64_MIN, INT64_MIN + 1, (int64_t)1 << 53,
                          /* every digit-count boundary of the two-digit writer */
                          999, 1000, -1000, 9999, 10000, 99999, 100000, 999999999999999999LL,
                          1000000000000000000LL, -1000000000000000000LL };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char got[32], want[32];
        struct strbuf b = STRBUF(got);
        strbuf_puti(&b, v[i]);
        snprintf(want, sizeof want, "%lld", (long long)v[i]);
        assert_string_equal(got, want);
        assert_int_equal(b.n, strlen(want));
    }
}

static void test_appends(void **state)
{
    (void)state;
    char s[64];
    struct strbuf b = STRBUF(s);
    assert_string_equal(s, "");
    strbuf_puts(&b, "DT_BFLOAT16");
    strbuf_putn(&b, ":[", 2);
    strbuf_puti(&b, 8);
    strbuf_putc(&b, ',');
    strbuf_puti(&b, 4096);
    strbuf_putc(&b, ']');
    assert_string_equal(s, "DT_BFLOAT16:[8,4096]");
    assert_int_equal(b.n, strlen(s));
}

/* A full buffer keeps cap - 1 bytes and its NUL, like snprintf. */
static void test_truncates_like_snprintf(void **state)
{
    (void)state;
    char s[8], want[8];
    struct strbuf b = STRBUF(s);
    strbuf_puts(&b, "abc");
    strbuf_puti(&b, -123456);
    strbuf_putc(&b, 'x');
    strbuf_puts(&b, "more");
    snprintf(want, sizeof want, "abc%lldxmore", -123456LL);
    assert_string_equal(s, want);
    assert_int_equal(b.n, sizeof s - 1);

    char j[10], jwant[10];
    snprintf(jwant, sizeof jwant, "%s%s%s", "static_", "sa", "_energy_J");
    assert_string_equal(strbuf_join3(j, sizeof j, "static_", "sa", "_energy_J"), jwant);
    assert_string_equal(strbuf_join3(j, sizeof j, "", "sa", "_J"), "sa_J");

    char one[1];
    struct strbuf e = STRBUF(one);
    strbuf_puts(&e, "abc");
    strbuf_putc(&e, 'x');
    strbuf_puti(&e, 42);
    assert_string_equal(one, "");
}

/* A growing strbuf: starts empty, doubles (at least 256 bytes), keeps every
 * byte, puti and putc included; the fixed one still cuts at cap - 1. */
static void test_growing(void **state)
{
    (void)state;
    struct strbuf b = STRBUF_GROWING;
    assert_null(b.s);
    for (int i = 0; i < 100; i++) {
        strbuf_puts(&b, "row,");
        strbuf_puti(&b, -1234567890123LL);
        strbuf_putc(&b, '\n');
    }
    /* 100 x (4 + 14 + 1) = 1900 bytes */
    assert_int_equal(b.n, 1900);
    assert_int_equal(strlen(b.s), 1900);
    assert_true(b.cap > b.n);
    assert_memory_equal(b.s + 1881, "row,-1234567890123\n", 19);
    free(b.s);
    struct strbuf e = STRBUF_GROWING;
    strbuf_putc(&e, 'x');
    assert_string_equal(e.s, "x");
    assert_int_equal(e.cap, 256);
    free(e.s);
    char small[8];
    struct strbuf f = STRBUF(small);
    strbuf_puts(&f, "0123456789");
    assert_string_equal(small, "0123456");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_growing),
        cmocka_unit_test(test_puti_matches_printf),
        cmocka_unit_test(test_appends),
        cmocka_unit_test(test_truncates_like_snprintf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
