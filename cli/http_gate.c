/* http_gate.c — the connection gate of `npusim serve` (http.h).
 * One thread accepts every connection and keeps it until its request head
 * has arrived, then hands it to libmicrohttpd; it holds the server's
 * limits as a whole:
 *   - at most --connections at once (here and in the library together);
 *     a client beyond that waits up to GATE_WAIT_S for a slot, then gets
 *     503 with Retry-After, never a reset;
 *   - a head (with its body, when at most GATE_BODY_PEEK_BYTES) must
 *     arrive within --timeout, and when the server is full the
 *     connection slowest to send its head (GATE_EVICT_AGE_S old at least)
 *     makes room for a new one, so slow senders cannot lock others out;
 *   - a non-loopback address holds at most --per-client connections
 *     (loopback is exempt: every local client, a proxy included, shares it);
 *   - a head that libmicrohttpd would refuse with an HTML page of its own
 *     is refused here with JSON (http_head_check).
 * The head is read with MSG_PEEK, so the library reads the same bytes; an
 * edge-triggered epoll reports each new arrival though the bytes stay.
 * A refused connection lingers (its input drained) for GATE_LINGER_S
 * before it is closed, so the client reads the answer rather than a reset.
 *
 * Main data structure: struct gate, with its table of struct gconn (one
 * per connection in the gate: waiting for a slot, sending its head, or
 * lingering) and the per-address counts the library's closes update. */
#define _GNU_SOURCE   /* accept4 */
#include "cli/http.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"

#define GATE_WAIT_S 1.0        /* a client beyond the limit waits this long for a slot */
#define GATE_EVICT_AGE_S 1.0   /* a head still arriving after this may be evicted when full */
#define GATE_LINGER_S 2.0      /* a refused connection is drained this long, then closed */
#define GATE_LINGER_MAX 256    /* refused connections lingering at once; more are closed at once */
#define GATE_TICK_MS 50
/* A body this small waits in the gate with its head (peeked, as the head
 * is), so a client that stops sending it gets 408 from the gate; larger
 * ones arrive in the library, which can only close on them. The kernel's
 * receive buffer (128 KiB by default) holds it. */
#define GATE_BODY_PEEK_BYTES 65536

enum gconn_kind { GC_FREE, GC_WAIT, GC_HEAD, GC_LINGER };

struct gconn {
    int fd;
    enum gconn_kind kind;
    struct sockaddr_in addr;
    double t0_s;               /* when it entered its current kind */
};

struct client_count {
    in_addr_t addr;
    int64_t n;
};

struct gate {
    struct gate_opts o;
    int ep, wake;              /* epoll; eventfd: a slot freed, or stop */
    pthread_t thread;
    struct gconn *c;
    int64_t cap, n_head, n_wait, n_linger;
    pthread_mutex_t lock;      /* guards the fields below: the library's thread updates them */
    int64_t held, handing;     /* connections the library holds; handed, not yet started */
    struct client_count *clients;
    int64_t n_clients;
    char *peek;                /* HTTP_HEAD_MAX_BYTES + GATE_BODY_PEEK_BYTES: what peek_head reads */
    volatile int stop;
};

static bool loopback(const struct sockaddr_in *a)
{
    return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
}

/* Adds d to addr's count (non-loopback only); returns the count before. */
static int64_t client_add(struct gate *g, const struct sockaddr_in *a, int64_t d)
{
    if (loopback(a))
        return 0;
    int64_t i = 0;
    while (i < g->n_clients && g->clients[i].addr != a->sin_addr.s_addr)
        i++;
    if (i == g->n_clients) {
        if (d <= 0 || i == g->o.connections * 2)
            return 0;
        g->clients[g->n_clients++] = (struct client_count){ a->sin_addr.s_addr, 0 };
    }
    int64_t before = g->clients[i].n;
    if ((g->clients[i].n += d) <= 0)
        g->clients[i] = g->clients[--g->n_clients];
    return before;
}

int64_t gate_connections(struct gate *g)
{
    pthread_mutex_lock(&g->lock);
    int64_t n = g->held + g->handing + g->n_head;
    pthread_mutex_unlock(&g->lock);
    return n;
}

