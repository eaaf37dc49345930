/* api.h — the JSON API as one function from a request to a response
 * (routes.c), for every front end: `npusim serve` over HTTP (cli/http.h),
 * the C API behind Python (capi.h); and the web page it serves (page.c).
 * docs/api.md documents the API.
 *
 * Main data structures: struct api_ctx (what every request may read) and
 * struct api_response. */
#ifndef NPUSIM_API_API_H
#define NPUSIM_API_API_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "traces/profile.h"

struct api_ctx {
    const char *configs;             /* the configs folder names resolve in */
    const struct profile *prof;
    long max_points;                 /* the largest sweep a request may ask for */
    double time_limit_s;             /* a sweep, fleet or calibration stops with 503 past this many
                                      * seconds (0: none) */
    bool local;                      /* a caller in this process (api/capi.h, the Python package):
                                      * config paths are taken as well as names */
    bool only_configs;               /* names resolve in configs alone (the server): never the
                                      * current folder, $NPUSIM_CONFIGS, the user's or installed ones */
    long max_rows;                   /* the most measurement rows /api/validate and /api/calibrate
                                      * take (0: no limit) */
};

struct api_response {
    int status;                      /* 200, 400, 404, 405, 500, 503 */
    const char *type;                /* Content-Type */
    char *body;                      /* malloc'ed */
};

/* The response to one request; body (len bytes) is the POST body. */
int api_handle(const struct api_ctx *ctx, const char *method, const char *path, const char *body, size_t len,
               struct api_response *r);

/* For the handlers (api/routes.c, api/sweep.c): a JSON reply (takes j),
 * an error reply {"error": msg}, whether a string is a config name (not a
 * path), and POST /api/sweep, /api/fleet and /api/calibrate. */
int api_reply_json(struct api_response *r, int status, cJSON *j);
/* When a request begun now must stop (clock_monotonic_s() seconds; 0: no
 * --time-limit): what the sweep, fleet and calibration handlers check. */
double api_deadline(const struct api_ctx *ctx);
int api_reply_error(struct api_response *r, int status, const char *msg);
bool api_name_ok(const char *s);
int api_sweep(const struct api_ctx *ctx, const cJSON *req, struct api_response *r);
int api_fleet(const struct api_ctx *ctx, const cJSON *req, struct api_response *r);
int api_serving(const struct api_ctx *ctx, const cJSON *req, struct api_response *r);
int api_calibrate(const struct api_ctx *ctx, const cJSON *req, struct api_response *r);
/* POST /api/energy, /api/carbon, /api/slo (api/stages.c): the stages of
 * npusim energy, carbon and slo over a results tree ("results", callers in
 * this process only) or over configurations swept first ("sweep"). */
int api_energy(const struct api_ctx *ctx, const cJSON *req, struct api_response *r);
int api_carbon(const struct api_ctx *ctx, const cJSON *req, struct api_response *r);
int api_slo(const struct api_ctx *ctx, const cJSON *req, struct api_response *r);
struct loaded_config;
struct npu_err;
struct op_table;
/* A member of req not among members (n of them): answered 400 naming it, the
 * closest and `expected`; whether it was. */
bool api_unknown_member(const cJSON *req, const char *const *members, size_t n, const char *expected,
                        struct api_response *r);
/* /api/validate's and /api/calibrate's request: members measurements, chip,
 * system, set; the measurements into *t, at most ctx->max_rows rows, and
 * the chip loaded into *chip. 0, or -1 with the 400 made in r (nothing to
 * free). */
struct loaded_config;
int api_measurements(const struct api_ctx *ctx, const cJSON *req, struct op_table *t, struct loaded_config *chip,
                     struct api_response *r);
/* The request's model (when need_model), chip, system and "set" overrides
 * loaded as the command line loads them (names only unless ctx->local). */
int api_load_config(const struct api_ctx *ctx, const cJSON *req, bool need_model, struct loaded_config *c,
                    struct npu_err *e);

/* The web page: pick a model, chip and batch, see the run; paste
 * measurements, see the colour-coded error table. */
extern const char serve_page[];

#endif
