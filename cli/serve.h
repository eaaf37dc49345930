/* serve.h — `npusim serve`: the HTTP front end (cmd_serve.c, on
 * libmicrohttpd), its JSON API as one function (serve_api.c) and the web
 * page it serves (serve_page.c). docs/api.md documents the API.
 *
 * Main data structures: struct api_ctx (what every request may read) and
 * struct api_response. */
#ifndef NPUSIM_CLI_SERVE_H
#define NPUSIM_CLI_SERVE_H

#include <stddef.h>

#include "traces/profile.h"

struct api_ctx {
    const char *configs;             /* the configs folder names resolve in */
    const struct profile *prof;
};

struct api_response {
    int status;                      /* 200, 400, 404, 405, 500 */
    const char *type;                /* Content-Type */
    char *body;                      /* malloc'ed */
};

/* The response to one request; body (len bytes) is the POST body. */
int api_handle(const struct api_ctx *ctx, const char *method, const char *path, const char *body, size_t len,
               struct api_response *r);

/* The web page: pick a model, chip and batch, see the run; paste
 * measurements, see the colour-coded error table. */
extern const char serve_page[];

#endif
