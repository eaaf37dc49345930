/* calibrate.h — a chip's kernel efficiencies fitted to measured operators
 * (`npusim calibrate`).
 *
 * Per kernel class, over its number formats f, the model is a fixed time
 * plus a scaled roofline, t = t0 + x / e_f (x: the roofline time on the chip
 * without efficiencies): linear in (t0, 1/e_f...), fitted jointly (one t0
 * per class, as the chip has it; one e per format) on relative residuals
 * (each row divided by its measured time, so a 5 us kernel weighs as much
 * as a 5 ms one) with GSL's robust regression (gsl_multifit_robust,
 * bisquare weights). Where it fits better (in-sample MAPE at least 10%
 * lower) the saturating curve replaces it: e_f n / (n + n_half), n the
 * kernel's size (chipsim_op_kernel_size), t = t0 + x / e_f (1 + n_half / n),
 * fitted by GSL's nonlinear least squares (gsl_multifit_nlinear, trust
 * region) from the linear fit. Fewer parameters when there are few rows:
 * the curve needs formats + 3 rows and sizes spanning 4x, the line formats
 * + 2; below that, or when a fit comes out negative, e alone per format
 * (t0 = 0). e is kept in [0.01, 1] (a fit above the roofline is clamped and
 * reported).
 *
 * Main data structure: struct calib_fit, one group's result. */
#ifndef NPUSIM_CALIBRATE_H
#define NPUSIM_CALIBRATE_H

#include <stdbool.h>

#include "chipsim/chip.h"
#include "calib/op_table.h"

enum calib_model { CALIB_E_ALONE, CALIB_LINEAR, CALIB_SATURATING };

struct calib_fit {
    int kernel_class;          /* enum kernel_class */
    int prec;                  /* enum precision asked */
    int n;                     /* rows */
    double e;                  /* this format's */
    double t0_ns, n_half;      /* its class's (n_half 0 unless saturating) */
    enum calib_model model;    /* its class's */
    bool clamped;              /* e fitted outside [0.01, 1] */
    double mape_before, mape_after;   /* on these rows, percent */
};
/* "x/e", "t0 + x/e", "saturating". */
const char *calib_model_name(enum calib_model m);

#define CALIB_FITS_MAX (KC_COUNT * PREC_COUNT)

/* Seeded k-fold cross-validation, repeated: the error on points the fit
 * never saw, before (the roofline) and after calibration, overall and per
 * operator type and format, over CALIB_CV_REPEATS shuffles into
 * CALIB_CV_FOLDS folds. The seed is fixed, so the folds (and the report) are
 * the same on every run. */
#define CALIB_CV_FOLDS 5
#define CALIB_CV_REPEATS 10
#define CALIB_CV_SEED 20261126UL
#define CALIB_CV_OPS 48
struct calib_cv {
    int folds;                 /* 0: too few points */
    int n;
    double mape_before, mape_after;
    int n_op;                  /* by operator type and number format: name "gemm fp32" */
    struct { char name[32]; int n; double mape_before, mape_after; } by_op[CALIB_CV_OPS];
};

/* Fits chip's efficiencies to the rows of the n tables (each needs a
 * measured time) and writes the calibrated chip to *out (chip with its
 * kernel_efficiency set for every group measured; the rest as given).
 * fits[0..*nfits) the groups in first-seen order; *cv (NULL: skipped) the
 * cross-validation. -1 with e naming the file and line of a row it cannot
 * use; CALIB_LATE with e when the clock passed deadline_s (CLOCK_MONOTONIC
 * seconds, 0: none), checked between the fits of the cross-validation (the
 * first fit is 1 of 1 + CALIB_CV_REPEATS x CALIB_CV_FOLDS: they take about
 * the same time). */
#define CALIB_LATE (-2)
int calibrate_run(const struct op_table *tables, const char *const *files, int n, const struct chip_config *chip,
                  const struct profile *prof, double deadline_s, struct chip_config *out, struct calib_fit *fits,
                  int *nfits, struct calib_cv *cv, struct npu_err *e);

#endif
