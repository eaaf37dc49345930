/* test_utf8.c — utf8_clean makes any bytes well-formed UTF-8 (every error
 * body of the HTTP API goes through it): hand-derived cases of cut, stray,
 * overlong and surrogate bytes, and truncation on a character boundary. */
#include "testutil.h"

#include <string.h>

#include "base/utf8.h"

#define FFFD "\xef\xbf\xbd"

static void clean_is(const char *in, size_t n, const char *want)
{
    char out[64];
    size_t len = utf8_clean(out, n, in);
    assert_string_equal(out, want);
    assert_int_equal(len, strlen(want));
}

static void test_well_formed_kept(void **state)
{
    (void)state;
    clean_is("abc", 64, "abc");
    clean_is("", 64, "");
    clean_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 64, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    clean_is("\xef\xbf\xbd", 64, FFFD);   /* U+FFFD itself is text */
}

static void test_bad_bytes_replaced(void **state)
{
    (void)state;
    /* "é" cut after its lead byte, then a quote: the lead byte alone is U+FFFD */
    clean_is("\"\xc3\"", 64, "\"" FFFD "\"");
    /* "€" (E2 82 AC) cut after two bytes, at the end: each byte left is U+FFFD */
    clean_is("x\xe2\x82", 64, "x" FFFD FFFD);
    /* a stray continuation byte, a byte never in UTF-8 (FF), overlong "/" (C0 AF) */
    clean_is("a\x80" "b", 64, "a" FFFD "b");
    clean_is("\xff", 64, FFFD);
    clean_is("\xc0\xaf", 64, FFFD FFFD);
    /* a surrogate (ED A0 80) and a code point above U+10FFFF (F4 90 80 80) */
    clean_is("\xed\xa0\x80", 64, FFFD FFFD FFFD);
    clean_is("\xf4\x90\x80\x80", 64, FFFD FFFD FFFD FFFD);
}

static void test_truncated_on_a_boundary(void **state)
{
    (void)state;
    /* "é" needs 2 bytes: with room for "a" and 1 byte it is left out whole */
    clean_is("a\xc3\xa9", 3, "a");
    clean_is("a\xc3\xa9", 4, "a\xc3\xa9");
    /* a replacement needs 3 bytes */
    clean_is("ab\xff", 5, "ab");
    clean_is("ab\xff", 6, "ab" FFFD);
    clean_is("abc", 1, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_well_formed_kept),
        cmocka_unit_test(test_bad_bytes_replaced),
        cmocka_unit_test(test_truncated_on_a_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
