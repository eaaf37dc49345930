/* calibrate.h — a chip's kernel efficiencies fitted to measured operators
 * (`npusim calibrate`).
 *
 * Per kernel class and number format the model is a fixed time plus a
 * scaled roofline, t = t0 + t_roofline / e: linear in (t0, 1/e), fitted on
 * relative residuals (each row divided by its measured time, so a 5 us
 * kernel weighs as much as a 5 ms one) with GSL's robust regression
 * (gsl_multifit_robust, bisquare weights). Groups of fewer than three rows,
 * and fits that come out negative, fall back to e alone (t0 = 0). e is kept
 * in [0.01, 1] (a fit above the roofline is clamped and reported); t0 is
 * one per class (the median of its formats').
 *
 * Main data structure: struct calib_fit, one group's result. */
#ifndef NPUSIM_CALIBRATE_H
#define NPUSIM_CALIBRATE_H

#include <stdbool.h>

#include "chipsim/chip.h"
#include "calib/op_table.h"

struct calib_fit {
    int kernel_class;          /* enum kernel_class */
    int prec;                  /* enum precision asked */
    int n;                     /* rows */
    double e, t0_ns;           /* fitted; t0 before the class's median */
    bool two_params;           /* false: e alone */
    bool clamped;              /* e fitted outside [0.01, 1] */
    double mape_before, mape_after;   /* on these rows, percent */
};

#define CALIB_FITS_MAX (KC_COUNT * PREC_COUNT)

/* Seeded k-fold cross-validation: the error on points the fit never saw,
 * before (the roofline) and after calibration, overall and per operator
 * type. The seed is fixed, so the folds (and the report) are the same on
 * every run. */
#define CALIB_CV_FOLDS 5
#define CALIB_CV_SEED 20261126UL
#define CALIB_CV_OPS 24
struct calib_cv {
    int folds;                 /* 0: too few points */
    int n;
    double mape_before, mape_after;
    int n_op;
    struct { char name[24]; int n; double mape_before, mape_after; } by_op[CALIB_CV_OPS];
};

/* Fits chip's efficiencies to the rows of the n tables (each needs a
 * measured time) and writes the calibrated chip to *out (chip with its
 * kernel_efficiency set for every group measured; the rest as given).
 * fits[0..*nfits) the groups in first-seen order; *cv (NULL: skipped) the
 * cross-validation. -1 with e naming the file and line of a row it cannot
 * use. */
int calibrate_run(const struct op_table *tables, const char *const *files, int n, const struct chip_config *chip,
                  const struct profile *prof, struct chip_config *out, struct calib_fit *fits, int *nfits,
                  struct calib_cv *cv, struct npu_err *e);

#endif
