/* strbuf.c — the out-of-line parts of strbuf.h: growing a buffer, printf. */
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>

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

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        strbuf_putn(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big)
        abort();
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    strbuf_putn(b, big, (size_t)n);
    free(big);
}

void strbuf_csv_cell(struct strbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        strbuf_puts(b, s);
        return;
    }
    strbuf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            strbuf_putc(b, '"');
        strbuf_putc(b, *s == '\r' || *s == '\n' ? ' ' : *s);
    }
    strbuf_putc(b, '"');
}
