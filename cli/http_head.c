/* http_head.c — the request head as the gate checks it before
 * libmicrohttpd sees the connection (http.h): the request line, the
 * header lines and the framing headers (Content-Length, Transfer-Encoding,
 * Host), to RFC 9112's grammar. What the library would refuse with an HTML
 * page of its own (a bad request line, an unsupported version, a head or
 * target too long, a body too large) is refused here first, so every
 * answer is JSON. Messages name what was expected and never echo a
 * client's bytes.
 *
 * No data structure of its own beyond struct http_head; pure functions
 * (tests/unit/test_http_head.c, tests/fuzz/fuzz_http_head.c). */
#include "cli/http.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* RFC 9110 tchar: the characters of a method or a header name */
static bool is_tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int refuse(int status, char *why, size_t wn, const char *msg)
{
    snprintf(why, wn, "%s", msg);
    return status;
}

/* The end of the line starting at p (its '\n'), or NULL when it has not
 * arrived within end. */
static const char *line_end(const char *p, const char *end)
{
    return memchr(p, '\n', (size_t)(end - p));
}

/* The request line p..eol (eol at its '\n'): METHOD SP TARGET SP HTTP/1.x. */
static int request_line(const char *p, const char *eol, struct http_head *h, char *why, size_t wn)
{
    const char *e = eol > p && eol[-1] == '\r' ? eol - 1 : eol, *q = p;
    while (q < e && is_tchar((unsigned char)*q))
        q++;
    static const char want[] = "the request line: expected METHOD TARGET HTTP/1.1";
    if (q == p || (size_t)(q - p) >= sizeof h->method || q == e || *q != ' ')
        return refuse(400, why, wn, want);
    memcpy(h->method, p, (size_t)(q - p));
    h->method[q - p] = '\0';
    const char *t = ++q;
    while (q < e && (unsigned char)*q > 0x20 && (unsigned char)*q < 0x7f)
        q++;
    if ((size_t)(q - t) > HTTP_TARGET_MAX_BYTES)
        return refuse(414, why, wn, "the request target: expected at most 4096 bytes");
    if (q == t || q == e || *q != ' ')
        return refuse(400, why, wn, want);
    q++;
    if (e - q != 8 || memcmp(q, "HTTP/", 5) || q[5] < '0' || q[5] > '9' || q[6] != '.' || q[7] < '0' || q[7] > '9')
        return refuse(400, why, wn, want);
    if (q[5] != '1' || (q[7] != '0' && q[7] != '1'))
        return refuse(505, why, wn, "the HTTP version: expected HTTP/1.1 or HTTP/1.0");
    return 0;
}

/* A header value with its surrounding spaces trimmed: [*v, *ve). */
static void trim(const char **v, const char **ve)
{
    while (*v < *ve && (**v == ' ' || **v == '\t'))
        (*v)++;
    while (*ve > *v && ((*ve)[-1] == ' ' || (*ve)[-1] == '\t'))
        (*ve)--;
}

/* One framing header's value into h; 0 or a status. */
static int framing(const char *name, size_t nl, const char *v, const char *ve, struct http_head *h, int *hosts,
                   char *why, size_t wn)
{
    if (nl == 4 && !strncasecmp(name, "host", 4)) {
        (*hosts)++;
        return 0;
    }
    if (nl == 14 && !strncasecmp(name, "content-length", 14)) {
        int64_t len = 0;
        if (v == ve || ve - v > 15)
            return refuse(400, why, wn, "Content-Length: expected a whole number of bytes");
        for (const char *c = v; c < ve; c++) {
            if (*c < '0' || *c > '9')
                return refuse(400, why, wn, "Content-Length: expected a whole number of bytes");
            len = len * 10 + (*c - '0');
        }
        if (h->content_length >= 0 && h->content_length != len)
            return refuse(400, why, wn, "Content-Length: expected one value");
        h->content_length = len;
        return 0;
    }
    if (nl == 17 && !strncasecmp(name, "transfer-encoding", 17)) {
        if (ve - v != 7 || strncasecmp(v, "chunked", 7))
            return refuse(400, why, wn, "Transfer-Encoding: expected chunked");
        h->chunked = true;
    }
    return 0;
}

/* The header lines from p (the line after the request line) to the blank
 * line at hend. */
