/* summary.h — what a serving run measures as it goes (per-request latencies,
 * inter-token gaps, token counts) and the summary it makes of them: the
 * keys of summary.json (docs/serving.md defines each).
 *
 * Metric definitions, those of vLLM's benchmark_serving: TTFT = first token
 * - arrival; TPOT = (end to end - TTFT) / (output tokens - 1), over requests
 * of two tokens or more; ITL = every gap between two tokens of a request;
 * end to end = finish - arrival; queue = first scheduled - arrival;
 * goodput = completed requests within the SLO per second.
 *
 * Main data structure: struct serving_collect. */
#ifndef NPUSIM_SERVING_SUMMARY_H
#define NPUSIM_SERVING_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include <stdio.h>

#include "serving/engine.h"

struct dvec { double *v; size_t n, cap; };

struct serving_collect {
    struct dvec ttft_ms, tpot_ms, e2e_s, queue_s, itl_ms;
    struct dvec arrival_s, finish_s;   /* the measured requests' (in_system_growth) */
    int64_t *itl_w;                  /* weights of itl_ms (one per value) */
    /* every request in record order (requests.csv's rows): its passes'
     * energy share and its time in the system (0 when rejected) */
    struct dvec row_pass_J, row_e2e_s;
    double e2e_sum_s;
    size_t itl_wcap;
    int64_t requests, completed, rejected, good;
    int64_t input_tokens, output_tokens;   /* of the completed requests */
    /* The first warmup requests (by id) count in the requests, their
     * energy and the totals above, but in no latency, goodput or
     * throughput figure: those are of the measured requests, over the time
     * from the first one's arrival to the last one's end (0: every request,
     * over the whole run). */
    int64_t warmup;
    int64_t m_completed, m_input_tokens, m_output_tokens;
    int64_t m_start_ns, m_end_ns;          /* -1: none yet */
    double slo_ttft_ms, slo_tpot_ms;
    bool oom;
};

void collect_init(struct serving_collect *c, double slo_ttft_ms, double slo_tpot_ms, int64_t warmup);
void collect_free(struct serving_collect *c);
void collect_request(struct serving_collect *c, const struct serving_record *r);
void collect_itl(struct serving_collect *c, int64_t gap_ns, int64_t n);

/* The summary object (provenance and the run's extra keys added by the caller). */
cJSON *collect_summary(struct serving_collect *c, const struct serving_totals *t, int64_t chips);

/* A number of a summary: its key `key`, in the summary itself (object
 * NULL) or in its object `object` (a latency's {mean,p50,...}, "setting",
 * "carbon", "pg"); NAN when there is none. */
double serving_summary_num(const cJSON *summary, const char *object, const char *key);
/* The summary's above_capacity (false when it has none). */
bool serving_summary_above_capacity(const cJSON *summary);

/* The summary as a table, for a person. */
void serving_summary_print(const cJSON *summary, FILE *out);

#endif
