/* cmd_serve.c — `npusim serve`: the JSON API and the web page (api/api.h)
 * over HTTP. Its options; the listening socket; the gate, the library and
 * the work queue started (http.h says how they hold under load); then
 * it waits for SIGINT or SIGTERM and stops gracefully: no new connection,
 * queued requests answered 503, running ones given --grace seconds (a
 * second signal cuts it short), then exit 0. Bound to 127.0.0.1 unless
 * told otherwise; writes no file. No data structure of its own. */
#define _DEFAULT_SOURCE  /* sigtimedwait, inet_pton on glibc */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/http.h"
#include "study/run/run.h"
#include "base/lists.h"
#include "base/textfile.h"

static const char serve_help[] =
    "usage: npusim serve [--port N] [--bind ADDR] [--configs DIR] [--profile NAME]\n"
    "                    [--max-body BYTES] [--connections N] [--per-client N] [--threads N]\n"
    "                    [--queue N] [--queue-timeout SECONDS] [--timeout SECONDS] [--grace SECONDS]\n"
    "                    [--max-points N] [--max-rows N] [--time-limit SECONDS]\n"
    "                    [--allow-host NAME]... [--allow-origin ORIGIN]...\n"
    "\n"
    "Serves the JSON API (docs/api.md: GET /api/chips, /api/models, /api/strategies,\n"
    "/api/systems, /api/fields; POST /api/op, /api/simulate, /api/validate, /api/sweep,\n"
    "/api/fleet, /api/calibrate, /api/energy, /api/carbon, /api/slo, /api/serving)\n"
    "and, at /, a web page to run a configuration, a small sweep or a serving run and to\n"
    "validate pasted measurements.\n"
    "Errors are JSON {\"error\": ...}: 400 with the message the command line prints for the\n"
    "same input; 503 with Retry-After when full; 504 when a request waited too long.\n"
    "Writes no file. Stops on Ctrl-C (SIGINT) or SIGTERM: running requests get --grace seconds.\n"
    "No authentication: it binds 127.0.0.1 unless told otherwise.\n"
    "To simulate serving traffic (requests over time) use `npusim serving`.\n"
    "\n"
    "options:\n"
    "      --port N            TCP port (default 8080)\n"
    "      --bind ADDR         IPv4 address to listen on (default 127.0.0.1: this machine only)\n"
    "      --configs DIR       the only folder names resolve in (default: the configs shipped with\n"
    "                          this binary; never the current folder)\n"
    "%s"
    "      --max-body BYTES    largest request body (default 1048576; larger: 413)\n"
    "      --connections N     connections at once, the whole server (default 64; more wait 1 s,\n"
    "                          then 503 with Retry-After)\n"
    "      --per-client N      connections at once from one non-loopback address (default: half of\n"
    "                          --connections)\n"
    "      --threads N         worker threads: requests that compute at once (default 4)\n"
    "      --queue N           requests waiting for a worker (default 64; more: 503)\n"
    "      --queue-timeout SECONDS  a request waiting longer for a worker gets 504 (default 30)\n"
    "      --timeout SECONDS   a request's head, and then its body, must arrive within this; an\n"
    "                          answer must be read within it (default 10)\n"
    "      --grace SECONDS     on SIGINT or SIGTERM, how long running requests may finish before\n"
    "                          they are answered 503 (default 10)\n"
    "      --max-points N      the largest sweep (points) or fleet (deployments) a request runs\n"
    "                          (default 256; larger: 400)\n"
    "      --max-rows N        the most measurement rows /api/validate or /api/calibrate takes\n"
    "                          (default 20000; more: 400)\n"
    "      --time-limit SECONDS  a sweep, fleet or calibration still running after this long stops\n"
    "                          with 503 (default 10)\n"
    "      --allow-host NAME   a Host name besides localhost and the bound address (repeatable;\n"
    "                          others: 421)\n"
    "      --allow-origin ORIGIN  a web origin (http://host:port, or *) whose pages may POST\n"
    "                          (repeatable; others: 403)\n"
    "  -h, --help              this help\n";

static int number_opt(const char *name, const char *v, int64_t lo, int64_t hi, int64_t *out)
{
    if (parse_i64_strict(v, out) || *out < lo || *out > hi)
        return usage_error("serve", "--%s \"%s\": expected a whole number from %lld to %lld", name, v, (long long)lo,
                           (long long)hi);
    return 0;
}

/* Whether a listening socket could bind a (0) or the errno it gets: told
 * apart after MHD fails, so the message says why. */
static int bind_errno(const struct sockaddr_in *a)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return errno;
    int rc = bind(fd, (const struct sockaddr *)a, sizeof *a) ? errno : 0;
    close(fd);
    return rc;
}

