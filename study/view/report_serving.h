/* report_serving.h — a serving run's folder (`npusim serving -o DIR`) as one
 * self-contained HTML page (`npusim report DIR`): the summary (requests,
 * throughput, the latency percentiles, energy, power and carbon per
 * request, power gating against NoPG, the rate --find-rate found) and four
 * figures: the latency CDFs (TTFT, TPOT, end to end), tokens per pass and
 * KV-cache use over time (means and maxima over 300 slices of the run), and
 * the CDF of the requests' energy.
 *
 * The files are read by their columns' names (requests.csv, iterations.csv)
 * and keys (summary.json); a malformed one is an error naming the file and
 * line. No data structure of its own beyond the parsed columns. */
#ifndef NPUSIM_REPORT_SERVING_H
#define NPUSIM_REPORT_SERVING_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

enum { SERVING_FIG_LATENCY, SERVING_FIG_BATCH, SERVING_FIG_KV, SERVING_FIG_ENERGY, SERVING_FIG_COUNT };
/* "latency_cdf", "batch_over_time", "kv_over_time", "energy_cdf" */
extern const char *const serving_figure_name[SERVING_FIG_COUNT];

/* Whether dir holds a serving run's three files. */
bool serving_dir_is(const char *dir);

/* The page of the three files' texts (names for messages: the files'
 * paths); fig[k] each figure (free each). NULL with e on a malformed file. */
char *serving_report_html(const char *title, const char *summary, size_t ns, const char *summary_name,
                          const char *requests, size_t nr, const char *requests_name, const char *iterations,
                          size_t ni, const char *iterations_name, char *fig[SERVING_FIG_COUNT], struct npu_err *e);

#endif