void gate_conn_started(struct gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->held++;
    if (g->handing > 0)
        g->handing--;
    pthread_mutex_unlock(&g->lock);
}

void gate_conn_closed(struct gate *g, const struct sockaddr_in *addr)
{
    pthread_mutex_lock(&g->lock);
    g->held--;
    if (addr)
        client_add(g, addr, -1);
    pthread_mutex_unlock(&g->lock);
    uint64_t one = 1;
    if (write(g->wake, &one, sizeof one) < 0) { /* the gate ticks anyway */ }
}

static void set_kind(struct gate *g, struct gconn *c, enum gconn_kind k)
{
    int64_t *count[] = { NULL, &g->n_wait, &g->n_head, &g->n_linger };
    pthread_mutex_lock(&g->lock);   /* n_head is read by gate_connections */
    if (count[c->kind])
        (*count[c->kind])--;
    if (count[k])
        (*count[k])++;
    pthread_mutex_unlock(&g->lock);
    c->kind = k;
    c->t0_s = clock_monotonic_s();
}

/* Forgets c; closes its socket unless the library took it. */
static void release(struct gate *g, struct gconn *c, bool close_fd, bool count_client)
{
    epoll_ctl(g->ep, EPOLL_CTL_DEL, c->fd, NULL);
    if (close_fd)
        close(c->fd);
    if (count_client) {
        pthread_mutex_lock(&g->lock);
        client_add(g, &c->addr, -1);
        pthread_mutex_unlock(&g->lock);
    }
    set_kind(g, c, GC_FREE);
    c->fd = -1;
}

/* Answers c with status and why (and Retry-After), then lets it linger. */
static void refuse(struct gate *g, struct gconn *c, int status, const char *why, int retry_after_s)
{
    char text[1024];
    size_t n = http_error_text(status, why, retry_after_s, text, sizeof text);
    if (n && send(c->fd, text, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) { /* the client left: nothing to tell */ }
    shutdown(c->fd, SHUT_WR);
    bool counted = c->kind == GC_HEAD || c->kind == GC_WAIT;
    if (counted) {
        pthread_mutex_lock(&g->lock);
        client_add(g, &c->addr, -1);
        pthread_mutex_unlock(&g->lock);
    }
    if (g->n_linger >= GATE_LINGER_MAX) {
        release(g, c, true, false);
        return;
    }
    struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.u64 = (uint64_t)(c - g->c) + 2 };
    if (epoll_ctl(g->ep, EPOLL_CTL_MOD, c->fd, &ev) && epoll_ctl(g->ep, EPOLL_CTL_ADD, c->fd, &ev)) {
        release(g, c, true, false);
        return;
    }
    set_kind(g, c, GC_LINGER);
}

/* Reads what a lingering connection sent; closes it at its end. */
static void drain(struct gate *g, struct gconn *c)
{
    char buf[4096];
    ssize_t r;
    while ((r = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT)) > 0) {}
    if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
        release(g, c, true, false);
}

/* Peeks at a head that is arriving: hands the connection on when whole,
 * refuses it when bad, waits otherwise. */
static void peek_head(struct gate *g, struct gconn *c)
{
    char *buf = g->peek;
    ssize_t r = recv(c->fd, buf, HTTP_HEAD_MAX_BYTES + GATE_BODY_PEEK_BYTES, MSG_PEEK | MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
        release(g, c, true, true);   /* gone before asking */
        return;
    }
    if (r < 0)
        return;
    struct http_head h;
    char why[160];
    int rc = http_head_check(buf, (size_t)r, g->o.max_body_bytes, &h, why, sizeof why);
    if (rc == 1)
        return;
    if (rc) {
        refuse(g, c, rc, why, 0);
        return;
    }
    if (h.content_length > 0 && h.content_length <= GATE_BODY_PEEK_BYTES &&
        (size_t)r < h.len + (size_t)h.content_length)
        return;   /* a small body: all of it first */
    int fd = c->fd;
    struct sockaddr_in addr = c->addr;
    pthread_mutex_lock(&g->lock);
    g->handing++;
    pthread_mutex_unlock(&g->lock);
    release(g, c, false, false);   /* the library's now: it counts in held, and in the client's count */
    if (MHD_add_connection(g->o.daemon, fd, (struct sockaddr *)&addr, sizeof addr) != MHD_YES) {
        pthread_mutex_lock(&g->lock);   /* the library closed it */
        if (g->handing > 0)
            g->handing--;
        client_add(g, &addr, -1);
        pthread_mutex_unlock(&g->lock);
    }
}

