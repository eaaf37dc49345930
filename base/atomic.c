/* atomic.c — whole-or-nothing output files (see atomic.h).
 *
 * The temporary lives next to the target so that rename() stays within one
 * file system and is atomic. Gzip output is staged in memory and compressed
 * in one go at commit: traces are at most tens of megabytes, and this keeps
 * the caller's side a plain FILE* for both cases. No fsync: the rename
 * protects readers from half-written files when npusim fails or is killed;
 * surviving a power cut is not worth the cost for reproducible outputs. */
#include "base/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <zlib.h>

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The process id, read once: it names temporaries, and glibc no longer
 * caches getpid(), which made it one system call per output file. */
static long process_id(void)
{
    static _Atomic long pid;
    long p = atomic_load_explicit(&pid, memory_order_relaxed);
    if (!p) {
        p = (long)getpid();
        atomic_store_explicit(&pid, p, memory_order_relaxed);
    }
    return p;
}

/* Opens a->tmp for writing, creating it exclusively with mode 0666 less the
 * umask. Plain files go through fopen("wbxe") (one open(), where fdopen would
 * add an fcntl); gzip targets keep the descriptor for gzdopen at commit. */
static int open_exclusive(struct atomic_file *a)
{
    if (a->gz) {
        a->fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        return a->fd >= 0 ? 0 : -1;
    }
    a->f = fopen(a->tmp, "wbxe");
    return a->f ? 0 : -1;
}

/* Follows path through symbolic links (as open() would, at most 40) to
 * what it finally names. Sets *st and returns 1 when that exists, 0 when it
 * does not (a new file, or a dangling link); *dest gets the final name
 * (malloc'ed) when a link was followed. -1 with e set on anything else. */
static int resolve_target(const char *path, char **dest, struct stat *st, struct npu_err *e)
{
    char cur[4096], link[4096];
    *dest = NULL;
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0;; hops++) {
        if (lstat(cur, st) != 0) {
            if (errno != ENOENT)
                return npu_errf(e, "%s: cannot write: %s", path, strerror(errno));
            return 0;
        }
        if (!S_ISLNK(st->st_mode))
            return 1;
        if (hops == 40)
            return npu_errf(e, "%s: cannot write: more than 40 symbolic links", path);
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0)
            return npu_errf(e, "%s: cannot read symbolic link %s: %s", path, cur, strerror(errno));
        link[n] = '\0';
        /* A relative link is relative to the folder that holds it. */
        char *slash = strrchr(cur, '/');
        size_t keep = link[0] != '/' && slash ? (size_t)(slash - cur) + 1 : 0;
        if (keep + (size_t)n >= sizeof cur)
            return npu_errf(e, "%s: symbolic link target too long", path);
        memcpy(cur + keep, link, (size_t)n + 1);
        char *d = realloc(*dest, strlen(cur) + 1);
        if (!d)
            return npu_errf(e, "%s: out of memory", path);
        *dest = strcpy(d, cur);
    }
}

/* Connects to a Unix stream socket, for a target that is one. */
static int connect_unix(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sa.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        fd = -1;
    }
    return fd;
}

/* An existing target that is not a regular file: written where it is. */
static int open_in_place(struct atomic_file *a, const char *target, const struct stat *st,
                         struct npu_err *e)
{
    if (S_ISDIR(st->st_mode))
        return npu_errf(e, "%s: is a folder; expected a file name", a->path);
    if (!S_ISCHR(st->st_mode) && !S_ISFIFO(st->st_mode) && !S_ISSOCK(st->st_mode))
        return npu_errf(e, "%s: is a block device or special file; expected a file, "
                           "a character device, a FIFO or a socket", a->path);
    a->mode = ATOMIC_INPLACE;
    a->fd = S_ISSOCK(st->st_mode) ? connect_unix(target)
                                  : open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (a->fd < 0)
        return npu_errf(e, "%s: cannot open for writing: %s", a->path, strerror(errno));
    if (!a->gz && !(a->f = fdopen(a->fd, "wb"))) {
        int err = errno;
        close(a->fd);
        a->fd = -1;
        return npu_errf(e, "%s: %s", a->path, strerror(err));
    }
    if (!a->gz)
        a->fd = -1;   /* the FILE owns it */
    return 0;
}

/* Creates the temporary beside the target (RENAME) or the staged path
 * itself (STAGED), exclusively.
 * Not mkstemp: it creates the file 0600, and reading the umask to widen it
 * means setting it (umask(0); umask(mask)), a process-wide change that
 * races with every other thread creating files (npusim sweep -j). open()
 * with 0666 applies the umask itself; a per-process counter and the pid
 * make the name unique, O_EXCL makes a collision a retry. */
