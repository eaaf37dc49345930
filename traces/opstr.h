/* opstr.h — storage of the operator records' strings (traces/op.c), also
 * cJSON's allocator in the command-line program (pyjson_use_lookaside).
 *
 * Every op string field holds either the shared read-only "" or a block from
 * opstr_alloc, possibly shared by several ops (counted); op.c releases them
 * with opstr_release and nothing else may free() them (the block starts
 * before the pointer). */
#ifndef NPUSIM_OPSTR_H
#define NPUSIM_OPSTR_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The shared empty string (never freed, never written). */
extern const char opstr_empty[1];

/* Room for n bytes (the caller writes the text and its NUL). Aborts on
 * out-of-memory, as the rest of op.c. */
char *opstr_alloc(size_t n);
/* One more owner of s (a string from opstr_alloc, or opstr_empty or NULL,
 * returned as they are): s itself, freed only when every owner has
 * released it. Strings are never written after they are made, so owners on
 * any thread may share one. */
char *opstr_share(char *s);
/* Releases one owner of a field's string; NULL and opstr_empty are ignored. */
void opstr_release(char *s);

/* Seals s (from opstr_alloc, its text of len bytes just written, not yet
 * shared): records its length and how a CSV field writes it (plain, or in
 * quotes when it holds a comma or line break but no quote), so that writers
 * copy it without scanning it. An op string is written to several CSVs (a
 * sweep's three, each energy strategy's) but made once. */
void opstr_seal(char *s, size_t len);

/* Header layout (opstr.c): byte 0 the size class, bytes 1 to 3 the seal
 * ((length + 1) << 1 | quoted; 0: not sealed), bytes 4 to 7 the count. */
#define OPSTR_HDR 8
#define OPSTR_SEALED_MAX 0x3ffffeu

/* For s, an op field's string: true when it is opstr_empty or sealed, with
 * *len its length and *quoted whether a CSV field wraps it in quotes; false
 * when not sealed (scan it). */
static inline bool opstr_csv_form(const char *s, size_t *len, bool *quoted)
{
    if (s == opstr_empty) {
        *len = 0;
        *quoted = false;
        return true;
    }
    const unsigned char *h = (const unsigned char *)s - OPSTR_HDR;
    size_t v = (size_t)h[1] | (size_t)h[2] << 8 | (size_t)h[3] << 16;
    *len = (v >> 1) - 1;
    *quoted = v & 1;
    return v != 0;
}

#endif
