/* op_table.c — the reader of measurement files (op,dtype,m,n,k,batch,
 * time_us; see op_predict.h): strict, naming the file, line and column of
 * anything it cannot take. Main data structure: struct op_table. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/op_table.h"

#include <cjson/cJSON.h>

#include "base/csv_lines.h"
#include "base/lists.h"
#include "base/json_strict.h"
#include "traces/precision.h"
#include "base/textfile.h"

/* The known columns, in the order their values land in a request. */
enum col { C_OP, C_DTYPE, C_M, C_N, C_K, C_BATCH, C_HEADS, C_WDTYPE, C_TIME, C_KNOWN };
static const char *const col_name[C_KNOWN] = {
    "op", "dtype", "m", "n", "k", "batch", "heads", "weight_dtype", "time_us",
};
#define MAX_COLS (C_KNOWN + OP_ROW_EXTRA_MAX)

struct reader {
    struct op_table *t;
    const char *name;
    struct npu_err *e;
    long line;                    /* or, in the JSON twin, the record */
    const char *unit, *cell;      /* "line", "column" or, in the twin, "record", "key" */
    int failed, have_header, ncols, col;
    int role[MAX_COLS];           /* enum col, or C_KNOWN + extra index */
    struct op_row row;
};

static int rfail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rfail(struct reader *r, const char *fmt, ...)
{
    if (!r->failed) {
        char msg[768];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        npu_errf(r->e, "%s: %s %ld: %s", r->name, r->unit, r->line, msg);
    }
    r->failed = 1;
    return -1;
}

static void header_field(struct reader *r, const char *s)
{
    if (r->ncols >= MAX_COLS) {
        rfail(r, "expected at most %d columns", MAX_COLS);
        return;
    }
    int role = -1;
    for (int c = 0; c < C_KNOWN; c++)
        if (!strcmp(s, col_name[c]))
            role = c;
    for (int i = 0; i < r->ncols; i++)
        if (role >= 0 && r->role[i] == role)
            rfail(r, "column \"%s\" given twice", s);
    if (role < 0) {
        if (r->t->n_extra >= OP_ROW_EXTRA_MAX) {
            rfail(r, "column \"%s\": expected at most %d columns besides op,dtype,m,n,k,batch,heads,weight_dtype,time_us",
                  s, OP_ROW_EXTRA_MAX);
            return;
        }
        role = C_KNOWN + r->t->n_extra;
        r->t->extra_name[r->t->n_extra++] = strdup(s);
    }
    r->role[r->ncols++] = role;
}

static void size_cell(struct reader *r, const char *col, const char *s, int64_t *v)
{
    if (!*s)
        return;
    if (parse_i64_strict(s, v) || *v < 1)
        rfail(r, "%s \"%s\": expected a positive integer, got \"%s\"", r->cell, col, s);
}

static void format_cell(struct reader *r, const char *col, const char *s, int *p)
{
    *p = precision_by_name(s);
    if (*p < 0)
        rfail(r, "%s \"%s\": expected one of %s, got \"%s\"", r->cell, col, precision_names(), s);
}

static void row_field(struct reader *r, const char *s)
{
    if (r->col >= r->ncols) {
        r->col++;
        return;
    }
    int role = r->role[r->col++];
    struct op_request *q = &r->row.r;
    switch (role) {
    case C_OP:
        if (!op_kind_known(s))
            rfail(r, "%s \"op\": expected one of %s, got \"%s\"", r->cell, OP_REQUEST_KINDS, s);
        else
            strcpy(q->op, s);
        break;
    case C_DTYPE:
        format_cell(r, "dtype", s, &q->prec);
        break;
    case C_M: size_cell(r, "m", s, &q->m); break;
    case C_N: size_cell(r, "n", s, &q->n); break;
    case C_K: size_cell(r, "k", s, &q->k); break;
    case C_BATCH: size_cell(r, "batch", s, &q->batch); break;
    case C_HEADS: size_cell(r, "heads", s, &q->heads); break;
    case C_WDTYPE:
        if (*s)
            format_cell(r, "weight_dtype", s, &q->weight_prec);
        break;
    case C_TIME:
        /* Outside a picosecond to 1e12 us (11.6 days) a time is a unit slip,
         * and its errors overflow: validate's RMSE was inf, calibrate's MAPE
         * nan, /api/validate's errors null (0 is "not measured" to op --csv). */
        if (*s && (parse_f64_strict(s, &q->measured_us) || q->measured_us < 0 || q->measured_us > 1e12 ||
                   (q->measured_us > 0 && q->measured_us < 1e-6)))
            rfail(r, "%s \"time_us\": expected 0 or microseconds from 1e-6 to 1e12, got \"%s\"", r->cell, s);
        break;
    default:
        r->row.extra[role - C_KNOWN] = strdup(s);
    }
}

