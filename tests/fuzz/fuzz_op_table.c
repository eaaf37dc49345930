/* fuzz_op_table.c — measurement files (`npusim op --csv`): the strict CSV
 * reader, then every row it accepts predicted on the default chip (the
 * operator builders and chipsim on arbitrary sizes and formats up to 2^31),
 * and when every row has a measured time, the validation, its reports and
 * the efficiency fit.
 * Seeds: corpus/op_table/. */
#include "fuzz_common.h"

#include "chipsim/chip.h"
#include "calib/op_table.h"
#include "calib/calibrate.h"
#include "calib/validate.h"
#include "traces/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/meas.csv", fuzz_dir());
    fuzz_write(path, data, size);
    static struct chip_config chip;
    static int ready;
    if (!ready) {
        chip_config_default(&chip);
        chip.matrix_tflops[PREC_FP8_E4M3] = 900;   /* a declared format beside the fallbacks */
        chip.kernel_eff[KC_gemm].n_half = 1e6;
        ready = 1;
    }
    struct op_table t;
    struct npu_err e;
    if (op_table_read(path, &t, &e) == 0) {
        for (size_t i = 0; i < t.n && i < 16; i++) {
            struct op_prediction p;
            if (op_predict(&t.rows[i].r, &chip, &profile_physical, &p, &e) == 0 && !(p.time_us >= 0))
                abort();   /* a prediction is a time */
        }
        /* the validation and its three reports, when every row has a time */
        const char *files[1] = { path };
        struct validation v;
        if (t.n <= 16 && validate_run(&t, files, 1, &chip, "fuzz", &profile_physical, &v, &e) == 0) {
            if (!(v.overall.mape_pct >= 0) || v.overall.count != (int64_t)t.n)
                abort();
            free(validation_markdown(&v, &t, 1));
            free(validation_csv(&v, &t, 1));
            cJSON_Delete(validation_json(&v));
            validation_free(&v);
            /* and the fit: efficiencies in range whatever the rows */
            struct calib_fit fits[CALIB_FITS_MAX];
            int nf;
            struct chip_config cal;
            struct calib_cv cv;
            if (calibrate_run(&t, files, 1, &chip, &profile_physical, 0, &cal, fits, &nf, &cv, &e) == 0)
                for (int i = 0; i < nf; i++)
                    if (!(fits[i].e >= 0.01 && fits[i].e <= 1.0) || !(fits[i].t0_ns >= 0))
                        abort();
        }
        op_table_free(&t);
    }
    return 0;
}