static int create_temporary(struct atomic_file *a, struct npu_err *e)
{
    static _Atomic unsigned long tmp_seq;
    bool staged = a->mode == ATOMIC_STAGED;
    const char *target = a->dest ? a->dest : a->path;
    for (int tries = 0;; tries++) {
        if (staged)
            strcpy(a->tmp, target);
        else if ((size_t)snprintf(a->tmp, sizeof a->tmp, "%s.tmp.%ld.%lu", target, process_id(),
                                  atomic_fetch_add(&tmp_seq, 1)) >= sizeof a->tmp) {
            a->tmp[0] = '\0';
            return npu_errf(e, "%s: path too long", a->path);
        }
        if (open_exclusive(a) == 0)
            return 0;
        if (staged || errno != EEXIST || tries > 100) {
            int err = errno;
            a->tmp[0] = '\0';
            return npu_errf(e, "%s: cannot create %s: %s", a->path, staged ? "file" : "temporary file",
                            strerror(err));
        }
    }
}

static int open_as(struct atomic_file *a, const char *path, bool staged, struct npu_err *e)
{
    /* Field by field: the two path buffers (8 KiB) are written below. */
    a->tmp[0] = '\0';
    a->dest = NULL;
    a->f = NULL;
    a->mem = NULL;
    a->mem_len = 0;
    a->fd = -1;
    a->gz = a->existed = false;
    a->mode = staged ? ATOMIC_STAGED : ATOMIC_RENAME;
    if (strlen(path) >= sizeof a->path)
        return npu_errf(e, "%s: path too long", path);
    strcpy(a->path, path);
    a->gz = ends_with(path, ".gz");
    int rc = 0;
    if (!staged && strcmp(path, "-") == 0) {
        a->mode = ATOMIC_STDOUT;
        a->f = stdout;
        strcpy(a->path, "<stdout>");   /* the name messages give it */
    } else if (!staged) {
        /* What the path names, links followed as open() follows them (the
         * /proc/self/fd links behind /dev/stdout included): anything but a
         * regular file is written where it is. */
        struct stat st;
        int found = 1;
        if (lstat(path, &st) != 0) {   /* a new file: one system call */
            if (errno != ENOENT)
                rc = npu_errf(e, "%s: cannot write: %s", path, strerror(errno));
            found = 0;
        } else if (S_ISLNK(st.st_mode) && (stat(path, &st) != 0 || S_ISREG(st.st_mode))) {
            /* A link to a file (or to nothing yet): replace what it names. */
            found = resolve_target(path, &a->dest, &st, e);
            rc = found < 0 ? -1 : found && !S_ISREG(st.st_mode) ? open_in_place(a, path, &st, e) : 0;
        } else if (!S_ISREG(st.st_mode)) {
            rc = open_in_place(a, path, &st, e);
        }
        a->existed = rc == 0 && found > 0 && a->mode == ATOMIC_RENAME;
    }
    if (rc == 0 && (a->mode == ATOMIC_RENAME || a->mode == ATOMIC_STAGED))
        rc = create_temporary(a, e);
    if (rc == 0 && a->gz && !(a->f = open_memstream(&a->mem, &a->mem_len))) {
        int err = errno;
        atomic_abort(a);
        return npu_errf(e, "%s: %s", path, strerror(err));
    }
    if (rc != 0) {
        free(a->dest);
        a->dest = NULL;
    }
    return rc;
}

int atomic_open(struct atomic_file *a, const char *path, struct npu_err *e)
{
    return open_as(a, path, false, e);
}

int atomic_open_staged(struct atomic_file *a, const char *path, struct npu_err *e)
{
    return open_as(a, path, true, e);
}

/* Compresses the staged bytes into fd (the temporary, the in-place target,
 * or a duplicate of standard output); closes fd. */
static int gzip_to_fd(struct atomic_file *a, struct npu_err *e)
{
    int fd = a->fd;
    a->fd = -1;
    gzFile gz = gzdopen(fd, "wb");
    if (!gz) {
        close(fd);
        return npu_errf(e, "%s: cannot start gzip stream", a->path);
    }
    const char *p = a->mem;
    size_t left = a->mem_len;
    while (left > 0) {
        unsigned chunk = left > (1u << 30) ? 1u << 30 : (unsigned)left;
        if (gzwrite(gz, p, chunk) != (int)chunk) {
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            int rc = npu_errf(e, "%s: write failed: %s", a->path, zerr == Z_ERRNO ? strerror(errno) : msg);
            gzclose(gz);
            return rc;
        }
        p += chunk;
        left -= chunk;
    }
    int zrc = gzclose(gz);
    if (zrc != Z_OK)
        return npu_errf(e, "%s: write failed: %s", a->path,
                        zrc == Z_ERRNO ? strerror(errno) : "gzip stream failed to close");
    return 0;
}