static void on_field(void *s, size_t len, void *data)
{
    struct reader *r = data;
    (void)len;
    if (r->failed)
        return;
    if (memchr(s, '\0', len))
        rfail(r, "expected text without NUL bytes");
    else if (!r->have_header)
        header_field(r, s);
    else
        row_field(r, s);
}

static void on_row(int c, void *data)
{
    struct reader *r = data;
    (void)c;
    if (r->failed)
        return;
    if (!r->have_header) {
        r->have_header = 1;
        int have_op = 0, have_dt = 0;
        for (int i = 0; i < r->ncols; i++)
            have_op |= r->role[i] == C_OP, have_dt |= r->role[i] == C_DTYPE;
        if (!have_op || !have_dt)
            rfail(r, "expected a header naming at least op and dtype");
    } else if (r->col != r->ncols) {
        rfail(r, "expected %d cells as the header, got %d", r->ncols, r->col);
    } else {
        struct op_table *t = r->t;
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 64;
            struct op_row *p = realloc(t->rows, cap * sizeof *p);
            if (!p) {
                rfail(r, "out of memory");
                return;
            }
            t->rows = p, t->cap = cap;
        }
        r->row.line = (int)r->line;
        t->rows[t->n++] = r->row;
        memset(r->row.extra, 0, sizeof r->row.extra);
    }
    r->col = 0;
    op_request_init(&r->row.r);
}

static void free_extras(struct op_row *row, int n)
{
    for (int i = 0; i < n; i++)
        free(row->extra[i]);
}

/* The JSON type of a known key: op and the formats are text, the sizes
 * and time_us numbers; any other key either. */
static bool json_text_only(int role) { return role == C_OP || role == C_DTYPE || role == C_WDTYPE; }
static bool json_number_only(int role) { return role >= C_M && role <= C_TIME && role != C_WDTYPE; }

/* A record's value as the CSV cell it stands for: text as it is, a number
 * as the shortest text that reads back, absent or null as empty. false: a
 * value of the wrong type for its key (objects, lists and booleans always). */
static bool json_cell(const cJSON *v, int role, char *buf, size_t n, const char **out)
{
    if (!v || cJSON_IsNull(v))
        *out = "";
    else if (cJSON_IsString(v) && !json_number_only(role))
        *out = v->valuestring;
    else if (cJSON_IsNumber(v) && !json_text_only(role)) {
        snprintf(buf, n, "%.15g", v->valuedouble);   /* 64.1, not 64.099999999999994 */
        if (strtod(buf, NULL) != v->valuedouble)
            snprintf(buf, n, "%.17g", v->valuedouble);
        *out = buf;
    } else
        return false;
    return true;
}

static const char *role_name(const struct reader *r, int role)
{
    return role < C_KNOWN ? col_name[role] : r->t->extra_name[role - C_KNOWN];
}

/* The first pass over the records: each an object holding op and dtype;
 * the union of their keys, in first-seen order, is the header. */
static void json_header(struct reader *r, const cJSON *root)
{
    for (const cJSON *rec = root->child; rec && !r->failed; rec = rec->next) {
        r->line++;
        if (!cJSON_IsObject(rec)) {
            rfail(r, "expected an object of op, dtype, m, n, k, batch, time_us, ...");
            break;
        }
        for (int c = C_OP; c <= C_DTYPE; c++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, col_name[c]);
            if (!v || cJSON_IsNull(v))
                rfail(r, "key \"%s\": missing (expected %s)", col_name[c],
                      c == C_OP ? "the operator: gemm, attention, softmax, ..." : "a number format: bf16, fp16, fp8, ...");
        }
        for (const cJSON *kv = rec->child; kv && !r->failed; kv = kv->next) {
            bool seen = false;
            for (int i = 0; i < r->ncols && !seen; i++)
                seen = !strcmp(role_name(r, r->role[i]), kv->string);
            if (!seen)
                header_field(r, kv->string);
        }
    }
}

/* The JSON twin: a list of objects with the CSV's columns as keys, read
 * in two passes (the header, then the rows). Messages name the record
 * (from 1) and the key. */
