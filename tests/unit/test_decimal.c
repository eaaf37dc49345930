/* test_decimal.c — numbers as text both ways: the shortest round-trip
 * decimal (base/shortest.c), decimal text to double (base/fastfloat.c)
 * and the build-generated power-of-ten tables they rely on.
 *
 * The oracle is a brute-force search through printf and strtod (correctly
 * rounded in glibc): for each length p, the correctly rounded p-digit
 * decimal and its two neighbours at the last digit; the first length with a
 * candidate that reads back wins, the nearest one first. The neighbours matter at powers of two, where the rounding
 * interval is lopsided and the nearest p-digit decimal can miss it while
 * another one hits. */
#include "testutil.h"

#include <float.h>

#include "pow10_table.h"
#include "base/digits.h"
#include "base/fastfloat.h"
#include "base/pyfmt.h"
#include "base/shortest.h"

typedef unsigned __int128 u128;

static void oracle(double x, uint64_t *digits, int *exp10)
{
    char s[64];
    for (int p = 0; p <= 16; p++) {
        snprintf(s, sizeof s, "%.*e", p, x);
        /* s = d.ddd e±X: digits as an integer, exponent of the last digit */
        uint64_t d = 0;
        const char *c = s;
        for (; *c != 'e'; c++)
            if (*c != '.')
                d = d * 10 + (uint64_t)(*c - '0');
        int e = atoi(c + 1) - p;
        /* d is the nearest p-digit decimal (printf rounds correctly), so it
         * wins if it reads back; otherwise a neighbour that does. */
        int found = 0;
        uint64_t best = 0;
        static const int order[3] = { 0, -1, 1 };
        for (int i = 0; i < 3 && !found; i++) {
            uint64_t cand = d + (uint64_t)(int64_t)order[i];
            char t[64];
            snprintf(t, sizeof t, "%llue%d", (unsigned long long)cand, e);
            if (cand != 0 && strtod(t, NULL) == x)
                best = cand, found = 1;
        }
        if (found) {
            while (best % 10 == 0)
                best /= 10, e++;
            *digits = best;
            *exp10 = e;
            return;
        }
    }
    fail_msg("no decimal of 17 digits reads back as %a", x);
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s ^ (*s >> 29);
}

static void check(double x)
{
    uint64_t d, od;
    int e, oe;
    shortest_decimal(x, &d, &e);
    oracle(x, &od, &oe);
    if (d != od || e != oe)
        fail_msg("%a: shortest_decimal %llue%d, oracle %llue%d", x, (unsigned long long)d, e,
                 (unsigned long long)od, oe);
}

/* Random bit patterns (every binade), powers of two and their neighbours,
 * the smallest subnormals, and decimal-looking values. */
static void test_against_oracle(void **state)
{
    (void)state;
    uint64_t seed = 42;
    for (int i = 0; i < 15000; i++) {
        uint64_t b = lcg(&seed) & 0x7fffffffffffffffull;
        if ((b >> 52) == 0x7ff)
            continue;
        double x;
        memcpy(&x, &b, sizeof x);
        if (x > 0)
            check(x);
    }
    for (uint64_t be = 0; be < 0x7ff; be++)
        for (int64_t off = -1; off <= 1; off++) {
            uint64_t b = (be << 52) + (uint64_t)off;
            if (be == 0 && off <= 0)
                continue;
            double x;
            memcpy(&x, &b, sizeof x);
            check(x);
        }
    for (uint64_t b = 1; b < 2000; b++) {
        double x;
        memcpy(&x, &b, sizeof x);
        check(x);
    }
    for (int i = 0; i < 8000; i++) {
        double x = (double)(lcg(&seed) % 1000000) / pow(10, (double)(lcg(&seed) % 30)) + 1e-300;
        check(x);
    }
}

/* py_repr_fmt keeps recent texts per thread: a value formatted again, after
 * others have hit and evicted its slot, must give the same text and length,
 * and the same as py_repr_double. */
