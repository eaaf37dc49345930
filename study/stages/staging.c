/* staging.c — staging folders published whole when they can be (staging.h).
 *
 * No data structure of its own: a staging folder is a path, made unique by
 * the process id and a counter.
 *
 * Why a sweep publishes per configuration, by swapping the configuration's
 * folder, rather than swapping the whole tree once at the end: a killed
 * sweep (SIGKILL, a lost node) then leaves every configuration it finished
 * in the tree, each whole, so --skip-existing resumes it; a whole-tree swap
 * would lose all its work, and would also have to copy (link) a large
 * existing tree for every sweep. A configuration's files share their folder
 * with other chips' (inference-v5p*, inference-v6e* in one pstr folder), and
 * a set of renames is not atomic, so the folder itself is rebuilt (links to
 * what it keeps plus the new files) and swapped in with one
 * renameat2(RENAME_EXCHANGE): the only step a reader or a kill can see. */
#define _GNU_SOURCE       /* nftw, d_type, renameat2 */
#include "study/stages/staging.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/atomic.h"
#include "base/textfile.h"

int staging_create(const char *dest, char *out, size_t n, struct npu_err *e)
{
    int err = 0;
    for (unsigned k = 0; k < 1000; k++) {
        if ((size_t)snprintf(out, n, "%s.tmp.%ld.%u", dest, (long)getpid(), k) >= n) {
            err = ENAMETOOLONG;
            break;
        }
        if (mkdir(out, 0777) == 0)
            return 0;
        if ((err = errno) != EEXIST)
            break;
    }
    int rc = npu_errf(e, "%s: cannot create: %s", out, strerror(err));
    out[0] = '\0';
    return rc;
}

/* Renames staging to dest when dest does not exist yet (making its parent
 * folders) and sets *whole; otherwise leaves both alone. */
static int staging_publish_whole(const char *staging, const char *dest, bool *whole, struct npu_err *e)
{
    *whole = false;
    struct stat st;
    if (lstat(dest, &st) == 0 || errno != ENOENT)
        return 0;
    const char *slash = strrchr(dest, '/');
    if (slash && slash != dest && make_dirs_n(dest, (size_t)(slash - dest), e))
        return -1;
    /* A failed rename (say, dest appeared meanwhile) leaves the file-by-file
     * way open. */
    *whole = rename(staging, dest) == 0;
    return 0;
}

static int remove_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(p) : unlink(p);
}

void staging_remove(const char *staging)
{
    if (staging[0])
        nftw(staging, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Moves what folder `from` holds into folder `to`: an entry `to` lacks is
 * renamed whole (a new model's folder is one rename), a folder both hold is
 * merged the same way, a file replaces the one there. */
static int publish_dir(const char *from, const char *to, struct npu_err *e)
{
    DIR *d = opendir(from);
    if (!d)
        return npu_errf(e, "%s: cannot read the staging folder: %s", from, strerror(errno));
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char src[4096], dst[4096];
        if ((size_t)snprintf(src, sizeof src, "%s/%s", from, de->d_name) >= sizeof src ||
            (size_t)snprintf(dst, sizeof dst, "%s/%s", to, de->d_name) >= sizeof dst) {
            rc = npu_errf(e, "%s/%s: path too long", to, de->d_name);
            break;
        }
        struct stat st;
        bool there = lstat(dst, &st) == 0;
        bool src_dir = de->d_type == DT_DIR;
        if (de->d_type == DT_UNKNOWN) {
            struct stat ss;
            src_dir = lstat(src, &ss) == 0 && S_ISDIR(ss.st_mode);
        }
        if (there && src_dir && S_ISDIR(st.st_mode))
            rc = publish_dir(src, dst, e);
        else if (rename(src, dst) != 0)
            rc = npu_errf(e, "%s: cannot move into place: %s", dst, strerror(errno));
    }
    closedir(d);
    return rc;
}

int staging_publish(const char *staging, const char *dest, struct npu_err *e)
{
    bool whole;
    if (staging_publish_whole(staging, dest, &whole, e))
        return -1;
    if (whole)
        return 0;
    int rc = publish_dir(staging, dest, e);
    staging_remove(staging);
    return rc;
}

int staging_create_locked(const char *dest, char *out, size_t n, int *lock_fd, struct npu_err *e)
{
    *lock_fd = -1;
    if (staging_create(dest, out, n, e))
        return -1;
    char lock[4300];
    snprintf(lock, sizeof lock, "%s/%s", out, STAGING_LOCK);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {   /* no flock: the process id alone tells */
        if (fd >= 0)
            close(fd);
        return 0;
    }
    *lock_fd = fd;
    return 0;
}

/* The process id of a temporary's name "<stem>.tmp.<pid>.<n>" and the
 * stem's length, or 0 when the name is not one. */
static long tmp_pid(const char *name, size_t *stem)
{
    size_t i = strlen(name), end;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i == strlen(name) || i < 1 || name[i - 1] != '.')
        return 0;
    end = --i;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i == end || i < 5 || strncmp(name + i - 5, ".tmp.", 5) != 0)
        return 0;
    *stem = i - 5;
    return strtol(name + i, NULL, 10);
}

