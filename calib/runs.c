/* runs.c — the reader of runs files, measured end-to-end LLM inference runs
 * (see runs.h; the format: docs/validation.md, "End-to-end runs"): strict,
 * naming the file, line and column of anything it cannot take. Main data
 * structure: struct run_table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/runs.h"

#include "calib/csv_reader_internal.h"

#include "base/lists.h"
#include "base/textfile.h"

const char *const run_col_name[RUN_COLS] = {
    "id", "source", "metric", "measured", "chip", "model", "tp", "pp", "ep", "dp", "batch",
    "input_len", "output_len", "weight_dtype", "activation_dtype", "kv_cache_dtype", "sets", "conditions",
};
static const bool col_required[RUN_COLS] = {
    [RC_ID] = true, [RC_SOURCE] = true, [RC_METRIC] = true, [RC_MEASURED] = true, [RC_CHIP] = true,
    [RC_MODEL] = true, [RC_BATCH] = true, [RC_INPUT_LEN] = true, [RC_OUTPUT_LEN] = true,
};
static const char *const metric_name[RUN_METRICS] = {
    "ttft_ms", "tpot_ms", "decode_step_ms", "e2e_latency_ms", "throughput_tokens_per_s",
};
#define METRIC_LIST "ttft_ms, tpot_ms, decode_step_ms, e2e_latency_ms or throughput_tokens_per_s"
#define REQUIRED_LIST "id, source, metric, measured, chip, model, batch, input_len and output_len"
/* One instance on at most as many chips as `npusim run --tp/--pp/--dp` takes. */
#define RUN_CHIPS_MAX 1048576
#define RUN_INT_MAX 16777216   /* sizes and degrees: 2^24, as the config fields */
#define MAX_COLS (RUN_COLS + RUN_ROW_EXTRA_MAX)

const char *run_metric_name(enum run_metric m) { return m >= 0 && m < RUN_METRICS ? metric_name[m] : "?"; }

const char *run_cell(const struct run_row *r, enum run_col c) { return r->cell[c] ? r->cell[c] : ""; }

struct reader {
    struct csv_reader b;          /* first: csv_feed_lines' data is the reader */
    struct run_table *t;
    struct run_row row;
};
_Static_assert(MAX_COLS <= CSV_READER_COLS_MAX, "a runs file's columns fit the reader");

#define rfail(r, ...) csv_reader_fail(&(r)->b, __VA_ARGS__)

/* A positive integer of at most 2^24; empty: the default (0 when required). */
static void int_cell(struct reader *r, enum run_col c, const char *s, int64_t *v)
{
    if (!*s && !col_required[c])
        return;
    if (!*s)
        rfail(r, "column \"%s\": expected a positive integer, got an empty cell", run_col_name[c]);
    else if (parse_i64_strict(s, v) || *v < 1 || *v > RUN_INT_MAX)
        rfail(r, "column \"%s\": expected a positive integer of at most %d, got \"%s\"", run_col_name[c], RUN_INT_MAX, s);
}

/* The row's extra overrides: KEY=VALUE pieces split at ';' (empty ones
 * allowed), each with a key. */
static void sets_cell(struct reader *r, const char *s)
{
    for (const char *p = s; *p;) {
        size_t n = strcspn(p, ";");
        const char *eq = memchr(p, '=', n);
        size_t blank = strspn(p, " \t");
        if (blank < n && (!eq || eq == p + blank))
            rfail(r, "column \"sets\": expected KEY=VALUE overrides separated by ';', got \"%.*s\"", (int)n, p);
        p += n + (p[n] == ';');
    }
}

static void known_cell(struct csv_reader *b, int col, const char *s)
{
    struct reader *r = (struct reader *)b;
    enum run_col c = (enum run_col)col;
    struct run_row *w = &r->row;
    if (col_required[c] && !*s && c != RC_BATCH && c != RC_INPUT_LEN && c != RC_OUTPUT_LEN) {
        rfail(r, "column \"%s\": expected a value, got an empty cell", run_col_name[c]);
        return;
    }
    switch (c) {
    case RC_METRIC: {
        int m = 0;
        while (m < RUN_METRICS && strcmp(s, metric_name[m]))
            m++;
        if (m == RUN_METRICS)
            rfail(r, "column \"metric\": expected " METRIC_LIST ", got \"%s\"", s);
        w->metric = (enum run_metric)m;
        break;
    }
    case RC_MEASURED:
        /* Outside 1e-6 to 1e12 of any unit is a slip, and its errors overflow. */
        if (parse_f64_strict(s, &w->measured) || !(w->measured >= 1e-6 && w->measured <= 1e12))
            rfail(r, "column \"measured\": expected a value above 0 (from 1e-6 to 1e12 in the metric's unit), got \"%s\"", s);
        break;
    case RC_TP: int_cell(r, c, s, &w->tp); break;
    case RC_PP: int_cell(r, c, s, &w->pp); break;
    case RC_EP: int_cell(r, c, s, &w->ep); break;
    case RC_DP: int_cell(r, c, s, &w->dp); break;
    case RC_BATCH: int_cell(r, c, s, &w->batch); break;
    case RC_INPUT_LEN: int_cell(r, c, s, &w->input_len); break;
    case RC_OUTPUT_LEN: int_cell(r, c, s, &w->output_len); break;
    case RC_SETS: sets_cell(r, s); break;
    default: break;
    }
    if (!r->b.failed && !(w->cell[c] = strdup(s)))
        rfail(r, "out of memory");
}

