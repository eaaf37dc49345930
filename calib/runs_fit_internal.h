/* runs_fit_internal.h — what calib/runs_fit.c (the parameters, the
 * predictions, one nonlinear fit) shares with calib/runs_fit_eval.c (the
 * fit on every row, the cross-validation, leave-one-source-out, the
 * figures). Main data structure: struct rf_engine, the rows' distinct
 * configurations and their last predictions. */
#ifndef NPUSIM_RUNS_FIT_INTERNAL_H
#define NPUSIM_RUNS_FIT_INTERNAL_H

#include "calib/runs_fit.h"

struct rf_cfg {
    const struct run_table *t;
    const struct run_row *r;   /* the first row running it */
    int group;
    struct run_prediction p;   /* its last prediction */
    bool ok;
    char why[256];             /* when not ok */
};
struct rf_engine {
    struct runs_fit *f;
    const struct runs_fit_opts *o;
    struct rf_cfg *cfg;
    int ncfg;
};

/* Sets up the rows, their configurations, the groups and the parameters
 * (f->rows, f->group, f->param); -1 with e. */
int rf_setup(struct rf_engine *g, const struct run_table *tables, int n, struct npu_err *e);
void rf_engine_free(struct rf_engine *g);
/* The number format of row r's GEMMs: its weight_dtype, else its
 * activation_dtype (enum precision; -1: neither stated). */
int rf_row_format(const struct run_row *r);
/* Fits the parameters to the rows with train[i]: val[j] in the field's
 * unit where act[j] (the parameters some training row moved). -1 with e
 * when a run cannot be configured (run_predict's errors). */
int rf_fit(struct rf_engine *g, const bool *train, double *val, bool *act, struct npu_err *e);
/* The rows with want[i] (NULL: all) predicted with the parameters val
 * where act (act NULL: the chips as given): out[i] in the metric's unit,
 * NAN when the run failed (the configuration's why says why). */
int rf_predict(struct rf_engine *g, const double *val, const bool *act, const bool *want, double *out,
               struct npu_err *e);
/* The figures of the rows with which[i] (NULL: all) and a prediction. */
void rf_figures(const struct runs_fit *f, const double *pred, const bool *which, struct runs_fit_figures *fig);

#endif
