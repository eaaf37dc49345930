/* test_numbers_diff.c — differential test of the hand-written number code.
 *
 * base/fastfloat.c (text -> double) against glibc's strtod, and
 * base/shortest.c (double -> shortest decimal) against the round trip
 * through %.17g and strtod, over random and adversarial inputs: long
 * mantissas, exponents near the limits, subnormals, signs, inf and nan
 * spellings, white space, hex floats and trailing garbage. 0 mismatches.
 *
 * `make test` runs NPUSIM_DIFF_COUNT inputs of each kind (default 200,000);
 * `make diff-numbers` runs 10 million (tests/fuzz/README.md records runs).
 * The seed is fixed; NPUSIM_DIFF_SEED changes it. */
#include "testutil.h"

#include <float.h>

#include "base/fastfloat.h"
#include "base/shortest.h"

static uint64_t rng;
static uint64_t next64(void)
{
    /* splitmix64: every seed gives a full-period, well-mixed stream. */
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static unsigned below(unsigned n) { return (unsigned)(next64() % n); }

static long count_of(void)
{
    const char *s = getenv("NPUSIM_DIFF_COUNT");
    long n = s ? atol(s) : 0;
    return n > 0 ? n : 200000;
}

static long mismatches;

static void parse_both(const char *s)
{
    char *e1, *e2;
    double a = fast_strtod(s, &e1), b = strtod(s, &e2);
    bool same = memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b) && signbit(a) == signbit(b));
    if (e1 != e2 || !same) {
        if (mismatches++ < 10)
            print_message("fast_strtod(\"%s\") = %a (end %td); strtod = %a (end %td)\n", s, a, e1 - s, b, e2 - s);
    }
}

/* An adversarial number text into buf. */
static void make_text(char *buf, size_t cap)
{
    static const char *const specials[] = { "inf", "-inf", "+inf", "INF", "Infinity", "-infinity", "infinit",
                                            "nan", "-nan", "NaN", "nan(123)", "nan(", "NAN(abc_1)", "0x", "0x1p",
                                            "0x1.8p3", "-0x.1p-1074", "0X1P+1023", "0x1p1024", "e5", ".e1",
                                            "-.", "+-1", "1e+-1", "", " ", "\t\n 7", "1_000" };
    size_t n = 0;
    unsigned kind = below(10);
    if (kind == 0) {
        snprintf(buf, cap, "%s%s", specials[below(sizeof specials / sizeof specials[0])],
                 below(4) == 0 ? "xyz" : "");
        return;
    }
    if (below(8) == 0)   /* leading white space */
        buf[n++] = " \t\n\v\f\r"[below(6)];
    if (below(3) == 0)
        buf[n++] = below(2) ? '-' : '+';
    /* Mantissa: 1 to 40 digits (past 19 the parser must fall back on exact
     * arithmetic), often with long runs of 0s or 9s, a point anywhere. */
    unsigned digits = kind < 5 ? 1 + below(20) : 1 + below(40);
    int point = below(3) == 0 ? -1 : (int)below(digits + 1);
    char run = below(4) == 0 ? (below(2) ? '0' : '9') : 0;
    for (unsigned i = 0; i < digits && n + 8 < cap; i++) {
        if ((int)i == point)
            buf[n++] = '.';
        buf[n++] = run && below(8) ? run : (char)('0' + below(10));
    }
    if ((int)digits == point)
        buf[n++] = '.';
    /* Exponent: near the limits of double (overflow, subnormals, underflow to 0) or anywhere. */
    if (below(4) != 0 && n + 12 < cap) {
        static const int around[] = { 0, 22, 23, 308, 309, -307, -308, -323, -324, -325, -340, 400, -400 };
        int ex = below(2) ? around[below(sizeof around / sizeof around[0])] + (int)below(21) - 10
                          : (int)below(800) - 400;
        n += (size_t)snprintf(buf + n, cap - n, "%c%s%d", below(2) ? 'e' : 'E', ex >= 0 && below(2) ? "+" : "",
                              ex);
    }
    if (below(10) == 0 && n + 2 < cap)   /* trailing garbage */
        buf[n++] = "x.e-+ ,"[below(7)];
    buf[n] = '\0';
}

static void test_fast_strtod_vs_strtod(void **state)
{
    (void)state;
    long n = count_of();
    char buf[128];
    mismatches = 0;
    for (long i = 0; i < n; i++) {
        if (i % 2) {
            make_text(buf, sizeof buf);
        } else {
            /* A random double printed with a random precision: exact decimals
             * around every binade, halfway cases at 17 digits and beyond. */
            uint64_t b = next64();
            double x;
            memcpy(&x, &b, sizeof x);
            if (isnan(x))
                x = (double)b;
            snprintf(buf, sizeof buf, "%.*e", (int)below(25), x);
        }
        parse_both(buf);
    }
    if (mismatches)
        fail_msg("%ld of %ld texts parsed differently from strtod", mismatches, n);
}

/* shortest_decimal(x) reads back to x, has no trailing zero, and is no
 * longer than the digits %.17g needs (never more than 17). */
static void check_shortest(double x)
{
    uint64_t digits;
    int exp10;
    shortest_decimal(x, &digits, &exp10);
    char s[64];
    snprintf(s, sizeof s, "%llue%d", (unsigned long long)digits, exp10);
    double back = strtod(s, NULL);
    int len = snprintf(NULL, 0, "%llu", (unsigned long long)digits);
    /* The shortest that reads back: %.(len-2)e, one digit fewer, must not. */
    char shorter[64];
    bool shorter_ok = false;
    if (len > 1) {
        snprintf(shorter, sizeof shorter, "%.*e", len - 2, x);
        shorter_ok = strtod(shorter, NULL) == x;
    }
    if (memcmp(&back, &x, sizeof x) != 0 || (digits % 10 == 0 && digits != 0) || len > 17 || shorter_ok) {
        if (mismatches++ < 10)
            print_message("shortest(%a = %.17g) = %s (reads back %a)%s%s\n", x, x, s, back,
                          shorter_ok ? ", but " : "", shorter_ok ? shorter : "");
    }
}

static void test_shortest_vs_round_trip(void **state)
{
    (void)state;
    long n = count_of();
    mismatches = 0;
    for (long i = 0; i < n; i++) {
        uint64_t b;
        switch (i % 4) {
        case 0: b = next64() & 0x7fffffffffffffffull; break;                       /* any positive double */
        case 1: b = next64() & 0x000fffffffffffffull; break;                       /* subnormals */
        case 2: b = ((uint64_t)below(0x7ff) << 52) + (below(2) ? 0 : below(3)); break; /* powers of 2 and neighbours */
        default: {                                                                /* short decimals */
            double x = (double)(next64() % 1000000000ull) * pow(10, (int)below(600) - 300);
            memcpy(&b, &x, sizeof b);
            break;
        }
        }
        double x;
        memcpy(&x, &b, sizeof x);
        if (!isfinite(x) || x <= 0)
            continue;
        check_shortest(x);
    }
    check_shortest(DBL_MIN);
    check_shortest(DBL_MAX);
    check_shortest(DBL_TRUE_MIN);
    if (mismatches)
        fail_msg("%ld of %ld doubles printed wrong", mismatches, n);
}

int main(void)
{
    const char *seed = getenv("NPUSIM_DIFF_SEED");
    rng = seed ? strtoull(seed, NULL, 0) : 20261125;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_strtod_vs_strtod),
        cmocka_unit_test(test_shortest_vs_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
