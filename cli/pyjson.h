/* pyjson.h — cJSON trees printed the way Python's json.dump(indent=4) prints.
 *
 * The reference writes its statistics with json.dump(obj, f, indent=4);
 * printing the same text (4-space indent, ", "/": " separators, ASCII
 * escapes, floats as repr, no trailing newline) lets golden tests compare
 * files byte for byte. Numbers added as raw text are printed verbatim. */
#ifndef NPUSIM_PYJSON_H
#define NPUSIM_PYJSON_H

#include <cjson/cJSON.h>

/* Returns a malloc'ed string (caller frees). */
char *pyjson_print(const cJSON *item);

/* Makes cJSON allocate its nodes and strings from the per-thread lookaside
 * lists of traces/opstr.c instead of malloc: the energy and carbon stages
 * build and drop a few hundred small nodes per file, and glibc's general
 * allocator spent more on them than the JSON work itself. Call once, before
 * any cJSON allocation; afterwards free cJSON's own buffers (e.g. of
 * cJSON_PrintUnformatted) with cJSON_free, never free(). */
void pyjson_use_lookaside(void);

#endif