/* Why the server could not listen on addr, with a free port to try when
 * the port is taken. */
static int listen_error(const char *bind_addr, struct sockaddr_in addr, int64_t port)
{
    int err = bind_errno(&addr);
    if (err != EADDRINUSE) {
        fprintf(stderr, "npusim serve: cannot listen on %s:%lld (%s)\n", bind_addr, (long long)port,
                err ? strerror(err) : "the server did not start");
        return EXIT_USAGE;
    }
    int64_t free_port = 0;
    for (int64_t p = port + 1; p <= 65535 && p <= port + 100 && !free_port; p++) {
        addr.sin_port = htons((uint16_t)p);
        free_port = bind_errno(&addr) ? 0 : p;
    }
    if (free_port)
        fprintf(stderr, "npusim serve: port %lld is in use; try --port %lld\n", (long long)port, (long long)free_port);
    else
        fprintf(stderr, "npusim serve: port %lld is in use; try another with --port N\n", (long long)port);
    return EXIT_USAGE;
}

struct serve_opts {
    int64_t port, max_body, conns, per_client, threads, queue, timeout, max_points, max_rows;
    double limit_s, queue_timeout_s, grace_s;
    const char *bind, *configs;
    const struct profile *prof;
    const char *allow_host[16], *allow_origin[16];
    int n_allow_host, n_allow_origin;
};

static int seconds_opt(const char *name, const char *v, double *out)
{
    if (parse_f64_strict(v, out) || !(*out > 0) || *out > 86400)
        return usage_error("serve", "--%s \"%s\": expected seconds above 0, at most 86400", name, v);
    return 0;
}

static int list_opt(const char *name, const char *v, const char **list, int *n)
{
    if (*n == 16 || !*v)
        return usage_error("serve", "--%s \"%s\": expected a name, at most 16 of them", name, v);
    list[(*n)++] = v;
    return 0;
}

static int serve_options(int argc, char **argv, struct serve_opts *o)
{
    static const struct option longopts[] = {
        { "port", required_argument, 0, 'O' },         { "bind", required_argument, 0, 'B' },
        SHARED_LONGOPT_CONFIGS,                        SHARED_LONGOPT_PROFILE,
        { "max-body", required_argument, 0, 'M' },     { "connections", required_argument, 0, 'N' },
        { "threads", required_argument, 0, 'H' },      { "timeout", required_argument, 0, 'T' },
        { "max-points", required_argument, 0, 'X' },   { "time-limit", required_argument, 0, 'L' },
        { "max-rows", required_argument, 0, 'R' },     { "per-client", required_argument, 0, 'I' },
        { "queue", required_argument, 0, 'Q' },        { "queue-timeout", required_argument, 0, 'W' },
        { "grace", required_argument, 0, 'G' },        { "allow-host", required_argument, 0, 'A' },
        { "allow-origin", required_argument, 0, 'Y' }, { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    *o = (struct serve_opts){ .port = 8080, .max_body = 1 << 20, .conns = 64, .threads = 4, .queue = 64,
                              .timeout = 10, .max_points = 256, .max_rows = 20000, .limit_s = 10,
                              .queue_timeout_s = 30, .grace_s = 10, .bind = "127.0.0.1" };
    int c;
    optind = 1;
    opterr = 0;
    struct shared_opts sh;
    shared_opts_init(&sh);
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int bad = shared_opt("serve", SHARED_CONFIGS | SHARED_PROFILE, &sh, c, optarg);
        if (bad < 0)
            return EXIT_USAGE;
        if (bad)
            continue;
        switch (c) {
        case 'h': printf(serve_help, shared_help_line(SHARED_PROFILE)); return -1;
        case 'O': bad = number_opt("port", optarg, 1, 65535, &o->port); break;
        case 'B': o->bind = optarg; break;
        case 'M': bad = number_opt("max-body", optarg, 1024, 1 << 30, &o->max_body); break;
        case 'N': bad = number_opt("connections", optarg, 1, 10000, &o->conns); break;
        case 'I': bad = number_opt("per-client", optarg, 1, 10000, &o->per_client); break;
        case 'H': bad = number_opt("threads", optarg, 1, 256, &o->threads); break;
        case 'Q': bad = number_opt("queue", optarg, 0, 100000, &o->queue); break;
        case 'T': bad = number_opt("timeout", optarg, 1, 3600, &o->timeout); break;
        case 'X': bad = number_opt("max-points", optarg, 1, 1000000, &o->max_points); break;
        case 'R': bad = number_opt("max-rows", optarg, 1, 10000000, &o->max_rows); break;
        case 'L': bad = seconds_opt("time-limit", optarg, &o->limit_s); break;
        case 'W': bad = seconds_opt("queue-timeout", optarg, &o->queue_timeout_s); break;
        case 'G': bad = seconds_opt("grace", optarg, &o->grace_s); break;
        case 'A': bad = list_opt("allow-host", optarg, o->allow_host, &o->n_allow_host); break;
        case 'Y': bad = list_opt("allow-origin", optarg, o->allow_origin, &o->n_allow_origin); break;
        default: return bad_option("serve", argv[optind - 1], longopts);
        }
        if (bad)
            return bad;
    }
    if (optind < argc)
        return usage_error("serve", "unexpected argument \"%s\"", argv[optind]);
    o->configs = sh.configs;
    o->prof = sh.prof;
    if (!o->per_client)
        o->per_client = o->conns > 1 ? o->conns / 2 : 1;
    if (o->configs && !path_is_dir(o->configs))
        return usage_error("serve", "--configs \"%s\": no such folder", o->configs);
    return 0;
}

/* The listening socket on addr, or -1 with the reason said. */
static int listen_on(const struct serve_opts *o, struct sockaddr_in addr)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd >= 0 && !setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) &&
        !bind(fd, (struct sockaddr *)&addr, sizeof addr) && !listen(fd, 511))
        return fd;
    if (fd >= 0)
        close(fd);
    listen_error(o->bind, addr, o->port);
    return -1;
}

