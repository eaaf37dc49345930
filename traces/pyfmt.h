/* pyfmt.h — Python-compatible text for numbers and lists.
 *
 * The reference writes floats with Python's repr (shortest round-trip digits,
 * always a '.' or an exponent, scientific iff exponent < -4 or >= 16) and
 * lists as Python repr ("[[1, 4096, 256], [256, 14336]]"). Reproducing the
 * reference cell for cell needs the same text. */
#ifndef NPUSIM_PYFMT_H
#define NPUSIM_PYFMT_H

#include <stddef.h>
#include <stdint.h>

/* Writes repr(x) into buf (at least 32 bytes). Returns buf. "nan", "inf", "-inf" as Python. */
char *py_repr_double(double x, char *buf, size_t size);

#endif
