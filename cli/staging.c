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
