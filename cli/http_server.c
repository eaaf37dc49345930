/* http_server.c — the libmicrohttpd side of `npusim serve` (http.h):
 * one polling thread that reads requests the gate hands over, checks who
 * may ask (Host, Origin, Content-Type), answers the cheap requests itself
 * (every GET and /api/op: a few milliseconds at most, so they stay fast
 * while heavy ones run) and queues the rest on the work queue, suspending
 * the connection until a worker answers. Every answer closes its
 * connection, so the next request passes the gate again.
 *
 * Main data structures: struct http_server, and struct req (one request:
 * its body as it arrives, then its queued work item). */
#define _DEFAULT_SOURCE   /* strncasecmp, inet_ntop */
#include "cli/http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "base/clock.h"

#define HTTP_MEMORY_BYTES 65536   /* the library's buffer per connection: a 16 KiB head fits */

struct http_server {
    struct http_opts o;
    struct MHD_Daemon *d;
    struct gate *gate;
    struct work_queue *q;
    volatile int draining;
};

struct req {
    char *body;
    size_t n;
    bool too_big, checked;
    double head_s;              /* when its head was in: the body's deadline counts from here */
    const char *cors;           /* the Origin to allow in the answer (--allow-origin), or NULL */
    struct work_item *it;       /* once queued */
};

/* The answer: Connection: close, no caching, and CORS when allowed. */
static enum MHD_Result reply(struct MHD_Connection *con, int status, const char *type, const char *text,
                             int retry_after_s, const char *cors)
{
    if (!text)
        return MHD_NO;
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Connection", "close");
    if (retry_after_s > 0) {
        char s[16];
        snprintf(s, sizeof s, "%d", retry_after_s);
        MHD_add_response_header(r, "Retry-After", s);
    }
    if (cors) {
        MHD_add_response_header(r, "Access-Control-Allow-Origin", cors);
        MHD_add_response_header(r, "Vary", "Origin");
    }
    enum MHD_Result ret = MHD_queue_response(con, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_error(struct MHD_Connection *con, int status, const char *why, int retry_after_s,
                                   const char *cors)
{
    struct api_response r;
    api_reply_error(&r, status, why);
    enum MHD_Result ret = r.body ? reply(con, status, r.type, r.body, retry_after_s, cors) : MHD_NO;
    free(r.body);
    return ret;
}

static bool in_list(const char *s, size_t n, const char *const *list, int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(list[i], "*") || (strlen(list[i]) == n && !strncasecmp(list[i], s, n)))
            return true;
    return false;
}

/* The address this connection reached (the bound one, or the machine's
 * address when bound to 0.0.0.0) as text. */
static void local_addr(struct MHD_Connection *con, char *out, size_t n)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(con, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    out[0] = '\0';
    if (ci && !getsockname(ci->connect_fd, (struct sockaddr *)&a, &al) && a.sin_family == AF_INET)
        inet_ntop(AF_INET, &a.sin_addr, out, (socklen_t)n);
}

/* Whether Host names this server: localhost, a loopback or the reached
 * address, or an --allow-host name (the port is not compared). DNS
 * rebinding gives a page the server's address under the page's own name:
 * that name is refused. */
static bool host_ok(const struct http_server *s, struct MHD_Connection *con)
{
    const char *h = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Host");
    if (!h)
        return true;   /* HTTP/1.0 without Host: no browser sends that (the gate requires it of HTTP/1.1) */
    size_t n = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":");
    static const char *const local[] = { "localhost", "127.0.0.1", "[::1]" };
    char here[INET_ADDRSTRLEN];
    local_addr(con, here, sizeof here);
    const char *const mine[] = { s->o.bind, here };
    return in_list(h, n, local, 3) || in_list(h, n, mine, here[0] ? 2 : 1) ||
           in_list(h, n, s->o.allow_host, s->o.n_allow_host);
}

/* Where a cross-origin request may come from: same origin (the page this
 * server serves: http://HOST), or --allow-origin. *cors is set to the
 * Origin when --allow-origin allows it. */
