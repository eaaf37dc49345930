/* rawjson.h — JSON text to a cJSON tree that keeps every number's text.
 *
 * The stages that add keys to a statistics file (energy, carbon, SLO) must
 * write the untouched part back as Python's json would: ints stay ints,
 * floats keep their repr, NaN and Infinity survive. cJSON turns numbers into
 * doubles (and rejects NaN), so this parser builds the cJSON tree itself,
 * numbers as cJSON_Raw items holding their token text, which pyjson_print
 * writes verbatim and jnum() (results_tree.h) reads. */
#ifndef NPUSIM_CLI_RAWJSON_H
#define NPUSIM_CLI_RAWJSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* Parses text[0..len) (one value, surrounding white space allowed). With
 * py_numbers, number tokens become what json.load then json.dump would print:
 * ints verbatim ("-0" as "0"), floats as repr of their value, overflow as
 * Infinity. Returns NULL on a syntax error, with *err_line its 1-based line.
 * Nesting deeper than 200 levels is an error too. */
cJSON *rawjson_parse(const char *text, size_t len, bool py_numbers, int *err_line);

/* 1 for the bytes a JSON string holds as they are (0x20..0x7f except '"'
 * and '\\'), 0 for those that end a plain run: the reader here and the
 * printer (cli/pyjson.c) scan runs with one load per byte. */
extern const unsigned char json_plain_byte[256];

#endif
