/* json_strict.h — JSON input as a careful reader wants it, and "did you mean".
 *
 * cJSON accepts text after the value ("{...} x"), keeps every duplicate key
 * (the first wins on lookup, silently) and stops at a NUL byte. Every file a
 * user writes (model, chip and system configs, strategies, sweep specs,
 * fleets) goes through json_parse_strict() instead, which rejects all three
 * with the file name and the line. */
#ifndef NPUSIM_JSON_STRICT_H
#define NPUSIM_JSON_STRICT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/err.h"

/* Parses n bytes of text named `name` in messages: one JSON value, then only
 * white space; no NUL byte; no object with the same key twice (at any
 * depth). NULL with e set ("name:LINE: invalid JSON", "name: duplicate key
 * \"k\" in <path>", ...) on anything else. */
cJSON *json_parse_strict(const char *text, size_t n, const char *name, struct npu_err *e);

/* Reads and parses a whole file strictly; the top level must be an object. */
cJSON *json_read_file_strict(const char *path, struct npu_err *e);

/* The first member of object o whose key is not among known[0..n), or
 * NULL; with hint (size hn) set to a did-you-mean for it (or ""). */
const char *json_unknown_key(const cJSON *o, const char *const *known, size_t n, char *hint, size_t hn);

/* The candidate closest to key by edit distance, if close enough to be a
 * likely typo (at most 2 edits, and fewer than half of key's length); NULL
 * otherwise. For "did you mean" hints. */
const char *suggest_closest(const char *key, const char *const *cands, size_t n);

/* Appends ` (did you mean "X"?)` to buf (size n) when suggest_closest finds X; else "". */
void suggest_hint(char *buf, size_t n, const char *key, const char *const *cands, size_t ncands);
/* The hint's text for a suggestion s (NULL: ""), which every "did you mean" shares. */
void hint_text(char *buf, size_t n, const char *s);

#endif
