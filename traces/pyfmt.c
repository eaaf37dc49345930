/* pyfmt.c — Python repr() of doubles (see pyfmt.h).
 *
 * Takes the shortest digits that read back to the same double (what
 * Python's repr does; traces/shortest.c), then lays them out the way Python's
 * float_repr_style 'short' does: positional for exponents in [-4, 16),
 * scientific otherwise, with at least one digit after the point. */
#include "traces/pyfmt.h"

#include "traces/shortest.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *repr_uncached(double x, char *buf, size_t size)
{
    if (isnan(x)) {
        snprintf(buf, size, "nan");
        return buf;
    }
    if (isinf(x)) {
        snprintf(buf, size, x > 0 ? "inf" : "-inf");
        return buf;
    }
    if (x == 0) {
        snprintf(buf, size, signbit(x) ? "-0.0" : "0.0");
        return buf;
    }
    /* Shortest round-trip digits (traces/shortest.c), most significant first. */
    uint64_t f;
    int e;
    shortest_decimal(fabs(x), &f, &e);
    char rev[24], digits[24];
    int nd = 0, n = 0;
    do
        rev[n++] = (char)('0' + f % 10);
    while (f /= 10);
    while (n)
        digits[nd++] = rev[--n];
    digits[nd] = '\0';
    int neg = signbit(x) != 0;
    int exp10 = e + nd - 1; /* x = d.ddd * 10^exp10 */

    char out[64];
    int o = 0;
    if (neg)
        out[o++] = '-';
    if (exp10 >= -5 + 1 && exp10 < 16) {
        /* positional: value = 0.digits * 10^(exp10+1) */
        if (exp10 < 0) {
            out[o++] = '0';
            out[o++] = '.';
            for (int i = 0; i < -exp10 - 1; i++)
                out[o++] = '0';
            for (int i = 0; i < nd; i++)
                out[o++] = digits[i];
        } else {
            for (int i = 0; i <= exp10; i++)
                out[o++] = i < nd ? digits[i] : '0';
            out[o++] = '.';
            if (nd > exp10 + 1)
                for (int i = exp10 + 1; i < nd; i++)
                    out[o++] = digits[i];
            else
                out[o++] = '0';
        }
        out[o] = '\0';
    } else {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            for (int i = 1; i < nd; i++)
                out[o++] = digits[i];
        }
        int ae = exp10 < 0 ? -exp10 : exp10; /* Python: at least two exponent digits */
        out[o++] = 'e';
        out[o++] = exp10 < 0 ? '-' : '+';
        if (ae >= 100)
            out[o++] = (char)('0' + ae / 100);
        out[o++] = (char)('0' + ae / 10 % 10);
        out[o++] = (char)('0' + ae % 10);
        out[o] = '\0';
    }
    snprintf(buf, size, "%s", out);
    return buf;
}

/* The same values recur constantly (every row is written to the combined and
 * the per-phase file, config constants to every statistics file), and finding
 * the shortest digits costs a few printf/strtod round trips; a small
 * direct-mapped cache per thread keyed by the bit pattern avoids most. */
#define REPR_CACHE 2048
struct repr_slot {
    uint64_t bits;
    char text[32];
};
static _Thread_local struct repr_slot repr_cache[REPR_CACHE];

char *py_repr_double(double x, char *buf, size_t size)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    struct repr_slot *s = &repr_cache[(bits * 0x9E3779B97F4A7C15ull) >> 53];
    if (s->text[0] == '\0' || s->bits != bits) {
        repr_uncached(x, s->text, sizeof s->text);
        s->bits = bits;
    }
    size_t n = strlen(s->text);
    if (n >= size)
        n = size - 1;
    memcpy(buf, s->text, n);
    buf[n] = '\0';
    return buf;
}