static int header_lines(const char *p, const char *hend, bool http11, struct http_head *h, char *why, size_t wn)
{
    int hosts = 0;
    while (p < hend) {
        const char *eol = line_end(p, hend + 1), *e = eol > p && eol[-1] == '\r' ? eol - 1 : eol, *c = p;
        if (*p == ' ' || *p == '\t')
            return refuse(400, why, wn, "a header line: expected NAME: VALUE, not a continued line");
        while (c < e && is_tchar((unsigned char)*c))
            c++;
        if (c == p || c == e || *c != ':')
            return refuse(400, why, wn, "a header line: expected NAME: VALUE");
        for (const char *v = c + 1; v < e; v++)
            if (((unsigned char)*v < 0x20 && *v != '\t') || *v == 0x7f)
                return refuse(400, why, wn, "a header value: expected text without control characters");
        const char *v = c + 1, *ve = e;
        trim(&v, &ve);
        int rc = framing(p, (size_t)(c - p), v, ve, h, &hosts, why, wn);
        if (rc)
            return rc;
        p = eol + 1;
    }
    if (hosts > 1 || (http11 && hosts == 0))
        return refuse(400, why, wn, "Host: expected exactly one");
    if (h->chunked && h->content_length >= 0)
        return refuse(400, why, wn, "Content-Length and Transfer-Encoding: expected one of them");
    return 0;
}

int http_head_check(const char *buf, size_t n, int64_t max_body_bytes, struct http_head *h, char *why, size_t wn)
{
    memset(h, 0, sizeof *h);
    h->content_length = -1;
    size_t skip = 0;   /* RFC 9112 2.2: empty lines before a request line are ignored */
    while (skip < n && skip < 4 && (buf[skip] == '\r' || buf[skip] == '\n'))
        skip++;
    const char *p = buf + skip, *end = buf + (n < HTTP_HEAD_MAX_BYTES ? n : HTTP_HEAD_MAX_BYTES);
    const char *eol = p < end ? line_end(p, end) : NULL;
    if (!eol)   /* the request line is still arriving: refuse it early when it is already too long */
        return end - p > HTTP_TARGET_MAX_BYTES + 64 ? refuse(414, why, wn, "the request target: expected at most 4096 bytes")
               : n >= HTTP_HEAD_MAX_BYTES ? refuse(431, why, wn, "the request head: expected at most 16384 bytes")
                                          : 1;
    int rc = request_line(p, eol, h, why, wn);
    if (rc)
        return rc;
    bool http11 = eol[-1 - (eol[-1] == '\r')] == '1';
    /* the blank line that ends the head: "\r\n\r\n" or a bare "\n\n" */
    const char *q = eol + 1, *hend = NULL;
    while (q < end) {
        const char *le = line_end(q, end);
        if (!le)
            break;
        if (le == q || (le == q + 1 && *q == '\r')) {
            hend = q;
            break;
        }
        q = le + 1;
    }
    if (!hend)
        return n >= HTTP_HEAD_MAX_BYTES ? refuse(431, why, wn, "the request head: expected at most 16384 bytes") : 1;
    if ((rc = header_lines(eol + 1, hend, http11, h, why, wn)))
        return rc;
    if (h->content_length > max_body_bytes) {
        snprintf(why, wn, "the request body: expected at most %lld bytes", (long long)max_body_bytes);
        return 413;
    }
    h->len = (size_t)(line_end(hend, end) + 1 - buf);
    return 0;
}

static const struct {
    int status;
    const char *reason;
} reasons[] = {
    { 200, "OK" },
    { 204, "No Content" },
    { 400, "Bad Request" },
    { 403, "Forbidden" },
    { 404, "Not Found" },
    { 405, "Method Not Allowed" },
    { 408, "Request Timeout" },
    { 413, "Content Too Large" },
    { 414, "URI Too Long" },
    { 415, "Unsupported Media Type" },
    { 421, "Misdirected Request" },
    { 431, "Request Header Fields Too Large" },
    { 500, "Internal Server Error" },
    { 503, "Service Unavailable" },
    { 504, "Gateway Timeout" },
    { 505, "HTTP Version Not Supported" },
};

const char *http_reason(int status)
{
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (reasons[i].status == status)
            return reasons[i].reason;
    return "Error";
}

size_t http_error_text(int status, const char *why, int retry_after_s, char *out, size_t n)
{
    char body[600], retry[48] = "";
    size_t b = (size_t)snprintf(body, sizeof body, "{\"error\": \"");
    for (const char *c = why; *c && b + 8 < sizeof body; c++)   /* ours, ASCII: only " and \ to escape */
        b += (size_t)snprintf(body + b, sizeof body - b, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
    b += (size_t)snprintf(body + b, sizeof body - b, "\"}");
    if (retry_after_s > 0)
        snprintf(retry, sizeof retry, "Retry-After: %d\r\n", retry_after_s);
    int len = snprintf(out, n,
                       "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                       "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n%sConnection: close\r\n\r\n%s",
                       status, http_reason(status), b, retry, body);
    return len > 0 && (size_t)len < n ? (size_t)len : 0;
}
