/* pyfmt.h — Python-compatible numbers: the text of floats and lists, and
 * int / int true division.
 *
 * The reference writes floats with Python's repr (shortest round-trip digits,
 * always a '.' or an exponent, scientific iff exponent < -4 or >= 16) and
 * lists as Python repr ("[[1, 4096, 256], [256, 14336]]"). Reproducing the
 * reference cell for cell needs the same text. */
#ifndef NPUSIM_PYFMT_H
#define NPUSIM_PYFMT_H

#include <stddef.h>
#include <stdint.h>

/* Longest repr plus its NUL: "-" + 17 digits + "." + "e-308" etc. fit in 32. */
#define PY_REPR_MAX 32

/* Writes repr(x) and a NUL into out; returns its length. "nan", "inf",
 * "-inf" as Python. */
size_t py_repr_fmt(double x, char out[PY_REPR_MAX]);
/* The same into buf of size bytes (truncated to fit). Returns buf. */
char *py_repr_double(double x, char *buf, size_t size);
/* x as the shortest text that reads back as x, a whole number without a
 * fraction ("4", "0.1", "1e-05"; not "0.10000000000000001", not "4.0"):
 * for a JSON number handed on as an option's text, or shown as one. */
char *num_text_shortest(double x, char *buf, size_t size);

/* Python's int / int true division: a / b correctly rounded to the nearest
 * double (half to even), also past 2^53 where (double)a / (double)b would
 * round twice (a >= 0, b > 0). The reference divides Python ints; ceil() of the
 * result must see the same double. */
double py_div(int64_t a, int64_t b);

#endif
