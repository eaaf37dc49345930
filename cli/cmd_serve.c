/* cmd_serve.c — `npusim serve`: the JSON API and the web page (serve.h)
 * over HTTP with libmicrohttpd. Bound to 127.0.0.1 unless told otherwise;
 * request bodies, connections and time per connection are limited; the
 * server writes no file. Runs until SIGINT or SIGTERM. Main data
 * structure: struct body, one request's POST body as it arrives. */
#define _DEFAULT_SOURCE  /* sigwait, inet_pton on glibc */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/serve.h"
#include "traces/lists.h"
#include "traces/textfile.h"

static const char serve_help[] =
    "usage: npusim serve [--port N] [--bind ADDR] [--configs DIR] [--profile NAME]\n"
    "                    [--max-body BYTES] [--connections N] [--threads N] [--timeout SECONDS]\n"
    "                    [--max-points N] [--max-rows N] [--time-limit SECONDS]\n"
    "\n"
    "Serves the JSON API (docs/api.md: GET /api/chips, /api/models, /api/strategies;\n"
    "POST /api/op, /api/simulate, /api/validate, /api/sweep, /api/fleet, /api/calibrate)\n"
    "and, at /, a web page to run a configuration or a small sweep and to validate\n"
    "pasted measurements.\n"
    "Errors are 400 with the message the command line prints for the same input.\n"
    "Writes no file. Stops on Ctrl-C (SIGINT) or SIGTERM.\n"
    "\n"
    "options:\n"
    "      --port N            TCP port (default 8080)\n"
    "      --bind ADDR         IPv4 address to listen on (default 127.0.0.1: this machine only)\n"
    "      --configs DIR       where names resolve first (then as for every command: $NPUSIM_CONFIGS,\n"
    "                          ~/.local/share/npusim, beside the binary, installed, ./configs)\n"
    "      --profile NAME      physical (default) or neusim\n"
    "      --max-body BYTES    largest request body (default 1048576; larger: 413)\n"
    "      --connections N     connections at once (default 64)\n"
    "      --threads N         worker threads (default 4)\n"
    "      --timeout SECONDS   idle time before a connection is closed (default 30)\n"
    "      --max-points N      the largest sweep (points) or fleet (deployments) a request runs\n"
    "                          (default 256; larger: 400)\n"
    "      --max-rows N        the most measurement rows /api/validate or /api/calibrate takes\n"
    "                          (default 20000; more: 400)\n"
    "      --time-limit SECONDS  a sweep or fleet still running after this long stops with 503\n"
    "                          (default 10)\n"
    "  -h, --help              this help\n";

struct body {
    char *s;
    size_t n;
    bool too_big;
};

struct server {
    struct api_ctx ctx;
    size_t max_body;
};

static enum MHD_Result send_reply(struct MHD_Connection *con, int status, const char *type, char *text)
{
    if (!text)
        return MHD_NO;
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_COPY);
    free(text);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ret = MHD_queue_response(con, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *con, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **state)
{
    (void)version;
    const struct server *sv = cls;
    struct body *b = *state;
    if (!b) {   /* the headers: start a body */
        if (!(b = calloc(1, sizeof *b)))
            return MHD_NO;
        *state = b;
        return MHD_YES;
    }
    if (*size) {   /* a piece of the body */
        if (!b->too_big && b->n + *size <= sv->max_body) {
            char *s = realloc(b->s, b->n + *size + 1);
            if (!s)
                return MHD_NO;
            memcpy(s + b->n, data, *size);
            b->s = s, b->n += *size, s[b->n] = '\0';
        } else
            b->too_big = true;
        *size = 0;
        return MHD_YES;
    }
    if (b->too_big) {
        char msg[160];
        snprintf(msg, sizeof msg, "{\"error\": \"the request body: expected at most %zu bytes\"}", sv->max_body);
        return send_reply(con, 413, "application/json", strdup(msg));
    }
    struct api_response r;
    api_handle(&sv->ctx, method, url, b->s, b->n, &r);
    return r.body ? send_reply(con, r.status, r.type, r.body) : MHD_NO;
}

