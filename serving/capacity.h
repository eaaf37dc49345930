/* capacity.h — a serving SLO, and the highest request rate that meets it.
 *
 * An SLO is comma-separated bounds KEY=VALUE, each above 0:
 *   ttft_ms=X, tpot_ms=Y     every request's own bounds: goodput counts the
 *                            completed requests within both;
 *   METRIC_STAT_UNIT=X       a bound on one statistic of the run: METRIC
 *                            ttft, tpot or itl (unit ms), e2e or queue (unit
 *                            s); STAT p50, p90, p95, p99, mean or max; e.g.
 *                            ttft_p99_ms=500,tpot_p99_ms=50.
 * The search (serving_find_rate) needs at least one statistic bound.
 *
 * The search runs the spec at rate after rate, with its seed: the same
 * lengths, and arrivals that scale with 1 / rate (Poisson, gamma and
 * constant gaps alike), so the runs differ only by the rate. From
 * start_rps (0: half the rate its requests are served at when they all
 * arrive at once, one run) it doubles (or halves, ten times at most: an
 * SLO missed at 1/1024 of it is missed without load) until it brackets
 * the SLO, then
 * bisects until the bracket is within `tolerance` of its low end: the
 * answer is a rate that meets the SLO, less than tolerance below the
 * lowest rate found to miss it. The step models are reused from run to run
 * (simulate.h, struct serving_steps), and a run stops as soon as enough
 * requests exceed a percentile or maximum bound that its statistic must
 * (the count is derived in capacity.c). Latency grows with the rate in
 * queueing; where a schedule's quirk makes it fall locally, bisection
 * finds one crossing, not necessarily the highest.
 *
 * Main data structures: struct serving_slo and struct serving_find_result. */
#ifndef NPUSIM_SERVING_CAPACITY_H
#define NPUSIM_SERVING_CAPACITY_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "serving/simulate.h"

#define SERVING_SLO_MAX 8

struct serving_slo_bound {
    char key[32];                  /* as given, e.g. "ttft_p99_ms" */
    const char *metric, *stat;     /* summary.json's object and key, e.g. "ttft_ms", "p99" */
    double limit;
};

struct serving_slo {
    double ttft_ms, tpot_ms;       /* per-request bounds (0: none) */
    struct serving_slo_bound b[SERVING_SLO_MAX];
    int n;
};

/* Parses text into *slo; -1 with why (what was expected) otherwise. */
int serving_slo_parse(const char *text, struct serving_slo *slo, char *why, size_t whylen);
/* The bound's value in a summary (NAN when it has none, e.g. no TPOT). */
double serving_slo_value(const struct serving_slo_bound *b, const cJSON *summary);
/* Every statistic bound met (a NAN statistic meets it: nothing measured). */
bool serving_slo_met(const struct serving_slo *slo, const cJSON *summary);

#define SERVING_FIND_TRIALS 80

struct serving_rate_trial {
    double rate_rps;
    bool meets;
    bool stopped;                      /* stopped once the SLO was missed for certain */
    int missed;                        /* the first bound missed (-1: none) */
    double value[SERVING_SLO_MAX];     /* each bound's statistic at that rate (NAN: stopped) */
    double throughput_rps, output_tokens_per_s;   /* served (NAN: stopped) */
};

struct serving_find_result {
    bool found;                        /* some rate met the SLO */
    bool unbounded;                    /* every rate tried met it (the highest is reported) */
    double max_rate_rps, max_rate_rps_per_chip, tolerance;
    int n;
    struct serving_rate_trial trials[SERVING_FIND_TRIALS];
};

/* Searches (see above); *at_max gets the summary of the run at the rate
 * found with a "find_rate" object (serving_find_json), or that object
 * alone when no rate met the SLO. The spec's out_dir is written by the run
 * at the rate found alone, its summary.json with the object. -1 with e on
 * a simulation's error. */
int serving_find_rate(const struct serving_spec *s, const struct serving_slo *slo, double tolerance, double start_rps,
                      struct serving_find_result *r, cJSON **at_max, struct npu_err *e);
/* The result as summary.json's "find_rate" object. */
cJSON *serving_find_json(const struct serving_find_result *r, const struct serving_slo *slo);

#endif
