/* cmd_fields.c — `npusim fields`: every config field with its type, unit,
 * default, the range it is checked against when loaded, and its meaning.
 *
 * Printed from the field tables themselves (the rows of api/fields_ref.h),
 * so the configuration reference (docs/configs.md, whose tables are this
 * command's output) cannot drift from what the loader checks; a CLI test
 * compares the two. No data structure of its own. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "api/fields_ref.h"

static const char fields_help[] =
    "usage: npusim fields\n"
    "\n"
    "Prints every model, chip, system and power-gating strategy field as Markdown\n"
    "tables: its type, unit, default, the range it is checked against when a config\n"
    "file or --set is loaded, and what it means (docs/configs.md is this output).\n";

/* One Markdown row, under a heading when its section starts. */
static void print_row(const struct field_row *r, void *arg)
{
    const char **section = arg;
    if (!*section || strcmp(*section, r->section) != 0) {
        printf("\n### %s\n\n| field | type | unit | default | range | meaning |\n|---|---|---|---|---|---|\n", r->section);
        *section = r->section;
    }
    printf("| `%s` | %s | %s | %s | %s | %s |\n", r->key, r->type, r->unit[0] ? r->unit : "-", r->def, r->range,
           r->meaning);
}

int cmd_fields(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(fields_help, stdout);
        return 0;
    }
    if (argc > 1)
        return usage_error("fields", "unexpected argument \"%s\"", argv[1]);
    const char *section = NULL;
    printf("<!-- printed by `npusim fields`: edit the field tables, not this text -->\n");
    fields_reference(true, print_row, &section);
    return 0;
}
