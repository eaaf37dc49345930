/* fleet.c — POST /api/fleet: a fleet file's tree (docs/fleet.md) in
 * the request, its annual energy and carbon out (the fleet.json `npusim
 * fleet` writes, and its table as text), by the fleet stage's fleet_run
 * (study/stages/fleet_stage.h). Bounded like a sweep: at most --max-points
 * deployments, --time-limit checked between them (503); for a server,
 * models, chips and strategies are names only, checked on the parsed
 * deployments before any is simulated. No data structure of its own. */
#define _DEFAULT_SOURCE  /* open_memstream on glibc */
#include "api/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serving/serving.h"
#include "study/stages/stages.h"

/* A server's deployments name configs, never paths. */
static const char *bad_name(const struct fleet_deployment *d, int n)
{
    for (int i = 0; i < n; i++)
        if (!api_name_ok(d[i].model) || !api_name_ok(d[i].chip) || (d[i].site.pg[0] && !api_name_ok(d[i].site.pg)))
            return "fleet: deployments name models, chips and strategies by name, not by path";
    return NULL;
}

/* The request's deployments, parsed to be checked before the stage
 * simulates any: 0, or the answer's status with msg (n bytes) saying why. */
static int refused(const struct api_ctx *ctx, const cJSON *req, char *msg, size_t n)
{
    struct fleet_deployment *d = NULL;
    struct npu_err e;
    int nd = 0;
    if (fleet_parse(req, "fleet", &d, &nd, &e)) {
        free(d);
        snprintf(msg, n, "%s", e.msg);
        return 400;
    }
    const char *bad = ctx->local ? NULL : bad_name(d, nd);
    free(d);
    if (bad)
        snprintf(msg, n, "%s", bad);
    else if (nd > ctx->max_points)
        snprintf(msg, n, "fleet: %d deployments; expected at most %ld", nd, ctx->max_points);
    return bad || nd > ctx->max_points ? 400 : 0;
}

int api_fleet(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    struct npu_err e;
    char msg[sizeof e.msg + 200];
    int status = refused(ctx, req, msg, sizeof msg);
    if (status)
        return api_reply_error(r, status, msg);
    struct fleet_request fr = fleet_request_default();
    fr.serving = serving_fleet_estimate;
    fr.tree = req;
    fr.name = "fleet";
    fr.configs = ctx->configs;
    fr.only_configs = ctx->only_configs;
    fr.prof = ctx->prof;
    fr.deadline_s = api_deadline(ctx);
    struct stage_io io = stage_io_none();
    struct fleet_done done;
    if (fleet_run(&fr, &io, &done, &e)) {
        status = done.late ? 503 : 400;
        snprintf(msg, sizeof msg, "%s%s", e.msg, done.late ? " (npusim serve --time-limit)" : "");
        fleet_done_free(&done);
        return api_reply_error(r, status, msg);
    }
    cJSON *j = fleet_json(done.d, done.n, &done.total, ctx->prof, NULL);
    char *table = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&table, &len);
    if (m) {
        fleet_print_table(done.d, done.n, &done.total, m);
        fclose(m);
    }
    cJSON_AddStringToObject(j, "table", table ? table : "");
    free(table);
    fleet_done_free(&done);
    return api_reply_json(r, 200, j);
}
