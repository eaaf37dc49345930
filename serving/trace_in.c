/* trace_in.c — request traces and length tables, CSV or JSONL, read line by
 * line (see trace_in.h). Main data structure: the table of column sets. */
#define _DEFAULT_SOURCE   /* timegm */
#include "serving/trace_in.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/json_strict.h"
#include "base/lists.h"
#include "base/pyfmt.h"

#define TOKENS_MAX 16777216
#define NS_MAX 9.2e18

enum tunit { T_DATETIME, T_S, T_NS, T_MS };
static const struct colset { const char *t, *in, *out; enum tunit unit; } sets[] = {
    { "TIMESTAMP", "ContextTokens", "GeneratedTokens", T_DATETIME },
    { "arrived_at", "num_prefill_tokens", "num_decode_tokens", T_S },
    { "arrival_time_ns", "input_toks", "output_toks", T_NS },
    { "timestamp", "input_length", "output_length", T_MS },
    { "arrival_s", "input_tokens", "output_tokens", T_S },
};
#define NSETS (int)(sizeof sets / sizeof sets[0])

/* The next line into t->buf without its end; false at the end of the file. */
static bool next_line(struct serving_trace *t)
{
    ssize_t n = getline(&t->buf, &t->cap, t->f);
    if (n < 0)
        return false;
    t->line++;
    while (n > 0 && (t->buf[n - 1] == '\n' || t->buf[n - 1] == '\r'))
        t->buf[--n] = '\0';
    return true;
}

static bool blank(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return !*s;
}

/* The CSV cells of s (split in place at commas, spaces trimmed), at most max. */
static int cells(char *s, char **c, int max)
{
    int n = 0;
    for (char *p = s;; ) {
        while (*p == ' ')
            p++;
        if (n == max)
            return max + 1;
        c[n++] = p;
        char *q = strchr(p, ',');
        char *end = q ? q : p + strlen(p);
        while (end > p && end[-1] == ' ')
            end--;
        if (!q) {
            *end = '\0';
            return n;
        }
        *end = '\0';
        p = q + 1;
    }
}

static int find(char **c, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (!strcmp(c[i], name))
            return i;
    return -1;
}

static int header(struct serving_trace *t, struct npu_err *e)
{
    if (t->jsonl)
        return 0;
    char *c[64];
    int n = cells(t->buf, c, 63);
    for (int s = 0; s < NSETS && n <= 63; s++) {
        int a = find(c, n, sets[s].t), b = find(c, n, sets[s].in), d = find(c, n, sets[s].out);
        if (b >= 0 && d >= 0 && (a >= 0 || t->lengths_only)) {
            t->set = s, t->col[0] = a, t->col[1] = b, t->col[2] = d, t->ncols = n;
            return 0;
        }
    }
    return npu_errf(e, "%s: line 1: expected a header with the columns of a known trace: TIMESTAMP,ContextTokens,"
                       "GeneratedTokens; arrived_at,num_prefill_tokens,num_decode_tokens; input_toks,output_toks,"
                       "arrival_time_ns; timestamp,input_length,output_length; or arrival_s,input_tokens,"
                       "output_tokens%s", t->path, t->lengths_only ? " (a length table: input_tokens,output_tokens)" : "");
}

int serving_trace_open(struct serving_trace *t, const char *path, FILE *f, bool lengths_only, int64_t max_context,
                       struct npu_err *e)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    t->lengths_only = lengths_only;
    t->max_context = max_context;
    t->f = f;
    if (!f && !(t->f = fopen(path, "r")))
        return npu_errf(e, "%s: cannot open: %s", path, strerror(errno));
    t->own = f == NULL;
    do {
        if (!next_line(t)) {
            serving_trace_close(t);
            return npu_errf(e, "%s: the trace is empty: expected a header and at least one request", path);
        }
    } while (blank(t->buf));
    const char *p = t->buf;
    while (isspace((unsigned char)*p))
        p++;
    t->jsonl = *p == '{';
    /* JSONL: the first line is a request, read again from the start */
    if (t->jsonl && fseek(t->f, 0, SEEK_SET) != 0) {
        serving_trace_close(t);
        return npu_errf(e, "%s: a JSONL trace must be a file (it is read twice from its start)", path);
    }
    if (t->jsonl)
        t->line = 0;
    if (header(t, e)) {
        serving_trace_close(t);
        return -1;
    }
    return 0;
}

