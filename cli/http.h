/* http.h — how `npusim serve` holds under hostile clients, overload
 * and shutdown: the pieces between the socket and the JSON API (api/api.h).
 *
 *   listen socket -> gate (http_gate.c) -> libmicrohttpd (http_server.c) -> work queue (http_work.c) -> api_handle
 *
 * - The gate accepts every connection itself and counts the connections
 *   of the whole server against --connections (libmicrohttpd's own limit
 *   is per thread and refuses with a reset). A connection is handed to
 *   libmicrohttpd only once its request head has arrived and is well
 *   formed (http_head_check below), so slow senders wait in the gate,
 *   where a deadline and eviction bound them, and the library's own HTML
 *   errors (400, 413, 414, 431, 505) are answered first as JSON. Excess
 *   clients wait a moment for a slot, then get 503 with Retry-After.
 * - http_server.c checks Host, Origin and Content-Type, answers the cheap
 *   requests (GETs, /api/op) on its own thread so they stay fast under
 *   load, and queues the rest.
 * - The work queue is bounded and has a deadline: every request it takes
 *   is answered, with the result, 503 (full, stopping) or 504 (waited too
 *   long).
 *
 * Every answer carries Connection: close, so each request passes the
 * gate. Main data structures: struct http_head (a checked request head),
 * struct gate, struct work_queue and struct work_item. */
#ifndef NPUSIM_CLI_HTTP_H
#define NPUSIM_CLI_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netinet/in.h>

#include "api/api.h"

/* ---- the request head (http_head.c) ---- */

#define HTTP_HEAD_MAX_BYTES 16384   /* request line and headers; more: 431 */
#define HTTP_TARGET_MAX_BYTES 4096  /* the request target (path and query); longer: 414 */

struct http_head {
    size_t len;                 /* bytes of the head, its blank line included */
    char method[16];
    int64_t content_length;     /* -1: none given */
    bool chunked;               /* Transfer-Encoding: chunked */
};

/* Checks the start of a request, buf (n bytes, as far as it has arrived).
 * Returns 0 when the head is complete and well formed (h filled), 1 when
 * more bytes are needed, or the HTTP status that refuses it (400, 413 when
 * Content-Length exceeds max_body_bytes, 414, 431, 505) with why set to a
 * message that echoes none of the client's bytes. */
int http_head_check(const char *buf, size_t n, int64_t max_body_bytes, struct http_head *h, char *why, size_t wn);

/* A whole HTTP/1.1 answer of status with body {"error": why} (why is ASCII
 * text of ours) and, when retry_after_s > 0, Retry-After, in out; its
 * length, or 0 when it does not fit. */
size_t http_error_text(int status, const char *why, int retry_after_s, char *out, size_t n);

/* The reason phrase of a status ("Service Unavailable"). */
const char *http_reason(int status);

/* ---- the connection gate (http_gate.c) ---- */

struct MHD_Daemon;
struct gate;

struct gate_opts {
    int listen_fd;              /* listening, the gate's from now on */
    struct MHD_Daemon *daemon;  /* takes the connections whose head is in */
    int64_t connections;        /* the whole server's connections at once */
    int64_t per_client;         /* one non-loopback address's share */
    double timeout_s;           /* a request head must arrive within this */
    int64_t max_body_bytes;
};

/* Starts the gate's thread; NULL when it cannot (errno set). */
struct gate *gate_start(const struct gate_opts *o);
/* libmicrohttpd took (started) or closed a connection from addr. */
void gate_conn_started(struct gate *g);
void gate_conn_closed(struct gate *g, const struct sockaddr_in *addr);
/* Stops accepting: closes the listening socket, answers the connections
 * still waiting or sending their head 503, and joins the thread. */
void gate_stop(struct gate *g);
/* Frees a stopped gate, once the library that reports to it has stopped. */
void gate_free(struct gate *g);
/* Connections the server holds now (the gate's and the library's). */
int64_t gate_connections(struct gate *g);

/* ---- the work queue (http_work.c) ---- */

struct work_item;
/* Called once per item, from whichever thread answers it, with its
 * response (status 200..504); must not block. */
typedef void (*work_answer_fn)(struct work_item *it, void *arg);

struct work_item {
    char method[8];
    char *path, *body;          /* malloc'ed; freed with the item */
    size_t len;
    double queued_s;            /* clock_monotonic_s() when it was queued */
    struct api_response r;      /* the answer, once answered */
    work_answer_fn answer;
    void *arg;                  /* the caller's (its connection) */
    int state, refs;            /* guarded by the queue's lock */
    struct work_item *next;
};

struct work_queue;
struct work_queue_opts {
    const struct api_ctx *ctx;
    int64_t threads;            /* workers: heavy requests at once */
    int64_t max_queued;         /* waiting beyond the running ones; more: 503 */
    double queue_timeout_s;     /* waited longer: 504 */
};

struct work_queue *work_start(const struct work_queue_opts *o);
/* Queues it (0) or refuses (-1: full or stopping; the caller answers 503).
 * The queue holds a reference until it has answered. */
int work_submit(struct work_queue *q, struct work_item *it);
/* The caller lets go of its item (its connection is done). */
void work_release(struct work_queue *q, struct work_item *it);
/* Answers 504 to the items that waited past the deadline; call often. */
void work_expire(struct work_queue *q);
/* Shutdown: takes no new item; lets the workers go on with the queue for
 * up to grace_s (or until *cut is set), then answers every item left,
 * waiting or running, 503.
 * Workers still busy finish on their own; their answer is dropped. */
void work_stop(struct work_queue *q, double grace_s, volatile int *cut, void (*poll)(volatile int *cut));
int64_t work_running(struct work_queue *q);
/* After work_stop: joins the workers and frees q when none is still busy
 * (true); otherwise leaves it to the process's exit (false). */
bool work_free(struct work_queue *q);

/* ---- the HTTP layer (http_server.c) ---- */

struct http_opts {
    struct api_ctx ctx;
    int64_t max_body_bytes;
    int64_t connections;
    double timeout_s;
    int64_t port;
    const char *bind;           /* the bound IPv4 address, as given */
    const char *const *allow_host;    /* --allow-host names, n_allow_host of them */
    int n_allow_host;
    const char *const *allow_origin;  /* --allow-origin origins ("*": any) */
    int n_allow_origin;
};

struct http_server;
/* The library daemon (no listening socket of its own) and the work queue;
 * NULL with a message on stderr when it cannot start. */
struct http_server *http_start(const struct http_opts *o, const struct work_queue_opts *wq);
struct MHD_Daemon *http_daemon(struct http_server *s);
void http_set_gate(struct http_server *s, struct gate *g);
struct work_queue *http_work(struct http_server *s);
/* From now on every new request is answered 503 (the server is stopping). */
void http_set_draining(struct http_server *s);
/* Waits up to wait_s for the library to send what it holds, then stops
 * it; frees s when its workers are idle (true), else leaves it (false). */
bool http_stop(struct http_server *s, double wait_s);

#endif
