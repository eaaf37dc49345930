/* atomic.h — output files that appear whole or not at all.
 *
 * atomic_open() creates "<path>.tmp.XXXXXX" in the target folder; the caller
 * writes plain text through the returned FILE. For paths ending in ".gz" that
 * FILE is an in-memory stream (open_memstream) whose bytes are gzipped into
 * the temporary at commit. atomic_commit() flushes, closes and renames over
 * path; atomic_abort() closes and removes the temporary. No partial output is
 * ever left behind. */
#ifndef NPUSIM_ATOMIC_H
#define NPUSIM_ATOMIC_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "traces/err.h"

struct atomic_file {
    char path[4096];
    char tmp[4120];
    FILE *f;       /* the stream to write to (a memory stream for .gz) */
    int fd;        /* the temporary file, open until commit/abort */
    bool gz;       /* compress the memory stream into fd on commit */
    bool direct;   /* staged: written in place (tmp == path), no rename */
    char *mem;     /* open_memstream buffer and size (gz only) */
    size_t mem_len;
    /* Set want_stat before commit to get the file's identity from its open
     * descriptor (no path lookup afterwards): stat_ok says st holds it.
     * The rename into place keeps the inode, size and modification time. */
    bool want_stat, stat_ok;
    struct stat st;
};

int atomic_open(struct atomic_file *a, const char *path, struct npu_err *e);
/* For a folder that is itself a staging area, private to this run and
 * renamed into place whole (npusim energy): writes path itself, created
 * exclusively; commit only closes it, abort removes it. Saves the rename. */
int atomic_open_staged(struct atomic_file *a, const char *path, struct npu_err *e);
int atomic_commit(struct atomic_file *a, struct npu_err *e);
void atomic_abort(struct atomic_file *a);
/* Convenience: writes a whole NUL-terminated string to path atomically. */
int atomic_write_string(const char *path, const char *s, struct npu_err *e);
/* Creates a folder and its parents (mkdir -p). */
int make_dirs(const char *path, struct npu_err *e);
/* The same for the folder named by the first n bytes of path (e.g. up to a
 * file's last '/'); errors name path. */
int make_dirs_n(const char *path, size_t n, struct npu_err *e);

#endif
