/* fuzz_trace_gz.c — a trace read from a .csv.gz file (zlib, then the CSV
 * reader): truncated or corrupt gzip data must be an error, never a shorter
 * trace. Seeds: gzipped excerpts of the golden traces. */
#include "fuzz_common.h"

#include "traces/trace_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[128];
    if (!path[0])
        snprintf(path, sizeof path, "%s/in.csv.gz", fuzz_dir());
    fuzz_write(path, data, size);
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    if (trace_read_csv(&t, path, &e) != 0 && t.n != 0)
        abort();   /* a failed read leaves the trace as it was */
    trace_free(&t);
    return 0;
}
