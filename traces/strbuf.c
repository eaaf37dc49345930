/* strbuf.c — the one out-of-line part of strbuf.h: growing a buffer. */
#include "traces/strbuf.h"

void strbuf_grow(struct strbuf *b, size_t extra)
{
    size_t cap = (b->n + extra + 1) * 2;
    if (cap < 256)
        cap = 256;   /* most summary rows fit the first buffer */
    char *s = realloc(b->s, cap);
    if (!s)
        abort();
    b->s = s;
    b->cap = cap;
}
