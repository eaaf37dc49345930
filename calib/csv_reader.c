/* csv_reader.c — the plumbing of calib/'s strict CSV readers (see
 * csv_reader_internal.h): failure messages, header roles, cells to their
 * columns, the cell count, the rows' growth. Main data structure: struct
 * csv_reader. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/csv_reader_internal.h"

#include "base/csv_lines.h"

int csv_reader_fail(struct csv_reader *r, const char *fmt, ...)
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

void csv_reader_header_field(struct csv_reader *r, const char *s)
{
    int max = r->n_known + r->extra_max;
    if (r->ncols >= max) {
        csv_reader_fail(r, "expected at most %d columns", max);
        return;
    }
    int role = -1;
    for (int c = 0; c < r->n_known; c++)
        if (!strcmp(s, r->known[c]))
            role = c;
    for (int i = 0; i < r->ncols; i++)
        if (r->role[i] == role || (role < 0 && !r->extra_twice_ok && r->role[i] >= r->n_known &&
                                   !strcmp(r->extra_name[r->role[i] - r->n_known], s))) {
            csv_reader_fail(r, "column \"%s\" given twice", s);
            return;
        }
    if (role < 0) {
        if (*r->n_extra >= r->extra_max) {
            csv_reader_fail(r, "column \"%s\": expected at most %d columns besides %s", s, r->extra_max, r->besides);
            return;
        }
        role = r->n_known + *r->n_extra;
        r->extra_name[(*r->n_extra)++] = strdup(s);
    }
    r->role[r->ncols++] = role;
}

void csv_reader_cell(struct csv_reader *r, const char *s)
{
    if (r->col >= r->ncols) {
        r->col++;
        return;
    }
    int role = r->role[r->col++];
    if (role < r->n_known)
        r->known_cell(r, role, s);
    else if (!(r->row_extra[role - r->n_known] = strdup(s)))
        csv_reader_fail(r, "out of memory");
}

void csv_reader_on_field(void *s, size_t len, void *data)
{
    struct csv_reader *r = data;
    if (r->failed)
        return;
    if (memchr(s, '\0', len))
        csv_reader_fail(r, "expected text without NUL bytes");
    else if (!r->have_header)
        csv_reader_header_field(r, s);
    else
        csv_reader_cell(r, s);
}

enum csv_row csv_reader_row_end(struct csv_reader *r)
{
    enum csv_row kind = CSV_ROW_NONE;
    if (r->failed)
        return kind;
    if (!r->have_header)
        r->have_header = 1, kind = CSV_ROW_HEADER;
    else if (r->col != r->ncols)
        csv_reader_fail(r, "expected %d cells as the header, got %d", r->ncols, r->col);
    else
        kind = CSV_ROW_DATA;
    r->col = 0;
    return kind;
}

void *csv_reader_grow(struct csv_reader *r, void *rows, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap)
        return rows;
    size_t c = *cap ? 2 * *cap : first;
    void *p = realloc(rows, c * size);
    if (!p) {
        csv_reader_fail(r, "out of memory");
        return NULL;
    }
    *cap = c;
    return p;
}

void csv_reader_feed(struct csv_reader *r, const char *buf, size_t len, void (*on_row)(int, void *))
{
    const char *why;
    if (csv_feed_lines(buf, len, csv_reader_on_field, on_row, r, &r->line, &r->failed, &why) && !r->failed)
        csv_reader_fail(r, "malformed CSV (%s)", why);
}
