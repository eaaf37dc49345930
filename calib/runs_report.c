/* runs_report.c — the reports of `npusim validate --runs` (see runs.h): a
 * markdown page, the merged CSV (every input column, then the prediction)
 * and a cJSON tree. Text is built in a growing buffer. No data structure of
 * its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/runs.h"
#include "calib/validate_internal.h"

#include "base/strbuf.h"

/* A markdown table cell: '|' escaped, newlines as spaces. */
static void md_cell(struct strbuf *b, const char *s)
{
    strbuf_puts(b, " ");
    for (; *s; s++) {
        if (*s == '|')
            strbuf_putc(b, '\\');
        strbuf_putc(b, *s == '\n' || *s == '\r' ? ' ' : *s);
    }
    strbuf_puts(b, " |");
}

static void md_groups(struct strbuf *b, const struct run_validation *v, const char *title,
                      const struct run_group *g, int n)
{
    strbuf_printf(b, "\n## By %s\n\n| %s | count | not predicted | MAPE %% | median APE %% | max APE %% | bias %% | "
                     "worst |\n|---|---|---|---|---|---|---|---|\n", title, title);
    for (int i = 0; i < n; i++) {
        const struct error_stats *s = &g[i].s;
        strbuf_puts(b, "|");
        md_cell(b, g[i].name);
        if (!s->count) {
            strbuf_printf(b, " 0 | %lld | | | | | |\n", (long long)g[i].errors);
            continue;
        }
        strbuf_printf(b, " %lld | %lld | %.2f | %.2f | %.2f | %+.2f |", (long long)s->count, (long long)g[i].errors,
                      s->mape_pct, s->median_ape_pct, s->max_ape_pct, s->bias_pct);
        const struct run_result *w = &v->rows[s->worst];
        char worst[512];
        snprintf(worst, sizeof worst, "%s %+.1f%%", run_cell(w->in, RC_ID), w->error_pct);
        md_cell(b, worst);
        strbuf_putc(b, '\n');
    }
}

char *run_validation_markdown(const struct run_validation *v)
{
    struct strbuf b = STRBUF_GROWING;
    const struct error_stats *o = &v->overall.s;
    strbuf_printf(&b, "# End-to-end runs against npusim\n\n%zu measured values, %lld predicted", v->n,
                  (long long)o->count);
    if (v->n_errors)
        strbuf_printf(&b, ", %zu not (their reason in the table; left out of the figures)", v->n_errors);
    strbuf_printf(&b, ". MAPE %.2f%%, median APE %.2f%%, max APE %.2f%%, bias %+.2f%% (the mean signed error: "
                      "positive predicts above the measured value).\n",
                  o->mape_pct, o->median_ape_pct, o->max_ape_pct, o->bias_pct);
    md_groups(&b, v, "metric", v->by_metric, v->n_metric);
    md_groups(&b, v, "source", v->by_source, v->n_source);
    md_groups(&b, v, "chip", v->by_chip, v->n_chip);
    strbuf_puts(&b, "\n## Runs\n\n| id | source | chip | model | metric | measured | predicted | error % |\n"
                    "|---|---|---|---|---|---|---|---|\n|");
    for (size_t i = 0; i < v->n; i++) {
        const struct run_result *r = &v->rows[i];
        static const enum run_col cols[] = { RC_ID, RC_SOURCE, RC_CHIP, RC_MODEL, RC_METRIC };
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            md_cell(&b, run_cell(r->in, cols[c]));
        strbuf_printf(&b, " %.6g |", r->in->measured);
        if (r->ok)
            strbuf_printf(&b, " %.6g | %+.2f |", r->predicted, r->error_pct);
        else {
            char why[600];
            snprintf(why, sizeof why, "error: %s", r->why);
            md_cell(&b, why);
            strbuf_puts(&b, " |");
        }
        strbuf_puts(&b, i + 1 < v->n ? "\n|" : "\n");
    }
    return b.s;
}

