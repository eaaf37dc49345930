/* dtype.c — dtype token to element size (see dtype.h). */
#include "traces/dtype.h"

#include <string.h>

int dtype_bytes(const char *dt)
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
