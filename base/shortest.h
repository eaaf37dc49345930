/* shortest.h — the shortest decimal that reads back as a given double.
 *
 * Python's repr(), and so every float cell of the reference, prints the
 * shortest digit string that converts back to the same double, choosing the
 * closest one when several have that length. shortest_decimal() finds it in
 * a few 64x64-bit multiplications (Giulietti's Schubfach method) instead of
 * printf/strtod round trips.
 *
 * What it buys, measured (2-core development machine, gcc -O2, a million
 * random doubles of 17 significant digits): py_repr_fmt 41 ns per number
 * against 1,250 ns for the libc route (snprintf "%.15g"..."%.17g" until
 * strtod reads the double back); a results tree prints millions of floats.
 * Library rejected: Debian packages no C one. Google's double-conversion and
 * fast_float are C++ (a second toolchain and ABI for one function), Ryu is
 * not packaged. tests/unit/test_decimal.c holds it to the printf oracle. */
#ifndef NPUSIM_SHORTEST_H
#define NPUSIM_SHORTEST_H

#include <stdint.h>

/* For finite x > 0: x reads back from digits * 10^exp10, digits has no
 * trailing zero decimal digit (digits < 10^17). */
void shortest_decimal(double x, uint64_t *digits, int *exp10);

#endif
