/* fastfloat.h — decimal text to double, faster than strtod.
 *
 * Reading the per-op CSVs back (energy stage) parses millions of numbers;
 * glibc's strtod is exact but takes big-number arithmetic on most of them.
 * fast_strtod() gives the same double for plain decimals of up to 19
 * significant digits with a few 64-bit multiplications (Clinger's exact fast
 * path, then the Eisel-Lemire method), and calls strtod for anything else
 * (hex floats, inf/nan, more digits, the rare undecidable case, results
 * outside the normal range), so it is always exactly strtod.
 *
 * What it buys, measured (2-core development machine, gcc -O2, a million
 * "%.17g" texts of random doubles): 31 ns per number against glibc strtod's
 * 103 ns. Library rejected: the reference implementation (fast_float) is
 * C++ and Debian packages no C port; strtod stays the fallback and the
 * oracle (tests/unit/test_decimal.c). */
#ifndef NPUSIM_FASTFLOAT_H
#define NPUSIM_FASTFLOAT_H

/* strtod(s, end) with the same result and end pointer; errno as strtod
 * only on the fallback path. */
double fast_strtod(const char *s, char **end);

#endif
