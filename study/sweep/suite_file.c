/* suite_file.c — reading suite files (see suite_file.h). */
#include "study/sweep/suite_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textfile.h"

/* Per kind: its name and how many fields follow it (min..max). */
static const struct {
    const char *name;
    int min, max;
    const char *fields;
} kinds[SUITE_NKINDS] = {
    [SUITE_SWEEP] = { "sweep", 5, 6, "MODEL WORKLOAD VERSIONS NUM_CHIPS BATCHES [SEQLEN]" },
    [SUITE_ENERGY] = { "energy", 2, 2, "PG_LIST DVFS" },
    [SUITE_CARBON] = { "carbon", 5, 5, "PG DVFS CI UTIL LIFETIMES" },
    [SUITE_SLO] = { "slo", 4, 4, "DVFS PG CI UTIL" },
};
_Static_assert(SUITE_MAX_FIELDS == 6, "the longest line, a sweep with SEQLEN, has 6 fields");

/* The file's text ('-': standard input), refused if it holds a NUL byte. */
static char *slurp(const char *path, struct npu_err *e)
{
    size_t n;
    char *s = text_read_file(path, &n, e);
    if (s && memchr(s, '\0', n)) {
        npu_errf(e, "%s: a NUL byte; expected a text file", path);
        free(s);
        s = NULL;
    }
    return s;
}

const char *suite_kind_name(enum suite_kind k) { return kinds[k].name; }

int suite_kind_find(const char *s)
{
    for (int k = 0; k < SUITE_NKINDS; k++)
        if (!strcmp(s, kinds[k].name))
            return k;
    return -1;
}

/* Cuts the text into lines and the lines into whitespace-separated fields
 * (in place), skipping blank and '#' lines; checks every kind and count. */
int suite_parse(struct suite *s, char *text, const char *path, struct npu_err *e)
{
    memset(s, 0, sizeof *s);
    s->text = text;
    size_t nlines = 1;
    for (const char *p = s->text; *p; p++)
        nlines += *p == '\n';
    s->line = calloc(nlines, sizeof *s->line);
    if (!s->line)
        return npu_errf(e, "out of memory");
    char *p = s->text;
    for (int lineno = 1; p; lineno++) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        char *tok[SUITE_MAX_FIELDS + 2];
        int nt = 0;
        for (char *save = NULL, *t = strtok_r(p, " \t\r\v\f", &save); t; t = strtok_r(NULL, " \t\r\v\f", &save))
            if (nt < SUITE_MAX_FIELDS + 2)
                tok[nt++] = t;
            else
                nt = SUITE_MAX_FIELDS + 2;   /* too many: reported below */
        p = nl ? nl + 1 : NULL;
        if (nt == 0 || tok[0][0] == '#')
            continue;
        int k = suite_kind_find(tok[0]);
        if (k < 0)
            return npu_errf(e, "%s:%d: unknown line kind \"%s\"; expected sweep, energy, carbon or slo",
                            path, lineno, tok[0]);
        if (nt - 1 < kinds[k].min || nt - 1 > kinds[k].max)
            return npu_errf(e, "%s:%d: %s line with %s fields; expected: %s %s", path, lineno,
                            kinds[k].name, nt - 1 < kinds[k].min ? "too few" : "too many", kinds[k].name,
                            kinds[k].fields);
        struct suite_line *l = &s->line[s->n++];
        l->kind = (enum suite_kind)k;
        l->lineno = lineno;
        l->n = nt - 1;
        memcpy(l->f, tok + 1, (size_t)l->n * sizeof *l->f);
    }
    return 0;
}

int suite_read(struct suite *s, const char *path, struct npu_err *e)
{
    memset(s, 0, sizeof *s);
    char *text = slurp(path, e);
    return text ? suite_parse(s, text, path, e) : -1;
}

void suite_free(struct suite *s)
{
    free(s->line);
    free(s->text);
    memset(s, 0, sizeof *s);
}
