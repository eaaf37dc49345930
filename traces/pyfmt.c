/* pyfmt.c — Python repr() of doubles (see pyfmt.h).
 *
 * Takes the shortest digits that read back to the same double (what
 * Python's repr does; traces/shortest.c), then lays them out the way Python's
 * float_repr_style 'short' does: positional for exponents in [-4, 16),
 * scientific otherwise, with at least one digit after the point. */
#include "traces/pyfmt.h"

#include "traces/shortest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *py_repr_double(double x, char *buf, size_t size)
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
    /* digits from the right, two at a time */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char rev[24], *d = rev + sizeof rev;
    for (; f >= 100; f /= 100)
        memcpy(d -= 2, pairs + 2 * (f % 100), 2);
    if (f >= 10)
        memcpy(d -= 2, pairs + 2 * f, 2);
    else
        *--d = (char)('0' + f);
    int nd = (int)(rev + sizeof rev - d);
    const char *digits = d;
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
    size_t len = (size_t)o < size ? (size_t)o : size - 1;
    memcpy(buf, out, len);
    buf[len] = '\0';
    return buf;
}
