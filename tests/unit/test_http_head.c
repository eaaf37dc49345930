/* test_http_head.c — the request-head checks of `npusim serve`'s gate
 * (cli/http_head.c): what is complete, what needs more bytes, and which
 * status refuses what, each case written by hand from RFC 9112's grammar;
 * and the canned error answer, byte for byte.
 *
 * cli/ is not in libnpusim.a, so the file is compiled in here; it depends
 * on nothing but libc. */
#include "testutil.h"

#include "cli/http_head.c"

static int check(const char *s, int64_t max_body, struct http_head *h)
{
    char why[160];
    return http_head_check(s, strlen(s), max_body, h, why, sizeof why);
}

static void test_complete_heads(void **state)
{
    (void)state;
    struct http_head h;
    const char *get = "GET /api/chips HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
    assert_int_equal(check(get, 1024, &h), 0);
    assert_string_equal(h.method, "GET");
    assert_i64(h.len, strlen(get));
    assert_i64(h.content_length, -1);
    const char *post = "POST /api/op HTTP/1.1\r\nhost: x\r\ncontent-length:  12 \r\n\r\n{\"op\": 1}";
    assert_int_equal(check(post, 1024, &h), 0);
    assert_i64(h.content_length, 12);
    assert_i64(h.len, strlen(post) - strlen("{\"op\": 1}"));   /* the body is not the head's */
    /* HTTP/1.0 needs no Host; bare LF line ends and a leading empty line are taken */
    assert_int_equal(check("\r\nGET / HTTP/1.0\n\n", 1024, &h), 0);
    assert_int_equal(check("POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", 1024, &h), 0);
    assert_true(h.chunked);
}

static void test_incomplete_heads(void **state)
{
    (void)state;
    struct http_head h;
    assert_int_equal(check("", 1024, &h), 1);
    assert_int_equal(check("GET /api/chips HT", 1024, &h), 1);
    assert_int_equal(check("GET /api/chips HTTP/1.1\r\nHost: h\r\n", 1024, &h), 1);
    assert_int_equal(check("GET /api/chips HTTP/1.1\r\nHost: h\r\n\r", 1024, &h), 1);
}

static void test_refusals(void **state)
{
    (void)state;
    struct http_head h;
    static const struct {
        int status;
        const char *head;
    } cases[] = {
        { 505, "GET / HTTP/2.0\r\nHost: h\r\n\r\n" },
        { 505, "GET / HTTP/0.9\r\nHost: h\r\n\r\n" },
        { 400, "GET / HTTP/1.10\r\nHost: h\r\n\r\n" },
        { 400, "GET / http/1.1\r\nHost: h\r\n\r\n" },
        { 400, "GET  / HTTP/1.1\r\nHost: h\r\n\r\n" },       /* two spaces */
        { 400, "G(T / HTTP/1.1\r\nHost: h\r\n\r\n" },        /* not a token */
        { 400, "GET / HTTP/1.1\r\n\r\n" },                   /* HTTP/1.1 without Host */
        { 400, "GET / HTTP/1.1\r\nHost: a\r\nHOST: b\r\n\r\n" },
        { 400, "GET / HTTP/1.1\r\nHost : h\r\n\r\n" },       /* space before the colon */
        { 400, "GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n" },
        { 400, "GET / HTTP/1.1\r\nHost: h\r\nX: a\001b\r\n\r\n" },
        { 400, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n" },
        { 400, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n" },
        { 400, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n" },
        { 400, "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" },
        { 413, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1025\r\n\r\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = check(cases[i].head, 1024, &h);
        if (got != cases[i].status)
            fail_msg("case %zu (%s): %d, expected %d", i, cases[i].head, got, cases[i].status);
    }
    /* the same Content-Length twice is one value */
    assert_int_equal(check("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n", 1024, &h),
                     0);
}

/* Sizes: a target of 4096 bytes is taken, 4097 is 414 (also while the
 * line is still arriving); a head of 16384 bytes without its end is 431. */
static void test_limits(void **state)
{
    (void)state;
    struct http_head h;
    char *s = malloc(HTTP_HEAD_MAX_BYTES + 64);
    strcpy(s, "GET /");
    memset(s + 5, 'a', 4095);
    strcpy(s + 4100, " HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_int_equal(check(s, 0, &h), 0);
    strcpy(s, "GET /");
    memset(s + 5, 'a', 4096);
    strcpy(s + 4101, " HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_int_equal(check(s, 0, &h), 414);
    s[4101] = '\0';
    memset(s + 4101, 'a', 100);
    s[4201] = '\0';
    assert_int_equal(check(s, 0, &h), 414);
    strcpy(s, "GET / HTTP/1.1\r\nHost: h\r\nX: ");
    size_t n = strlen(s);
    memset(s + n, 'a', HTTP_HEAD_MAX_BYTES - n);
    s[HTTP_HEAD_MAX_BYTES] = '\0';
    assert_int_equal(check(s, 0, &h), 431);
    s[HTTP_HEAD_MAX_BYTES - 1] = '\0';
    assert_int_equal(check(s, 0, &h), 1);   /* one byte short of the limit: may still end */
    free(s);
}

static void test_error_text(void **state)
{
    (void)state;
    char out[512];
    /* the body: {"error": " (11) + full; \"try\" later (19, quotes escaped) + "} (2) = 32 bytes */
    size_t n = http_error_text(503, "full; \"try\" later", 1, out, sizeof out);
    const char *want = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 32\r\n"
                       "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nRetry-After: 1\r\n"
                       "Connection: close\r\n\r\n{\"error\": \"full; \\\"try\\\" later\"}";
    assert_string_equal(out, want);
    assert_i64(n, strlen(want));
    assert_string_equal(http_reason(431), "Request Header Fields Too Large");
    assert_string_equal(http_reason(299), "Error");
    assert_i64(http_error_text(400, "x", 0, out, 40), 0);   /* does not fit: nothing */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete_heads), cmocka_unit_test(test_incomplete_heads),
        cmocka_unit_test(test_refusals),       cmocka_unit_test(test_limits),
        cmocka_unit_test(test_error_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
