/* csv_lines.c — libcsv fed one line at a time (see csv_lines.h). */
#include "base/csv_lines.h"

#include <csv.h>
#include <string.h>

/* libcsv trims blanks around unquoted fields by default; the reference
 * keeps them, so nothing counts as a blank. */
static int no_space(unsigned char c)
{
    (void)c;
    return 0;
}

int csv_feed_lines(const char *buf, size_t len, void (*on_field)(void *, size_t, void *),
                   void (*on_row)(int, void *), void *data, long *line, const int *stop, const char **why)
{
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
        *why = "out of memory";
        return -1;
    }
    csv_set_space_func(&p, no_space);
    int rc = 0;
    size_t pos = 0;
    while (pos < len && !*stop) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (buf + pos)) + 1 : len - pos;
        if (csv_parse(&p, buf + pos, n, on_field, on_row, data) != n) {
            *why = csv_strerror(csv_error(&p));
            rc = -1;
            break;
        }
        pos += n;
        if (nl && !*stop)
            (*line)++;
    }
    if (rc == 0 && !*stop && csv_fini(&p, on_field, on_row, data) != 0) {
        *why = csv_strerror(csv_error(&p));
        rc = -1;
    }
    csv_free(&p);
    return rc;
}
