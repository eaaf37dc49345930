/* dtype.c — dtype token to element size (see dtype.h). */
#include "traces/dtype.h"

#include <string.h>

static int dtype_bytes_uncached(const char *dt);

/* Called for every tensor of every op, nearly always with the same token or
 * two: the last answer per thread is kept with its token (tokens longer
 * than the slot are not kept). */
int dtype_bytes(const char *dt)
{
    static _Thread_local struct {
        char token[32];
        int bytes;
    } last;
    if (last.token[0] && !strcmp(dt, last.token))
        return last.bytes;
    int b = dtype_bytes_uncached(dt);
    size_t n = strlen(dt);
    if (n < sizeof last.token) {
        memcpy(last.token, dt, n + 1);
        last.bytes = b;
    }
    return b;
}

static int dtype_bytes_uncached(const char *dt)
{
    static const struct { const char *needle; int bytes; } by_substring[] = {
        { "8", 1 }, { "16", 2 }, { "32", 4 }, { "64", 8 }, { "BOOL", 1 },
    };
    for (size_t i = 0; i < sizeof by_substring / sizeof by_substring[0]; i++)
        if (strstr(dt, by_substring[i].needle))
            return by_substring[i].bytes;
    if (!strcmp(dt, "DT_FLOAT") || !strcmp(dt, "DT_INT"))
        return 4;
    return -1;
}
