/* pyjson.h — cJSON trees printed the way Python's json.dump(indent=4) prints.
 *
 * The reference writes its statistics with json.dump(obj, f, indent=4);
 * printing the same text (4-space indent, ", "/": " separators, ASCII
 * escapes, floats as repr, no trailing newline) lets golden tests compare
 * files byte for byte. Numbers added as raw text are printed verbatim. */
#ifndef NPUSIM_PYJSON_H
#define NPUSIM_PYJSON_H

#include <cjson/cJSON.h>

#include "base/strbuf.h"

/* Returns a malloc'ed string (caller frees). */
char *pyjson_print(const cJSON *item);
/* The text of item as pyjson_print prints it at nesting depth `level` of
 * an enclosing tree (its first line not indented), so that it can go in
 * there as a raw item: a value shared by several files is printed once. */
char *pyjson_print_at(const cJSON *item, int level);

/* Python json.dump(indent=4) text written directly, for objects whose shape
 * the caller knows (the energy stage's energy_stats: hundreds of numbers per
 * file, which as cJSON nodes cost three allocations each to build, print and
 * free). The text is that of pyjson_print for the same object placed at
 * nesting depth `level`, so it can go into a tree as a raw item there. */
#define PYJSON_TEXT_MAX_DEPTH 16
struct pyjson_text {
    struct strbuf buf;                    /* the text so far (growing) */
    int level;                            /* depth of the innermost open object */
    int depth;                            /* objects open */
    unsigned char empty[PYJSON_TEXT_MAX_DEPTH];   /* no key yet in that object */
};
/* Starts the text with "{" of an object at depth level. */
void pyjson_text_begin(struct pyjson_text *t, int level);
/* The next key of the innermost object, then its value: raw text (a number
 * as the caller printed it, true, NaN...) or a nested object. */
void pyjson_text_raw(struct pyjson_text *t, const char *key, const char *raw);
/* The same with the key as pyjson_key_text printed it (for keys written
 * over and over: escaped once) and the raw text's length known. */
void pyjson_text_raw_keyed(struct pyjson_text *t, const char *key_text, size_t key_len, const char *raw,
                           size_t raw_len);
/* A key's text as an object member prints it ("key": , escaped) into out
 * (size n); its length, or 0 when it does not fit. */
size_t pyjson_key_text(const char *key, char *out, size_t n);
void pyjson_text_object(struct pyjson_text *t, const char *key);
/* Closes the innermost object. */
void pyjson_text_end(struct pyjson_text *t);
/* The finished text (malloc'ed, the caller frees); t is empty afterwards. */
char *pyjson_text_take(struct pyjson_text *t);


/* The cJSON allocator, chosen by an explicit call: every entry point
 * makes it first (cli/main.c's main, api/capi.c's npusim_call, which the
 * shared library and Python enter by), before any cJSON allocation.
 *
 * It makes cJSON allocate its nodes and strings from the per-thread
 * small-block lists of traces/opstr.c instead of malloc. Why it matters:
 * - speed: the stages build and drop trees of hundreds of small nodes per
 *   statistics file, and malloc cost more than the JSON work (pyjson.c
 *   gives the measured difference);
 * - correctness: cJSON_InitHooks is process-wide (libcjson is a shared
 *   library) and a block must go back to the allocator it came from, so
 *   the choice is made once, before the first tree, and never changed: a
 *   tree made before the call and deleted after it would be freed by the
 *   wrong allocator. For the same reason cJSON's own buffers (the text of
 *   cJSON_Print*) are freed with cJSON_free, never free(); and a host
 *   program that loads the library and uses libcjson itself must not hold
 *   cJSON trees of its own across the first npusim_call.
 * Idempotent and thread-safe (pthread_once): threads that enter the library
 * at once all find the hooks installed when it returns. Code that never
 * calls it (unit tests) gets cJSON's malloc, which changes no output. */
void pyjson_allocator_init(void);

#endif