static void free_row(struct run_row *w, int n_extra)
{
    for (int c = 0; c < RUN_COLS; c++)
        free(w->cell[c]);
    for (int i = 0; i < n_extra; i++)
        free(w->extra[i]);
    memset(w, 0, sizeof *w);
}

static void row_reset(struct run_row *w)
{
    memset(w, 0, sizeof *w);
    w->tp = w->pp = w->ep = w->dp = 1;
}

static void header_done(struct reader *r)
{
    for (int c = 0; c < RUN_COLS; c++) {
        bool have = false;
        for (int i = 0; i < r->b.ncols; i++)
            have |= r->b.role[i] == c;
        if (col_required[c] && !have) {
            rfail(r, "column \"%s\": missing (the header must name " REQUIRED_LIST ")", run_col_name[c]);
            return;
        }
    }
}

/* A complete row's checks across its cells, then its place in the table. */
static void row_done(struct reader *r)
{
    struct run_row *w = &r->row;
    struct run_table *t = r->t;
    if (w->tp * w->pp > RUN_CHIPS_MAX / w->dp) {   /* each at most 2^24: the product fits */
        rfail(r, "columns \"tp\", \"pp\", \"dp\": the degrees multiply to more than %d chips (tp %lld x pp %lld x dp %lld)",
              RUN_CHIPS_MAX, (long long)w->tp, (long long)w->pp, (long long)w->dp);
        return;
    }
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->rows[i].cell[RC_ID], w->cell[RC_ID])) {
            rfail(r, "column \"id\": \"%s\" given twice (first on line %d): expected a unique id", w->cell[RC_ID],
                  t->rows[i].line);
            return;
        }
    struct run_row *rows = csv_reader_grow(&r->b, t->rows, &t->cap, t->n, sizeof *rows, 16);
    if (!rows)
        return;
    t->rows = rows;
    w->line = (int)r->b.line;
    t->rows[t->n++] = *w;
    row_reset(w);
}

static void on_row(int c, void *data)
{
    struct reader *r = data;
    (void)c;
    enum csv_row kind = csv_reader_row_end(&r->b);
    if (kind == CSV_ROW_HEADER)
        header_done(r);
    else if (kind == CSV_ROW_DATA)
        row_done(r);
    if (!r->b.failed)
        row_reset(&r->row);
}

/* The text without its comment lines: a line starting with '#' outside a
 * quoted cell keeps its newline (the lines keep their numbers) and loses the
 * rest. The UTF-8 byte-order mark goes too. */
static char *strip_comments(const char *buf, size_t len, size_t *out_len)
{
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t i = len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3) ? 3 : 0, n = 0;
    bool quoted = false, line_start = true;
    while (i < len) {
        if (line_start && !quoted && buf[i] == '#') {
            const char *nl = memchr(buf + i, '\n', len - i);
            i = nl ? (size_t)(nl - buf) : len;
            continue;
        }
        char ch = buf[i++];
        quoted ^= ch == '"';
        line_start = ch == '\n';
        out[n++] = ch;
    }
    out[n] = '\0';
    *out_len = n;
    return out;
}

int run_table_parse(const char *name, const char *buf, size_t len, struct run_table *t, struct npu_err *e)
{
    memset(t, 0, sizeof *t);
    struct reader r = { .b = { .name = name, .e = e, .line = 1, .unit = "line", .known = run_col_name,
                               .n_known = RUN_COLS, .extra_name = t->extra_name, .n_extra = &t->n_extra, .extra_max = RUN_ROW_EXTRA_MAX,
                               .besides = "the runs file's own", .known_cell = known_cell }, .t = t };
    r.b.row_extra = r.row.extra;
    row_reset(&r.row);
    size_t n;
    char *text = strip_comments(buf, len, &n);
    if (!text || !(t->name = strdup(name)))
        rfail(&r, "out of memory");
    else
        csv_reader_feed(&r.b, text, n, on_row);
    free(text);
    free_row(&r.row, t->n_extra);
    if (!r.b.failed && !r.b.have_header)
        r.b.failed = 1, npu_errf(e, "%s: line 1: empty input (expected a header naming " REQUIRED_LIST ")", name);
    if (!r.b.failed && t->n == 0)
        r.b.failed = 1, npu_errf(e, "%s: line %ld: no rows after the header (expected a measured run per row)", name,
                                 r.b.line);
    if (r.b.failed) {
        run_table_free(t);
        return -1;
    }
    return 0;
}

int run_table_read(const char *path, struct run_table *t, struct npu_err *e)
{
    memset(t, 0, sizeof *t);
    size_t len;
    char *buf = text_read_file(path, &len, e);
    if (!buf)
        return -1;
    int rc = run_table_parse(strcmp(path, "-") ? path : "<stdin>", buf, len, t, e);
    free(buf);
    return rc;
}

void run_table_free(struct run_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free_row(&t->rows[i], t->n_extra);
    for (int i = 0; i < t->n_extra; i++)
        free(t->extra_name[i]);
    free(t->rows);
    free(t->name);
    memset(t, 0, sizeof *t);
}
