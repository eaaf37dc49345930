/* shortest.c — shortest round-trip decimal of a double (see shortest.h).
 *
 * The method is Raffaello Giulietti's "Schubfach" (The Schubfach way to
 * render doubles, 2020). A double v = c * 2^q has the rounding interval
 * R = [v - u/2, v + u/2] (u its spacing; at a power of two the lower half is
 * u/4); every decimal in R reads back as v. With k = floor(log10(2^q)) the
 * interval scaled by 10^-k is between 1 and 10 units wide, so it holds at
 * least one integer s or s+1 and at most one multiple of ten: if exactly one
 * multiple of ten lies in R it is the shortest answer, otherwise the answer
 * is whichever of s and s+1 lies in R (the closer to v if both, ties to
 * even). Scaling uses g ~ 10^-k * 2^r, a 126-bit value from a table that the
 * build generates exactly (base/gen/pow10_gen.c), and "round to odd" keeps
 * the 64-bit results exact enough to compare with the interval ends. All
 * quantities are kept times 4 (the "b" suffix) so the interval ends are
 * integers. */
#include "base/shortest.h"

#include <string.h>

#include "pow10_table.h"

typedef unsigned __int128 u128;

#define MASK63 0x7fffffffffffffffull
#define C_MIN (1ull << 52)
#define Q_MIN (-1074)

static int flog10pow2(int q) { return (int)(((int64_t)q * 661971961083LL) >> 41); }
static int flog10_three_quarters_pow2(int q) { return (int)(((int64_t)q * 661971961083LL - 274743187321LL) >> 41); }

/* (g * cp) / 2^127 rounded to odd, g = g1 * 2^63 + g0. */
static uint64_t rop(uint64_t g1, uint64_t g0, uint64_t cp)
{
    uint64_t x1 = (uint64_t)(((u128)g0 * cp) >> 64);
    u128 y = (u128)g1 * cp;
    uint64_t y0 = (uint64_t)y, y1 = (uint64_t)(y >> 64);
    uint64_t z = (y0 >> 1) + x1;
    uint64_t vbp = y1 + (z >> 63);
    return vbp | (((z & MASK63) + MASK63) >> 63);
}

static void decimal(uint64_t f, int e, uint64_t *digits, int *exp10)
{
    while (f % 10 == 0) {
        f /= 10;
        e++;
    }
    *digits = f;
    *exp10 = e;
}

void shortest_decimal(double x, uint64_t *digits, int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint64_t t = bits & (C_MIN - 1);
    int bq = (int)(bits >> 52) & 0x7ff;
    uint64_t c;
    int q;
    if (bq) {
        c = C_MIN | t;
        q = bq - 1075;
    } else {
        c = t;
        q = Q_MIN;
    }
    int out = (int)(c & 1); /* even significand: interval ends are included */
    uint64_t cb = c << 2, cbr = cb + 2, cbl;
    int k;
    if (c != C_MIN || q == Q_MIN) {
        cbl = cb - 2;
        k = flog10pow2(q);
    } else { /* a power of two: the lower neighbour is closer */
        cbl = cb - 1;
        k = flog10_three_quarters_pow2(q);
    }
    int h = q + flog2pow10(-k) + 2;
    const uint64_t *g = pow10_g[-k - POW10_E_MIN];
    uint64_t vb = rop(g[0], g[1], cb << h);
    uint64_t vbl = rop(g[0], g[1], cbl << h);
    uint64_t vbr = rop(g[0], g[1], cbr << h);
    uint64_t s = vb >> 2;
    if (s >= 10) { /* a multiple of ten, one digit shorter (0 is no candidate) */
        uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
        int upin = vbl + (uint64_t)out <= sp10 << 2;
        int wpin = (tp10 << 2) + (uint64_t)out <= vbr;
        if (upin != wpin) {
            decimal(upin ? sp10 : tp10, k, digits, exp10);
            return;
        }
    }
    uint64_t tt = s + 1;
    int uin = vbl + (uint64_t)out <= s << 2;
    int win = (tt << 2) + (uint64_t)out <= vbr;
    if (uin != win) {
        decimal(uin ? s : tt, k, digits, exp10);
        return;
    }
    int64_t cmp = (int64_t)(vb - ((s + tt) << 1));
    decimal(cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : tt, k, digits, exp10);
}