static bool origin_ok(const struct http_server *s, struct MHD_Connection *con, const char **cors)
{
    const char *o = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Origin");
    const char *h = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Host");
    *cors = NULL;
    if (!o)
        return true;   /* not from a browser's cross-origin request */
    if (in_list(o, strlen(o), s->o.allow_origin, s->o.n_allow_origin)) {
        *cors = o;
        return true;
    }
    return h && !strncmp(o, "http://", 7) && !strcasecmp(o + 7, h);
}

static bool json_type(struct MHD_Connection *con)
{
    const char *t = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Content-Type");
    if (!t)
        return false;
    while (*t == ' ')
        t++;
    size_t n = strcspn(t, "; ");
    return n == 16 && !strncasecmp(t, "application/json", 16);
}

/* The checks on a request's head; an answer queued, or MHD_YES with none
 * (*done false) to go on. */
static enum MHD_Result check_head(struct http_server *s, struct MHD_Connection *con, const char *method,
                                  struct req *q, bool *done)
{
    *done = true;
    if (s->draining)
        return reply_error(con, 503, "the server is stopping; try again later", 1, NULL);
    if (!host_ok(s, con))
        return reply_error(con, 421,
                           "the Host header names neither this server's address nor localhost "
                           "(npusim serve --allow-host NAME takes others)", 0, NULL);
    bool post = !strcmp(method, "POST"), get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    if (!origin_ok(s, con, &q->cors) && !get)
        return reply_error(con, 403,
                           "a cross-origin request: the Origin is not this server's page "
                           "(npusim serve --allow-origin ORIGIN allows one)", 0, NULL);
    if (!strcmp(method, "OPTIONS")) {   /* a CORS preflight: only for --allow-origin */
        if (!q->cors)
            return reply_error(con, 403, "a cross-origin request: npusim serve --allow-origin ORIGIN allows one",
                               0, NULL);
        struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        if (!r)
            return MHD_NO;
        MHD_add_response_header(r, "Access-Control-Allow-Origin", q->cors);
        MHD_add_response_header(r, "Access-Control-Allow-Methods", "GET, POST");
        MHD_add_response_header(r, "Access-Control-Allow-Headers", "Content-Type");
        MHD_add_response_header(r, "Access-Control-Max-Age", "600");
        MHD_add_response_header(r, "Vary", "Origin");
        MHD_add_response_header(r, "Connection", "close");
        enum MHD_Result ret = MHD_queue_response(con, 204, r);
        MHD_destroy_response(r);
        return ret;
    }
    if (post && !json_type(con))
        return reply_error(con, 415, "Content-Type: expected application/json", 0, q->cors);
    *done = false;
    return MHD_YES;
}

/* A request that computes goes to the work queue; the rest is answered here. */
static bool computes(const char *method, const char *url)
{
    return !strcmp(method, "POST") && strcmp(url, "/api/op");
}

static void item_answered(struct work_item *it, void *arg)
{
    (void)it;
    MHD_resume_connection(arg);
}