/* Starts reading c's head. */
static void admit(struct gate *g, struct gconn *c)
{
    struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.u64 = (uint64_t)(c - g->c) + 2 };
    set_kind(g, c, GC_HEAD);
    if (epoll_ctl(g->ep, EPOLL_CTL_ADD, c->fd, &ev)) {
        release(g, c, true, true);
        return;
    }
    peek_head(g, c);   /* what arrived before it was watched */
}

/* When full: the oldest connection still sending its head, if it is old
 * enough, is answered 408 to make room. Returns whether one was. */
static bool evict_slowest(struct gate *g, double now)
{
    struct gconn *old = NULL;
    for (int64_t i = 0; i < g->cap; i++)
        if (g->c[i].kind == GC_HEAD && now - g->c[i].t0_s >= GATE_EVICT_AGE_S &&
            (!old || g->c[i].t0_s < old->t0_s))
            old = &g->c[i];
    if (old)
        refuse(g, old, 408, "the request did not arrive in time, and the server is full", 0);
    return old != NULL;
}

static bool has_slot(struct gate *g)
{
    return gate_connections(g) < g->o.connections;
}

static void accept_all(struct gate *g)
{
    for (;;) {
        struct sockaddr_in addr;
        socklen_t al = sizeof addr;
        int fd = accept4(g->o.listen_fd, (struct sockaddr *)&addr, &al, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;   /* EAGAIN, or an error the next event retries */
        struct gconn *c = NULL;
        for (int64_t i = 0; i < g->cap && !c; i++)
            c = g->c[i].kind == GC_FREE ? &g->c[i] : NULL;
        if (!c) {   /* the gate itself is full: answer without lingering */
            char text[512];
            size_t n = http_error_text(503, "the server is full; try again later", 1, text, sizeof text);
            if (send(fd, text, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) { /* nothing to tell */ }
            close(fd);
            continue;
        }
        *c = (struct gconn){ fd, GC_FREE, addr, clock_monotonic_s() };
        pthread_mutex_lock(&g->lock);
        int64_t mine = client_add(g, &addr, +1);
        pthread_mutex_unlock(&g->lock);
        set_kind(g, c, GC_WAIT);
        if (g->stop)
            refuse(g, c, 503, "the server is stopping; try again later", 1);
        else if (mine >= g->o.per_client)
            refuse(g, c, 503, "too many connections from your address (--per-client); try again later", 1);
        else if (has_slot(g) || evict_slowest(g, c->t0_s))
            admit(g, c);
        /* else it waits for a slot (tick) */
    }
}

/* Deadlines: waiting clients get a slot or 503; heads past --timeout get
 * 408; lingering connections are closed. */
static void tick(struct gate *g)
{
    double now = clock_monotonic_s();
    for (int64_t i = 0; i < g->cap; i++) {
        struct gconn *c = &g->c[i];
        double age = now - c->t0_s;
        if (c->kind == GC_HEAD && age > g->o.timeout_s)
            refuse(g, c, 408, "the request (its head, or a body of at most 64 KiB) did not arrive within --timeout", 0);
        else if (c->kind == GC_LINGER && age > GATE_LINGER_S)
            release(g, c, true, false);
    }
    for (;;) {   /* the oldest waiting first */
        struct gconn *w = NULL;
        for (int64_t i = 0; i < g->cap; i++)
            if (g->c[i].kind == GC_WAIT && (!w || g->c[i].t0_s < w->t0_s))
                w = &g->c[i];
        if (!w)
            break;
        if (has_slot(g) || evict_slowest(g, now))
            admit(g, w);
        else if (now - w->t0_s > GATE_WAIT_S)
            refuse(g, w, 503, "the server is at its connection limit (--connections); try again later", 1);
        else
            break;
    }
}

/* On stop: every connection not yet in the library is answered 503. */
static void stop_all(struct gate *g)
{
    for (int64_t i = 0; i < g->cap; i++)
        if (g->c[i].kind == GC_WAIT || g->c[i].kind == GC_HEAD)
            refuse(g, &g->c[i], 503, "the server is stopping; try again later", 1);
}

static void *gate_main(void *arg)
{
    struct gate *g = arg;
    bool listening = true;
    double stop_s = 0;
    for (;;) {
        if (g->stop && listening) {
            accept_all(g);   /* those the kernel already took are answered 503, not reset */
            epoll_ctl(g->ep, EPOLL_CTL_DEL, g->o.listen_fd, NULL);
            close(g->o.listen_fd);   /* new connections are refused by the kernel from now */
            listening = false;
            stop_all(g);
            stop_s = clock_monotonic_s();
        }
        if (!listening && (g->n_linger == 0 || clock_monotonic_s() - stop_s > GATE_LINGER_S))
            break;
        struct epoll_event ev[64];
        int n = epoll_wait(g->ep, ev, 64, GATE_TICK_MS);
        for (int i = 0; i < n; i++) {
            uint64_t k = ev[i].data.u64;
            if (k == 0 && listening)
                accept_all(g);
            else if (k == 1) {
                uint64_t v;
                if (read(g->wake, &v, sizeof v) < 0) { /* drained already */ }
            } else if (k >= 2 && k - 2 < (uint64_t)g->cap) {
                struct gconn *c = &g->c[k - 2];
                if (c->kind == GC_HEAD)
                    peek_head(g, c);
                else if (c->kind == GC_LINGER)
                    drain(g, c);
            }
        }
        tick(g);
    }
    for (int64_t i = 0; i < g->cap; i++)
        if (g->c[i].kind != GC_FREE)
            release(g, &g->c[i], true, false);
    return NULL;
}

struct gate *gate_start(const struct gate_opts *o)
{
    struct gate *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->o = *o;
    g->cap = o->connections * 2 + GATE_LINGER_MAX;   /* in the head stage, waiting, lingering */
    g->c = calloc((size_t)g->cap, sizeof *g->c);
    g->clients = calloc((size_t)o->connections * 2, sizeof *g->clients);
    g->peek = malloc(HTTP_HEAD_MAX_BYTES + GATE_BODY_PEEK_BYTES);
    g->ep = epoll_create1(EPOLL_CLOEXEC);
    g->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    pthread_mutex_init(&g->lock, NULL);
    struct epoll_event l = { .events = EPOLLIN, .data.u64 = 0 }, w = { .events = EPOLLIN, .data.u64 = 1 };
    int fl = fcntl(o->listen_fd, F_GETFL);
    if (!g->c || !g->clients || !g->peek || g->ep < 0 || g->wake < 0 || fl < 0 ||
        fcntl(o->listen_fd, F_SETFL, fl | O_NONBLOCK) || epoll_ctl(g->ep, EPOLL_CTL_ADD, o->listen_fd, &l) ||
        epoll_ctl(g->ep, EPOLL_CTL_ADD, g->wake, &w) || pthread_create(&g->thread, NULL, gate_main, g)) {
        int err = errno;
        if (g->ep >= 0)
            close(g->ep);
        if (g->wake >= 0)
            close(g->wake);
        free(g->c), free(g->clients), free(g->peek), free(g);
        errno = err;
        return NULL;
    }
    return g;
}

void gate_stop(struct gate *g)
{
    g->stop = 1;
    uint64_t one = 1;
    if (write(g->wake, &one, sizeof one) < 0) { /* the gate ticks anyway */ }
    pthread_join(g->thread, NULL);
    /* g and its descriptors stay until gate_free: the library may still
     * report closes (gate_conn_closed writes to g->wake) */
}

void gate_free(struct gate *g)
{
    close(g->ep);
    close(g->wake);
    pthread_mutex_destroy(&g->lock);
    free(g->c), free(g->clients), free(g->peek), free(g);
}
