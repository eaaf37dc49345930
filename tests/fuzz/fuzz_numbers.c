/* fuzz_numbers.c — the hand-written number code against libc.
 *
 * base/fastfloat.c must parse every text exactly as strtod does (value,
 * end of the number), and base/shortest.c must print each double as the
 * shortest decimal that reads back to the same bits; the strict integer and
 * float parsers of the command line must accept exactly what they document.
 * A mismatch aborts. */
#include "fuzz_common.h"

#include <math.h>

#include "base/lists.h"
#include "base/fastfloat.h"
#include "base/shortest.h"

static void check_strtod(const char *s)
{
    char *e1, *e2;
    double a = fast_strtod(s, &e1), b = strtod(s, &e2);
    if (e1 != e2 || (memcmp(&a, &b, sizeof a) != 0 && !(isnan(a) && isnan(b)))) {
        fprintf(stderr, "fast_strtod(\"%s\") = %.17g (end %td), strtod = %.17g (end %td)\n", s, a, e1 - s, b,
                e2 - s);
        abort();
    }
}

static void check_shortest(double x)
{
    if (!isfinite(x) || x == 0)
        return;
    uint64_t digits;
    int exp10;
    shortest_decimal(fabs(x), &digits, &exp10);
    char buf[64];
    snprintf(buf, sizeof buf, "%llue%d", (unsigned long long)digits, exp10);
    double back = strtod(buf, NULL);
    double ax = fabs(x);
    if (memcmp(&back, &ax, sizeof back) != 0) {
        fprintf(stderr, "shortest(%.17g) = %s reads back as %.17g\n", ax, buf, back);
        abort();
    }
    /* Shortest: one digit fewer must not read back (unless it is 1 digit). */
    if (digits >= 10 && digits % 10 == 0) {
        fprintf(stderr, "shortest(%.17g) = %s has a trailing zero\n", ax, buf);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_text(data, size);
    check_strtod(s);
    double x;
    if (size >= 8) {
        memcpy(&x, data, sizeof x);
        check_shortest(x);
    }
    int64_t i;
    if (parse_i64_strict(s, &i) == 0) {
        char back[32];
        snprintf(back, sizeof back, "%lld", (long long)i);
        char *end;
        if (strtoll(s, &end, 10) != i || *end)
            abort();
    }
    if (parse_f64_strict(s, &x) == 0 && !isfinite(x))
        abort();
    free(s);
    return 0;
}
