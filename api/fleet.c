/* fleet.c — POST /api/fleet: a fleet file's tree (docs/fleet.md) in
 * the request, its annual energy and carbon out (the fleet.json `npusim
 * fleet` writes, and its table as text). Bounded like a sweep: at most
 * --max-points deployments, --time-limit checked between them (503); for a
 * server, models, chips and strategies are names only. No data structure
 * of its own. */
#define _DEFAULT_SOURCE  /* open_memstream on glibc */
#include "api/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/stages/fleet_stage.h"
#include "base/clock.h"

/* A server's deployments name configs, never paths. */
static const char *bad_name(const struct fleet_deployment *d, int n)
{
    for (int i = 0; i < n; i++)
        if (!api_name_ok(d[i].model) || !api_name_ok(d[i].chip) || (d[i].site.pg[0] && !api_name_ok(d[i].site.pg)))
            return "fleet: deployments name models, chips and strategies by name, not by path";
    return NULL;
}

int api_fleet(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    struct fleet_deployment *d = NULL;
    struct npu_err e;
    int n = 0;
    if (fleet_parse(req, "fleet", &d, &n, &e)) {
        free(d);
        return api_reply_error(r, 400, e.msg);
    }
    const char *bad = ctx->local ? NULL : bad_name(d, n);
    char msg[sizeof e.msg + 200];
    if (!bad && n > ctx->max_points)
        snprintf(msg, sizeof msg, "fleet: %d deployments; expected at most %ld", n, ctx->max_points), bad = msg;
    if (bad) {
        free(d);
        return api_reply_error(r, 400, bad);
    }
    double deadline = api_deadline(ctx);
    for (int i = 0; i < n; i++) {
        int late = deadline > 0 && i > 0 && clock_monotonic_s() > deadline;
        if (late || fleet_evaluate(ctx->configs, ctx->only_configs, ctx->prof, &d[i], &e)) {
            if (late)
                snprintf(msg, sizeof msg, "the time limit was reached after %d deployments (npusim serve --time-limit)", i);
            else
                snprintf(msg, sizeof msg, "fleet: deployments[%d] (\"%s\"): %s", i, d[i].name, e.msg);
            free(d);
            return api_reply_error(r, late ? 503 : 400, msg);
        }
    }
    struct fleet_out tot;
    fleet_total(d, n, &tot);
    cJSON *j = fleet_json(d, n, &tot, ctx->prof, NULL);
    char *table = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&table, &len);
    if (m) {
        fleet_print_table(d, n, &tot, m);
        fclose(m);
    }
    cJSON_AddStringToObject(j, "table", table ? table : "");
    free(table);
    free(d);
    return api_reply_json(r, 200, j);
}
