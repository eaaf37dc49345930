/* dtype.h — bytes per element of a dtype token ("DT_BFLOAT16" -> 2).
 *
 * The reference decides by substring tests in a fixed order (contains "8" ->
 * 1, "16" -> 2, "32" -> 4, "64" -> 8, "BOOL" -> 1, exactly "DT_FLOAT" or
 * "DT_INT" -> 4), so "DT_FLOAT8" is 1 byte and "DT_INT64" 8. Shared by the
 * generators (weights, transfer sizes) and chipsim (traffic). */
#ifndef NPUSIM_DTYPE_H
#define NPUSIM_DTYPE_H

/* Returns the element size in bytes, or -1 for an unknown dtype. */
int dtype_bytes(const char *dtype);

#endif