/* Waits a little for a second signal, which cuts the grace short. */
static sigset_t stop_signals;
static void second_signal(volatile int *cut)
{
    struct timespec t = { 0, 50 * 1000 * 1000 };
    if (sigtimedwait(&stop_signals, NULL, &t) > 0)
        *cut = 1;
}

/* A server whose worker is still inside a computation at the exit: kept
 * reachable (for leak checkers) until the process ends. */
static struct http_server *volatile serve_kept;

int cmd_serve(int argc, char **argv)
{
    struct serve_opts o;
    int rc = serve_options(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;   /* -1: --help */
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o.port) };
    if (inet_pton(AF_INET, o.bind, &addr.sin_addr) != 1)
        return usage_error("serve", "--bind \"%s\": expected an IPv4 address (127.0.0.1, 0.0.0.0)", o.bind);
    /* SIGINT and SIGTERM wait for sigtimedwait below, in every thread started from here */
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    signal(SIGPIPE, SIG_IGN);
    char shipped[4096];   /* names resolve in one folder: --configs, else the shipped one */
    if (!o.configs && config_shipped_dir(shipped, sizeof shipped))
        return usage_error("serve", "no configs folder is shipped with this binary: give --configs DIR");
    if (!o.configs)
        o.configs = shipped;
    int lfd = listen_on(&o, addr);
    if (lfd < 0)
        return EXIT_USAGE;
    struct http_opts ho = { { o.configs, o.prof, (long)o.max_points, o.limit_s, false, true, (long)o.max_rows },
                            o.max_body, o.conns, (double)o.timeout, o.port, o.bind,
                            o.allow_host, o.n_allow_host, o.allow_origin, o.n_allow_origin };
    struct work_queue_opts wq = { NULL, o.threads, o.queue, o.queue_timeout_s };
    struct http_server *s = http_start(&ho, &wq);
    struct gate_opts go = { lfd, s ? http_daemon(s) : NULL, o.conns, o.per_client, (double)o.timeout, o.max_body };
    struct gate *g = NULL;
    if (!s || !(g = gate_start(&go))) {
        fprintf(stderr, "npusim serve: cannot start the server (%s)\n", strerror(errno));
        return 1;
    }
    http_set_gate(s, g);
    if ((ntohl(addr.sin_addr.s_addr) >> 24) != 127)
        fprintf(stderr, "npusim serve: warning: listening on %s, beyond this machine, with no authentication: "
                        "anyone who reaches it can run simulations; bind 127.0.0.1 unless the network is trusted\n",
                o.bind);
    fprintf(stderr, "npusim serve: listening on http://%s:%lld/ (names resolve in %s alone); Ctrl-C stops\n",
            o.bind, (long long)o.port, o.configs);
    struct timespec tick = { 0, 250 * 1000 * 1000 };
    int sig;
    while ((sig = sigtimedwait(&stop_signals, NULL, &tick)) <= 0)
        work_expire(http_work(s));
    fprintf(stderr, "npusim serve: %s: stopping; running requests have %g s to finish (a second signal: now)\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM", o.grace_s);
    http_set_draining(s);
    gate_stop(g);
    volatile int cut = 0;
    work_stop(http_work(s), o.grace_s, &cut, second_signal);
    if (!http_stop(s, 2.0))
        serve_kept = s;
    gate_free(g);
    fprintf(stderr, "npusim serve: stopped\n");
    return 0;
}
