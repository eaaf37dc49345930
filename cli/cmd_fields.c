/* cmd_fields.c — `npusim fields`: every config field with its type, unit,
 * default, the range it is checked against when loaded, and its meaning.
 *
 * Printed from the field tables themselves (traces/fields.h), so the
 * configuration reference (docs/configs.md, whose tables are this
 * command's output) cannot drift from what the loader checks; a CLI test
 * compares the two. No data structure of its own. */
#include <stdio.h>
#include <string.h>

#include "chipsim/chip.h"
#include "cli/cli.h"
#include "opsgen/model.h"
#include "power/pg.h"
#include "power/system.h"
#include "traces/fields.h"

static const char fields_help[] =
    "usage: npusim fields\n"
    "\n"
    "Prints every model, chip, system and power-gating strategy field as Markdown\n"
    "tables: its type, unit, default, the range it is checked against when a config\n"
    "file or --set is loaded, and what it means (docs/configs.md is this output).\n";

/* %.17g without trailing noise: 2^24 and 1e15 print as written. */
static void num_text(char *buf, size_t n, double v)
{
    if (v == (double)(long long)v && v < 1e16 && v > -1e16)
        snprintf(buf, n, "%lld", (long long)v);
    else
        snprintf(buf, n, "%g", v);
}

static void print_range(const struct field_desc *f)
{
    char lo[32], hi[32];
    double l, h;
    switch (f->type) {
    case FT_BOOL: printf("true or false"); return;
    case FT_STR:
        if (f->one_of) {
            for (const char *p = f->one_of; *p;) {
                size_t k = strcspn(p, "|");
                printf("%s`%.*s`", p == f->one_of ? "" : ", ", (int)k, p);
                p += k + (p[k] == '|');
            }
        } else {
            printf("text, at most %d characters", FIELD_STR_MAX - 1);
        }
        return;
    case FT_LAYERS:
        printf("1 to %d layers, features 1 to %.0f", FIELD_LIST_MAX, FIELD_INT_MAX);
        return;
    case FT_MEM_LEVELS:
        printf("0 to %d objects {name, capacity_KiB, fill_GBps}, innermost first, capacities growing outward",
               MEM_LEVELS_MAX);
        return;
    default: break;
    }
    fields_range(f, &l, &h);
    num_text(lo, sizeof lo, l);
    num_text(hi, sizeof hi, h);
    bool open_lo = f->type == FT_DOUBLE && (f->flags & FF_POSITIVE) && l == 0;
    if (f->type == FT_INT_LIST)
        printf("up to %d items, each %s to %s", FIELD_LIST_MAX, lo, hi);
    else
        printf("%s%s to %s", open_lo ? "above " : "", lo, hi);
}

static const char table_head[] = "| field | type | unit | default | range | meaning |\n|---|---|---|---|---|---|\n";

static void print_table(const char *title, const struct field_table *t)
{
    printf("\n### %s\n\n%s", title, table_head);
    for (size_t i = 0; i < t->n; i++) {
        const struct field_desc *f = &t->f[i];
        char def[300];
        switch (f->type) {
        case FT_INT: case FT_DOUBLE: num_text(def, sizeof def, f->def_num); break;
        case FT_BOOL: snprintf(def, sizeof def, "%s", f->def_num ? "true" : "false"); break;
        case FT_STR: snprintf(def, sizeof def, "`%s`", f->def_str ? f->def_str : ""); break;
        case FT_INT_LIST: snprintf(def, sizeof def, "%s", f->def_str ? f->def_str : "(none)"); break;
        default: snprintf(def, sizeof def, "(none)"); break;
        }
        if (f->flags & FF_REQUIRED)
            snprintf(def, sizeof def, "required");
        const char *unit = fields_unit(f);
        printf("| `%s` | %s | %s | %s | ", f->key, fields_type_name(f->type), unit[0] ? unit : "-", def);
        print_range(f);
        printf(" | %s |\n", f->doc ? f->doc : "");
    }
}

/* The power-gating strategy file's fields (power/pg.h), defaults from
 * pg_strategy_default. */
static void print_strategy_table(void)
{
    struct pg_strategy def;
    pg_strategy_default(&def);
    printf("\n### Power-gating strategy (`--pg FILE`)\n\n%s", table_head);
    for (int i = 0; i < pg_field_count(); i++) {
        struct pg_field_doc d;
        pg_field_describe(i, &d);
        printf("| `%s` | %s | %s | ", d.key, d.type, d.unit[0] ? d.unit : "-");
        if (strcmp(d.key, "name") == 0) {
            fputs("the file's name", stdout);
        } else {
            fputc('`', stdout);
            pg_field_write(i, &def, stdout);
            fputc('`', stdout);
        }
        printf(" | %s | %s |\n", d.allowed, d.doc);
    }
}

int cmd_fields(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(fields_help, stdout);
        return 0;
    }
    if (argc > 1)
        return usage_error("fields", "unexpected argument \"%s\"", argv[1]);
    static const struct { const char *title; const struct field_table *t; } tables[] = {
        { "Every model (parallelism and batch)", &model_base_fields },
        { "LLMs (Llama, DeepSeek)", &model_llm_fields },
        { "Mixture of experts (DeepSeek)", &model_moe_fields },
        { "DeepSeek multi-head latent attention", &model_deepseek_fields },
        { "DiT", &model_dit_fields },
        { "DLRM", &model_dlrm_fields },
        { "GLIGEN", &model_gligen_fields },
        { "Chip", &chip_fields },
        { "System", &system_fields },
    };
    printf("<!-- printed by `npusim fields`: edit the field tables, not this text -->\n");
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        print_table(tables[i].title, tables[i].t);
    print_strategy_table();
    return 0;
}
