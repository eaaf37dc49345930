/* shortest.h — the shortest decimal that reads back as a given double.
 *
 * Python's repr(), and so every float cell of the reference, prints the
 * shortest digit string that converts back to the same double, choosing the
 * closest one when several have that length. shortest_decimal() finds it in
 * a few 64x64-bit multiplications (Giulietti's Schubfach method) instead of
 * printf/strtod round trips. */
#ifndef NPUSIM_SHORTEST_H
#define NPUSIM_SHORTEST_H

#include <stdint.h>

/* For finite x > 0: x reads back from digits * 10^exp10, digits has no
 * trailing zero decimal digit (digits < 10^17). */
void shortest_decimal(double x, uint64_t *digits, int *exp10);

#endif