static void test_repr_memo(void **state)
{
    (void)state;
    enum { N = 3600 };   /* 2,400 random values: more than the memo's 1024 slots */
    static char first[N][PY_REPR_MAX];
    double v[N];
    uint64_t seed = 7;
    for (int i = 0; i < N; i++) {
        /* a few values repeated often (as DVFS cells), the rest random */
        static const double common[] = { 0.7, 1.7, 87.5, -2.5e-7, 1e22 };
        if (i % 3 == 0) {
            v[i] = common[lcg(&seed) % 5];
        } else {
            uint64_t b = lcg(&seed) & 0x7fefffffffffffffull;
            memcpy(&v[i], &b, sizeof b);
        }
        size_t n = py_repr_fmt(v[i], first[i]);
        assert_int_equal(n, strlen(first[i]));
    }
    for (int i = N - 1; i >= 0; i--) {
        char again[PY_REPR_MAX], plain[64];
        size_t n = py_repr_fmt(v[i], again);
        assert_string_equal(again, first[i]);
        assert_int_equal(n, strlen(first[i]));
        assert_string_equal(py_repr_double(v[i], plain, sizeof plain), first[i]);
    }
    char t[PY_REPR_MAX];
    py_repr_fmt(0.7, t);
    assert_string_equal(t, "0.7");
    py_repr_fmt(-0.0, t);
    assert_string_equal(t, "-0.0");
    py_repr_fmt(0.0, t);
    assert_string_equal(t, "0.0");
}

/* Python's repr of values that once went wrong or sit on edges: lopsided
 * intervals at powers of two, the shortest subnormals, 2^53. */
static void test_python_repr(void **state)
{
    (void)state;
    static const struct {
        double x;
        const char *repr;
    } cases[] = {
        { 6e-323, "6e-323" }, { 8e-323, "8e-323" }, { 1.5e-323, "1.5e-323" }, { 1e-323, "1e-323" },
        { 9007199254740992.0, "9007199254740992.0" }, { 1000000000000000.5, "1000000000000000.5" },
        { 6.666666666666665e-08, "6.666666666666665e-08" }, { 1e23, "1e+23" }, { 0.0001, "0.0001" },
        { 1.2345678901234568e17, "1.2345678901234568e+17" }, { 1.0 / 3, "0.3333333333333333" },
        { 0x1p-1022, "2.2250738585072014e-308" }, { 0x1p-1074, "5e-324" }, { 2.0, "2.0" },
        { -0.0, "-0.0" }, { 1e100, "1e+100" }, { 123.0e-120, "1.23e-118" },
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(py_repr_double(cases[i].x, buf, sizeof buf), cases[i].repr);
}

/* num_text_shortest: whole numbers without ".0", the rest as repr, and
 * each text reads back as the same double. */
static void test_num_text_shortest(void **state)
{
    (void)state;
    static const struct {
        double x;
        const char *text;
    } cases[] = {
        { 4.0, "4" }, { -3.0, "-3" }, { 0.0, "0" }, { 0.1, "0.1" }, { 0.3, "0.3" }, { 1e-5, "1e-05" },
        { 1.9, "1.9" }, { 4294967295.0, "4294967295" }, { 1e17, "1e+17" }, { 2.5, "2.5" },
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_string_equal(num_text_shortest(cases[i].x, buf, sizeof buf), cases[i].text);
        assert_true(strtod(buf, NULL) == cases[i].x);
    }
}

/* g(e) = floor(10^e * 2^(125 - floor(e log2 10))) + 1 in [2^125, 2^126);
 * for 0 <= e <= 27, 10^e = 5^e 2^e with 5^e < 2^63, so g is exact in 128 bits. */
/* u64_ndigits and u64_put_digits against printf, at every power of ten and
 * of two and their neighbours (where a digit count estimate goes wrong). */
static void check_digits(uint64_t u)
{
    char want[32], got[32];
    int n = snprintf(want, sizeof want, "%llu", (unsigned long long)u);
    assert_int_equal(u64_ndigits(u), n);
    char *first = u64_put_digits(u, got + 31);
    got[31] = '\0';
    assert_ptr_equal(first, got + 31 - n);
    assert_string_equal(first, want);
}

static void test_digits(void **state)
{
    (void)state;
    uint64_t p = 1;
    for (int k = 0; k < 20; k++, p *= 10) {
        check_digits(p - 1);
        check_digits(p);
        check_digits(p + 1);
    }
    for (int b = 0; b < 64; b++) {
        uint64_t q = (uint64_t)1 << b;
        check_digits(q - 1);
        check_digits(q);
        check_digits(q + 1);
    }
    check_digits(UINT64_MAX);
    check_digits(UINT64_MAX - 1);
    uint64_t x = 88172645463325252ull;   /* xorshift: a spread of magnitudes */
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        check_digits(x >> (x % 64));
    }
}

