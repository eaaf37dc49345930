/* fuzz_trace_csv.c — the trace CSV reader over an in-memory buffer.
 *
 * Any input must either parse or fail with a message naming the row and
 * column; never crash, leak or leave a half-built trace. Seeds: excerpts of
 * the golden traces and of opsgen/chipsim/power output. */
#include "fuzz_common.h"

#include "traces/trace_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    if (trace_read_csv_buffer(&t, (const char *)data, size, "fuzz", &e) != 0 && t.n != 0)
        abort(); /* a failed read must leave the trace as it was */
    trace_free(&t);
    return 0;
}
