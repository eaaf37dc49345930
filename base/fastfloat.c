/* fastfloat.c — decimal text to double (see fastfloat.h).
 *
 * A decimal w * 10^e (w < 10^19) is converted by multiplying the normalised
 * w by a 128-bit truncation of 10^e (table pow10_t, generated exactly at
 * build time by base/gen/pow10_gen.c) and keeping the top 54 bits: the
 * truncation error is below one unit of the 128-bit product, so unless the
 * discarded bits sit right at a rounding boundary the rounded 53-bit result
 * is exact (Lemire, "Number Parsing at a Gigabyte per Second", 2021, and the
 * Eisel-Lemire variant used by Go's strconv). At a boundary, or outside
 * the normal exponent range, strtod decides. */
#include "base/fastfloat.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pow10_table.h"

typedef unsigned __int128 u128;

/* w * 10^e as a double in *out, or false if this method cannot decide. */
static bool eisel_lemire(uint64_t w, int e, bool neg, double *out)
{
    if (e < PARSE_E_MIN || e > PARSE_E_MAX)
        return false;
    int clz = __builtin_clzll(w);
    w <<= clz;
    int64_t exp2 = (int64_t)flog2pow10(e) + 64 + 1023 - clz;
    const uint64_t *t = pow10_t[e - PARSE_E_MIN];
    u128 x = (u128)w * t[0];
    uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
    /* The low table word adds less than w to lo: only a carry into the
     * kept bits matters, and then the wider product is needed. */
    if ((hi & 0x1ff) == 0x1ff && lo + w < w) {
        u128 y = (u128)w * t[1];
        uint64_t yhi = (uint64_t)(y >> 64), ylo = (uint64_t)y;
        uint64_t mlo = lo + yhi, mhi = hi + (mlo < lo);
        if ((mhi & 0x1ff) == 0x1ff && mlo + 1 == 0 && ylo + w < w)
            return false;
        hi = mhi, lo = mlo;
    }
    uint64_t msb = hi >> 63;
    uint64_t m = hi >> (msb + 9);
    exp2 -= (int64_t)(1 ^ msb);
    if (lo == 0 && (hi & 0x1ff) == 0 && (m & 3) == 1)
        return false; /* exactly half way, as far as 128 bits tell */
    m += m & 1;
    m >>= 1;
    if (m >> 53) {
        m >>= 1;
        exp2++;
    }
    if (exp2 <= 0 || exp2 >= 0x7ff)
        return false; /* subnormal or overflow: strtod's business */
    uint64_t bits = (uint64_t)exp2 << 52 | (m & ((1ull << 52) - 1)) | (neg ? 1ull << 63 : 0);
    memcpy(out, &bits, sizeof *out);
    return true;
}

static const double exact_pow10[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

double fast_strtod(const char *s, char **end)
{
    const char *p = s;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        return strtod(s, end); /* a hex float */
    uint64_t w = 0;
    int nd = 0, e = 0;
    bool any = false;
    for (; *p >= '0' && *p <= '9'; p++, any = true) {
        if (w == 0 && *p == '0')
            continue;
        if (nd++ == 19)
            return strtod(s, end);
        w = w * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, any = true) {
            e--;
            if (w == 0 && *p == '0')
                continue;
            if (nd++ == 19)
                return strtod(s, end);
            w = w * 10 + (uint64_t)(*p - '0');
        }
    if (!any)
        return strtod(s, end); /* inf, nan, hex, "." or no number */
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        bool eneg = *q == '-';
        if (*q == '-' || *q == '+')
            q++;
        if (!(*q >= '0' && *q <= '9'))
            return strtod(s, end);
        int x = 0;
        for (; *q >= '0' && *q <= '9'; q++)
            if ((x = x * 10 + (*q - '0')) > 100000)
                return strtod(s, end);
        e += eneg ? -x : x;
        p = q;
    }
    if (end)
        *end = (char *)p;
    if (w == 0)
        return neg ? -0.0 : 0.0;
    double d;
    if (e >= -22 && e <= 22 && w <= (1ull << 53)) { /* both exact: one rounding */
        d = (double)w;
        d = e < 0 ? d / exact_pow10[-e] : d * exact_pow10[e];
        return neg ? -d : d;
    }
    if (eisel_lemire(w, e, neg, &d))
        return d;
    return strtod(s, end);
}