static void on_done(void *cls, struct MHD_Connection *con, void **state, enum MHD_RequestTerminationCode code)
{
    (void)cls, (void)con, (void)code;
    struct body *b = *state;
    if (b)
        free(b->s);
    free(b);
    *state = NULL;
}

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

int cmd_serve(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "port", required_argument, 0, 'O' },    { "bind", required_argument, 0, 'B' },
        { "configs", required_argument, 0, 'C' }, { "profile", required_argument, 0, 'P' },
        { "max-body", required_argument, 0, 'M' }, { "connections", required_argument, 0, 'N' },
        { "threads", required_argument, 0, 'H' }, { "timeout", required_argument, 0, 'T' },
        { "max-points", required_argument, 0, 'X' }, { "time-limit", required_argument, 0, 'L' },
        { "max-rows", required_argument, 0, 'R' },
        { "help", no_argument, 0, 'h' },          { 0, 0, 0, 0 },
    };
    int64_t port = 8080, max_body = 1 << 20, conns = 64, threads = 4, timeout = 30, max_points = 256, max_rows = 20000;
    double limit_s = 10;
    const char *bind = "127.0.0.1", *configs = NULL;
    const struct profile *prof = profile_by_name("physical");
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'h': fputs(serve_help, stdout); return 0;
        case 'O': bad = number_opt("port", optarg, 1, 65535, &port); break;
        case 'B': bind = optarg; break;
        case 'C': configs = optarg; break;
        case 'P':
            if (!(prof = profile_by_name(optarg)))
                return usage_error("serve", "--profile \"%s\": expected physical or neusim", optarg);
            break;
        case 'M': bad = number_opt("max-body", optarg, 1024, 1 << 30, &max_body); break;
        case 'N': bad = number_opt("connections", optarg, 1, 10000, &conns); break;
        case 'H': bad = number_opt("threads", optarg, 1, 256, &threads); break;
        case 'T': bad = number_opt("timeout", optarg, 1, 3600, &timeout); break;
        case 'X': bad = number_opt("max-points", optarg, 1, 1000000, &max_points); break;
        case 'R': bad = number_opt("max-rows", optarg, 1, 10000000, &max_rows); break;
        case 'L':
            if (parse_f64_strict(optarg, &limit_s) || !(limit_s > 0) || limit_s > 86400)
                return usage_error("serve", "--time-limit \"%s\": expected seconds above 0, at most 86400", optarg);
            break;
        default: return bad_option("serve", argv[optind - 1], longopts);
        }
        if (bad)
            return bad;
    }
    if (optind < argc)
        return usage_error("serve", "unexpected argument \"%s\"", argv[optind]);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    if (inet_pton(AF_INET, bind, &addr.sin_addr) != 1)
        return usage_error("serve", "--bind \"%s\": expected an IPv4 address (127.0.0.1, 0.0.0.0)", bind);
    /* Without --configs, names resolve as for every other command (study/config.h: $NPUSIM_CONFIGS, your
     * own folder, beside the binary, the installed share folder, ./configs), so build/npusim serve works
     * from any folder as build/npusim run does. */
    struct server sv = { { configs, prof, (long)max_points, limit_s, false, true, (long)max_rows }, (size_t)max_body };
    if (configs && !path_is_dir(configs))
        return usage_error("serve", "--configs \"%s\": no such folder", configs);
    /* SIGINT and SIGTERM wait for sigwait below, in every thread MHD starts */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL, on_request, &sv,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)threads,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)conns, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)timeout,
        MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL, MHD_OPTION_END);
    if (!d)
        return listen_error(bind, addr, port);
    fprintf(stderr, "npusim serve: listening on http://%s:%lld/ (configs %s); Ctrl-C stops\n", bind, (long long)port,
            configs ? configs : "found as npusim run finds them");
    int sig;
    sigwait(&stop, &sig);
    MHD_stop_daemon(d);
    fprintf(stderr, "npusim serve: stopped\n");
    return 0;
}
