/* cmd_merge.c — `npusim merge OUT.csv SHARD.csv...`: joins the summaries of
 * `npusim sweep --shard K/N` runs into exactly the file one run writes.
 *
 * Every summary starts with the global enumeration index, and each shard's
 * rows are in increasing index order, so a k-way merge by index (reading one
 * line per shard at a time: memory stays flat) restores the single-run order.
 * The shards must share one header, every row must have the header's fields,
 * no index may repeat, the merged indices must run 0, 1, 2, ... without a
 * gap, and each shard's closing "#shard K/N points P" line must agree with
 * the others': shards 1..N each once, and P rows in all (so a shard that lost
 * its last rows is caught too).
 * The output appears whole (atomic rename) or not at all. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "study/run/run.h"
#include "study/sweep/sweep.h"
#include "base/atomic.h"

static const char merge_help[] =
    "usage: npusim merge OUT.csv SHARD.csv [SHARD.csv...]\n"
    "\n"
    "Joins the --summary files of 'npusim sweep --shard K/N' runs (any order) into\n"
    "OUT.csv, byte for byte the summary a single run writes. Fails (exit 2) when the\n"
    "headers differ, a row is ragged, an index repeats, indices are missing, or the\n"
    "shards' closing \"#shard K/N points P\" lines do not make one whole sweep (a shard\n"
    "not given, given twice, or cut short).\n";

struct shard {
    const char *path;
    FILE *f;
    char *line;
    size_t cap;
    long lineno;
    long index;                  /* of the current line; -1 at end of file */
    long k, n, points;           /* from the closing "#shard K/N points P" line; n == 0 until read */
};

/* The fields of a CSV row (quoted fields may hold commas and doubled quotes). */
static long csv_fields(const char *s)
{
    long n = 1;
    bool quoted = false;
    for (; *s && *s != '\n'; s++) {
        if (*s == '"')
            quoted = !quoted;
        else if (*s == ',' && !quoted)
            n++;
    }
    return n;
}

/* The closing line of a shard: "#shard K/N points P", then nothing. */
static int read_mark(struct shard *s, struct npu_err *e)
{
    char tail;
    if (sscanf(s->line, SUMMARY_SHARD_MARK "%ld/%ld points %ld%c", &s->k, &s->n, &s->points, &tail) != 4 ||
        tail != '\n' || s->n < 1 || s->k < 1 || s->k > s->n || s->points < 0)
        return npu_errf(e, "%s:%ld: expected \"" SUMMARY_SHARD_MARK "K/N points P\" (the shard's last line)",
                        s->path, s->lineno);
    if (getline(&s->line, &s->cap, s->f) >= 0)
        return npu_errf(e, "%s:%ld: a row after the shard's closing line", s->path, s->lineno + 1);
    s->index = -1;
    return 0;
}

/* Reads the next row; 0, or -1 with e set. fields: the header's count. */
static int shard_advance(struct shard *s, long fields, struct npu_err *e)
{
    ssize_t n = getline(&s->line, &s->cap, s->f);
    if (n < 0) {
        s->index = -1;
        if (ferror(s->f))
            return npu_errf(e, "%s: read error: %s", s->path, strerror(errno));
        return npu_errf(e, "%s: ends without its \"" SUMMARY_SHARD_MARK "K/N points P\" line (a shard of "
                        "'npusim sweep --shard' cut short?)", s->path);
    }
    s->lineno++;
    if (n == 0 || s->line[n - 1] != '\n')
        return npu_errf(e, "%s:%ld: truncated row (no line end)", s->path, s->lineno);
    if (s->line[0] == '#')
        return read_mark(s, e);
    char *end;
    long prev = s->index;
    errno = 0;
    s->index = strtol(s->line, &end, 10);
    if (end == s->line || *end != ',' || errno || s->index < 0)
        return npu_errf(e, "%s:%ld: expected a row starting with its index", s->path, s->lineno);
    if (s->lineno > 2 && s->index <= prev)
        return npu_errf(e, "%s:%ld: index %ld after %ld (rows must be in increasing order)", s->path,
                        s->lineno, s->index, prev);
    if (csv_fields(s->line) != fields)
        return npu_errf(e, "%s:%ld: %ld fields, expected %ld as in the header", s->path, s->lineno,
                        csv_fields(s->line), fields);
    return 0;
}

