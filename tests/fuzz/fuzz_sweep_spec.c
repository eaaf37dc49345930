/* fuzz_sweep_spec.c — the sweep spec (docs/sweep-spec.md): parsed, and the
 * first values of every field and list taken as a sweep takes them. */
#include "fuzz_common.h"

#include "study/sweep/sweep_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct sweep_spec s;
    struct npu_err e;
    memset(&s, 0, sizeof s);
    if (sweep_spec_parse(text, "fuzz.json", &s, &e) == 0) {
        for (int i = 0; i < s.nfields; i++)
            for (int64_t k = 0; k < 3; k++)
                cJSON_Delete(spec_field_value(&s.fields[i], k));
        for (int64_t k = 0; k < spec_ints_count(&s.num_chips) && k < 3; k++)
            (void)spec_ints_value(&s.num_chips, k);
        for (int64_t k = 0; k < spec_ints_count(&s.batches) && k < 3; k++)
            (void)spec_ints_value(&s.batches, k);
    }
    sweep_spec_free(&s);
    free(text);
    return 0;
}
