/* textfile.c — whole files into memory (see textfile.h). Main data
 * structure: a growing strbuf, filled 64 KiB at a time. */
#include "base/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strbuf.h"

static char *text_read_stream(FILE *f, const char *name, size_t *len, struct npu_err *e)
{
    struct strbuf b = STRBUF_GROWING;
    size_t got;
    do {
        strbuf_reserve(&b, 1 << 16);
        got = fread(b.s + b.n, 1, 1 << 16, f);
        b.n += got;
    } while (got > 0);
    if (ferror(f)) {
        npu_errf(e, "%s: read error: %s", name, strerror(errno));
        free(b.s);
        return NULL;
    }
    b.s[b.n] = '\0';   /* strbuf_reserve kept room for it */
    *len = b.n;
    return b.s;
}

/* A FIFO no writer holds open would block open() forever: open without
 * waiting, then block again for the reads (a pipe's writer, as in
 * --spec <(...), is waited for; a FIFO without one reads as empty). */
int path_open_read(const char *path)
{
    errno = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (fd >= 0 && (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

/* path_open_read as a stream; a folder is refused by name. */
static FILE *open_for_reading(const char *path, struct npu_err *e)
{
    int fd = path_open_read(path);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        npu_errf(e, "%s: is a directory, expected a file", path);
        return NULL;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        npu_errf(e, "%s: cannot open: %s", path, errno ? strerror(errno) : "unknown reason");
        if (fd >= 0)
            close(fd);
    }
    return f;
}

char *text_read_file(const char *path, size_t *len, struct npu_err *e)
{
    bool in = !strcmp(path, "-");
    FILE *f = in ? stdin : open_for_reading(path, e);
    if (!f)
        return NULL;
    char *s = text_read_stream(f, path, len, e);
    if (!in)
        fclose(f);
    return s;
}

bool path_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool path_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *path_not_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? "no such file" : strerror(errno);
    if (S_ISREG(st.st_mode))
        return NULL;
    if (S_ISDIR(st.st_mode))
        return "is a directory";
    if (S_ISFIFO(st.st_mode))
        return "is a FIFO (named pipe)";
    if (S_ISSOCK(st.st_mode))
        return "is a socket";
    return "is a device";
}

const char *path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}
