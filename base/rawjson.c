/* rawjson.c — recursive-descent JSON parser building cJSON trees, numbers
 * as raw text or doubles (see rawjson.h). Main data structure: struct rj, the cursor
 * over the text plus a scratch buffer for decoded strings. */
#include "base/rawjson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fastfloat.h"
#include "base/pyfmt.h"
#include "base/utf8.h"   /* utf8_len: Python's json reads files as UTF-8 and refuses anything else */

#define MAX_DEPTH 200

struct rj {
    const char *p, *end, *start;
    enum json_numbers numbers;
    const char *err; /* position of the first error */
    char *scratch;
    size_t cap;
};

static void ws(struct rj *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
        r->p++;
}

static cJSON *fail(struct rj *r)
{
    if (!r->err)
        r->err = r->p;
    return NULL;
}

static bool lit(struct rj *r, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
        return false;
    r->p += n;
    return true;
}

static bool room(struct rj *r, size_t n)
{
    if (n <= r->cap)
        return true;
    size_t cap = r->cap ? r->cap : 256;
    while (cap < n)
        cap *= 2;
    char *s = realloc(r->scratch, cap);
    if (!s)
        return false;
    r->scratch = s;
    r->cap = cap;
    return true;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A string at r->p (the opening quote) decoded into r->scratch as UTF-8. */
/* Whether a JSON string holds byte c as itself: printable ASCII but the
 * quote and the backslash. */
#define R8(x) x, x, x, x, x, x, x, x
const unsigned char json_plain_byte[256] = {
    R8(0), R8(0), R8(0), R8(0),              /* 0x00-0x1f: control characters */
    1, 1, 0, 1, 1, 1, 1, 1, R8(1),           /* 0x20-0x2f: '"' (0x22) is not plain */
    R8(1), R8(1), R8(1), R8(1),              /* 0x30-0x4f */
    R8(1), 1, 1, 1, 1, 0, 1, 1, 1,           /* 0x50-0x5f: '\\' (0x5c) is not plain */
    R8(1), R8(1), R8(1), R8(1),              /* 0x60-0x7f */
    /* 0x80-0xff: UTF-8, 0 */
};
#undef R8

static inline bool plain_byte(unsigned char c) { return json_plain_byte[c]; }

static bool string(struct rj *r)
{
    r->p++;
    size_t n = 0;
    for (;;) {
        /* A run of plain bytes is copied whole (keys and most values are
         * all plain). */
        const char *q = r->p;
        while (q < r->end && plain_byte((unsigned char)*q))
            q++;
        if (q > r->p) {
            size_t run = (size_t)(q - r->p);
            if (!room(r, n + run + 5))
                return false;
            memcpy(r->scratch + n, r->p, run);
            n += run;
            r->p = q;
        }
        if (r->p >= r->end || !room(r, n + 5))
            return false;
        unsigned char c = (unsigned char)*r->p;
        if (c == '"') {
            r->p++;
            r->scratch[n] = '\0';
            return true;
        }
        if (c < 0x20)
            return false;
        if (c >= 0x80) { /* copied as is, but only if it is well-formed UTF-8 */
            int len = utf8_len((const unsigned char *)r->p, (size_t)(r->end - r->p));
            if (!len || !room(r, n + (size_t)len + 5))
                return false;
            memcpy(r->scratch + n, r->p, (size_t)len);
            n += (size_t)len;
            r->p += len;
            continue;
        }
        if (c != '\\') {
            r->scratch[n++] = (char)c;
            r->p++;
            continue;
        }
        if (r->end - r->p < 2)
            return false;
        char e = r->p[1];
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k) {
            r->scratch[n++] = to[k - from];
            r->p += 2;
            continue;
        }
        if (e != 'u' || r->end - r->p < 6)
            return false;
        long cp = hex4(r->p + 2);
        r->p += 6;
        if (cp < 0 || (cp >= 0xdc00 && cp < 0xe000))
            return false;
        if (cp >= 0xd800 && cp < 0xdc00) { /* a surrogate pair */
            if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u')
                return false;
            long lo = hex4(r->p + 2);
            if (lo < 0xdc00 || lo >= 0xe000)
                return false;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            r->p += 6;
        }
        if (cp == 0)
            return false; /* C strings cannot hold it */
        if (cp < 0x80)
            r->scratch[n++] = (char)cp;
        else if (cp < 0x800) {
            r->scratch[n++] = (char)(0xc0 | cp >> 6);
            r->scratch[n++] = (char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            r->scratch[n++] = (char)(0xe0 | cp >> 12);
            r->scratch[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
            r->scratch[n++] = (char)(0x80 | (cp & 0x3f));
        } else {
            r->scratch[n++] = (char)(0xf0 | cp >> 18);
            r->scratch[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
            r->scratch[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
            r->scratch[n++] = (char)(0x80 | (cp & 0x3f));
        }
    }
}

static size_t digits(const char *p, const char *end)
{
    size_t n = 0;
    while (p + n < end && p[n] >= '0' && p[n] <= '9')
        n++;
    return n;
}

/* A number token (JSON's grammar, or NaN / Infinity / -Infinity). */
static cJSON *number(struct rj *r)
{
    const char *b = r->p;
    if (r->numbers != JSON_NUMBERS_DOUBLE && (lit(r, "NaN") || lit(r, "Infinity") || lit(r, "-Infinity"))) {
        char t[16];
        snprintf(t, sizeof t, "%.*s", (int)(r->p - b), b);
        return cJSON_CreateRaw(t);
    }
    const char *p = b;
    if (p < r->end && *p == '-')
        p++;
    size_t n = digits(p, r->end);
    if (n == 0 || (n > 1 && *p == '0'))
        return fail(r);
    p += n;
    bool is_float = false;
    if (p < r->end && *p == '.') {
        is_float = true;
        if ((n = digits(++p, r->end)) == 0)
            return fail(r);
        p += n;
    }
    if (p < r->end && (*p == 'e' || *p == 'E')) {
        is_float = true;
        p++;
        if (p < r->end && (*p == '+' || *p == '-'))
            p++;
        if ((n = digits(p, r->end)) == 0)
            return fail(r);
        p += n;
    }
    size_t len = (size_t)(p - b);
    r->p = p;
    if (!room(r, len + 1))
        return fail(r);
    memcpy(r->scratch, b, len);
    r->scratch[len] = '\0';
    if (r->numbers == JSON_NUMBERS_DOUBLE)
        return cJSON_CreateNumber(fast_strtod(r->scratch, NULL));
    bool py = r->numbers == JSON_NUMBERS_PYTHON;
    if (py && is_float) {
        double d = fast_strtod(r->scratch, NULL);
        char t[40];
        if (isinf(d))
            return cJSON_CreateRaw(d > 0 ? "Infinity" : "-Infinity");
        return cJSON_CreateRaw(py_repr_double(d, t, sizeof t));
    }
    if (py && strspn(r->scratch, "-0") == len)
        return cJSON_CreateRaw("0"); /* int("-0") is 0 */
    return cJSON_CreateRaw(r->scratch);
}

static cJSON *value(struct rj *r, int depth);

static cJSON *container(struct rj *r, int depth, bool obj)
{
    if (depth > MAX_DEPTH)
        return fail(r);
    cJSON *c = obj ? cJSON_CreateObject() : cJSON_CreateArray();
    r->p++;
    ws(r);
    if (r->p < r->end && *r->p == (obj ? '}' : ']')) {
        r->p++;
        return c;
    }
    for (;;) {
        ws(r);
        /* The key is allocated the way cJSON frees it and handed to the item
         * (what cJSON_AddItemToObject does with a copy of its own). */
        char *key = NULL;
        if (obj) {
            if (r->p >= r->end || *r->p != '"' || !string(r))
                break;
            size_t n = strlen(r->scratch) + 1;
            if (!(key = cJSON_malloc(n)))
                break;
            memcpy(key, r->scratch, n);
            ws(r);
            if (r->p >= r->end || *r->p != ':') {
                cJSON_free(key);
                break;
            }
            r->p++;
        }
        cJSON *v = value(r, depth + 1);
        if (!v) {
            cJSON_free(key);
            break;
        }
        v->string = key;   /* NULL in arrays */
        cJSON_AddItemToArray(c, v);
        ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == (obj ? '}' : ']')) {
            r->p++;
            return c;
        }
        break;
    }
    cJSON_Delete(c);
    return fail(r);
}

static cJSON *value(struct rj *r, int depth)
{
    ws(r);
    if (r->p >= r->end)
        return fail(r);
    switch (*r->p) {
    case '{': return container(r, depth, true);
    case '[': return container(r, depth, false);
    case '"': return string(r) ? cJSON_CreateString(r->scratch) : fail(r);
    case 't': return lit(r, "true") ? cJSON_CreateTrue() : fail(r);
    case 'f': return lit(r, "false") ? cJSON_CreateFalse() : fail(r);
    case 'n': return lit(r, "null") ? cJSON_CreateNull() : fail(r);
    default: return number(r);
    }
}

/* The 1-based line of position at in text. */
static int line_at(const char *text, const char *at, const char *end)
{
    int line = 1;
    for (const char *p = text; p < at && p < end; p++)
        line += *p == '\n';
    return line;
}

cJSON *rawjson_parse_at(const char *text, size_t len, enum json_numbers numbers, const char **rest,
                        const char **err_at)
{
    struct rj r = { text, text + len, text, numbers, NULL, NULL, 0 };
    cJSON *j = value(&r, 0);
    ws(&r);
    if (!j && err_at)
        *err_at = r.err ? r.err : r.p;
    if (j && rest)
        *rest = r.p;
    free(r.scratch);
    return j;
}

cJSON *rawjson_parse_prefix(const char *text, size_t len, enum json_numbers numbers, const char **rest,
                            int *err_line)
{
    const char *at = NULL;
    cJSON *j = rawjson_parse_at(text, len, numbers, rest, &at);
    if (!j && err_line)
        *err_line = line_at(text, at, text + len);
    return j;
}

cJSON *rawjson_parse(const char *text, size_t len, enum json_numbers numbers, int *err_line)
{
    const char *rest;
    cJSON *j = rawjson_parse_prefix(text, len, numbers, &rest, err_line);
    if (j && rest != text + len) {
        cJSON_Delete(j);
        j = NULL;
        if (err_line)
            *err_line = line_at(text, rest, text + len);
    }
    return j;
}
