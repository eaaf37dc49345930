/* fuzz_runs.c — runs files of `npusim validate --runs` (calib/runs.h): the
 * strict reader, then, for a few small rows on the shipped configs, the
 * prediction of each (config_load with the row's values, the pipeline, the
 * LLM statistics; a bad chip, model or override an error naming the file),
 * the statistics and the three reports. A predicted row holds a positive
 * value and a finite error; the figures count every row once.
 * Seeds: corpus/runs/. */
#include "fuzz_common.h"

#include <math.h>

#include "calib/runs.h"
#include "traces/profile.h"

/* Rows small enough to simulate within the harness's time. */
static bool small(const struct run_table *t)
{
    if (t->n > 4)
        return false;
    for (size_t i = 0; i < t->n; i++) {
        const struct run_row *r = &t->rows[i];
        if (r->batch > 64 || r->input_len > 8192 || r->output_len > 1024 || r->tp * r->pp > 64 || r->ep > 64)
            return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/runs.csv", fuzz_dir());
    fuzz_write(path, data, size);
    struct run_table t;
    struct npu_err e;
    if (run_table_read(path, &t, &e))
        return 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct run_row *r = &t.rows[i];
        if (!r->cell[RC_ID] || !(r->measured > 0) || r->output_len < 1 || r->batch < 1 || r->tp < 1 || r->dp < 1)
            abort();   /* the reader let a bad row through */
    }
    if (small(&t)) {
        struct run_predict_opts o = { fuzz_configs(), NULL, 0, &profile_physical };
        struct run_validation v;
        if (runs_validate(&t, 1, &o, &v, &e) == 0) {
            if (v.n != t.n || (size_t)v.overall.s.count + v.n_errors != v.n)
                abort();
            for (size_t i = 0; i < v.n; i++)
                if (v.rows[i].ok && !(v.rows[i].predicted > 0 && isfinite(v.rows[i].error_pct)))
                    abort();
            free(run_validation_markdown(&v));
            free(run_validation_csv(&v, &t, 1));
            cJSON_Delete(run_validation_json(&v));
            run_validation_free(&v);
        }
    }
    run_table_free(&t);
    return 0;
}
