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

/* Number of decimal digits of u (1 for 0; at most 20). */
static inline int u64_ndigits(uint64_t u)
{
    int n = 1;
    for (uint64_t p = 10; n < 20 && u >= p; p *= 10)
        n++;
    return n;
}

/* Writes the digits of u so that they end just before end; returns the
 * first digit. The caller provides u64_ndigits(u) bytes before end. */
static inline char *u64_put_digits(uint64_t u, char *end)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char *d = end;
    for (; u >= 100; u /= 100)
        memcpy(d -= 2, pairs + 2 * (u % 100), 2);
    if (u >= 10)
        memcpy(d -= 2, pairs + 2 * u, 2);
    else
        *--d = (char)('0' + u);
    return d;
}

#endif
