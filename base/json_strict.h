/* json_strict.h — JSON input as a careful reader wants it, and "did you mean".
 *
 * Every JSON text the program reads is parsed here, by the one reader
 * (base/rawjson.h); no other folder calls cJSON_Parse* (tests/layering.sh).
 * cJSON accepts text after the value ("{...} x"), keeps every duplicate key
 * (the first wins on lookup, silently) and stops at a NUL byte. Every file a
 * user writes (model, chip and system configs, strategies, sweep specs,
 * fleets) goes through json_parse_strict(), which rejects all three with the
 * file name and the line; other JSON through json_parse(). */
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

/* JSON that is not a user's config (measurement and trace files, a
 * trace's provenance line, text this program wrote), read as
 * cJSON_ParseWithLength read it, but by the one reader: the value text[0..n)
 * starts with, numbers as doubles under the standard grammar (no NaN);
 * the text after it is not looked at, and an object's duplicate keys are
 * kept (a lookup finds the first). Stricter than cJSON only where JSON is:
 * well-formed UTF-8, no leading zeros or "1.", nesting at most 200 deep.
 * NULL with e set ("name: not JSON (at byte B)"; e may be NULL) when text
 * does not start with a value. */
cJSON *json_parse(const char *text, size_t n, const char *name, struct npu_err *e);

/* Reads and parses a whole file strictly; the top level must be an object. */
cJSON *json_read_file_strict(const char *path, struct npu_err *e);

/* The same for a file Python's json module wrote: its bare Infinity,
 * -Infinity and NaN (outside strings; not JSON) read as null, every other
 * rule as json_read_file_strict's. For Hugging Face configs (study/hf), whose
 * ignored keys carry them (Mamba models' time_step_limit). */
cJSON *json_read_file_python(const char *path, struct npu_err *e);

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
