/* runs_fit.h — the terms a roofline misses, fitted to measured end-to-end
 * LLM inference runs (`npusim calibrate --runs`; docs/validation.md,
 * "Inference").
 *
 * A small set of parameters, each a chip field (or a few tied together):
 * per group of chips sharing a die (the same compute units, peaks and
 * clock: h100 and h200), the GEMM efficiency per number format of the rows
 * (kernel_efficiency.gemm.<fmt>; the class's e_max is the geometric mean of
 * the fitted formats, for a format no row ran), one memory-bound
 * efficiency tied across gemv, elementwise, activation, reduction and
 * softmax (their e_max: the HBM fraction reached), the attention
 * efficiency, and for the rows with tensor parallelism the collectives'
 * bandwidth fraction (kernel_efficiency.collective.e_max: NCCL's bus
 * bandwidth over the links') and the latency of one collective step over
 * the links (ici_latency_ns: NVLink's), and the host time a sequence
 * costs a forward pass (request_overhead_ns: the engine the die's rows ran,
 * vLLM's Python or TensorRT-LLM's C++, spends it very differently); over
 * every chip, the serving framework's host time
 * (step_overhead_ns, layer_overhead_ns) and the launch of a kernel outside
 * a captured graph (kernel_launch_ns). A parameter no training row moves is
 * left as the chip has it. Fitted on relative residuals (pred - meas) /
 * meas, plus one residual per efficiency pulling it to its prior (a
 * published kernel benchmark's figure), by GSL's nonlinear least squares (trust region, a forward-difference
 * Jacobian that re-runs only the configurations a parameter touches), the
 * bounds by transformation (an efficiency e = lo + (hi - lo) logistic(u), a
 * time = scale softplus(u)). Every residual evaluation predicts the rows
 * with calib/runs.h's run_predict, the parameters as --set overrides after
 * the row's own and the caller's; rows sharing a configuration run once.
 * Reported: in-sample errors before and after, a seeded k-fold
 * cross-validation and leave-one-source-out (each source predicted by the
 * fit of the others), per metric and per source.
 *
 * Main data structures: struct runs_fit_param (one parameter, its bounds
 * and value), struct runs_fit_group (chips sharing efficiencies) and struct
 * runs_fit (the fit, every row's predictions and the figures). */
#ifndef NPUSIM_RUNS_FIT_H
#define NPUSIM_RUNS_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "calib/runs.h"

/* The efficiencies first (a fraction in bounds), then the times (ns). */
enum runs_fit_kind { RF_GEMM, RF_MEMORY, RF_ATTENTION, RF_COLLECTIVE, RF_STEP, RF_LAYER, RF_LAUNCH, RF_LINK, RF_REQUEST,
                     RF_KINDS };
static inline bool runs_fit_kind_is_efficiency(enum runs_fit_kind k) { return k <= RF_COLLECTIVE; }

#define RUNS_FIT_GROUPS_MAX 16
#define RUNS_FIT_GROUP_CHIPS 8
#define RUNS_FIT_PARAMS_MAX (RUNS_FIT_GROUPS_MAX * (PREC_COUNT + 6) + 3)
#define RUNS_FIT_FOLDS 5
#define RUNS_FIT_SEED 20261126UL

struct runs_fit_param {
    enum runs_fit_kind kind;
    int group;                 /* its group of chips; -1: every chip (the host times) */
    int prec;                  /* RF_GEMM: the format (enum precision) */
    double lo, hi;             /* bounds, in the field's unit */
    double value;              /* fitted on every row (when fitted) */
    bool fitted;               /* some row moved with it; else the chip's own value stays */
};
/* "gemm fp8_e4m3 e", "memory-bound e", ..., "step_overhead_ns" */
const char *runs_fit_param_name(const struct runs_fit_param *p, char *buf, size_t n);
/* The chip fields it sets: "kernel_efficiency.gemm.fp8_e4m3", ... (NULL-terminated). */
const char *const *runs_fit_param_keys(const struct runs_fit_param *p, char (*buf)[64]);

struct runs_fit_group {
    char name[256];            /* "h100+h200" */
    int nchips;
    char chip[RUNS_FIT_GROUP_CHIPS][256];              /* as the rows name them */
    const struct run_table *table[RUNS_FIT_GROUP_CHIPS]; /* the first naming it (relative paths) */
};

/* The error figures of one set of predictions, per metric and overall
 * (count 0: no row). */
struct runs_fit_figures {
    struct error_stats overall, by_metric[RUN_METRICS];
};
struct runs_fit_row {
    const struct run_table *t;
    const struct run_row *in;
    int group, cfg;
    /* predicted in the metric's unit (NAN: not predicted): the chip as
     * given, the fit on every row, held out in the k-fold cross-validation,
     * held out with its source */
    double before, after, cv, loso;
};
struct runs_fit_source {
    const char *name;
    int n_test, n_train, n_fitted;   /* its rows; the others; parameters the others fitted */
    struct runs_fit_figures held_out;
};

struct runs_fit {
    int nparam, ngroup;
    struct runs_fit_param param[RUNS_FIT_PARAMS_MAX];
    struct runs_fit_group group[RUNS_FIT_GROUPS_MAX];
    struct runs_fit_row *rows;
    size_t n;
    struct runs_fit_figures before, after, cv, loso;
    int folds;                       /* of the cross-validation (0: too few rows) */
    double prior_weight;             /* runs_fit_opts.prior_weight */
    int n_source;
    struct runs_fit_source *source;
    int fits;                        /* nonlinear fits made */
    long predictions;                /* runs predicted */
    double seconds, seconds_first;   /* all of it; the fit on every row */
};

/* The priors' weight calibrate --runs uses: an efficiency one prior
 * standard deviation from its prior mean costs as much as one row 10% off. */
#define RUNS_FIT_PRIOR_WEIGHT 0.1

struct runs_fit_opts {
    struct run_predict_opts predict;   /* where names resolve, the caller's --set, the profile */
    bool cross_validate;               /* k-fold and leave-one-source-out (else the fit alone) */
    double prior_weight;               /* each efficiency's prior, weighted so (0: no priors) */
};

/* The prior of an efficiency from published kernel benchmarks
 * (docs/validation.md, "Priors"): the one measured on a chip of its group,
 * else its class's; its mean and standard deviation. false for a host time
 * (no prior). */
struct runs_fit;
bool runs_fit_prior(const struct runs_fit *f, const struct runs_fit_param *p, double *mean, double *sd);

/* Fits the parameters to every row of the n tables, then (o->cross_validate)
 * the held-out figures. -1 with e naming the file and line of a row no run
 * can predict (a model that is not LLM inference, a run that fails, out of
 * memory) or anything run_predict refuses; and when the profile has no
 * kernel efficiencies (neusim). Free with runs_fit_free. */
int runs_fit_run(const struct run_table *tables, int n, const struct runs_fit_opts *o, struct runs_fit *f,
                 struct npu_err *e);
void runs_fit_free(struct runs_fit *f);

/* The overrides that make group g's chips calibrated (KEY=VALUE, at most
 * max of them, each up to 128 characters): the fitted parameters of the
 * group and of every chip. Their count. */
int runs_fit_sets(const struct runs_fit *f, int g, char (*sets)[128], int max);

/* The report (calib/runs_fit_report.c; malloc'ed): plain text (md false)
 * or markdown, and the JSON object (parameters with bounds, figures, the
 * sources held out, rows). */
char *runs_fit_text(const struct runs_fit *f, bool md);
cJSON *runs_fit_json(const struct runs_fit *f);

#endif
