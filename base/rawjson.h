/* rawjson.h — the one JSON reader: text to a cJSON tree, numbers as the
 * caller needs them.
 *
 * The stages that add keys to a statistics file (energy, carbon, SLO) must
 * write the untouched part back as Python's json would: ints stay ints,
 * floats keep their repr, NaN and Infinity survive. cJSON's own parser turns
 * numbers into doubles (and rejects NaN), so this parser builds the cJSON
 * tree itself: numbers as cJSON_Raw items holding their token text, which
 * study/run/pyjson.h prints verbatim and jnum() (study/stages/results_tree.h) reads; or,
 * for configs (base/json_strict.h), as plain cJSON numbers under the
 * standard grammar. Hand-written rather than cJSON's parser for the raw
 * numbers and the checks cJSON lets through (well-formed UTF-8 only, no
 * leading zeros, no "1.", nesting at most 200 deep). */
#ifndef NPUSIM_RAWJSON_H
#define NPUSIM_RAWJSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* What numbers become. */
enum json_numbers {
    JSON_NUMBERS_TEXT,     /* raw items holding the token as written (NaN, Infinity accepted) */
    JSON_NUMBERS_PYTHON,   /* raw items holding what json.load then json.dump would print: ints
                            * verbatim ("-0" as "0"), floats as repr of their value, overflow
                            * as Infinity (NaN, Infinity accepted) */
    JSON_NUMBERS_DOUBLE,   /* cJSON numbers, the nearest double; standard JSON: no NaN/Infinity */
};

/* Parses text[0..len) (one value, surrounding white space allowed).
 * Returns NULL on a syntax error, with *err_line its 1-based line (may be
 * NULL). Nesting deeper than 200 levels is an error too. */
cJSON *rawjson_parse(const char *text, size_t len, enum json_numbers numbers, int *err_line);
/* The same for the value text starts with: *rest receives where the text
 * after it (and its white space) begins. */
cJSON *rawjson_parse_prefix(const char *text, size_t len, enum json_numbers numbers, const char **rest,
                            int *err_line);

/* The same with the position of a syntax error (where the reader stopped)
 * in *err_at instead of its line. */
cJSON *rawjson_parse_at(const char *text, size_t len, enum json_numbers numbers, const char **rest,
                        const char **err_at);

/* 1 for the bytes a JSON string holds as they are (0x20..0x7f except '"'
 * and '\\'), 0 for those that end a plain run: the reader here and the
 * printer (study/run/pyjson.c) scan runs with one load per byte. */
extern const unsigned char json_plain_byte[256];

#endif
