/* cmd_merge.c — `npusim merge OUT.csv SHARD.csv...`: joins the summaries of
 * `npusim sweep --shard K/N` runs into exactly the file one run writes.
 *
 * Every summary starts with the global enumeration index, and each shard's
 * rows are in increasing index order, so a k-way merge by index (reading one
 * line per shard at a time: memory stays flat) restores the single-run order.
 * The shards must share one header, no index may repeat, and the merged
 * indices must run 0, 1, 2, ... without a gap (a gap means a missing shard).
 * The output appears whole (atomic rename) or not at all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "traces/atomic.h"

static const char merge_help[] =
    "usage: npusim merge OUT.csv SHARD.csv [SHARD.csv...]\n"
    "\n"
    "Joins the --summary files of 'npusim sweep --shard K/N' runs (any order) into\n"
    "OUT.csv, byte for byte the summary a single run writes. Fails (exit 2) when the\n"
    "headers differ, an index repeats or indices are missing (a shard not given).\n";

struct shard {
    const char *path;
    FILE *f;
    char *line;
    size_t cap;
    long lineno;
    long index;                  /* of the current line; -1 at end of file */
};

/* Reads the next row; 0, or -1 with e set. */
static int shard_advance(struct shard *s, struct npu_err *e)
{
    ssize_t n = getline(&s->line, &s->cap, s->f);
    if (n < 0) {
        s->index = -1;
        return ferror(s->f) ? npu_errf(e, "%s: read error: %s", s->path, strerror(errno)) : 0;
    }
    s->lineno++;
    char *end;
    long prev = s->index;
    errno = 0;
    s->index = strtol(s->line, &end, 10);
    if (end == s->line || *end != ',' || errno || s->index < 0)
        return npu_errf(e, "%s:%ld: expected a row starting with its index", s->path, s->lineno);
    if (s->lineno > 2 && s->index <= prev)
        return npu_errf(e, "%s:%ld: index %ld after %ld (rows must be in increasing order)", s->path,
                        s->lineno, s->index, prev);
    if (n == 0 || s->line[n - 1] != '\n')
        return npu_errf(e, "%s:%ld: truncated row (no line end)", s->path, s->lineno);
    return 0;
}

static int merge(const char *out, struct shard *sh, int n, struct npu_err *e)
{
    char *header = NULL;
    for (int i = 0; i < n; i++) {
        if (!(sh[i].f = fopen(sh[i].path, "rb")))
            return npu_errf(e, "%s: cannot open: %s", sh[i].path, strerror(errno));
        if (getline(&sh[i].line, &sh[i].cap, sh[i].f) < 0 || strncmp(sh[i].line, "index,", 6) != 0)
            return npu_errf(e, "%s: not a sweep summary (the header must start with \"index,\")",
                            sh[i].path);
        sh[i].lineno = 1;
        if (!header)
            header = strdup(sh[i].line);
        else if (strcmp(header, sh[i].line) != 0) {
            free(header);
            return npu_errf(e, "%s: header differs from %s's (shards of different sweeps?)", sh[i].path,
                            sh[0].path);
        }
        if (shard_advance(&sh[i], e)) {
            free(header);
            return -1;
        }
    }
    struct atomic_file af;
    if (atomic_open(&af, out, e)) {
        free(header);
        return -1;
    }
    int rc = fputs(header, af.f) == EOF ? npu_errf(e, "%s: write failed", out) : 0;
    free(header);
    for (long want = 0; !rc; want++) {
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
            rc = shard_advance(&sh[best], e);
    }
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
    return summary_merge(argv[1], (const char *const *)argv + 2, argc - 2, &e) ? report_error("merge", &e)
                                                                              : 0;
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
