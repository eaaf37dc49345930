/* calibrate.c — POST /api/calibrate: measured kernels in, the chip
 * with its kernel efficiencies fitted to them out (npusim calibrate): the
 * calibrated chip config as JSON (usable as a chip config as it is), the
 * fit per kernel class and format, and the held-out errors of the seeded
 * cross-validation. The fit and its folds are the command line's. Bounded:
 * at most --max-rows rows (api_measurements), and a calibration still
 * fitting its folds after --time-limit stops with 503. No data structure of
 * its own. */
#include "api/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calibrate.h"
#include "calib/op_table.h"
#include "study/run/run.h"
#include "traces/fields.h"
#include "traces/precision.h"
#include "base/version.h"

static cJSON *fits_json(const struct calib_fit *f, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "class", kernel_class_name((enum kernel_class)f[i].kernel_class));
        cJSON_AddStringToObject(o, "format", precision_info((enum precision)f[i].prec)->name);
        cJSON_AddNumberToObject(o, "rows", f[i].n);
        cJSON_AddNumberToObject(o, "e", f[i].e);
        cJSON_AddNumberToObject(o, "t0_us", f[i].t0_ns / 1e3);
        cJSON_AddNumberToObject(o, "n_half", f[i].n_half);
        cJSON_AddStringToObject(o, "fit", f[i].clamped ? "clamped" : calib_model_name(f[i].model));
        cJSON_AddNumberToObject(o, "mape_before_pct", f[i].mape_before);
        cJSON_AddNumberToObject(o, "mape_after_pct", f[i].mape_after);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *cv_json(const struct calib_cv *cv)
{
    cJSON *o = cJSON_CreateObject(), *by = cJSON_AddArrayToObject(o, "by_op");
    cJSON_AddNumberToObject(o, "folds", cv->folds);
    cJSON_AddNumberToObject(o, "repeats", cv->folds ? CALIB_CV_REPEATS : 0);
    cJSON_AddNumberToObject(o, "rows", cv->n);
    cJSON_AddNumberToObject(o, "mape_roofline_pct", cv->mape_before);
    cJSON_AddNumberToObject(o, "mape_calibrated_pct", cv->mape_after);
    for (int i = 0; i < cv->n_op; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "op", cv->by_op[i].name);
        cJSON_AddNumberToObject(r, "rows", cv->by_op[i].n);
        cJSON_AddNumberToObject(r, "mape_roofline_pct", cv->by_op[i].mape_before);
        cJSON_AddNumberToObject(r, "mape_calibrated_pct", cv->by_op[i].mape_after);
        cJSON_AddItemToArray(by, r);
    }
    return o;
}

int api_calibrate(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    if (ctx->prof->chip_precisions_ignored)
        return api_reply_error(r, 400, "the neusim profile has no kernel efficiencies to fit (use physical)");
    struct loaded_config c;
    struct npu_err e;
    struct op_table t;   /* "measurements": CSV or twin text, or the twin's list of records */
    const char *name = "measurements";
    if (api_measurements(ctx, req, &t, &c, r))
        return 0;
    double deadline = api_deadline(ctx);
    struct calib_fit *fits = calloc(CALIB_FITS_MAX, sizeof *fits);
    struct calib_cv *cv = calloc(1, sizeof *cv);
    struct chip_config cal;
    int nfits = 0;
    int rc = !fits || !cv ? npu_errf(&e, "out of memory")
                          : calibrate_run(&t, &name, 1, &c.chip, ctx->prof, deadline, &cal, fits, &nfits, cv, &e);
    op_table_free(&t);
    if (rc) {
        free(fits), free(cv);
        config_free(&c);
        if (rc == CALIB_LATE)   /* as a sweep past the limit */
            strncat(e.msg, " (npusim serve --time-limit)", sizeof e.msg - strlen(e.msg) - 1);
        return api_reply_error(r, rc == CALIB_LATE ? 503 : 400, e.msg);
    }
    snprintf(cal.calibration_source, sizeof cal.calibration_source, "npusim %s calibrate (API, profile %s) of %s",
             NPUSIM_VERSION, ctx->prof->name, c.chip_name);
    cJSON *j = cJSON_CreateObject(), *chip = cJSON_AddObjectToObject(j, "chip");
    fields_to_json(&chip_fields, &cal, chip, true);
    cJSON_AddItemToObject(j, "fits", fits_json(fits, nfits));
    cJSON_AddItemToObject(j, "cross_validation", cv_json(cv));
    free(fits), free(cv);
    config_free(&c);
    return api_reply_json(r, 200, j);
}
