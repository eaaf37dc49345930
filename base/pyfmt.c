/* pyfmt.c — Python repr() of doubles (see pyfmt.h).
 *
 * Takes the shortest digits that read back to the same double (what
 * Python's repr does; base/shortest.c), then lays them out the way Python's
 * float_repr_style 'short' does: positional for exponents in [-4, 16),
 * scientific otherwise, with at least one digit after the point. */
#include "base/pyfmt.h"

#include "base/digits.h"
#include "base/shortest.h"
#include "base/dmemo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Trace cells repeat values over and over: DVFS voltages and clocks,
 * regulator efficiencies, utilisations of 1.0, and the energy stage writes
 * one CSV per strategy whose times and dynamic energies mostly equal the
 * previous strategy's, a file of a few hundred numbers earlier. A per-thread
 * direct-mapped memo of recent texts (1024 slots, 48 KiB), keyed by the
 * double's bits, skips the digit search for them. */
struct repr_text {
    uint32_t len;
    char text[PY_REPR_MAX];
};
DMEMO(repr_memo, uint64_t, struct repr_text, 10)   /* 1024 slots (base/dmemo.h) */

static size_t repr_uncached(double x, char out[PY_REPR_MAX]);

size_t py_repr_fmt(double x, char out[PY_REPR_MAX])
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    if (bits == 0 || isnan(x))
        return repr_uncached(x, out);
    uint64_t h = bits * 0x9e3779b97f4a7c15ull;
    const struct repr_text *m = repr_memo_get(&bits, h);
    if (m) {
        memcpy(out, m->text, PY_REPR_MAX);
        return m->len;
    }
    size_t len = repr_uncached(x, out);
    struct repr_text *put = repr_memo_put(&bits, h);
    if (put) {
        put->len = (uint32_t)len;
        memcpy(put->text, out, len + 1);
    }
    return len;
}

static size_t repr_uncached(double x, char out[PY_REPR_MAX])
{
    static const char *const special[] = { "nan", "inf", "-inf", "0.0", "-0.0" };
    int sp = isnan(x) ? 0 : isinf(x) ? (x > 0 ? 1 : 2) : x == 0 ? (signbit(x) ? 4 : 3) : -1;
    if (sp >= 0) {
        size_t n = strlen(special[sp]);
        memcpy(out, special[sp], n + 1);
        return n;
    }
    /* Shortest round-trip digits (base/shortest.c): x = f * 10^e. */
    uint64_t f;
    int e;
    shortest_decimal(fabs(x), &f, &e);
    char rev[24];
    const char *digits = u64_put_digits(f, rev + sizeof rev);
    int nd = (int)(rev + sizeof rev - digits);
    int exp10 = e + nd - 1; /* x = d.ddd * 10^exp10 */
    char *o = out;
    if (signbit(x))
        *o++ = '-';
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) {
            /* 0.000ddd */
            memcpy(o, "0.0000", (size_t)(1 - exp10));
            o += 1 - exp10;
            memcpy(o, digits, (size_t)nd);
            o += nd;
        } else if (nd > exp10 + 1) {
            /* dd.ddd */
            memcpy(o, digits, (size_t)exp10 + 1);
            o += exp10 + 1;
            *o++ = '.';
            memcpy(o, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
            o += nd - exp10 - 1;
        } else {
            /* ddd00.0 */
            memcpy(o, digits, (size_t)nd);
            o += nd;
            memset(o, '0', (size_t)(exp10 + 1 - nd));
            o += exp10 + 1 - nd;
            memcpy(o, ".0", 2);
            o += 2;
        }
    } else {
        /* d.ddde+XX: Python writes at least two exponent digits */
        *o++ = digits[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(nd - 1));
            o += nd - 1;
        }
        int ae = exp10 < 0 ? -exp10 : exp10;
        *o++ = 'e';
        *o++ = exp10 < 0 ? '-' : '+';
        if (ae >= 100)
            *o++ = (char)('0' + ae / 100);
        *o++ = (char)('0' + ae / 10 % 10);
        *o++ = (char)('0' + ae % 10);
    }
    *o = '\0';
    return (size_t)(o - out);
}

char *py_repr_double(double x, char *buf, size_t size)
{
    char out[PY_REPR_MAX];
    size_t len = py_repr_fmt(x, out);
    if (len >= size)
        len = size - 1;
    memcpy(buf, out, len);
    buf[len] = '\0';
    return buf;
}

char *num_text_shortest(double x, char *buf, size_t size)
{
    if (x == trunc(x) && fabs(x) < 1e16) {
        snprintf(buf, size, "%lld", (long long)x);
        return buf;
    }
    return py_repr_double(x, buf, size);
}

/* ---- Python int / int true division ---- */

static int bitlen_u128(unsigned __int128 x)
{
    int n = 0;
    while (x) {
        n++;
        x >>= 1;
    }
    return n;
}

double py_div(int64_t a, int64_t b)
{
    const int64_t lim = (int64_t)1 << 53;
    if (a <= lim && b <= lim)
        return (double)a / (double)b;
    /* Quotient with 55..56 significant bits plus a sticky remainder, rounded
     * half-to-even to 53 bits: exactly what CPython's long true division does. */
    int shift = 55 - (bitlen_u128((unsigned __int128)a) - bitlen_u128((unsigned __int128)b));
    unsigned __int128 A = (unsigned __int128)a, B = (unsigned __int128)b;
    if (shift >= 0)
        A <<= shift;
    else
        B <<= -shift;
    unsigned __int128 q = A / B, r = A % B;
    int extra = bitlen_u128(q) - 53;
    if (extra <= 0)
        return ldexp((double)q, -shift);
    unsigned __int128 half = (unsigned __int128)1 << (extra - 1);
    unsigned __int128 rem = q & ((half << 1) - 1);
    q >>= extra;
    if (rem > half || (rem == half && (r != 0 || (q & 1))))
        q++;
    return ldexp((double)q, extra - shift);
}
