/* op_table.c — the reader of measurement files (op,dtype,m,n,k,batch,
 * time_us; see op_predict.h): strict, naming the file, line and column of
 * anything it cannot take. Main data structure: struct op_table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/op_table.h"

#include "calib/csv_reader_internal.h"

#include <cjson/cJSON.h>

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
    struct csv_reader b;          /* first: csv_feed_lines' data is the reader; b.line is, in the
                                   * JSON twin, the record */
    struct op_table *t;
    const char *cell;             /* "column" or, in the twin, "key" */
    struct op_row row;
};
_Static_assert(MAX_COLS <= CSV_READER_COLS_MAX, "a measurement file's columns fit the reader");

#define rfail(r, ...) csv_reader_fail(&(r)->b, __VA_ARGS__)

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

static void known_cell(struct csv_reader *b, int role, const char *s)
{
    struct reader *r = (struct reader *)b;
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
    default: break;
    }
}

static void on_row(int c, void *data)
{
    struct reader *r = data;
    (void)c;
    enum csv_row kind = csv_reader_row_end(&r->b);
    if (kind == CSV_ROW_HEADER) {
        int have_op = 0, have_dt = 0;
        for (int i = 0; i < r->b.ncols; i++)
            have_op |= r->b.role[i] == C_OP, have_dt |= r->b.role[i] == C_DTYPE;
        if (!have_op || !have_dt)
            rfail(r, "expected a header naming at least op and dtype");
    } else if (kind == CSV_ROW_DATA) {
        struct op_table *t = r->t;
        struct op_row *rows = csv_reader_grow(&r->b, t->rows, &t->cap, t->n, sizeof *rows, 64);
        if (!rows)
            return;
        t->rows = rows;
        r->row.line = (int)r->b.line;
        t->rows[t->n++] = r->row;
        memset(r->row.extra, 0, sizeof r->row.extra);
    }
    if (!r->b.failed)
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
    for (const cJSON *rec = root->child; rec && !r->b.failed; rec = rec->next) {
        r->b.line++;
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
        for (const cJSON *kv = rec->child; kv && !r->b.failed; kv = kv->next) {
            bool seen = false;
            for (int i = 0; i < r->b.ncols && !seen; i++)
                seen = !strcmp(role_name(r, r->b.role[i]), kv->string);
            if (!seen)
                csv_reader_header_field(&r->b, kv->string);
        }
    }
}

/* The JSON twin: a list of objects with the CSV's columns as keys, read
 * in two passes (the header, then the rows). Messages name the record
 * (from 1) and the key. */
static void read_json_records(struct reader *r, const cJSON *root)
{
    r->b.unit = "record", r->cell = "key", r->b.line = 0;
    if (!cJSON_IsArray(root)) {
        rfail(r, root ? "expected a list of records" : "not JSON");
        return;
    }
    json_header(r, root);
    r->b.line = 0;
    if (!r->b.failed && r->b.ncols)
        on_row(0, r);   /* the header is complete */
    for (const cJSON *rec = root->child; rec && !r->b.failed; rec = rec->next) {
        r->b.line++;
        for (int i = 0; i < r->b.ncols && !r->b.failed; i++) {
            int role = r->b.role[i];
            const char *name = role_name(r, role);
            char num[40];
            const char *cell;
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, name);
            if (!json_cell(v, role, num, sizeof num, &cell))
                rfail(r, "key \"%s\": expected %s, got %s", name,
                      json_text_only(role) ? "text" : json_number_only(role) ? "a number" : "a number, text or null",
                      cJSON_IsString(v) ? "text" : cJSON_IsNumber(v) ? "a number" : cJSON_IsArray(v) ? "a list"
                      : cJSON_IsObject(v) ? "an object" : "true or false");
            else
                csv_reader_cell(&r->b, cell);
        }
        if (!r->b.failed)
            on_row(0, r);
    }
}

/* The reader's end: an empty input or one without rows is refused; on
 * success the table says what its rows are called in messages. */
static int reader_finish(struct reader *r)
{
    struct csv_reader *b = &r->b;
    free_extras(&r->row, OP_ROW_EXTRA_MAX);
    bool twin = !strcmp(b->unit, "record");
    if (!b->failed && !b->have_header)
        b->failed = 1, npu_errf(b->e, twin ? "%s: no records (expected a list of objects with op, dtype, m, n, k, batch, "
                                             "time_us)" : "%s: empty input (expected a header: op,dtype,m,n,k,batch,time_us)",
                                b->name);
    if (!b->failed && r->t->n == 0)
        b->failed = 1, npu_errf(b->e, "%s: no rows after the header", b->name);
    if (b->failed) {
        op_table_free(r->t);
        return -1;
    }
    r->t->row_unit = b->unit, r->t->cell_unit = r->cell;
    return 0;
}

static void reader_init(struct reader *r, const char *name, struct op_table *t, struct npu_err *e)
{
    memset(t, 0, sizeof *t);
    *r = (struct reader){ .b = { .name = name, .e = e, .line = 1, .unit = "line", .known = col_name, .n_known = C_KNOWN,
                                 .extra_name = t->extra_name, .n_extra = &t->n_extra, .extra_max = OP_ROW_EXTRA_MAX,
                                 .besides = "op,dtype,m,n,k,batch,heads,weight_dtype,time_us", .extra_twice_ok = true,
                                 .known_cell = known_cell }, .t = t, .cell = "column" };
    r->b.row_extra = r->row.extra;
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
    if (first < len && buf[first] == '[') {
        cJSON *root = json_parse(buf + skip, len - skip, name, NULL);   /* NULL: "record 0: not JSON" */
        read_json_records(&r, root);
        cJSON_Delete(root);
    } else
        csv_reader_feed(&r.b, buf + skip, len - skip, on_row);
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