/* Flushes and closes the stream (gzip included); on failure removes the
 * temporary. Standard output is flushed, never closed. */
static int finish(struct atomic_file *a, struct npu_err *e)
{
    int rc = 0;
    /* fclose flushes; a failed flush (disk full, EIO, a closed pipe)
     * surfaces here with errno set. */
    errno = 0;
    int werr = ferror(a->f), ferr = 0;
    if (a->f == stdout && !a->gz)
        ferr = fflush(a->f) != 0 || ferror(a->f);
    else if (a->f != stdout)
        ferr = fclose(a->f) != 0;
    int err = errno;
    a->f = NULL;
    if ((ferr || werr) && a->mode == ATOMIC_STDOUT)
        clearerr(stdout);
    if (ferr || werr)
        rc = npu_errf(e, "%s: write failed: %s", a->path,
                      err ? strerror(err) : "stream error");
    if (rc == 0 && a->gz && a->mode == ATOMIC_STDOUT) {
        if (fflush(stdout) != 0 || (a->fd = dup(STDOUT_FILENO)) < 0)
            rc = npu_errf(e, "%s: write failed: %s", a->path, strerror(errno));
    }
    if (rc == 0 && a->gz)
        rc = gzip_to_fd(a, e);
    if (rc != 0) {
        atomic_abort(a);
        return rc;
    }
    free(a->mem);
    a->mem = NULL;
    return 0;
}

/* Renames a finished temporary over its target. */
static int publish(struct atomic_file *a, struct npu_err *e)
{
    if (a->mode != ATOMIC_RENAME)
        return 0;
    if (rename(a->tmp, a->dest ? a->dest : a->path) != 0) {
        int rc = npu_errf(e, "%s: cannot rename temporary file into place: %s", a->path, strerror(errno));
        atomic_abort(a);
        return rc;
    }
    a->tmp[0] = '\0';
    return 0;
}

int atomic_commit(struct atomic_file *a, struct npu_err *e)
{
    int rc = finish(a, e) ? -1 : publish(a, e);
    free(a->dest);
    a->dest = NULL;
    return rc;
}

int atomic_lock_dir(const char *dir)
{
    int fd = open(dir[0] ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {   /* a file system without flock: no lock, as before */
            close(fd);
            return -1;
        }
    }
    return fd;
}

void atomic_unlock_dir(int fd)
{
    if (fd >= 0)
        close(fd);   /* closing the last descriptor releases the flock */
}

void path_folder(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    snprintf(out, n, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1, slash ? path : ".");
}

/* The folder of the first file renamed into place (len bytes of buf), or "" if none is. */
static void first_renamed_folder(const struct atomic_file *a, int n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (a[i].mode == ATOMIC_RENAME && a[i].tmp[0]) {
            path_folder(a[i].dest ? a[i].dest : a[i].path, buf, len);
            return;
        }
    }
}

int atomic_commit_all(struct atomic_file *a, int n, struct npu_err *e)
{
    int rc = 0, i = 0;
    for (; i < n && rc == 0; i++)
        rc = finish(&a[i], e);
    for (; i < n; i++)
        atomic_abort(&a[i]);
    /* Two commands committing sets into one folder at once (two `npusim
     * run -o OUT`) take turns: each set's renames run under an flock on the
     * folder, so the folder holds one set whole, never one run's prefill
     * beside the other's decode (issue 39). */
    char dir[4096];
    int lock = -1;
    if (rc == 0 && n > 1) {
        first_renamed_folder(a, n, dir, sizeof dir);
        if (dir[0])
            lock = atomic_lock_dir(dir);
    }
    int done = 0;
    for (; done < n && rc == 0; done++)
        rc = publish(&a[done], e);
    atomic_unlock_dir(lock);
    if (rc != 0) {
        /* A rename failed after others succeeded: the files those created
         * go again (the ones they replaced cannot come back). */
        for (int k = 0; k + 1 < done; k++)
            if (a[k].mode == ATOMIC_RENAME && !a[k].existed)
                unlink(a[k].dest ? a[k].dest : a[k].path);
        for (int k = done; k < n; k++)
            atomic_abort(&a[k]);
    }
    for (int k = 0; k < n; k++) {
        free(a[k].dest);
        a[k].dest = NULL;
    }
    return rc;
}