static void test_pow10_table(void **state)
{
    (void)state;
    for (int e = POW10_E_MIN; e <= POW10_E_MAX; e++) {
        const uint64_t *g = pow10_g[e - POW10_E_MIN];
        assert_true(g[0] >> 62 == 1);        /* top bit of 126 is bit 62 of the high half */
        assert_true(g[1] >> 63 == 0);
    }
    u128 five = 1;
    for (int e = 0; e <= 27; e++, five *= 5) {
        int f2 = flog2pow10(e);
        assert_i64(f2, (int64_t)floor(e * log2(10.0)));
        u128 g = (five << (e + 125 - f2)) + 1;
        const uint64_t *t = pow10_g[e - POW10_E_MIN];
        assert_true((uint64_t)(g >> 63) == t[0]);
        assert_true((uint64_t)(g & 0x7fffffffffffffffull) == t[1]);
    }
    /* 10^-1 = 0.0110011..b: g = 0x6666...6 * 2^63 + 0x3333...34 */
    assert_true(pow10_g[-1 - POW10_E_MIN][0] == 0x6666666666666666ull);
    assert_true(pow10_g[-1 - POW10_E_MIN][1] == 0x3333333333333334ull);
}

/* fast_strtod must be strtod exactly: same bits, same end pointer, on
 * round-trip texts of random doubles (every binade), short and long
 * mantissas, big and tiny exponents (the strtod fallbacks), and odd forms. */
static void check_parse(const char *s)
{
    char *e1, *e2;
    double a = strtod(s, &e1), b = fast_strtod(s, &e2);
    if (memcmp(&a, &b, sizeof a) || e1 != e2)
        fail_msg("\"%s\": strtod %a (end +%d), fast_strtod %a (end +%d)", s, a, (int)(e1 - s), b, (int)(e2 - s));
}

static void test_fast_strtod(void **state)
{
    (void)state;
    static const char *odd[] = {
        "0", "-0", "0.0", "1", "-1.5", "+2.25", "1e", "1e+", "1.e5", ".5", "5.", ".", "-", "", "abc", "inf",
        "-Infinity", "nan", "0x1p3", "1,5", "12abc", "00012.5000", "1e-400", "1e400", "4.9e-324",
        "2.2250738585072011e-308", "1.7976931348623157e308", "1.7976931348623159e308", "9007199254740993",
        "123456789012345678901234567890", "0.000000000000000000000000000001234", "1e22", "1e23",
        "8.98846567431158e307", "0.30000000000000004", "100000000000000000000000",
    };
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        check_parse(odd[i]);
    uint64_t seed = 7;
    char s[64];
    for (int i = 0; i < 60000; i++) {
        uint64_t b = lcg(&seed);
        double x;
        memcpy(&x, &b, sizeof x);
        if (isnan(x))
            continue;
        switch (i % 4) {
        case 0: snprintf(s, sizeof s, "%.17g", x); break;
        case 1: snprintf(s, sizeof s, "%.*e", (int)(lcg(&seed) % 19), x); break;
        case 2:
            snprintf(s, sizeof s, "%llu.%llue%d", (unsigned long long)(lcg(&seed) % 100000000000ull),
                     (unsigned long long)(lcg(&seed) % 1000000000ull), (int)(lcg(&seed) % 700) - 350);
            break;
        default: py_repr_double(fabs(x) < 1e300 ? x : 1 / x, s, sizeof s); break;
        }
        check_parse(s);
    }
}

/* t(e) = floor(10^e * 2^(127 - floor(e log2 10))) in [2^127, 2^128);
 * exact in 128 bits for 0 <= e <= 27 (10^e = 5^e 2^e, 5^27 < 2^63). */
static void test_parse_table(void **state)
{
    (void)state;
    for (int e = PARSE_E_MIN; e <= PARSE_E_MAX; e++)
        assert_true(pow10_t[e - PARSE_E_MIN][0] >> 63 == 1);
    u128 five = 1;
    for (int e = 0; e <= 27; e++, five *= 5) {
        int f2 = flog2pow10(e);
        int sh = e + 127 - f2, top = 128 - sh; /* 5^e has at most `top` bits */
        assert_true(top > 0 && five >> top == 0);
        u128 t = five << sh;
        assert_true((uint64_t)(t >> 64) == pow10_t[e - PARSE_E_MIN][0]);
        assert_true((uint64_t)t == pow10_t[e - PARSE_E_MIN][1]);
    }
    /* 10^-1 = 0.000110011..b: 0xcccc...cccc (truncated) */
    assert_true(pow10_t[-1 - PARSE_E_MIN][0] == 0xccccccccccccccccull);
    assert_true(pow10_t[-1 - PARSE_E_MIN][1] == 0xccccccccccccccccull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digits),
        cmocka_unit_test(test_pow10_table),
        cmocka_unit_test(test_python_repr),
        cmocka_unit_test(test_num_text_shortest),
        cmocka_unit_test(test_repr_memo),
        cmocka_unit_test(test_against_oracle),
        cmocka_unit_test(test_parse_table),
        cmocka_unit_test(test_fast_strtod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
