/* fields_ref.c — the configuration reference's rows (see fields_ref.h). */
#include "api/fields_ref.h"

#include <stdio.h>
#include <string.h>

#include "base/pyfmt.h"
#include "chipsim/chip.h"
#include "opsgen/model.h"
#include "power/pg.h"
#include "power/system.h"
#include "traces/fields.h"

/* The shortest text that reads back as v (base/pyfmt.h): 2^24 and 1e15 print
 * as written, 0.1 as 0.1, and no default or bound loses a digit. */
static void num_text(char *buf, size_t n, double v)
{
    char t[32];
    snprintf(buf, n, "%s", num_text_shortest(v, t, sizeof t));
}

static void range_text(const struct field_desc *f, bool md, char *buf, size_t n)
{
    const char *q = md ? "`" : "";
    char lo[32], hi[32];
    double l, h;
    buf[0] = '\0';
    switch (f->type) {
    case FT_BOOL: snprintf(buf, n, "true or false"); return;
    case FT_STR:
        if (!f->one_of) {
            snprintf(buf, n, "text, at most %d characters", FIELD_STR_MAX - 1);
            return;
        }
        for (const char *p = f->one_of; *p;) {
            size_t k = strcspn(p, "|"), used = strlen(buf);
            snprintf(buf + used, n - used, "%s%s%.*s%s", p == f->one_of ? "" : ", ", q, (int)k, p, q);
            p += k + (p[k] == '|');
        }
        return;
    case FT_LAYERS: snprintf(buf, n, "1 to %d layers, features 1 to %.0f", FIELD_LIST_MAX, FIELD_INT_MAX); return;
    case FT_MEM_LEVELS:
        snprintf(buf, n, "0 to %d objects {name, capacity_KiB, fill_GBps}, innermost first, capacities growing outward",
                 MEM_LEVELS_MAX);
        return;
    default: break;
    }
    fields_range(f, &l, &h);
    num_text(lo, sizeof lo, l);
    num_text(hi, sizeof hi, h);
    bool open_lo = f->type == FT_DOUBLE && (f->flags & FF_POSITIVE) && l == 0;
    if (f->type == FT_INT_LIST)
        snprintf(buf, n, "up to %d items, each %s to %s", FIELD_LIST_MAX, lo, hi);
    else
        snprintf(buf, n, "%s%s to %s", open_lo ? "above " : "", lo, hi);
}

static void default_text(const struct field_desc *f, bool md, char *buf, size_t n)
{
    const char *q = md ? "`" : "";
    switch (f->type) {
    case FT_INT: case FT_DOUBLE: num_text(buf, n, f->def_num); break;
    case FT_BOOL: snprintf(buf, n, "%s", f->def_num ? "true" : "false"); break;
    case FT_STR: snprintf(buf, n, "%s%s%s", q, f->def_str ? f->def_str : "", q); break;
    case FT_INT_LIST: snprintf(buf, n, "%s", f->def_str ? f->def_str : "(none)"); break;
    default: snprintf(buf, n, "(none)"); break;
    }
    if (f->flags & FF_REQUIRED)
        snprintf(buf, n, "required");
}

static void table_rows(const char *section, const struct field_table *t, bool md,
                       void (*each)(const struct field_row *, void *), void *arg)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct field_desc *f = &t->f[i];
        struct field_row r = { section, t->what, f->key, fields_type_name(f->type), fields_unit(f),
                               f->doc ? f->doc : "", "", "" };
        default_text(f, md, r.def, sizeof r.def);
        range_text(f, md, r.range, sizeof r.range);
        each(&r, arg);
    }
}

/* The power-gating strategy file's fields, defaults from pg_strategy_default. */
static void strategy_rows(bool md, void (*each)(const struct field_row *, void *), void *arg)
{
    struct pg_strategy def;
    pg_strategy_default(&def);
    for (int i = 0; i < pg_field_count(); i++) {
        struct pg_field_doc d;
        pg_field_describe(i, &d);
        struct field_row r = { "Power-gating strategy (`--pg FILE`)", "strategy", d.key, d.type, d.unit, d.doc,
                               "", "" };
        if (strcmp(d.key, "name") == 0) {
            snprintf(r.def, sizeof r.def, "the file's name");
        } else {   /* the value as a strategy file writes it */
            FILE *m = fmemopen(r.def, sizeof r.def - 2, "w");
            if (m) {
                fputs(md ? "`" : "", m);
                pg_field_write(i, &def, m);
                fputs(md ? "`" : "", m);
                fclose(m);
            }
        }
        snprintf(r.range, sizeof r.range, "%s", d.allowed);
        if (!md) {   /* the choices without their code spans */
            char *w = r.range;
            for (const char *p = d.allowed; *p; p++)
                if (*p != '`')
                    *w++ = *p;
            *w = '\0';
        }
        each(&r, arg);
    }
}

void fields_reference(bool md, void (*each)(const struct field_row *row, void *arg), void *arg)
{
    static const struct { const char *title; const struct field_table *t; } tables[] = {
        { "Every model (parallelism and batch)", &model_base_fields },
        { "LLMs (Llama, Mixtral, Gemma, DeepSeek, ...)", &model_llm_fields },
        { "Mixture of experts (ffn_type moe or deepseek_moe)", &model_moe_fields },
        { "Mixture of experts over standard attention (ffn_type moe): its layer pattern", &model_moe_layers_fields },
        { "DeepSeek multi-head latent attention", &model_deepseek_fields },
        { "DiT", &model_dit_fields },
        { "DLRM", &model_dlrm_fields },
        { "GLIGEN", &model_gligen_fields },
        { "Chip", &chip_fields },
        { "System", &system_fields },
    };
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        table_rows(tables[i].title, tables[i].t, md, each, arg);
    strategy_rows(md, each, arg);
}