/* The shards' closing lines agree: one sweep of P points, shards 1..N each once. */
static int check_marks(const struct shard *sh, int n, long rows, struct npu_err *e)
{
    for (int i = 0; i < n; i++) {
        if (sh[i].n != sh[0].n || sh[i].points != sh[0].points)
            return npu_errf(e, "%s: shard %ld/%ld of %ld points, but %s is shard %ld/%ld of %ld points",
                            sh[i].path, sh[i].k, sh[i].n, sh[i].points, sh[0].path, sh[0].k, sh[0].n,
                            sh[0].points);
        for (int j = 0; j < i; j++)
            if (sh[j].k == sh[i].k)
                return npu_errf(e, "%s and %s are both shard %ld/%ld", sh[j].path, sh[i].path, sh[i].k,
                                sh[i].n);
    }
    if (n != sh[0].n)
        return npu_errf(e, "%d shard%s given, the sweep has %ld (is a shard missing?)", n, n == 1 ? "" : "s",
                        sh[0].n);
    if (rows != sh[0].points)
        return npu_errf(e, "rows %ld to %ld are missing (the sweep has %ld points; a shard cut short?)", rows,
                        sh[0].points - 1, sh[0].points);
    return 0;
}

static int merge(const char *out, struct shard *sh, int n, struct npu_err *e)
{
    char *header = NULL;
    long fields = 0;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        if (!(sh[i].f = fopen(sh[i].path, "rb")))
            rc = npu_errf(e, "%s: cannot open: %s", sh[i].path, strerror(errno));
        else if (getline(&sh[i].line, &sh[i].cap, sh[i].f) < 0 || strncmp(sh[i].line, "index,", 6) != 0)
            rc = npu_errf(e, "%s: not a sweep summary (the header must start with \"index,\")", sh[i].path);
        else if (header && strcmp(header, sh[i].line) != 0)
            rc = npu_errf(e, "%s: header differs from %s's (shards of different sweeps?)", sh[i].path,
                          sh[0].path);
        else if (!header && !(header = strdup(sh[i].line)))
            rc = npu_errf(e, "merge: out of memory");
        if (rc)
            break;
        sh[i].lineno = 1;
        fields = csv_fields(header);
        rc = shard_advance(&sh[i], fields, e);
    }
    struct atomic_file af;
    if (rc || atomic_open(&af, out, e)) {
        free(header);
        return -1;
    }
    rc = fputs(header, af.f) == EOF ? npu_errf(e, "%s: write failed", out) : 0;
    free(header);
    long want = 0;
    for (; !rc; want++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (sh[i].index >= 0 && (best < 0 || sh[i].index < sh[best].index))
                best = i;
        if (best < 0)
            break;
        if (sh[best].index != want) {
            rc = sh[best].index < want
                     ? npu_errf(e, "%s:%ld: index %ld appears in more than one shard", sh[best].path,
                                sh[best].lineno, sh[best].index)
                     : npu_errf(e, "rows %ld to %ld are missing (is a shard missing?)", want,
                                sh[best].index - 1);
            break;
        }
        if (fputs(sh[best].line, af.f) == EOF)
            rc = npu_errf(e, "%s: write failed", out);
        else
            rc = shard_advance(&sh[best], fields, e);
    }
    if (!rc)
        rc = check_marks(sh, n, want, e);
    if (rc) {
        atomic_abort(&af);
        return -1;
    }
    return atomic_commit(&af, e);
}

int cmd_merge(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(merge_help, stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1])
            return usage_error("merge", "unknown option %s", argv[i]);
    if (argc < 3)
        return usage_error("merge", "expected OUT.csv and at least one shard summary");
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], argv[1]))
            return usage_error("merge", "the output %s is also a shard", argv[1]);
    struct npu_err e;
    if (summary_merge(argv[1], (const char *const *)argv + 2, argc - 2, &e))
        return report_error("merge", &e);
    struct output out;
    output_clear(&out, 1);
    snprintf(out.path, sizeof out.path, "%s", argv[1]);
    cli_print_wrote("merge", &out, 1);
    return 0;
}

int summary_merge(const char *out, const char *const *paths, int n, struct npu_err *e)
{
    struct shard *sh = calloc((size_t)n, sizeof *sh);
    if (!sh)
        return npu_errf(e, "merge: out of memory");
    for (int i = 0; i < n; i++)
        sh[i].path = paths[i];
    int rc = merge(out, sh, n, e);
    for (int i = 0; i < n; i++) {
        if (sh[i].f)
            fclose(sh[i].f);
        free(sh[i].line);
    }
    free(sh);
    return rc;
}
