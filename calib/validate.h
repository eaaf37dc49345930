/* validate.h — measured operators against npusim's predictions: the error
 * table of `npusim validate` (per operator type, per number format, per
 * bound, overall), as markdown, CSV and JSON.
 *
 * Main data structures: struct validation (the rows, each measurement with
 * its prediction) and struct error_stats (one group's figures). */
#ifndef NPUSIM_VALIDATE_H
#define NPUSIM_VALIDATE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "chipsim/chip.h"
#include "calib/op_table.h"

/* One group's errors. APE: absolute percentage error |pred - meas| / meas. */
struct error_stats {
    int64_t count;
    double mape_pct;          /* mean APE */
    double rmse_us;           /* root mean square of pred - meas */
    double median_ape_pct, max_ape_pct;
    double median_abs_us, max_abs_us;   /* |pred - meas| */
    double bias_pct;          /* mean signed error (pred - meas) / meas: + predicts slow */
    size_t best, worst;       /* rows with the smallest and largest APE */
};

/* The figures of k predictions pred[i] against their measurements meas[i]
 * (each above 0); best and worst are ids[i] of the rows with the smallest
 * and largest APE (the first of equals). rmse_us and the absolute errors
 * are in the unit of the values. Shared by validate --runs (calib/runs.h). */
void error_stats_of(const double *pred, const double *meas, const size_t *ids, size_t k, struct error_stats *s);

struct validation_row {
    const char *file;         /* the measurement file */
    const struct op_row *in;  /* its row (op_predict.h) */
    struct op_prediction p;
    double error_pct;         /* signed: (pred - meas) / meas x 100 */
};

#define VALIDATE_GROUPS_MAX 32
struct error_group {
    char name[32];
    struct error_stats s;
};

struct validation {
    const char *chip;         /* its name, for the reports */
    struct validation_row *rows;
    size_t n;
    struct error_stats overall;
    int n_op, n_dtype, n_bound;
    struct error_group by_op[VALIDATE_GROUPS_MAX], by_dtype[VALIDATE_GROUPS_MAX], by_bound[4];
};

/* Predicts every row of the n tables (from files[i]) on chip and computes
 * the statistics. Every row needs a measured time above 0; -1 with e naming
 * the file and line otherwise, or naming what op_predict refused. */
int validate_run(const struct op_table *tables, const char *const *files, int n, const struct chip_config *chip,
                 const char *chip_name, const struct profile *prof, struct validation *v, struct npu_err *e);
void validation_free(struct validation *v);

/* The reports (malloc'ed text; NULL when out of memory): a markdown page,
 * the merged table (every input column, then predicted_us, error_pct,
 * bound, ran_as, efficiency) and the JSON object (overall, by_op, by_dtype,
 * by_bound, rows). */
char *validation_markdown(const struct validation *v, const struct op_table *tables, int n);
char *validation_csv(const struct validation *v, const struct op_table *tables, int n);
cJSON *validation_json(const struct validation *v);
/* The self-contained HTML page (validate_html.c): the figures, the tables
 * with each MAPE coloured, predicted against measured, roofline_svg (NULL:
 * none) inline, every row. */
char *validation_html(const struct validation *v, const char *roofline_svg);
/* The chip's roofline with every row twice: predicted (circle) and measured
 * (triangle), coloured by operator type (study/view/roofline.h). */
char *validation_roofline(const struct validation *v, const struct chip_config *chip, const char *chip_name);

#endif
