/* validate_internal.h — the report pieces calib/validate.c shares with the
 * reports of validate --runs (runs_report.c, runs_predict.c): CSV cells,
 * numbers as Python prints them, names in first-seen order, an extra
 * column's cell. No data structure of its own. */
#ifndef NPUSIM_VALIDATE_INTERNAL_H
#define NPUSIM_VALIDATE_INTERNAL_H

#include <stdbool.h>

struct strbuf;

/* A CSV cell after a comma (none before the first). */
void validate_csv_cell(struct strbuf *b, const char *s, bool first);
/* n CSV cells, each after a comma. */
void validate_csv_cells(struct strbuf *b, const char *const *s, int n);
/* A number as Python's repr prints it: the shortest text that reads back
 * to the same double (277.826, not 277.82600000000002). */
void validate_put_num(struct strbuf *b, double x);
/* names[0..n) with name added unless it is there or n is max: the new n. */
int validate_name_add(const char **names, int n, int max, const char *name);
/* The same for each of add[0..n_add) (a table's extra columns). */
int validate_names_add(const char **names, int n, int max, char *const *add, int n_add);
/* The cell of the extra column called name among n (names[i], cells[i]):
 * its text, or "" (not a column of the row's file, or an empty cell). */
const char *validate_extra_cell(char *const *names, char *const *cells, int n, const char *name);

#endif
