/* utf8.h — well-formed UTF-8 (RFC 3629): the length of one sequence, and a
 * copy of any bytes made well-formed. The JSON reader (rawjson.c) refuses
 * what utf8_len does not take; an error message that echoes a request's
 * text cut at a byte count (%.100s) goes through utf8_clean, so every answer
 * of the HTTP API is valid UTF-8. No data structure. */
#ifndef NPUSIM_UTF8_H
#define NPUSIM_UTF8_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at p (of avail bytes: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 (also for ASCII: the
 * caller tests < 0x80 first). */
int utf8_len(const unsigned char *p, size_t avail);

/* Copies src into dst (n bytes, at least 1) as well-formed UTF-8: ASCII and
 * well-formed sequences as they are, every other byte (a cut or stray one)
 * as U+FFFD; stops on a character boundary when dst is full. Returns the
 * length written. */
size_t utf8_clean(char *dst, size_t n, const char *src);

#endif
