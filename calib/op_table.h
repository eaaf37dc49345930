/* op_table.h — measurement files: rows of measured operators, each the
 * struct op_request of study/run/op_predict.h with its measured time and every
 * other column kept as read (`npusim op --csv`, validate, calibrate,
 * roofline). The reader is strict: file, line and column in every message.
 *
 * Main data structure: struct op_table, one file's rows. */
#ifndef NPUSIM_OP_TABLE_H
#define NPUSIM_OP_TABLE_H

#include <stddef.h>

#include "study/run/run.h"

/* A measurement file's rows: CSV with a header naming at least op and dtype
 * (and any of m, n, k, batch, heads, weight_dtype, time_us; empty cells are
 * not given), or its JSON twin, a list of records with those keys (op and
 * the formats text, the others numbers; null or absent: not given). Other
 * columns are kept: their names in the table's extra header, their cells
 * per row, as read. */
#define OP_ROW_EXTRA_MAX 32
struct op_row {
    struct op_request r;
    int line;                          /* in the file (or the twin's record), for messages */
    char *extra[OP_ROW_EXTRA_MAX];     /* malloc'ed cells of the other columns */
};
struct op_table {
    struct op_row *rows;
    size_t n, cap;
    int n_extra;
    char *extra_name[OP_ROW_EXTRA_MAX];
    const char *row_unit, *cell_unit;  /* "line", "column"; the JSON twin's "record", "key" */
};
/* Reads path ("-": standard input) into t (empty it with op_table_free);
 * -1 with e naming the file, the line and the column. */
int op_table_read(const char *path, struct op_table *t, struct npu_err *e);
/* The same from text in memory (buf[0..len), NUL-terminated), named name in
 * messages (the HTTP API's "request"). */
int op_table_parse(const char *name, const char *buf, size_t len, struct op_table *t, struct npu_err *e);
/* A JSON request's member (the HTTP API's "measurements"), named name in
 * messages: the CSV or its twin as text, or the twin's list of records
 * itself. A bad record is named by its number (from 1) and key. */
struct cJSON;
int op_table_json(const char *name, const struct cJSON *v, struct op_table *t, struct npu_err *e);
void op_table_free(struct op_table *t);
/* Reads the n files into a new array *out (op_tables_free); on an error,
 * nothing is kept and e names the file. */
int op_tables_read(const char *const *paths, int n, struct op_table **out, struct npu_err *e);
void op_tables_free(struct op_table *t, int n);

#endif