void atomic_abort(struct atomic_file *a)
{
    /* Standard output stays open; its error is the caller's to report, once. */
    if (a->f == stdout)
        clearerr(stdout);
    else if (a->f)
        fclose(a->f);
    a->f = NULL;
    if (a->fd >= 0)
        close(a->fd);
    a->fd = -1;
    free(a->mem);
    a->mem = NULL;
    if (a->tmp[0])
        unlink(a->tmp);
    a->tmp[0] = '\0';
    free(a->dest);
    a->dest = NULL;
}

int atomic_write_string(const char *path, const char *s, struct npu_err *e)
{
    struct atomic_file a;
    if (atomic_open(&a, path, e) != 0)
        return -1;
    size_t n = strlen(s);
    if (fwrite(s, 1, n, a.f) != n) {
        int err = errno;
        atomic_abort(&a);
        return npu_errf(e, "%s: write failed: %s", path, strerror(err));
    }
    return atomic_commit(&a, e);
}

/* Creates buf (a NUL-terminated copy of the caller's path, cut at i bytes)
 * and whatever parents it lacks: mkdir first, walking up only when a parent
 * is missing (ENOENT) or is not a folder (ENOTDIR, reported where it is), so
 * a folder whose parent exists costs one system call however deep it lies.
 * Records each folder it makes in m (outermost first) when m is not NULL. */
static int make_upto(const char *path, char *buf, size_t i, struct made_dirs *m, struct npu_err *e)
{
    char saved = buf[i];
    buf[i] = '\0';
    int rc = mkdir(buf, 0777), err = errno;
    if (rc != 0 && (err == ENOENT || err == ENOTDIR)) {
        size_t k = i;                   /* the parent: up to the last '/' ... */
        while (k > 0 && buf[k - 1] != '/')
            k--;
        while (k > 1 && buf[k - 2] == '/')  /* ... and any run of them ("a//b") */
            k--;
        if (k > 1 && make_upto(path, buf, k - 1, m, e) == 0) {
            rc = mkdir(buf, 0777);
            err = errno;
        } else if (k > 1) {
            buf[i] = saved;
            return -1;
        }
    }
    if (rc == 0) {
        if (m && m->n < (int)(sizeof m->dir / sizeof m->dir[0]) && (m->dir[m->n] = strdup(buf)))
            m->n++;
    } else if (err != EEXIST) {
        rc = npu_errf(e, "%s: cannot create folder %s: %s", path, buf, strerror(err));
    } else {
        struct stat st;   /* EEXIST: only a folder will do */
        rc = stat(buf, &st) == 0 && S_ISDIR(st.st_mode)
                 ? 0
                 : npu_errf(e, "%s: %s exists and is not a folder (%s)", path, buf, strerror(ENOTDIR));
    }
    buf[i] = saved;
    return rc;
}

int make_dirs(const char *path, struct npu_err *e) { return make_dirs_n(path, strlen(path), e); }

int make_dirs_n(const char *path, size_t n, struct npu_err *e)
{
    char buf[4096];
    if (n == 0)
        return 0;
    if (n >= sizeof buf)
        return npu_errf(e, "%s: path too long", path);
    memcpy(buf, path, n);
    buf[n] = '\0';
    while (n > 1 && buf[n - 1] == '/')
        n--;
    /* Outputs mostly land in folders made by an earlier call: one stat. */
    struct stat st;
    buf[n] = '\0';
    if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    return make_upto(path, buf, n, NULL, e);
}

int make_dirs_undoable(const char *path, struct made_dirs *m, struct npu_err *e)
{
    m->n = 0;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    char buf[4096];
    size_t len = strlen(path);
    if (len >= sizeof buf)
        return npu_errf(e, "%s: path too long", path);
    memcpy(buf, path, len + 1);
    while (len > 1 && buf[len - 1] == '/')
        buf[--len] = '\0';
    if (make_upto(path, buf, len, m, e) == 0)
        return 0;
    made_dirs_undo(m);
    return -1;
}

void made_dirs_undo(struct made_dirs *m)
{
    for (int i = m->n - 1; i >= 0; i--) {
        rmdir(m->dir[i]);
        free(m->dir[i]);
    }
    m->n = 0;
}

void made_dirs_keep(struct made_dirs *m)
{
    for (int i = 0; i < m->n; i++)
        free(m->dir[i]);
    m->n = 0;
}
