/* growbuf.h — a growing, NUL-terminated text buffer (the summary rows and
 * the rows a sweep holds back, cli/sweep_row.c and cli/cmd_sweep.c).
 *
 * Main data structure: struct growbuf, malloc'ed text that doubles as it
 * grows; start it zeroed, free(b.s) when done. Running out of memory aborts,
 * as for the operator strings (traces/op.h). Header-only: appends sit on the
 * rows' hot path. */
#ifndef NPUSIM_CLI_GROWBUF_H
#define NPUSIM_CLI_GROWBUF_H

#include <stdlib.h>
#include <string.h>

struct growbuf {
    char *s;
    size_t n, cap;   /* text length; size of s */
};

static inline void growbuf_putn(struct growbuf *b, const char *t, size_t l)
{
    if (b->n + l + 1 > b->cap) {
        size_t cap = (b->n + l + 1) * 2;
        if (cap < 256)
            cap = 256;   /* most rows fit the first buffer */
        char *s = realloc(b->s, cap);
        if (!s)
            abort();
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->n, t, l);
    b->n += l;
    b->s[b->n] = '\0';
}

static inline void growbuf_put(struct growbuf *b, const char *t) { growbuf_putn(b, t, strlen(t)); }

#endif
