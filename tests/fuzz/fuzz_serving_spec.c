/* fuzz_serving_spec.c — the serving workload's arrival and length specs
 * (serving/workload.h), the input split at its first newline: each parsed,
 * and an accepted pair drawn for a few requests (within the context). */
#include "fuzz_common.h"

#include "serving/serving.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char *nl = strchr(text, '\n');
    const char *len = nl ? nl + 1 : "fixed:16:16";
    if (nl)
        *nl = '\0';
    struct serving_workload w;
    struct npu_err e;
    memset(&w, 0, sizeof w);
    w.seed = size;
    w.max_context = 4096;
    if (serving_arrivals_parse(text, &w.arrivals, &e) == 0 && serving_lengths_parse(len, &w.lengths, &e) == 0) {
        struct serving_gen g;
        struct serving_request r;
        if (serving_gen_init(&g, &w, &e) == 0) {
            for (int i = 0; i < 16 && serving_gen_next(&g, &r, &e) == 0; i++)
                if (r.input_tokens < 1 || r.output_tokens < 1 || r.input_tokens + r.output_tokens > 4096)
                    abort();
            serving_gen_free(&g);
        }
    }
    free(text);
    return 0;
}
