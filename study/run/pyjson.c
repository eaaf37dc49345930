/* pyjson.c — Python-style JSON printer over cJSON (see pyjson.h).
 * Main data structure: a growing strbuf (base/strbuf.h), its text
 * terminated once at the end. */
#include "study/run/pyjson.h"

#include <pthread.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rawjson.h"
#include "traces/opstr.h"
#include "base/pyfmt.h"
#include "base/strbuf.h"

/* Appends n bytes (strbuf_reserve keeps room for the final NUL, which is
 * written once at the end: terminated). Pieces are short (keys, separators,
 * numbers), so they are copied inline rather than through a memcpy call. */
static inline void put(struct strbuf *b, const char *s, size_t n)
{
    strbuf_reserve(b, n);
    char *d = b->s + b->n;
    if (n <= 16) {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        memcpy(d, s, n);
    }
    b->n += n;
}

static void puts_(struct strbuf *b, const char *s) { put(b, s, strlen(s)); }
/* A string literal, its length known at compile time. */
#define PUTL(b, lit) put((b), (lit), sizeof(lit) - 1)

static void indent(struct strbuf *b, int level)
{
    static const char spaces[] = "                                                                ";
    for (; level > 16; level -= 16)
        put(b, spaces, 64);
    put(b, spaces, 4 * (size_t)level);
}

/* ensure_ascii: control characters and non-ASCII as \uXXXX (UTF-16). */
static void put_string(struct strbuf *b, const char *s)
{
    char u[16];
    PUTL(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t plain = 0; /* a run that needs no escape goes out in one piece */
        while (json_plain_byte[p[plain]])
            plain++;
        if (plain) {
            put(b, (const char *)p, plain);
            p += plain;
            continue;
        }
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            put(b, "\\", 1);
            put(b, (const char *)p, 1);
            p++;
            continue;
        }
        static const char esc[] = { '\b', 'b', '\f', 'f', '\n', 'n', '\r', 'r', '\t', 't' };
        const char *e = NULL;
        for (size_t i = 0; i < sizeof esc; i += 2)
            if (c == (unsigned char)esc[i])
                e = &esc[i + 1];
        if (e) {
            char two[2] = { '\\', *e };
            put(b, two, 2);
            p++;
            continue;
        }
        unsigned cp = c;
        int extra = 0;
        if (c >= 0xf0)
            cp = c & 0x07, extra = 3;
        else if (c >= 0xe0)
            cp = c & 0x0f, extra = 2;
        else if (c >= 0xc0)
            cp = c & 0x1f, extra = 1;
        p++;
        for (int i = 0; i < extra && (*p & 0xc0) == 0x80; i++)
            cp = (cp << 6) | (*p++ & 0x3f);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            snprintf(u, sizeof u, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
        } else
            snprintf(u, sizeof u, "\\u%04x", cp);
        puts_(b, u);
    }
    PUTL(b, "\"");
}

static void print_item(struct strbuf *b, const cJSON *it, int level)
{
    char num[40];
    /* The type byte itself (cJSON_IsRaw and kin are library calls, six per
     * item in the worst case). */
    int type = it->type & 0xFF;
    if (type == cJSON_Raw)
        puts_(b, it->valuestring);
    else if (type == cJSON_True)
        PUTL(b, "true");
    else if (type == cJSON_False)
        PUTL(b, "false");
    else if (type == cJSON_NULL)
        PUTL(b, "null");
    else if (type == cJSON_String)
        put_string(b, it->valuestring);
    else if (type == cJSON_Number) {
        double d = it->valuedouble;
        if (d == floor(d) && fabs(d) < 9007199254740992.0) {
            /* What "%.0f" prints for an integral double: its digits, and
             * "-0" for negative zero. */
            struct strbuf nb = STRBUF(num);
            if (d == 0 && signbit(d))
                strbuf_puts(&nb, "-0");
            else
                strbuf_puti(&nb, (int64_t)d);
        } else {
            py_repr_double(d, num, sizeof num);
        }
        puts_(b, num);
    } else {
        bool obj = cJSON_IsObject(it);
        const cJSON *c = it->child;
        if (!c) {
            put(b, obj ? "{}" : "[]", 2);
            return;
        }
        put(b, obj ? "{\n" : "[\n", 2);
        for (; c; c = c->next) {
            indent(b, level + 1);
            if (obj) {
                put_string(b, c->string);
                PUTL(b, ": ");
            }
            print_item(b, c, level + 1);
            if (c->next)
                PUTL(b, ",\n");
            else
                PUTL(b, "\n");
        }
        indent(b, level);
        put(b, obj ? "}" : "]", 1);
    }
}