static void read_json_records(struct reader *r, const cJSON *root)
{
    r->unit = "record", r->cell = "key", r->line = 0;
    if (!cJSON_IsArray(root)) {
        rfail(r, root ? "expected a list of records" : "not JSON");
        return;
    }
    json_header(r, root);
    r->line = 0;
    if (!r->failed && r->ncols)
        on_row(0, r);   /* the header is complete */
    for (const cJSON *rec = root->child; rec && !r->failed; rec = rec->next) {
        r->line++;
        for (int i = 0; i < r->ncols && !r->failed; i++) {
            const char *name = role_name(r, r->role[i]);
            char num[40];
            const char *cell;
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, name);
            if (!json_cell(v, r->role[i], num, sizeof num, &cell))
                rfail(r, "key \"%s\": expected %s, got %s", name,
                      json_text_only(r->role[i]) ? "text" : json_number_only(r->role[i]) ? "a number" : "a number, text or null",
                      cJSON_IsString(v) ? "text" : cJSON_IsNumber(v) ? "a number" : cJSON_IsArray(v) ? "a list"
                      : cJSON_IsObject(v) ? "an object" : "true or false");
            else
                row_field(r, cell);
        }
        if (!r->failed)
            on_row(0, r);
    }
}

/* The reader's end: an empty input or one without rows is refused; on
 * success the table says what its rows are called in messages. */
static int reader_finish(struct reader *r)
{
    free_extras(&r->row, OP_ROW_EXTRA_MAX);
    bool twin = !strcmp(r->unit, "record");
    if (!r->failed && !r->have_header)
        r->failed = 1, npu_errf(r->e, twin ? "%s: no records (expected a list of objects with op, dtype, m, n, k, batch, "
                                             "time_us)" : "%s: empty input (expected a header: op,dtype,m,n,k,batch,time_us)",
                                r->name);
    if (!r->failed && r->t->n == 0)
        r->failed = 1, npu_errf(r->e, "%s: no rows after the header", r->name);
    if (r->failed) {
        op_table_free(r->t);
        return -1;
    }
    r->t->row_unit = r->unit, r->t->cell_unit = r->cell;
    return 0;
}

static void reader_init(struct reader *r, const char *name, struct op_table *t, struct npu_err *e)
{
    memset(t, 0, sizeof *t);
    *r = (struct reader){ .t = t, .name = name, .e = e, .line = 1, .unit = "line", .cell = "column" };
    op_request_init(&r->row.r);
}

int op_table_parse(const char *name, const char *buf, size_t len, struct op_table *t, struct npu_err *e)
{
    struct reader r;
    reader_init(&r, name, t, e);
    /* A UTF-8 byte-order mark (spreadsheets, pandas' utf-8-sig) is not part of the header. */
    size_t skip = len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3) ? 3 : 0;
    size_t first = skip;
    while (first < len && strchr(" \t\r\n", buf[first]))
        first++;
    const char *why;
    if (first < len && buf[first] == '[') {
        cJSON *root = json_parse(buf + skip, len - skip, name, NULL);   /* NULL: "record 0: not JSON" */
        read_json_records(&r, root);
        cJSON_Delete(root);
    } else if (csv_feed_lines(buf + skip, len - skip, on_field, on_row, &r, &r.line, &r.failed, &why) && !r.failed)
        rfail(&r, "malformed CSV (%s)", why);
    return reader_finish(&r);
}

int op_table_json(const char *name, const cJSON *v, struct op_table *t, struct npu_err *e)
{
    if (cJSON_IsString(v))
        return op_table_parse(name, v->valuestring, strlen(v->valuestring), t, e);
    if (!cJSON_IsArray(v)) {
        memset(t, 0, sizeof *t);
        return npu_errf(e, "\"%s\": expected a list of records ({\"op\": \"gemm\", \"dtype\": \"bf16\", \"m\": 4096, ..., "
                           "\"time_us\": 540}) or the measurement CSV (op,dtype,m,n,k,batch,time_us) as text", name);
    }
    struct reader r;
    reader_init(&r, name, t, e);
    read_json_records(&r, v);
    return reader_finish(&r);
}

int op_table_read(const char *path, struct op_table *t, struct npu_err *e)
{
    memset(t, 0, sizeof *t);
    size_t len;
    char *buf = text_read_file(path, &len, e);
    if (!buf)
        return -1;
    int rc = op_table_parse(path, buf, len, t, e);
    free(buf);
    return rc;
}

void op_table_free(struct op_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free_extras(&t->rows[i], t->n_extra);
    for (int i = 0; i < t->n_extra; i++)
        free(t->extra_name[i]);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

int op_tables_read(const char *const *paths, int n, struct op_table **out, struct npu_err *e)
{
    *out = calloc((size_t)(n > 0 ? n : 1), sizeof **out);
    if (!*out)
        return npu_errf(e, "out of memory");
    for (int i = 0; i < n; i++)
        if (op_table_read(paths[i], &(*out)[i], e)) {
            op_tables_free(*out, i);
            *out = NULL;
            return -1;
        }
    return 0;
}

void op_tables_free(struct op_table *t, int n)
{
    for (int i = 0; t && i < n; i++)
        op_table_free(&t[i]);
    free(t);
}
