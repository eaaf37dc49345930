/* json_strict.c — strict JSON parsing and closest-name hints (json_strict.h).
 *
 * No data structure of its own: the one JSON reader (base/rawjson.h)
 * parses, numbers as doubles, and this checks what a parser lets through. Duplicate keys are found per object by sorting its member names
 * (objects in configs have tens of members). */
#include "base/json_strict.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rawjson.h"
#include "base/textfile.h"

static int line_of(const char *text, const char *at, const char *end)
{
    int line = 1;
    for (const char *p = text; p < at && p < end; p++)
        line += *p == '\n';
    return line;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key that appears twice in some object under j, or NULL. */
static const char *duplicate_key(const cJSON *j, char *where, size_t wn)
{
    if (!j || !(cJSON_IsObject(j) || cJSON_IsArray(j)))
        return NULL;
    if (cJSON_IsObject(j)) {
        size_t n = 0;
        for (const cJSON *c = j->child; c; c = c->next)
            n++;
        const char **k = n > 1 ? malloc(n * sizeof *k) : NULL;
        if (k) {
            n = 0;
            for (const cJSON *c = j->child; c; c = c->next)
                k[n++] = c->string ? c->string : "";
            qsort(k, n, sizeof *k, cmp_str);
            for (size_t i = 1; i < n; i++)
                if (strcmp(k[i - 1], k[i]) == 0) {
                    const char *dup = k[i];
                    free(k);
                    snprintf(where, wn, "%s", j->string ? j->string : "the top level");
                    return dup;
                }
            free(k);
        }
    }
    for (const cJSON *c = j->child; c; c = c->next) {
        const char *d = duplicate_key(c, where, wn);
        if (d)
            return d;
    }
    return NULL;
}

/* Whether line (1-based) of text holds Infinity or NaN as a bare value, as
 * Python's json module writes them (Hugging Face configs carry them): the
 * likely reason a parse failed there. */
static bool bare_non_number(const char *text, size_t n, int line)
{
    const char *p = text, *end = text + n;
    for (int l = 1; l < line && p < end; p++)
        l += *p == '\n';
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    eol = eol ? eol : end;
    static const char *const words[] = { "Infinity", "NaN" };
    for (const char *q = p; q < eol; q++)
        for (size_t w = 0; w < 2; w++) {
            size_t k = strlen(words[w]);
            if ((size_t)(eol - q) < k || memcmp(q, words[w], k))
                continue;
            const char *b = q;   /* the character before the word, past spaces and a sign */
            while (b > p && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '-'))
                b--;
            if (b == p || b[-1] == ':' || b[-1] == '[' || b[-1] == ',')
                return true;
        }
    return false;
}

cJSON *json_parse_strict(const char *text, size_t n, const char *name, struct npu_err *e)
{
    const char *nul = memchr(text, '\0', n);
    if (nul) {
        npu_errf(e, "%s:%d: a NUL byte in JSON text", name, line_of(text, nul, text + n));
        return NULL;
    }
    const char *rest = NULL;
    int line = 0;
    cJSON *j = rawjson_parse_prefix(text, n, JSON_NUMBERS_DOUBLE, &rest, &line);
    if (!j) {
        npu_errf(e, "%s:%d: invalid JSON%s", name, line,
                 bare_non_number(text, n, line) ? ": Infinity and NaN are not JSON numbers (Python's json module "
                                                  "writes them; give a number or null)" : "");
        return NULL;
    }
    if (rest < text + n) {
        npu_errf(e, "%s:%d: invalid JSON: trailing text after the value", name, line_of(text, rest, text + n));
        cJSON_Delete(j);
        return NULL;
    }
    char where[256];
    const char *dup = duplicate_key(j, where, sizeof where);
    if (dup) {
        npu_errf(e, "%s: duplicate key \"%s\" in %s (each key may appear once)", name, dup, where);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

cJSON *json_parse(const char *text, size_t n, const char *name, struct npu_err *e)
{
    const char *at = text;
    cJSON *j = rawjson_parse_at(text, n, JSON_NUMBERS_DOUBLE, NULL, &at);
    if (!j)
        npu_errf(e, "%s: not JSON (at byte %ld)", name, (long)(at - text));
    return j;
}

/* text with Python's bare non-numbers outside strings as null: a new buffer
 * (*m bytes), or NULL when out of memory. "NaN" grows by a byte, so the
 * buffer is twice text's size. */
static char *python_non_numbers_to_null(const char *text, size_t n, size_t *m)
{
    static const char *const words[] = { "-Infinity", "Infinity", "NaN" };
    char *out = malloc(2 * n + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    bool in_string = false;
    for (size_t i = 0; i < n;) {
        char c = text[i];
        if (in_string) {
            out[o++] = c;
            if (c == '\\' && i + 1 < n)
                out[o++] = text[++i];
            else if (c == '"')
                in_string = false;
            i++;
            continue;
        }
        size_t w = 0, k = 0;
        while (w < 3 && !(n - i >= (k = strlen(words[w])) && !memcmp(text + i, words[w], k)))
            w++;
        if (w < 3) {
            memcpy(out + o, "null", 4);
            o += 4, i += k;
            continue;
        }
        in_string = c == '"';
        out[o++] = c;
        i++;
    }
    *m = o;
    return out;
}

/* A whole file parsed strictly, its top level an object; python: Python's
 * bare non-numbers read as null first. */
static cJSON *read_object(const char *path, bool python, struct npu_err *e)
{
    size_t n;
    char *buf = text_read_file(path, &n, e);
    if (buf && python) {
        char *text = python_non_numbers_to_null(buf, n, &n);
        free(buf);
        if (!(buf = text))
            npu_errf(e, "%s: out of memory", path);
    }
    if (!buf)
        return NULL;
    cJSON *j = json_parse_strict(buf, n, path, e);
    free(buf);
    if (j && !cJSON_IsObject(j)) {
        npu_errf(e, "%s: expected a JSON object at the top level", path);
        cJSON_Delete(j);
        j = NULL;
    }
    return j;
}

cJSON *json_read_file_strict(const char *path, struct npu_err *e) { return read_object(path, false, e); }

cJSON *json_read_file_python(const char *path, struct npu_err *e) { return read_object(path, true, e); }

/* Edit distance with adjacent transpositions (optimal string alignment):
 * "rnu" is one edit from "run". Capped: strings this long are no typo. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

const char *suggest_closest(const char *key, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = 3, len = strlen(key);
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(key, cands[i]);
        if (d < best_d && 2 * d < len) {
            best = cands[i];
            best_d = d;
        }
    }
    return best;
}

void hint_text(char *buf, size_t n, const char *s)
{
    if (s)
        snprintf(buf, n, " (did you mean \"%s\"?)", s);
    else if (n)
        buf[0] = '\0';
}

void suggest_hint(char *buf, size_t n, const char *key, const char *const *cands, size_t ncands)
{
    hint_text(buf, n, suggest_closest(key, cands, ncands));
}

const char *json_unknown_key(const cJSON *o, const char *const *known, size_t n, char *hint, size_t hn)
{
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next) {
        bool ok = false;
        for (size_t i = 0; i < n && !ok; i++)
            ok = c->string && strcmp(c->string, known[i]) == 0;
        if (!ok) {
            suggest_hint(hint, hn, c->string ? c->string : "", known, n);
            return c->string ? c->string : "";
        }
    }
    return NULL;
}