/* Whether process pid is gone (on this host: a staging folder on a shared
 * file system is also guarded by its lock). */
static bool pid_gone(long pid) { return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH; }

/* Whether a staging folder's lock is free (or it has none). */
static bool lock_free(const char *folder)
{
    char lock[4300];
    snprintf(lock, sizeof lock, "%s/%s", folder, STAGING_LOCK);
    int fd = open(lock, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
    bool free_ = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return free_;
}

int staging_clean_stale(const char *dest, const char *cmd)
{
    char parent[4096];
    const char *base = path_base(dest);
    path_folder(dest, parent, sizeof parent);
    DIR *d = opendir(parent);
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t stem;
        long pid = tmp_pid(de->d_name, &stem);
        if (!pid || stem != strlen(base) || strncmp(de->d_name, base, stem) != 0)
            continue;
        char path[4400];   /* beside dest, named as dest is (no "./" before a bare name) */
        snprintf(path, sizeof path, "%.*s%s", (int)(base - dest), dest, de->d_name);
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || !pid_gone(pid) || !lock_free(path))
            continue;
        staging_remove(path);
        removed++;
        fprintf(stderr, "npusim %s: removed %s, the staging folder of an interrupted run (process %ld)\n", cmd,
                path, pid);
    }
    closedir(d);
    return removed;
}

int staging_clean_temps(const char *dir, const char *prefix, const char *cmd)
{
    DIR *d = opendir(dir[0] ? dir : ".");
    if (!d)
        return 0;
    int removed = 0;
    long last = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t stem;
        long pid = tmp_pid(de->d_name, &stem);
        char path[4400];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        bool ours = pid && stem >= strlen(prefix) && stem > 0 && !strncmp(de->d_name, prefix, strlen(prefix));
        if (ours && pid_gone(pid) && lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) == 0) {
            removed++;
            last = pid;
        }
    }
    closedir(d);
    if (removed)
        fprintf(stderr, "npusim %s: removed %d temporary file%s left in %s by an interrupted run (process %ld)\n",
                cmd, removed, removed == 1 ? "" : "s", dir, last);
    return removed;
}

/* Whether name is one of a configuration's files: <base>.* or <base>_*. */
static bool of_set(const char *name, const char *base)
{
    size_t n = strlen(base);
    return strncmp(name, base, n) == 0 && (name[n] == '.' || name[n] == '_');
}

/* Hard-links into the empty folder `into` every entry of folder `from` (its
 * folders made anew, recursively, as cp -al does), except base's set when
 * base is not NULL. */
