/* runs.h — measured end-to-end LLM inference runs against npusim's
 * predictions (`npusim validate --runs`; the file format and how each metric
 * is predicted: docs/validation.md, "End-to-end runs"). The reader is strict
 * like op_table.h: file, line and column in every message. A row is
 * predicted by the pipeline `npusim run` runs (study/run/run.h) on one model
 * instance, its TTFT and TPOT taken from the LLM statistics; a row that
 * cannot be predicted (not an LLM inference model, a run that fails, out of
 * memory) stays in the table with its reason and out of the statistics.
 *
 * Main data structures: struct run_table (one file's rows, struct run_row,
 * the unknown columns kept) and struct run_validation (each row with its
 * prediction or its reason, and the error statistics per metric, source and
 * chip, calib/validate.h's struct error_stats). */
#ifndef NPUSIM_RUNS_H
#define NPUSIM_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "calib/validate.h"
#include "study/run/run.h"

enum run_metric { RUN_TTFT_MS, RUN_TPOT_MS, RUN_DECODE_STEP_MS, RUN_E2E_LATENCY_MS, RUN_THROUGHPUT_TPS, RUN_METRICS };
/* "ttft_ms", ..., "throughput_tokens_per_s" */
const char *run_metric_name(enum run_metric m);

/* The known columns, in the order the merged CSV report lists them. */
enum run_col {
    RC_ID, RC_SOURCE, RC_METRIC, RC_MEASURED, RC_CHIP, RC_MODEL, RC_TP, RC_PP, RC_EP, RC_DP, RC_BATCH,
    RC_INPUT_LEN, RC_OUTPUT_LEN, RC_WDTYPE, RC_ADTYPE, RC_KVDTYPE, RC_SETS, RC_CONDITIONS, RUN_COLS
};
extern const char *const run_col_name[RUN_COLS];

#define RUN_ROW_EXTRA_MAX 32
struct run_row {
    char *cell[RUN_COLS];             /* each known column's text as read (NULL: not in the header) */
    char *extra[RUN_ROW_EXTRA_MAX];   /* the other columns' cells, as read */
    enum run_metric metric;
    double measured;                  /* in the metric's unit */
    int64_t tp, pp, ep, dp, batch, input_len, output_len;   /* the degrees default to 1 */
    int line;                         /* the row's last line in the file */
};
struct run_table {
    char *name;                       /* the file as given ("<stdin>" for "-") */
    struct run_row *rows;
    size_t n, cap;
    int n_extra;
    char *extra_name[RUN_ROW_EXTRA_MAX];
};

/* Reads path ("-": standard input, named "<stdin>") into t (empty it with
 * run_table_free); -1 with e naming the file, the line and the column. */
int run_table_read(const char *path, struct run_table *t, struct npu_err *e);
/* The same from text in memory (buf[0..len), NUL-terminated), named name. */
int run_table_parse(const char *name, const char *buf, size_t len, struct run_table *t, struct npu_err *e);
void run_table_free(struct run_table *t);
/* A known cell's text ("" when the column is absent). */
const char *run_cell(const struct run_row *r, enum run_col c);

/* How rows are predicted: where names resolve, overrides applied to every
 * row after its own (NULL, 0: none), the behaviour profile. */
struct run_predict_opts {
    const char *configs_dir;
    const char *const *sets;
    int nsets;
    const struct profile *prof;
};
/* What the LLM statistics of one instance say: TTFT_sec of *_prefill.json,
 * TPOT_ms_request of *_decode.json (as `npusim run` writes them). */
struct run_prediction {
    double ttft_sec, tpot_ms;
};
/* The metric of row r from a prediction (docs/validation.md): ttft_ms =
 * TTFT x 1000, tpot_ms = decode_step_ms = TPOT, e2e_latency_ms = TTFT x 1000
 * + (output_len - 1) x TPOT, throughput = dp x batch x output_len over the
 * end-to-end latency in seconds. */
double run_metric_value(const struct run_row *r, const struct run_prediction *p);
/* Predicts row r of table t: 0 with *p; 1 with why (the row's error: a
 * model no LLM inference family simulates, a run that fails, out of
 * memory); -1 with e naming the file, line and column (a chip or model not
 * there, a value the configs refuse). */
int run_predict(const struct run_table *t, const struct run_row *r, const struct run_predict_opts *o,
                struct run_prediction *p, char *why, size_t whylen, struct npu_err *e);

/* A chip or model cell as config_load takes it: a relative path relative to
 * the runs file's folder (standard input's: the current one). */
void run_config_name(const struct run_table *t, const char *cell, char *out, size_t n);
/* Whether row a of ta and row b of tb run the same configuration (chip,
 * model, degrees, batch, lengths, formats, sets: one run serves both). */
bool run_same_config(const struct run_table *ta, const struct run_row *a, const struct run_table *tb,
                     const struct run_row *b);

struct run_result {
    const struct run_table *t;
    const struct run_row *in;
    bool ok;                          /* predicted; else why says what failed */
    struct run_prediction p;
    double predicted;                 /* in the metric's unit */
    double error_pct;                 /* signed: (pred - meas) / meas x 100 */
    char why[512];
};
struct run_group {
    const char *name;                 /* the metric, source or chip as in the rows */
    int64_t errors;                   /* rows of the group that could not be predicted */
    struct error_stats s;             /* the predicted rows (best, worst: indices into rows) */
};
struct run_validation {
    struct run_result *rows;
    size_t n, n_errors;
    struct run_group overall;
    struct run_group *by_metric, *by_source, *by_chip;
    int n_metric, n_source, n_chip;
};

/* Predicts every row of the n tables (a configuration shared by rows is run
 * once) and computes the statistics; -1 with e as run_predict's. */
int runs_validate(const struct run_table *tables, int n, const struct run_predict_opts *o, struct run_validation *v,
                  struct npu_err *e);
void run_validation_free(struct run_validation *v);

/* The reports (calib/runs_report.c; malloc'ed, NULL when out of memory): a
 * markdown page, the merged table (every input column, then predicted,
 * error_pct and error) and the JSON object (overall, by_metric, by_source,
 * by_chip, rows). */
char *run_validation_markdown(const struct run_validation *v);
char *run_validation_csv(const struct run_validation *v, const struct run_table *tables, int n);
cJSON *run_validation_json(const struct run_validation *v);

#endif
