/* digits.h — decimal digits of an unsigned integer, two per division.
 *
 * Every integer the simulator prints (shape strings, CSV cells, tile reprs,
 * summary rows, the digits of a float's repr) goes through here. A digit
 * pair per division by 100 and a 200-byte table halve the divisions of the
 * one-digit loop; the digit count comes first so that callers can write the
 * digits straight into place. Header-only: the calls are short and hot. */
#ifndef NPUSIM_DIGITS_H
#define NPUSIM_DIGITS_H

#include <stdint.h>
#include <string.h>

/* Number of decimal digits of u (1 for 0; at most 20): the bit length gives
 * log10 to within one (1233 / 4096 ~ log10(2)), a power of ten settles it. */
static inline int u64_ndigits(uint64_t u)
{
    static const uint64_t pow10[20] = {
        1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
        1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
        100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
        1000000000000000000ull, 10000000000000000000ull,
    };
    uint64_t v = u | 1;   /* as many digits as u (powers of ten are even), and no clz(0) */
    int t = (64 - __builtin_clzll(v)) * 1233 >> 12;   /* floor(log10(v)) or one more */
    return t - (v < pow10[t]) + 1;
}

static const char u64_digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                      "8081828384858687888990919293949596979899";

/* The 8 digits of v < 10^8, zero-padded, at p: its halves' digit pairs are
 * independent of each other, so the 32-bit divisions overlap. */
static inline void u32_put8(char *p, uint32_t v)
{
    uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(p, u64_digit_pairs + 2 * (hi / 100), 2);
    memcpy(p + 2, u64_digit_pairs + 2 * (hi % 100), 2);
    memcpy(p + 4, u64_digit_pairs + 2 * (lo / 100), 2);
    memcpy(p + 6, u64_digit_pairs + 2 * (lo % 100), 2);
}

/* Writes the digits of u so that they end just before end; returns the
 * first digit. The caller provides u64_ndigits(u) bytes before end. Eight
 * digits per 64-bit division (a float's 17-digit mantissa takes two), then
 * pairs in 32 bits. */
static inline char *u64_put_digits(uint64_t u, char *end)
{
    char *d = end;
    while (u >= 100000000) {
        u32_put8(d -= 8, (uint32_t)(u % 100000000));
        u /= 100000000;
    }
    uint32_t v = (uint32_t)u;
    for (; v >= 100; v /= 100)
        memcpy(d -= 2, u64_digit_pairs + 2 * (v % 100), 2);
    if (v >= 10)
        memcpy(d -= 2, u64_digit_pairs + 2 * v, 2);
    else
        *--d = (char)('0' + v);
    return d;
}

#endif
