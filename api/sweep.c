/* sweep.c — POST /api/sweep: a small sweep spec run in memory and
 * answered as its summary (the CSV of `npusim sweep --summary`, also as
 * rows of JSON objects) with the sweep report's figures. Bounded: a
 * spec of more than the server's --max-points points is refused before it
 * runs, and a sweep that runs past --time-limit stops with 503. Main data
 * structure: struct rows_reader, the summary CSV turned into JSON rows. */
#include "api/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/view/view.h"
#include "study/sweep/sweep.h"
#include "base/csv_lines.h"
#include "base/lists.h"

struct rows_reader {
    cJSON *rows, *row;
    char **col;
    int ncol, cap, cell;
    long line;
    int failed;
};

static void on_cell(void *s, size_t n, void *data)
{
    struct rows_reader *r = data;
    char *text = strndup(s, n);
    if (!text) {
        r->failed = 1;
        return;
    }
    if (r->line == 1) {   /* the header */
        if (r->ncol == r->cap) {
            int cap = r->cap ? 2 * r->cap : 32;
            char **c = realloc(r->col, (size_t)cap * sizeof *c);
            if (!c) {
                free(text);
                r->failed = 1;
                return;
            }
            r->col = c, r->cap = cap;
        }
        r->col[r->ncol++] = text;
        return;
    }
    if (!r->row)
        r->row = cJSON_CreateObject();
    double v;
    if (r->cell < r->ncol)   /* numbers as numbers, empty cells as null, the rest as text */
        cJSON_AddItemToObject(r->row, r->col[r->cell],
                              !n                              ? cJSON_CreateNull()
                              : !parse_f64_strict(text, &v) ? cJSON_CreateNumber(v)
                                                            : cJSON_CreateString(text));
    r->cell++;
    free(text);
}

static void on_end(int term, void *data)
{
    (void)term;
    struct rows_reader *r = data;
    if (r->row)
        cJSON_AddItemToArray(r->rows, r->row);
    r->row = NULL;
    r->cell = 0;
}

/* The summary CSV as an array of objects keyed by its header. */
static cJSON *rows_of(const char *csv)
{
    struct rows_reader r = { .rows = cJSON_CreateArray(), .line = 1 };
    const char *why;
    csv_feed_lines(csv, strlen(csv), on_cell, on_end, &r, &r.line, &r.failed, &why);
    cJSON_Delete(r.row);
    for (int i = 0; i < r.ncol; i++)
        free(r.col[i]);
    free(r.col);
    return r.rows;
}

/* The spec's models and chips must be names: a request reads nothing but
 * the configs folder. */
static const char *bad_name(const struct sweep_spec *s)
{
    const cJSON *lists[2] = { s->models, s->chips }, *it;
    for (int l = 0; l < 2; l++)
        cJSON_ArrayForEach(it, lists[l])
            if (!cJSON_IsString(it) || !api_name_ok(it->valuestring))
                return l ? "\"spec\": chips: expected config names (letters, digits, _ - .), not paths"
                         : "\"spec\": models: expected config names (letters, digits, _ - .), not paths";
    return NULL;
}

/* The carbon inputs' line with the system config named by its file name, not
 * the server's path ("carbon defaults from system_config.json: ..."); in place. */
static const char *note_by_name(char *note)
{
    char *from = strstr(note, " from "), *end = from ? strstr(from + 6, ": ") : NULL;
    if (end) {
        const char *slash = from + 6;
        for (const char *p = slash; p < end; p++)
            if (*p == '/')
                slash = p + 1;
        memmove(from + 6, slash, strlen(slash) + 1);
    }
    return note;
}

int api_sweep(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(req, "spec"),
                *slo = cJSON_GetObjectItemCaseSensitive(req, "slo_tpot_ms");
    static const char *const members[] = { "spec", "slo_tpot_ms" };
    if (api_unknown_member(req, members, sizeof members / sizeof members[0], "spec, slo_tpot_ms", r))
        return 0;
    if (!cJSON_IsObject(spec))
        return api_reply_error(r, 400, "\"spec\": expected a sweep spec object (docs/sweep-spec.md)");
    if (slo && (!cJSON_IsNumber(slo) || !(slo->valuedouble > 0)))
        return api_reply_error(r, 400, "\"slo_tpot_ms\": expected milliseconds above 0");
    char *text = cJSON_PrintUnformatted(spec);
    struct sweep_spec s;
    struct npu_err e;
    memset(&s, 0, sizeof s);
    int rc = text ? sweep_spec_parse(text, "spec", &s, &e) : npu_errf(&e, "out of memory");
    cJSON_free(text);
    const char *bad = rc || ctx->local ? NULL : bad_name(&s);
    if (rc || bad) {
        sweep_spec_free(&s);
        return api_reply_error(r, 400, bad ? bad : e.msg);
    }
    double deadline = api_deadline(ctx);
    char *csv = NULL;
    struct sweep_count cnt;
    char carbon[SWEEP_CARBON_NOTE_MAX];
    rc = sweep_summary_text(&s, ctx->configs, ctx->only_configs, ctx->prof, ctx->max_points, deadline, &csv, &cnt, carbon, &e);
    sweep_spec_free(&s);
    if (rc) {
        char msg[sizeof e.msg + 80];
        bool late = strstr(e.msg, "the time limit") != NULL;
        snprintf(msg, sizeof msg, "%s%s", e.msg, late ? " (npusim serve --time-limit)" : "");
        return api_reply_error(r, late ? 503 : 400, msg);
    }
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "points", (double)cnt.done);
    cJSON_AddNumberToObject(j, "simulated", (double)cnt.simulated);
    cJSON_AddNumberToObject(j, "invalid", (double)cnt.invalid);
    cJSON_AddNumberToObject(j, "errors", (double)cnt.errors);
    cJSON_AddItemToObject(j, "rows", rows_of(csv));
    cJSON_AddStringToObject(j, "summary_csv", csv);
    cJSON_AddStringToObject(j, "carbon_defaults", note_by_name(carbon));
    char *fig[SWEEP_FIG_COUNT] = { NULL };
    char *page = cnt.simulated ? sweep_report_html("sweep", csv, strlen(csv), slo ? slo->valuedouble : 0, fig, &e)
                               : NULL;
    cJSON *figs = cJSON_AddObjectToObject(j, "figures");
    for (int k = 0; k < SWEEP_FIG_COUNT; k++) {
        cJSON_AddStringToObject(figs, sweep_figure_name[k], fig[k] ? fig[k] : "");
        free(fig[k]);
    }
    free(page), free(csv);
    return api_reply_json(r, 200, j);
}
