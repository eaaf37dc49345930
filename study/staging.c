/* staging.c — staging folders published whole when they can be (staging.h).
 *
 * No data structure of its own: a staging folder is a path, made unique by
 * the process id and a counter. */
#define _XOPEN_SOURCE 700 /* nftw */
#define _DEFAULT_SOURCE   /* d_type */
#include "study/staging.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traces/atomic.h"

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