static int link_all(const char *from, const char *into, const char *base, struct npu_err *e)
{
    DIR *d = opendir(from);
    if (!d)
        return npu_errf(e, "%s: cannot read the folder: %s", from, strerror(errno));
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || (base && of_set(de->d_name, base)))
            continue;
        char src[4400], dst[4400];
        snprintf(src, sizeof src, "%s/%s", from, de->d_name);
        snprintf(dst, sizeof dst, "%s/%s", into, de->d_name);
        struct stat st;
        if (lstat(src, &st) != 0)
            continue;   /* gone meanwhile */
        if (S_ISDIR(st.st_mode)) {
            if (mkdir(dst, 0700) != 0 || chmod(dst, st.st_mode & 07777) != 0)
                rc = npu_errf(e, "%s: cannot create: %s", dst, strerror(errno));
            else
                rc = link_all(src, dst, NULL, e);
        } else if (linkat(AT_FDCWD, src, AT_FDCWD, dst, 0) != 0)
            rc = npu_errf(e, "%s: cannot link %s there: %s", into, src, strerror(errno));
    }
    closedir(d);
    return rc;
}

/* Moves base's set from folder `from` into folder `into`. */
static int move_set(const char *from, const char *into, const char *base, struct npu_err *e)
{
    DIR *d = opendir(from);
    if (!d)
        return npu_errf(e, "%s: cannot read the staging folder: %s", from, strerror(errno));
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (!of_set(de->d_name, base))
            continue;
        char src[4400], dst[4400];
        snprintf(src, sizeof src, "%s/%s", from, de->d_name);
        snprintf(dst, sizeof dst, "%s/%s", into, de->d_name);
        if (rename(src, dst) != 0)
            rc = npu_errf(e, "%s: cannot move into place: %s", dst, strerror(errno));
    }
    closedir(d);
    return rc;
}

/* Puts the complete folder `scratch` at `to` (an existing folder), leaving
 * the old one at scratch: one exchange; where the file system has none (NFS,
 * old kernels), two renames, with a moment in which `to` is absent (a kill
 * then loses the folder: never a mix of two runs). */
static int swap_in(const char *scratch, const char *to, struct npu_err *e)
{
    if (renameat2(AT_FDCWD, scratch, AT_FDCWD, to, RENAME_EXCHANGE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return npu_errf(e, "%s: cannot swap the new folder in: %s", to, strerror(errno));
    char old[4400];
    snprintf(old, sizeof old, "%s.old", scratch);
    if (rename(to, old) != 0)
        return npu_errf(e, "%s: cannot swap the new folder in: %s", to, strerror(errno));
    if (rename(scratch, to) != 0) {
        int err = errno;
        rename(old, to);   /* the old folder back where it was */
        return npu_errf(e, "%s: cannot swap the new folder in: %s", to, strerror(err));
    }
    return rename(old, scratch) == 0 ? 0 : npu_errf(e, "%s: cannot move the old folder away: %s", old, strerror(errno));
}

int staging_publish_set(const char *from, const char *to, const char *base, const char *scratch,
                        struct npu_err *e)
{
    struct stat st;
    bool there = lstat(to, &st) == 0;
    if (there && !S_ISDIR(st.st_mode))
        return npu_errf(e, "%s: expected a folder (%s)", to, strerror(ENOTDIR));
    /* A new folder as mkdir(1) makes it; a rebuilt one with the old one's mode. */
    if (mkdir(scratch, there ? 0700 : 0777) != 0 || (there && chmod(scratch, st.st_mode & 07777) != 0))
        return npu_errf(e, "%s: cannot create: %s", scratch, strerror(errno));
    int rc = (there && link_all(to, scratch, base, e)) || move_set(from, scratch, base, e) ? -1 : 0;
    if (!rc && !there) {
        const char *slash = strrchr(to, '/');
        if (slash && slash != to && make_dirs_n(to, (size_t)(slash - to), e))
            rc = -1;
        else if (rename(scratch, to) == 0)
            return 0;
        else
            rc = npu_errf(e, "%s: cannot move into place: %s", to, strerror(errno));
    }
    if (!rc)
        rc = swap_in(scratch, to, e);
    staging_remove(scratch);   /* the old folder, or what a failure left */
    return rc;
}
