/* opstr.h — storage of the operator records' strings (traces/op.c), also
 * cJSON's allocator in the command-line program (pyjson_use_lookaside).
 *
 * Every op string field holds either the shared read-only "" or a block from
 * opstr_alloc, possibly shared by several ops (counted); op.c releases them
 * with opstr_release and nothing else may free() them (the block starts
 * before the pointer). */
#ifndef NPUSIM_OPSTR_H
#define NPUSIM_OPSTR_H

#include <stddef.h>

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

#endif
