/* suite_file.h — the suite file: the stages of a study, one per line.
 *
 * The format of the reference's suites (../shared/tools/run-suite reads the
 * same lines; '#' starts a comment line, fields are separated by blanks):
 *   sweep MODEL WORKLOAD VERSIONS NUM_CHIPS BATCHES [SEQLEN]
 *   energy PG_LIST DVFS
 *   carbon PG DVFS CI UTIL LIFETIMES
 *   slo DVFS PG CI UTIL
 * The reader checks each line's kind and field count; the values themselves
 * are the business of the subcommand each line becomes (cli/cmd_suite.c).
 *
 * Main data structure: struct suite, the file's text cut in place into one
 * struct suite_line per non-comment line, its fields pointing into the text. */
#ifndef NPUSIM_STUDY_SUITE_FILE_H
#define NPUSIM_STUDY_SUITE_FILE_H

#include "base/err.h"

enum suite_kind { SUITE_SWEEP, SUITE_ENERGY, SUITE_CARBON, SUITE_SLO, SUITE_NKINDS };

#define SUITE_MAX_FIELDS 6
struct suite_line {
    enum suite_kind kind;
    int lineno;                      /* 1-based, in the file */
    int n;                           /* fields after the kind */
    char *f[SUITE_MAX_FIELDS];       /* into struct suite's text */
};

struct suite {
    char *text;
    struct suite_line *line;
    int n;
};

/* "sweep", "energy", ... */
const char *suite_kind_name(enum suite_kind k);
/* The kind named s, or -1. */
int suite_kind_find(const char *s);

/* Parses text (taken over: freed by suite_free, even on failure); errors
 * read "NAME:LINE: ..." and name what was expected. */
int suite_parse(struct suite *s, char *text, const char *name, struct npu_err *e);
/* Reads the file at path ('-': standard input) and parses it. */
int suite_read(struct suite *s, const char *path, struct npu_err *e);
void suite_free(struct suite *s);

#endif
