/* csv_reader_internal.h — what calib/'s two strict CSV readers share
 * (runs.c, runs files; op_table.c, measurement files): the message naming
 * the input and its line, the header's columns (each a known column by name
 * or an extra one kept as read; too many, or one given twice, refused), each
 * cell handed to its column, the cell count checked against the header and
 * the rows' array grown. Main data structure: struct csv_reader, the first
 * member of each reader (csv_feed_lines' data is the reader itself). */
#ifndef NPUSIM_CSV_READER_INTERNAL_H
#define NPUSIM_CSV_READER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define CSV_READER_COLS_MAX 64

struct csv_reader {
    const char *name;               /* the input, in messages */
    struct npu_err *e;
    long line;                      /* or, in op_table's JSON twin, the record */
    const char *unit;               /* "line" (the twin's "record") */
    int failed, have_header, ncols, col;
    int role[CSV_READER_COLS_MAX];  /* a known column's index, or n_known + the extra column's */
    /* The columns, set by the reader: */
    const char *const *known;       /* the known columns' names */
    int n_known;
    char **extra_name;              /* the table's extra header: *n_extra malloc'ed names */
    int *n_extra, extra_max;
    const char *besides;            /* "... columns besides <this>" when there are too many */
    bool extra_twice_ok;            /* an extra column may be named twice */
    char **row_extra;               /* the row being read: its extra cells */
    void (*known_cell)(struct csv_reader *r, int col, const char *s);
};

/* The first failure's message, "NAME: UNIT LINE: ..." in r->e; -1. */
int csv_reader_fail(struct csv_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A header cell: its column's role. */
void csv_reader_header_field(struct csv_reader *r, const char *s);
/* A row's next cell: to known_cell, or kept as its extra column's text;
 * cells past the header's count are counted only. */
void csv_reader_cell(struct csv_reader *r, const char *s);
/* csv_feed_lines' on_field (data: the reader): a header or a row cell. */
void csv_reader_on_field(void *s, size_t len, void *data);
/* At a row's end: what the row was (NONE: nothing to do, failed or a cell
 * count other than the header's, refused); the next row starts. */
enum csv_row { CSV_ROW_NONE, CSV_ROW_HEADER, CSV_ROW_DATA };
enum csv_row csv_reader_row_end(struct csv_reader *r);
/* rows (n of *cap, each size bytes) with room for one more: the same or a
 * new array (first rows at first); NULL after failing "out of memory". */
void *csv_reader_grow(struct csv_reader *r, void *rows, size_t *cap, size_t n, size_t size, size_t first);
/* Feeds buf[0..len) to the reader, on_row ending each row. */
void csv_reader_feed(struct csv_reader *r, const char *buf, size_t len, void (*on_row)(int, void *));

#endif
