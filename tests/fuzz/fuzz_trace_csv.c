/* fuzz_trace_csv.c — libFuzzer entry point for the trace CSV reader.
 *
 * Any input must either parse or fail with a message; never crash, leak or
 * leave a half-built trace. Not built by default. Build and run from the
 * repo root:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 -D_POSIX_C_SOURCE=200809L -I. tests/fuzz/fuzz_trace_csv.c traces/trace_csv.c traces/atomic.c traces/op.c traces/err.c traces/pyfmt.c -lcsv -lz -lm -o fuzz_trace_csv && ./fuzz_trace_csv corpus
 * (seed corpus: zcat tests/golden/traces/raw_excerpt.csv.gz > corpus/raw.csv) */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "traces/trace_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
