/* sweep_serving.c — `npusim sweep --spec SPEC.json` for a spec of
 * "workload": "serving" (serving/sweep.h): every point a serving run, the
 * summary CSV (--summary, written atomically), a table of the points and the
 * row --select picks at the SLO. No data structure of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sweep_serving.h"
#include "serving/serving.h"

static void print_row(const struct serving_sweep *w, const struct serving_sweep_row *r)
{
    printf("  %-12s %-8s", r->model, r->chip);
    const cJSON *k;
    size_t q = 0;
    cJSON_ArrayForEach(k, w->knobs)
        printf(" %s=%s", k->string, r->value[q++]);
    if (strcmp(r->status, "ok"))
        printf("  refused: %s\n", r->message);
    else
        printf("  %.0f chip%s, %.3g req/s, TTFT p99 %.4g ms, TPOT p99 %.4g ms, %.4g J/request%s%s\n", r->chips,
               r->chips == 1 ? "" : "s", r->throughput_rps, r->ttft_p99_ms, r->tpot_p99_ms, r->energy_per_request_J,
               w->slo.n ? (r->meets ? ", meets the SLO" : ", misses the SLO") : "",
               r->above_capacity ? ", above capacity (its latencies grow with the run)" : "");
}

int sweep_serving(const char *spec, const char *summary, const char *slo, const char *select,
                  const struct shared_opts *sh)
{
    struct serving_sweep w;
    struct npu_err e;
    if (serving_sweep_load(spec, slo, select, &w, &e))
        return usage_error("sweep", "%s", e.msg);
    struct serving_sweep_row *rows = NULL;
    long pick = -1;
    int rc = serving_sweep_run(&w, sh->configs, sh->prof, &rows, &pick, &e) ? report_error("sweep", &e) : 0;
    if (!rc && summary) {
        char *csv = serving_sweep_csv(&w, rows, w.points);
        rc = !csv || atomic_write_string(summary, csv, &e) ? report_error("sweep", &e) : 0;
        free(csv);
    }
    if (!rc) {
        printf("npusim sweep: %zu serving runs of %s\n", w.points, spec);
        for (size_t i = 0; i < w.points; i++)
            print_row(&w, &rows[i]);
        static const char *const by[] = { "", "the fewest chips", "the least energy per request",
                                           "the least carbon per request" };
        if (w.select != SELECT_NONE && pick >= 0) {
            printf("selected (%s meeting the SLO):\n", by[w.select]);
            print_row(&w, &rows[pick]);
        } else if (w.select != SELECT_NONE)
            printf("selected: none; no point meets the SLO at a rate its replicas keep up with\n");
        if (summary)
            printf("  summary       %s\n", summary);
        rc = stdout_flushed("sweep");
    }
    free(rows);
    serving_sweep_free(&w);
    return rc;
}