/* The text of b, NUL-terminated (the caller frees it). */
static char *terminated(struct strbuf *b)
{
    strbuf_reserve(b, 0);
    b->s[b->n] = '\0';
    return b->s;
}

char *pyjson_print(const cJSON *item) { return pyjson_print_at(item, 0); }

char *pyjson_print_at(const cJSON *item, int level)
{
    struct strbuf b = STRBUF_GROWING;
    print_item(&b, item, level);
    return terminated(&b);
}

/* ---- direct text ---- */

/* What comes before a member's key: the comma after the previous member,
 * a line break and the indent. */
static void member_start(struct pyjson_text *t, struct strbuf *b)
{
    if (!t->empty[t->depth - 1])
        PUTL(b, ",");
    t->empty[t->depth - 1] = 0;
    PUTL(b, "\n");
    indent(b, t->level + 1);
}

static void text_key(struct pyjson_text *t, struct strbuf *b, const char *key)
{
    member_start(t, b);
    put_string(b, key);
    PUTL(b, ": ");
}

size_t pyjson_key_text(const char *key, char *out, size_t n)
{
    struct strbuf b = STRBUF_GROWING;
    put_string(&b, key);
    PUTL(&b, ": ");
    size_t len = b.n < n ? b.n : 0;
    if (len)
        memcpy(out, b.s, len);
    free(b.s);
    return len;
}

void pyjson_text_raw_keyed(struct pyjson_text *t, const char *key_text, size_t key_len, const char *raw,
                           size_t raw_len)
{
    struct strbuf *b = &t->buf;
    member_start(t, b);
    put(b, key_text, key_len);
    put(b, raw, raw_len);
}

void pyjson_text_raw(struct pyjson_text *t, const char *key, const char *raw)
{
    struct strbuf *b = &t->buf;
    text_key(t, b, key);
    puts_(b, raw);
}

void pyjson_text_object(struct pyjson_text *t, const char *key)
{
    if (t->depth == PYJSON_TEXT_MAX_DEPTH)
        abort();   /* a caller bug: the shapes written this way are fixed and shallow */
    struct strbuf *b = &t->buf;
    if (key)
        text_key(t, b, key);
    PUTL(b, "{");
    t->empty[t->depth++] = 1;
    t->level++;
}

void pyjson_text_begin(struct pyjson_text *t, int level)
{
    memset(t, 0, sizeof *t);
    t->buf = STRBUF_GROWING;
    t->level = level - 1;
    pyjson_text_object(t, NULL);
}

void pyjson_text_end(struct pyjson_text *t)
{
    struct strbuf *b = &t->buf;
    t->level--;
    if (t->empty[--t->depth]) {
        PUTL(b, "}");
    } else {
        PUTL(b, "\n");
        indent(b, t->level + 1);
        PUTL(b, "}");
    }
}

char *pyjson_text_take(struct pyjson_text *t)
{
    struct strbuf *b = &t->buf;
    char *text = terminated(b);
    memset(t, 0, sizeof *t);
    t->buf = STRBUF_GROWING;   /* empty again */
    return text;
}

/* cJSON's nodes and strings come from the per-thread small-block lists of
 * traces/opstr.c, like the operator strings: the stages build and drop
 * trees of a few hundred small nodes per statistics file, and glibc's
 * general allocator spent more on them than the JSON work itself
 * (perf.suite at -j 1 under callgrind: 932 million instructions with
 * malloc, 838 million with these lists). */
static void *lookaside_malloc(size_t n) { return opstr_alloc(n ? n : 1); }
static void lookaside_free(void *p) { opstr_release(p); }

static void use_lookaside(void)
{
    cJSON_Hooks h = { lookaside_malloc, lookaside_free };
    cJSON_InitHooks(&h);
}

void pyjson_allocator_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, use_lookaside);
}
