/* atomic.c — whole-or-nothing output files (see atomic.h).
 *
 * The temporary lives next to the target so that rename() stays within one
 * file system and is atomic. Gzip output is staged in memory and compressed
 * in one go at commit: traces are at most tens of megabytes, and this keeps
 * the caller's side a plain FILE* for both cases. No fsync: the rename
 * protects readers from half-written files when npusim fails or is killed;
 * surviving a power cut is not worth the cost for reproducible outputs. */
#include "traces/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static int open_as(struct atomic_file *a, const char *path, bool direct, struct npu_err *e)
{
    /* Field by field: the two path buffers (8 KiB) are written below. */
    a->tmp[0] = '\0';
    a->f = NULL;
    a->mem = NULL;
    a->mem_len = 0;
    a->fd = -1;
    a->gz = a->direct = false;
    a->want_stat = a->stat_ok = false;
    if (strlen(path) >= sizeof a->path)
        return npu_errf(e, "%s: path too long", path);
    strcpy(a->path, path);
    a->gz = ends_with(path, ".gz");
    a->direct = direct;
    /* Not mkstemp: it creates the file 0600, and reading the umask to widen it
     * means setting it (umask(0); umask(mask)), a process-wide change that
     * races with every other thread creating files (npusim sweep -j). open()
     * with 0666 applies the umask itself; a per-process counter and the pid
     * make the name unique, O_EXCL makes a collision a retry. */
    static _Atomic unsigned long tmp_seq;
    for (int tries = 0;; tries++) {
        if (direct)
            strcpy(a->tmp, path);
        else
            snprintf(a->tmp, sizeof a->tmp, "%s.tmp.%ld.%lu", path, process_id(),
                     atomic_fetch_add(&tmp_seq, 1));
        if (open_exclusive(a) == 0)
            break;
        if (direct || errno != EEXIST || tries > 100) {
            int err = errno;
            a->tmp[0] = '\0';
            return npu_errf(e, "%s: cannot create %s: %s", path, direct ? "file" : "temporary file",
                            strerror(err));
        }
    }
    if (a->gz && !(a->f = open_memstream(&a->mem, &a->mem_len))) {
        int err = errno;
        atomic_abort(a);
        return npu_errf(e, "%s: %s", path, strerror(err));
    }
    return 0;
}

int atomic_open(struct atomic_file *a, const char *path, struct npu_err *e)
{
    return open_as(a, path, false, e);
}

int atomic_open_staged(struct atomic_file *a, const char *path, struct npu_err *e)
{
    return open_as(a, path, true, e);
}

/* Compresses the staged bytes into the temporary file; closes fd. */
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
            int rc = npu_errf(e, "%s: %s", a->path, zerr == Z_ERRNO ? strerror(errno) : msg);
            gzclose(gz);
            return rc;
        }
        p += chunk;
        left -= chunk;
    }
    int zrc = gzclose(gz);
    if (zrc != Z_OK)
        return npu_errf(e, "%s: %s", a->path,
                        zrc == Z_ERRNO ? strerror(errno) : "gzip stream failed to close");
    return 0;
}

/* Flushes and closes the temporary (gzip included); on failure removes it. */
static int finish(struct atomic_file *a, struct npu_err *e)
{
    int rc = 0;
    /* The identity of a plain file once everything is written (gzip writes
     * on through its own descriptor: the caller stats the path). */
    if (a->want_stat && !a->gz && fflush(a->f) == 0)
        a->stat_ok = fstat(fileno(a->f), &a->st) == 0;
    /* fclose flushes; a failed flush (disk full) surfaces here. */
    int werr = ferror(a->f);
    if (fclose(a->f) != 0 || werr)
        rc = npu_errf(e, "%s: write failed: %s", a->path, werr ? "stream error" : strerror(errno));
    a->f = NULL;
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

int atomic_commit(struct atomic_file *a, struct npu_err *e)
{
    if (finish(a, e))
        return -1;
    if (!a->direct && rename(a->tmp, a->path) != 0) {
        int rc = npu_errf(e, "%s: cannot rename temporary file: %s", a->path, strerror(errno));
        atomic_abort(a);
        return rc;
    }
    return 0;
}

void atomic_abort(struct atomic_file *a)
{
    if (a->f)
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
 * and whatever parents it lacks: mkdir first, walking up only on ENOENT, so a
 * folder whose parent exists costs one system call however deep it lies. */
static int make_upto(const char *path, char *buf, size_t i, struct npu_err *e)
{
    char saved = buf[i];
    buf[i] = '\0';
    int rc = mkdir(buf, 0777), err = errno;
    if (rc != 0 && err == ENOENT) {
        size_t k = i;                   /* the parent: up to the last '/' ... */
        while (k > 0 && buf[k - 1] != '/')
            k--;
        while (k > 1 && buf[k - 2] == '/')  /* ... and any run of them ("a//b") */
            k--;
        if (k > 1 && make_upto(path, buf, k - 1, e) == 0) {
            rc = mkdir(buf, 0777);
            err = errno;
        } else if (k > 1) {
            buf[i] = saved;
            return -1;
        }
    }
    if (rc != 0 && err != EEXIST) {
        rc = npu_errf(e, "%s: cannot create folder %s: %s", path, buf, strerror(err));
    } else if (rc != 0) {
        struct stat st;   /* EEXIST: only a folder will do */
        rc = stat(buf, &st) == 0 && S_ISDIR(st.st_mode)
                 ? 0
                 : npu_errf(e, "%s: %s exists and is not a folder", path, buf);
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
    return make_upto(path, buf, n, e);
}
