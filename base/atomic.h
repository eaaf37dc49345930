/* atomic.h — output files that appear whole or not at all.
 *
 * atomic_open() looks at what the path names now and picks how to write it:
 *  - nothing, or a regular file: a temporary "<path>.tmp.<pid>.<n>" in the
 *    same folder, renamed over the path at commit (whole or not at all);
 *  - a symbolic link: followed (up to 40 links), and the file it names is
 *    replaced the same way in that file's own folder; the link stays a link;
 *  - a character device (/dev/null, /dev/stdout), a FIFO or a Unix socket:
 *    written in place, never renamed over (a device node is not ours to
 *    replace); there is nothing to roll back on failure;
 *  - "-": standard output;
 *  - a folder or a block device: an error naming the path.
 * The caller writes plain text through a->f. For paths ending in ".gz" that
 * FILE is an in-memory stream (open_memstream) whose bytes are gzipped into
 * the target at commit. atomic_commit() flushes and closes (a full disk,
 * EIO or a closed pipe is an error naming the path) and renames;
 * atomic_abort() closes and removes the temporary. No partial output is
 * ever left behind in a regular file. */
#ifndef NPUSIM_ATOMIC_H
#define NPUSIM_ATOMIC_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "base/err.h"

/* How a target is written (chosen by atomic_open from what the path names). */
enum atomic_mode {
    ATOMIC_RENAME,   /* temporary beside the target, renamed over it */
    ATOMIC_STAGED,   /* the path itself, in a private staging folder */
    ATOMIC_INPLACE,  /* an existing device, FIFO or socket, written as it is */
    ATOMIC_STDOUT,   /* "-" */
};

struct atomic_file {
    char path[4096];   /* as the caller named it: messages use it */
    char tmp[4120];    /* the temporary (RENAME), the path (STAGED), else "" */
    char *dest;        /* RENAME through a symlink: the file it names (malloc'ed), else NULL */
    FILE *f;           /* the stream to write to (a memory stream for .gz) */
    int fd;            /* the temporary or in-place target, open until commit/abort */
    enum atomic_mode mode;
    bool gz;           /* compress the memory stream into fd on commit */
    bool existed;      /* RENAME: a file stood at the target before (not ours to remove) */
    char *mem;         /* open_memstream buffer and size (gz only) */
    size_t mem_len;
};

int atomic_open(struct atomic_file *a, const char *path, struct npu_err *e);
/* For a folder that is itself a staging area, private to this run and
 * renamed into place whole (npusim energy): writes path itself, created
 * exclusively; commit only closes it, abort removes it. Saves the rename. */
int atomic_open_staged(struct atomic_file *a, const char *path, struct npu_err *e);
int atomic_commit(struct atomic_file *a, struct npu_err *e);
/* Commits n open files all or nothing: every one is flushed and closed
 * first (where a full disk shows), and only then are they renamed into
 * place; if any step fails, the temporaries are removed and the files the
 * earlier renames created are removed again. Every a[i] is closed after.
 * The renames run under atomic_lock_dir on the first file's folder, so two
 * sets committed there at once never interleave. */
int atomic_commit_all(struct atomic_file *a, int n, struct npu_err *e);
void atomic_abort(struct atomic_file *a);
/* An exclusive flock on a folder (waits for it): an open descriptor to pass
 * to atomic_unlock_dir, or -1 when the folder cannot be opened or its file
 * system has no flock (then nothing is locked). atomic_commit_all holds it
 * on its files' folder while it renames them. */
int atomic_lock_dir(const char *dir);
void atomic_unlock_dir(int fd);
/* The folder of path into out (n bytes): up to its last '/' ("/" for a
 * name in the root), "." when it has none. */
void path_folder(const char *path, char *out, size_t n);
/* Convenience: writes a whole NUL-terminated string to path atomically. */
int atomic_write_string(const char *path, const char *s, struct npu_err *e);
/* Creates a folder and its parents (mkdir -p). */
int make_dirs(const char *path, struct npu_err *e);
/* The same for the folder named by the first n bytes of path (e.g. up to a
 * file's last '/'); errors name path. */
int make_dirs_n(const char *path, size_t n, struct npu_err *e);

/* The folders one make_dirs_undoable() call created, outermost first, to be
 * removed again if the outputs meant for them fail. */
struct made_dirs {
    int n;
    char *dir[16];
};
/* make_dirs, recording in m the folders it created (at most 16 levels; any
 * deeper ones are created but not recorded). */
int make_dirs_undoable(const char *path, struct made_dirs *m, struct npu_err *e);
/* Removes the recorded folders, innermost first, as far as they are empty;
 * frees the record. made_dirs_keep() only frees it. */
void made_dirs_undo(struct made_dirs *m);
void made_dirs_keep(struct made_dirs *m);

#endif