/* "YYYY-MM-DD HH:MM:SS[.fraction][+HH:MM]" (UTC) into seconds since 1970
 * less *base (the first row's whole seconds, set by it): a double of 1.7e9
 * seconds keeps only 0.2 us, the difference keeps the trace's 0.1 us. */
static int datetime_s(const char *s, int64_t *base, bool first, double *v)
{
    struct tm tm = { 0 };
    int n = 0;
    if (sscanf(s, "%4d-%2d-%2d%*[ T]%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &n) != 6 || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return -1;
    double frac = 0;
    const char *p = s + n;
    if (*p == '.') {
        double scale = 0.1;
        for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
            frac += (*p - '0') * scale;
    }
    int oh = 0, om = 0;
    if ((*p == '+' || *p == '-') && sscanf(p + 1, "%2d:%2d", &oh, &om) == 2) {
        int sign = *p == '-' ? -1 : 1;
        p += 6;
        frac -= sign * (oh * 3600.0 + om * 60.0);
    } else if (*p == 'Z')
        p++;
    if (*p)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    int64_t whole = (int64_t)timegm(&tm);
    if (first)
        *base = whole;
    *v = (double)(whole - *base) + frac;
    return 0;
}

static int time_s(struct serving_trace *t, const char *s, double *v)
{
    enum tunit u = sets[t->set].unit;
    if (parse_f64_strict(s, v) == 0 && isfinite(*v) && *v >= 0) {
        *v *= u == T_NS ? 1e-9 : u == T_MS ? 1e-3 : 1;
        return 0;
    }
    return u == T_DATETIME ? datetime_s(s, &t->base_s, t->n == 0, v) : -1;
}

static int tokens(const struct serving_trace *t, const char *what, const char *s, int64_t *v, struct npu_err *e)
{
    if (!s)
        return npu_errf(e, "%s: line %lld: field \"%s\" is missing", t->path, (long long)t->line, what);
    if (parse_i64_strict(s, v) || *v < 1 || *v > TOKENS_MAX)
        return npu_errf(e, "%s: line %lld: field \"%s\": expected a token count from 1 to %d, got \"%s\"", t->path,
                        (long long)t->line, what, TOKENS_MAX, s);
    return 0;
}

/* The three fields of the current line as texts (NULL: missing); JSON
 * numbers printed into b. */
static int fields(struct serving_trace *t, const char **v, char b[3][64], cJSON **j, struct npu_err *e)
{
    const struct colset *cs = &sets[t->set];
    if (!t->jsonl) {
        char *c[64];
        int n = cells(t->buf, c, 63);
        /* a line wider than the header is not a row of this table (a comma too many); a
         * shorter one is named by the field it lacks (tokens(), below) */
        if (n > t->ncols)
            return npu_errf(e, "%s: line %lld: %s%d fields where the header has %d", t->path, (long long)t->line,
                            n > 63 ? "more than " : "", n > 63 ? 63 : n, t->ncols);
        for (int k = 0; k < 3; k++)
            v[k] = t->col[k] >= 0 && t->col[k] < n ? c[t->col[k]] : NULL;
        return 0;
    }
    char name[1100];
    snprintf(name, sizeof name, "%s: line %lld", t->path, (long long)t->line);
    if (!(*j = json_parse(t->buf, strlen(t->buf), name, e)))
        return -1;
    if (!cJSON_IsObject(*j))
        return npu_errf(e, "%s: line %lld: expected a JSON object", t->path, (long long)t->line);
    if (t->n == 0)
        for (int s = 0; s < NSETS; s++)
            if (cJSON_GetObjectItemCaseSensitive(*j, sets[s].in) && cJSON_GetObjectItemCaseSensitive(*j, sets[s].out)) {
                t->set = s, cs = &sets[s];
                break;
            }
    const char *names[3] = { cs->t, cs->in, cs->out };
    for (int k = 0; k < 3; k++) {
        const cJSON *x = names[k] ? cJSON_GetObjectItemCaseSensitive(*j, names[k]) : NULL;
        v[k] = NULL;
        if (cJSON_IsString(x))
            v[k] = x->valuestring;
        else if (cJSON_IsNumber(x)) {
            num_text_shortest(x->valuedouble, b[k], 64);
            v[k] = b[k];
        } else if (x)
            v[k] = "(not a number)";
    }
    return 0;
}

int serving_trace_next(struct serving_trace *t, struct serving_request *r, struct npu_err *e)
{
    do {
        if (!next_line(t)) {
            if (t->n == 0)
                return npu_errf(e, "%s: the trace is empty: expected at least one request after the header", t->path);
            return 0;
        }
    } while (blank(t->buf));
    const char *v[3];
    char b[3][64];
    cJSON *j = NULL;
    int rc = fields(t, v, b, &j, e);
    const struct colset *cs = &sets[t->set];
    if (!rc && (rc = tokens(t, cs->in, v[1], &r->input_tokens, e)) == 0)
        rc = tokens(t, cs->out, v[2], &r->output_tokens, e);
    double s = 0;
    if (!rc && !t->lengths_only) {
        if (!v[0])
            rc = npu_errf(e, "%s: line %lld: field \"%s\" is missing", t->path, (long long)t->line, cs->t);
        else if (time_s(t, v[0], &s))
            rc = npu_errf(e, "%s: line %lld: field \"%s\": expected %s at or after 0, got \"%s\"", t->path,
                          (long long)t->line, cs->t, cs->unit == T_DATETIME ? "a date-time or seconds" : "a number", v[0]);
    }
    cJSON_Delete(j);
    if (rc)
        return -1;
    if (t->max_context > 0 && r->input_tokens + r->output_tokens > t->max_context)
        return npu_errf(e, "%s: line %lld: %lld input and %lld output tokens exceed the context of %lld tokens",
                        t->path, (long long)t->line, (long long)r->input_tokens, (long long)r->output_tokens,
                        (long long)t->max_context);
    if (t->n == 0)
        t->t0_s = t->last_s = s;
    if (s < t->last_s)
        return npu_errf(e, "%s: line %lld: arrival %.9g s after the first request comes before the previous line's "
                           "%.9g s: the trace must be sorted by arrival (sort it first)", t->path, (long long)t->line, s - t->t0_s,
                        t->last_s - t->t0_s);
    t->last_s = s;
    double ns = (s - t->t0_s) * 1e9;
    if (!(ns < NS_MAX))
        return npu_errf(e, "%s: line %lld: arrival past 2^63 ns after the first", t->path, (long long)t->line);
    r->id = t->n++;
    r->arrival_ns = (int64_t)llround(ns);
    return 1;
}

void serving_trace_close(struct serving_trace *t)
{
    if (t->own && t->f)
        fclose(t->f);
    free(t->buf);
    t->f = NULL, t->buf = NULL;
}

int serving_lengths_table(const char *path, int64_t max_context, int64_t **pairs, size_t *n, struct npu_err *e)
{
    struct serving_trace t;
    *pairs = NULL, *n = 0;
    if (serving_trace_open(&t, path, NULL, true, max_context, e))
        return -1;
    size_t cap = 0;
    struct serving_request r;
    int got;
    while ((got = serving_trace_next(&t, &r, e)) == 1) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            int64_t *p = realloc(*pairs, cap * 2 * sizeof *p);
            if (!p) {
                got = npu_errf(e, "%s: out of memory", path);
                break;
            }
            *pairs = p;
        }
        (*pairs)[2 * *n] = r.input_tokens;
        (*pairs)[2 * *n + 1] = r.output_tokens;
        (*n)++;
    }
    serving_trace_close(&t);
    if (got < 0) {
        free(*pairs);
        *pairs = NULL, *n = 0;
        return -1;
    }
    return 0;
}
