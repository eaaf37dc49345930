/* strbuf.h — appending text without printf, to a fixed caller buffer or to
 * a growing heap buffer.
 *
 * The simulator builds a handful of strings per op (config, shape strings,
 * names, tile reprs). With snprintf they were ~40% of a sweep: every call
 * re-parses its format and goes through stdio's string-stream machinery.
 * These appends do the same job with memcpy and a digit loop.
 *
 * Semantics match snprintf into the same buffer: the text is cut at cap - 1
 * bytes and the buffer is always NUL-terminated, so a too-small buffer
 * truncates instead of overflowing. A growing strbuf (STRBUF_GROWING: the
 * summary rows a sweep formats and holds back, CSV rows, JSON text)
 * reallocates instead, doubling;
 * running out of memory aborts, as for the operator strings (traces/op.h);
 * free(b.s) when done. Header-only but for growing: the calls are short and sit on hot
 * paths. No state outside the struct, so it is reentrant. */
#ifndef NPUSIM_STRBUF_H
#define NPUSIM_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"

struct strbuf {
    char *s;      /* caller's buffer, always NUL-terminated (growing: NULL until the first append) */
    size_t n;     /* length of the text so far (< cap) */
    size_t cap;   /* size of s in bytes, > 0 (growing: 0 until the first append) */
    bool grow;    /* s is malloc'ed and grows instead of cutting the text */
};

/* An empty growing strbuf: struct strbuf b = STRBUF_GROWING; ... free(b.s). */
#define STRBUF_GROWING ((struct strbuf){ NULL, 0, 0, true })

/* Makes room for extra more bytes and the NUL in a growing strbuf (cold;
 * out of line in strbuf.c, so that no fixed-buffer append inlines a
 * realloc the compiler would flag). */
void strbuf_grow(struct strbuf *b, size_t extra);

/* Room for extra more bytes and a NUL in a growing strbuf (only), for a writer that
 * then stores up to extra bytes at s + n itself and advances n (the CSV
 * writer formats whole rows so): such raw stores leave the text without its
 * NUL until the next strbuf_put*, and only its n bytes count. */
static inline void strbuf_reserve(struct strbuf *b, size_t extra)
{
    if (b->n + extra + 1 > b->cap)
        strbuf_grow(b, extra);
}

/* A strbuf over a char array: STRBUF(buf) with char buf[N]. */
#define STRBUF(arr) strbuf_on((arr), sizeof(arr))

static inline struct strbuf strbuf_on(char *s, size_t cap)
{
    s[0] = '\0';
    return (struct strbuf){ s, 0, cap, false };
}

static inline void strbuf_putn(struct strbuf *b, const char *s, size_t n)
{
    if (b->grow) {
        if (b->n + n + 1 > b->cap)
            strbuf_grow(b, n);
    } else {
        size_t room = b->cap - 1 - b->n;
        if (n > room)
            n = room;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static inline void strbuf_puts(struct strbuf *b, const char *s) { strbuf_putn(b, s, strlen(s)); }

static inline void strbuf_putc(struct strbuf *b, char c)
{
    if (b->n + 2 > b->cap && b->grow)
        strbuf_grow(b, 1);
    if (b->n + 1 < b->cap) {
        b->s[b->n++] = c;
        b->s[b->n] = '\0';
    }
}

/* printf-style append, for reports off the hot paths (validation tables):
 * the same cut-or-grow rules. */
void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s as one CSV cell: as it is, or quoted (quotes doubled) when it holds a
 * comma, a quote or a line end; line ends become blanks, so that every
 * record stays on one line for the line-by-line readers. */
void strbuf_csv_cell(struct strbuf *b, const char *s);

/* buf = a b c, cut at size - 1 bytes as snprintf(buf, size, "%s%s%s")
 * would; returns buf. For keys built per file or per op. */
static inline const char *strbuf_join3(char *buf, size_t size, const char *a, const char *b, const char *c)
{
    struct strbuf sb = strbuf_on(buf, size);
    strbuf_puts(&sb, a);
    strbuf_puts(&sb, b);
    strbuf_puts(&sb, c);
    return buf;
}

/* Decimal text of v, as "%lld" prints it (INT64_MIN included). */
static inline void strbuf_puti(struct strbuf *b, int64_t v)
{
    /* Work on the magnitude as unsigned so INT64_MIN does not overflow. */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    size_t len = (size_t)(v < 0) + (size_t)u64_ndigits(u);
    if (b->n + len + 1 > b->cap) {
        /* Does not fit: print aside and let putn cut it (rare, cold). */
        char tmp[24], *p = u64_put_digits(u, tmp + sizeof tmp);
        if (v < 0)
            *--p = '-';
        strbuf_putn(b, p, (size_t)(tmp + sizeof tmp - p));
        return;
    }
    /* Digits straight into place: no copy, no libc call. */
    char *p = u64_put_digits(u, b->s + b->n + len);
    if (v < 0)
        p[-1] = '-';
    b->n += len;
    b->s[b->n] = '\0';
}

#endif