/* The last call of a request (its body all in): answer, or queue. */
static enum MHD_Result finish(struct http_server *s, struct MHD_Connection *con, const char *url, const char *method,
                              struct req *q)
{
    if (q->it)   /* resumed: the queue answered it */
        return reply(con, q->it->r.status, q->it->r.type, q->it->r.body,
                     q->it->r.status == 503 || q->it->r.status == 504 ? 2 : 0, q->cors);
    if (q->too_big) {
        char msg[96];
        snprintf(msg, sizeof msg, "the request body: expected at most %lld bytes", (long long)s->o.max_body_bytes);
        return reply_error(con, 413, msg, 0, q->cors);
    }
    if (!computes(method, url)) {
        struct api_response r;
        api_handle(&s->o.ctx, method, url, q->body, q->n, &r);
        enum MHD_Result ret = r.body ? reply(con, r.status, r.type, r.body, 0, q->cors) : MHD_NO;
        free(r.body);
        return ret;
    }
    struct work_item *it = calloc(1, sizeof *it);
    if (!it || !(it->path = strdup(url))) {
        free(it);
        return reply_error(con, 500, "out of memory", 0, q->cors);
    }
    snprintf(it->method, sizeof it->method, "%s", method);
    it->body = q->body, it->len = q->n;
    q->body = NULL;
    it->answer = item_answered;
    it->arg = con;
    MHD_suspend_connection(con);   /* before it is queued: a worker may answer at once */
    if (work_submit(s->q, it)) {
        MHD_resume_connection(con);
        free(it->path), free(it->body), free(it);
        return reply_error(con, 503, "the server is busy: every worker is taken and the queue is full; try again later",
                           2, q->cors);
    }
    q->it = it;
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *con, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **state)
{
    (void)version;
    struct http_server *s = cls;
    struct req *q = *state;
    if (!q) {   /* the head: check who asks before any body is read */
        if (!(q = calloc(1, sizeof *q)))
            return MHD_NO;
        *state = q;
        q->head_s = clock_monotonic_s();
        bool done;
        enum MHD_Result rc = check_head(s, con, method, q, &done);
        q->checked = !done;
        return rc;
    }
    if (!q->checked)
        return MHD_YES;   /* answered already; the rest of the body is dropped */
    if (*size) {   /* a piece of the body, within the deadline */
        if (clock_monotonic_s() - q->head_s > s->o.timeout_s)
            return MHD_NO;   /* the library cannot answer in the middle of a body: closed (a body of at
                              * most GATE_BODY_PEEK_BYTES waits in the gate, which answers 408) */
        if (!q->too_big && q->n + *size <= (size_t)s->o.max_body_bytes) {
            char *b = realloc(q->body, q->n + *size + 1);
            if (!b)
                return MHD_NO;
            memcpy(b + q->n, data, *size);
            q->body = b, q->n += *size, b[q->n] = '\0';
        } else
            q->too_big = true;
        *size = 0;
        return MHD_YES;
    }
    return finish(s, con, url, method, q);
}

static void on_done(void *cls, struct MHD_Connection *con, void **state, enum MHD_RequestTerminationCode code)
{
    (void)con, (void)code;
    struct http_server *s = cls;
    struct req *q = *state;
    if (q) {
        if (q->it)
            work_release(s->q, q->it);
        free(q->body);
        free(q);
    }
    *state = NULL;
}

/* The gate counts the library's connections: taken, and closed. */
static void on_connection(void *cls, struct MHD_Connection *con, void **socket_state,
                          enum MHD_ConnectionNotificationCode code)
{
    struct http_server *s = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        *socket_state = s;   /* a mark: this one was counted */
        gate_conn_started(s->gate);
    } else if (*socket_state) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const struct sockaddr *a = ci ? ci->client_addr : NULL;
        gate_conn_closed(s->gate, a && a->sa_family == AF_INET ? (const struct sockaddr_in *)a : NULL);
        *socket_state = NULL;
    }
}

struct http_server *http_start(const struct http_opts *o, const struct work_queue_opts *wq)
{
    struct http_server *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->o = *o;
    struct work_queue_opts w = *wq;
    w.ctx = &s->o.ctx;
    if (!(s->q = work_start(&w))) {
        free(s);
        return NULL;
    }
    /* one polling thread for every connection; no listening socket: the gate
     * owns it. Its limit is a backstop above the gate's. */
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                                MHD_USE_NO_LISTEN_SOCKET,
                            0, NULL, NULL, on_request, s, MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->connections + 16,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(o->timeout_s + 0.5),
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_BYTES,
                            MHD_OPTION_NOTIFY_COMPLETED, on_done, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                            MHD_OPTION_END);
    if (!s->d) {
        fprintf(stderr, "npusim serve: the HTTP library did not start\n");
        return NULL;   /* s and its idle workers are left to the exit that follows */
    }
    return s;
}

struct MHD_Daemon *http_daemon(struct http_server *s) { return s->d; }
struct work_queue *http_work(struct http_server *s) { return s->q; }
void http_set_gate(struct http_server *s, struct gate *g) { s->gate = g; }
void http_set_draining(struct http_server *s) { s->draining = 1; }

bool http_stop(struct http_server *s, double wait_s)
{
    double until = clock_monotonic_s() + wait_s;
    while (s->gate && gate_connections(s->gate) > 0 && clock_monotonic_s() < until) {
        struct timespec t = { 0, 20 * 1000 * 1000 };
        nanosleep(&t, NULL);
    }
    MHD_stop_daemon(s->d);
    if (!work_free(s->q))
        return false;
    free(s);
    return true;
}
