/* fields_ref.h — the configuration reference as rows: every model, chip,
 * system and power-gating strategy field with its section, type, unit,
 * default, checked range and meaning, read from the tables the loaders check
 * against (traces/fields.h, power/pg.h). `npusim fields` prints the rows as
 * Markdown (docs/configs.md); GET /api/fields answers them as JSON (Python's
 * npusim.fields()). Main data structure: struct field_row, one field. */
#ifndef NPUSIM_API_FIELDS_REF_H
#define NPUSIM_API_FIELDS_REF_H

#include <stdbool.h>

struct field_row {
    const char *section;   /* "Chip", "LLMs (Llama, DeepSeek)", ...: a heading of docs/configs.md */
    const char *table;     /* "model", "chip", "system" or "strategy" */
    const char *key, *type, *unit, *meaning;   /* unit "" for counts and ratios */
    char def[300];         /* the default as text; "required" */
    char range[600];       /* the values a loader accepts */
};

/* Calls each(row, arg) for every field, section by section in the
 * reference's order. md: texts and choices as Markdown code spans. */
void fields_reference(bool md, void (*each)(const struct field_row *row, void *arg), void *arg);

#endif
