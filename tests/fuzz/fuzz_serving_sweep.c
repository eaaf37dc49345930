/* fuzz_serving_sweep.c — a serving sweep's spec (serving/sweep.h) read
 * from arbitrary bytes: accepted with a point count within the bound, or an
 * error naming the file; never a crash. The first point of an accepted spec
 * is run when the spec has a single point of few requests. Seeds:
 * corpus/serving_sweep/. */
#include "fuzz_common.h"

#include "serving/serving.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_serving_sweep.%d.json", (int)getpid());
    fuzz_write(path, data, size);
    struct serving_sweep w;
    struct npu_err e;
    if (serving_sweep_load(path, NULL, NULL, &w, &e) == 0) {
        if (w.points < 1 || w.points > SERVING_SWEEP_MAX_POINTS)
            abort();
        const cJSON *rq = cJSON_GetObjectItemCaseSensitive(w.knobs, "requests");
        if (w.points == 1 && cJSON_IsNumber(rq) && rq->valuedouble <= 20) {
            struct serving_sweep_row *rows = NULL;
            long pick;
            if (serving_sweep_run(&w, fuzz_configs(), profile_by_name("physical"), &rows, &pick, &e) == 0 &&
                strcmp(rows[0].status, "ok") && !rows[0].message[0])
                abort();   /* a refused point says why */
            free(rows);
        }
        serving_sweep_free(&w);
    } else if (!e.msg[0])
        abort();
    remove(path);
    return 0;
}
