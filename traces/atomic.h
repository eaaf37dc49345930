/* atomic.h — output files that appear whole or not at all.
 *
 * atomic_open() creates "<path>.tmp.XXXXXX" in the target folder; the caller
 * writes through the returned FILE (or gzFile when the path ends in ".gz");
 * atomic_commit() flushes, closes and renames over path; atomic_abort()
 * closes and removes the temporary. No partial output is ever left behind. */
#ifndef NPUSIM_ATOMIC_H
#define NPUSIM_ATOMIC_H

#include <stdbool.h>
#include <stdio.h>

#include "traces/err.h"

struct atomic_file {
    char path[4096];
    char tmp[4120];
    FILE *f;       /* the stream to write to (a gzip cookie stream for .gz) */
};

int atomic_open(struct atomic_file *a, const char *path, struct npu_err *e);
int atomic_commit(struct atomic_file *a, struct npu_err *e);
void atomic_abort(struct atomic_file *a);
/* Convenience: writes a whole NUL-terminated string to path atomically. */
int atomic_write_string(const char *path, const char *s, struct npu_err *e);
/* Creates a folder and its parents (mkdir -p). */
int make_dirs(const char *path, struct npu_err *e);

#endif
