/* sweep.h — a sweep of serving runs (`npusim sweep --spec` with
 * "workload": "serving"): models x chips x the cartesian product of the
 * serving knobs' lists (rate, replicas, tp, scheduler, token budget, ...),
 * each point one `npusim serving` run, one summary row each; and the
 * selection of the row that meets an SLO with the fewest chips, the least
 * energy per request or the least carbon per request.
 *
 * The spec: {"workload": "serving", "models": [...], "chips": [...],
 * "serving": {KNOB: value or [values], ...}, "slo": "ttft_p99_ms=...",
 * "select": "fewest_chips" | "energy" | "carbon"}. KNOB is a key of POST
 * /api/serving (serving/request.h: rate, requests, lengths, seed,
 * scheduler, max_num_batched_tokens, replicas, ...) or "tp", "pp", "ep".
 * Points run in spec order (the last knob varies fastest), each checked as
 * the command checks its options; a point the model cannot serve (it does
 * not fit, say) is a row with status "refused" and the reason.
 *
 * Main data structures: struct serving_sweep (the parsed spec) and struct
 * serving_sweep_row. */
#ifndef NPUSIM_SERVING_SWEEP_H
#define NPUSIM_SERVING_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "serving/capacity.h"
#include "traces/profile.h"

#define SERVING_SWEEP_MAX_POINTS 10000

enum serving_select { SELECT_NONE, SELECT_FEWEST_CHIPS, SELECT_ENERGY, SELECT_CARBON };

struct serving_sweep {
    cJSON *spec;                       /* the spec's tree (owned) */
    const cJSON *models, *chips, *knobs;
    struct serving_slo slo;
    enum serving_select select;
    size_t points;
};

#define SERVING_SWEEP_MAX_KNOBS 24

struct serving_sweep_row {
    char model[128], chip[128];
    char value[SERVING_SWEEP_MAX_KNOBS][48];   /* each knob's value at this point, in the spec's order */
    char status[16];                   /* ok, refused */
    char message[400];
    double chips, throughput_rps, output_tokens_per_s, ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, tpot_p99_ms;
    double e2e_p99_s, energy_per_request_J, carbon_per_request_g;
    bool meets;                        /* every statistic bound of the SLO (true without one) */
    bool above_capacity;               /* the run's above_capacity: never selected */
};

/* Reads and checks the spec (errors name the file and the key); slo and
 * select override the spec's (NULL: the spec's). -1 with e. */
int serving_sweep_load(const char *path, const char *slo, const char *select, struct serving_sweep *w,
                       struct npu_err *e);
void serving_sweep_free(struct serving_sweep *w);

/* Runs every point; rows (malloc'ed, w->points of them) and the selected
 * row's index (-1: none meets the SLO, or no selection). -1 with e on an
 * error that is not a point's (out of memory, interrupted). */
int serving_sweep_run(const struct serving_sweep *w, const char *configs, const struct profile *prof,
                      struct serving_sweep_row **rows, long *selected, struct npu_err *e);

/* The rows as CSV text (malloc'ed): model, chip, a column per knob, status,
 * chips, the figures, meets_slo, message. */
char *serving_sweep_csv(const struct serving_sweep *w, const struct serving_sweep_row *rows, size_t n);
/* Whether the file is a serving sweep's spec ("workload": "serving"); a
 * pipe or FIFO never is (a serving spec is a file). */
bool serving_sweep_is(const char *path);

#endif
