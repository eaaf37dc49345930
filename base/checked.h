/* checked.h — int64 arithmetic that notices overflow.
 *
 * Sizes, FLOP counts and times are int64 (design.md, "Numbers"). Field
 * ranges (traces/fields.h) bound each input, but a product of several of
 * them (batch x sequence x d_model x layers) can still leave int64. These
 * helpers compute as the plain operators do and, on overflow, return the
 * saturated value and set a sticky flag that the stage turns into an error
 * naming the op or figure. No data structure: the flag is the caller's. */
#ifndef NPUSIM_CHECKED_H
#define NPUSIM_CHECKED_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

static inline int64_t ck_mul(int64_t a, int64_t b, bool *overflow)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        *overflow = true;
        return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    }
    return r;
}

static inline int64_t ck_add(int64_t a, int64_t b, bool *overflow)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        *overflow = true;
        return a < 0 ? INT64_MIN : INT64_MAX;
    }
    return r;
}

/* (int64_t)ceil(x) where x may be out of range (or NaN): the flag instead of
 * undefined behaviour. 2^63 is exact in a double, so the test is exact. */
static inline int64_t ck_ceil(double x, bool *overflow)
{
    double c = ceil(x);
    if (!(c > -9223372036854775808.0 && c < 9223372036854775808.0)) {
        *overflow = true;
        return c < 0 ? INT64_MIN : INT64_MAX;
    }
    return (int64_t)c;
}

#endif
