/* staging.c — staging folders published whole when they can be (staging.h).
 *
 * No data structure of its own: a staging folder is a path, made unique by
 * the process id and a counter. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "cli/staging.h"

#include <errno.h>
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

int staging_publish_whole(const char *staging, const char *dest, bool *whole, struct npu_err *e)
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

/* The publish walk's state: nftw passes none of ours. Sweeps publish from
 * the main thread only, one at a time. */
static struct {
    const char *dest;
    size_t skip;              /* strlen(staging): the path below it is the relative one */
    char last_dir[4096];
    struct npu_err *e;
    int rc;
} pub;

static int move_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag != FTW_F)
        return 0;
    char to[8192];
    if ((size_t)snprintf(to, sizeof to, "%s%s", pub.dest, p + pub.skip) >= sizeof to) {
        pub.rc = npu_errf(pub.e, "%s%s: path too long", pub.dest, p + pub.skip);
        return 1;
    }
    const char *slash = strrchr(to, '/');
    size_t n = slash ? (size_t)(slash - to) : 0;
    if (n && (n >= sizeof pub.last_dir || strncmp(to, pub.last_dir, n) != 0 || pub.last_dir[n] != '\0')) {
        if (make_dirs_n(to, n, pub.e)) {
            pub.rc = -1;
            return 1;
        }
        if (n < sizeof pub.last_dir) {
            memcpy(pub.last_dir, to, n);
            pub.last_dir[n] = '\0';
        }
    }
    if (rename(p, to) != 0) {
        pub.rc = npu_errf(pub.e, "%s: cannot move into place: %s", to, strerror(errno));
        return 1;
    }
    return 0;
}

int staging_publish(const char *staging, const char *dest, struct npu_err *e)
{
    bool whole;
    if (staging_publish_whole(staging, dest, &whole, e))
        return -1;
    if (whole)
        return 0;
    pub.dest = dest;
    pub.skip = strlen(staging);
    pub.last_dir[0] = '\0';
    pub.e = e;
    pub.rc = 0;
    if (nftw(staging, move_entry, 16, FTW_PHYS) < 0 && pub.rc == 0)
        pub.rc = npu_errf(e, "%s: cannot read the staging folder: %s", staging, strerror(errno));
    staging_remove(staging);
    return pub.rc;
}
