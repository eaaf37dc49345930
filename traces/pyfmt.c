/* pyfmt.c — Python repr() of doubles (see pyfmt.h).
 *
 * Finds the shortest %.{p}e rendering that reads back to the same double
 * (what Python's repr does), then lays the digits out the way Python's
 * float_repr_style 'short' does: positional for exponents in [-4, 16),
 * scientific otherwise, with at least one digit after the point. */
#include "traces/pyfmt.h"

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
    /* Integral values below 1e16 (0.0, 1.0, 100.0, ...) print as "%.0f" + ".0". */
    if (fabs(x) < 1e16 && x == trunc(x)) {
        snprintf(buf, size, "%.0f.0", x);
        return buf;
    }
    /* Shortest round-trip digits. If some string of <= 15 significant
     * digits reads back as x, x rounded to 15 digits (DBL_DIG) is that
     * string padded with zeros (x lies within half an ulp of it, well inside
     * half the 15-digit spacing), so trying 15, 16, then 17 digits and
     * trimming zeros finds the shortest with at most three conversions.
     * Subnormals have fewer bits, so a wider ulp; they search from one digit up. */
    char tmp[40];
    for (int p = fabs(x) < DBL_MIN ? 0 : 14; p <= 16; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p, x);
        if (p == 16 || strtod(tmp, NULL) == x)
            break;
    }
    /* tmp = [-]d[.ddd]e[+-]XX : split into sign, digits, exponent */
    const char *s = tmp;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    char digits[24];
    int nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s != '.')
            digits[nd++] = *s;
    digits[nd] = '\0';
    int exp10 = atoi(s + 1);
    while (nd > 1 && digits[nd - 1] == '0') /* %.pe may keep trailing zeros only when p minimal; trim */
        digits[--nd] = '\0';

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
        o += snprintf(out + o, sizeof out - (size_t)o, "e%c%02d", exp10 < 0 ? '-' : '+',
                      exp10 < 0 ? -exp10 : exp10);
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