char *run_validation_csv(const struct run_validation *v, const struct run_table *tables, int n)
{
    const char *extra[RUN_ROW_EXTRA_MAX * 4];
    int ne = 0;
    for (int i = 0; i < n; i++)   /* the extra columns of every table, in first-seen order */
        ne = validate_names_add(extra, ne, RUN_ROW_EXTRA_MAX * 4, tables[i].extra_name, tables[i].n_extra);
    struct strbuf b = STRBUF_GROWING;
    strbuf_puts(&b, "file,line");
    validate_csv_cells(&b, run_col_name, RUN_COLS);
    validate_csv_cells(&b, extra, ne);
    strbuf_puts(&b, ",predicted,error_pct,error\n");
    for (size_t i = 0; i < v->n; i++) {
        const struct run_result *r = &v->rows[i];
        validate_csv_cell(&b, r->t->name, true);
        strbuf_printf(&b, ",%d", r->in->line);
        for (int c = 0; c < RUN_COLS; c++)
            validate_csv_cell(&b, run_cell(r->in, (enum run_col)c), false);
        for (int x = 0; x < ne; x++) {
            const char *cell = validate_extra_cell(r->t->extra_name, r->in->extra, r->t->n_extra, extra[x]);
            validate_csv_cell(&b, cell, false);
        }
        if (r->ok) {
            strbuf_putc(&b, ',');
            validate_put_num(&b, r->predicted);
            strbuf_putc(&b, ',');
            validate_put_num(&b, r->error_pct);
            strbuf_puts(&b, ",\n");
        } else {
            strbuf_puts(&b, ",,");
            validate_csv_cell(&b, r->why, false);
            strbuf_putc(&b, '\n');
        }
    }
    return b.s;
}

static cJSON *group_json(const struct run_validation *v, const struct run_group *g)
{
    const struct error_stats *s = &g->s;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "count", (double)s->count);
    cJSON_AddNumberToObject(o, "not_predicted", (double)g->errors);
    if (s->count) {
        cJSON_AddNumberToObject(o, "mape_pct", s->mape_pct);
        cJSON_AddNumberToObject(o, "median_ape_pct", s->median_ape_pct);
        cJSON_AddNumberToObject(o, "max_ape_pct", s->max_ape_pct);
        cJSON_AddNumberToObject(o, "bias_pct", s->bias_pct);
        const size_t which[2] = { s->best, s->worst };
        static const char *const names[2] = { "best", "worst" };
        for (int i = 0; i < 2; i++) {
            cJSON *r = cJSON_AddObjectToObject(o, names[i]);
            cJSON_AddStringToObject(r, "id", run_cell(v->rows[which[i]].in, RC_ID));
            cJSON_AddNumberToObject(r, "error_pct", v->rows[which[i]].error_pct);
        }
    }
    return o;
}

static cJSON *groups_json(const struct run_validation *v, const struct run_group *g, int n)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToObject(o, g[i].name, group_json(v, &g[i]));
    return o;
}

static cJSON *row_json(const struct run_result *r)
{
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "file", r->t->name);
    cJSON_AddNumberToObject(x, "line", r->in->line);
    static const enum run_col text[] = { RC_ID, RC_SOURCE, RC_CHIP, RC_MODEL, RC_METRIC };
    for (size_t c = 0; c < sizeof text / sizeof text[0]; c++)
        cJSON_AddStringToObject(x, run_col_name[text[c]], run_cell(r->in, text[c]));
    cJSON_AddNumberToObject(x, "measured", r->in->measured);
    const int64_t num[] = { r->in->tp, r->in->pp, r->in->ep, r->in->dp, r->in->batch, r->in->input_len,
                            r->in->output_len };
    for (int c = RC_TP; c <= RC_OUTPUT_LEN; c++)
        cJSON_AddNumberToObject(x, run_col_name[c], (double)num[c - RC_TP]);
    if (r->ok) {
        cJSON_AddNumberToObject(x, "predicted", r->predicted);
        cJSON_AddNumberToObject(x, "error_pct", r->error_pct);
        cJSON_AddNumberToObject(x, "TTFT_sec", r->p.ttft_sec);
        cJSON_AddNumberToObject(x, "TPOT_ms_request", r->p.tpot_ms);
    } else
        cJSON_AddStringToObject(x, "error", r->why);
    return x;
}

cJSON *run_validation_json(const struct run_validation *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "overall", group_json(v, &v->overall));
    cJSON_AddItemToObject(o, "by_metric", groups_json(v, v->by_metric, v->n_metric));
    cJSON_AddItemToObject(o, "by_source", groups_json(v, v->by_source, v->n_source));
    cJSON_AddItemToObject(o, "by_chip", groups_json(v, v->by_chip, v->n_chip));
    cJSON *rows = cJSON_AddArrayToObject(o, "rows");
    for (size_t i = 0; i < v->n; i++)
        cJSON_AddItemToArray(rows, row_json(&v->rows[i]));
    return o;
}
