/* fuzz_serving_trace.c — request traces and length tables (serving/trace_in.h)
 * read from the input as a file: every request read must be within the
 * context, in arrival order, with lengths of at least one token. */
#define _DEFAULT_SOURCE   /* fmemopen */
#include "fuzz_common.h"

#include <stdio.h>

#include "serving/serving.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    struct serving_trace t;
    struct npu_err e;
    if (serving_trace_open(&t, "fuzz.csv", f, data[0] & 1, 4096, &e) == 0) {
        struct serving_request r;
        int64_t last = 0;
        for (int i = 0; i < 4096 && serving_trace_next(&t, &r, &e) == 1; i++) {
            if (r.input_tokens < 1 || r.output_tokens < 1 || r.input_tokens + r.output_tokens > 4096 ||
                (!t.lengths_only && r.arrival_ns < last))
                abort();
            last = r.arrival_ns;
        }
        serving_trace_close(&t);
    }
    fclose(f);
    return 0;
}
