/* utf8.c — well-formed UTF-8 (see utf8.h). */
#include "base/utf8.h"

#include <string.h>

int utf8_len(const unsigned char *p, size_t avail)
{
    int len;
    unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        len = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        len = 3;
        if (p[0] == 0xe0)
            lo = 0xa0;
        else if (p[0] == 0xed)
            hi = 0x9f;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        len = 4;
        if (p[0] == 0xf0)
            lo = 0x90;
        else if (p[0] == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (avail < (size_t)len || p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return len;
}

size_t utf8_clean(char *dst, size_t n, const char *src)
{
    static const char replacement[] = "\xef\xbf\xbd";   /* U+FFFD */
    const unsigned char *p = (const unsigned char *)src, *end = p + strlen(src);
    size_t w = 0;
    while (p < end) {
        int len = *p < 0x80 ? 1 : utf8_len(p, (size_t)(end - p));
        const char *from = len ? (const char *)p : replacement;
        size_t k = len ? (size_t)len : 3;
        if (w + k >= n)
            break;
        memcpy(dst + w, from, k);
        w += k;
        p += len ? len : 1;
    }
    dst[w] = '\0';
    return w;
}
