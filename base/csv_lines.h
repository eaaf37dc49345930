/* csv_lines.h — strict CSV through libcsv, one physical line at a time.
 *
 * The project's CSV readers (traces, measurement files) feed libcsv line by
 * line so that their callbacks know the line they are on, keep blanks
 * around unquoted cells (libcsv trims them by default; the reference keeps
 * them) and stop at their first error. No data structure of its own. */
#ifndef NPUSIM_CSV_LINES_H
#define NPUSIM_CSV_LINES_H

#include <stddef.h>

/* Parses buf[0..len) with CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL,
 * calling on_field and on_row with data; *line (1-based) advances after
 * each newline; stops early when *stop becomes nonzero. 0, or -1 with
 * *why: "out of memory" or libcsv's text of the malformed CSV. */
int csv_feed_lines(const char *buf, size_t len, void (*on_field)(void *, size_t, void *),
                   void (*on_row)(int, void *), void *data, long *line, const int *stop, const char **why);

#endif
