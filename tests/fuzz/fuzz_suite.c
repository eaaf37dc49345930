/* fuzz_suite.c — the suite file reader (kinds, field counts, comments). */
#include "fuzz_common.h"

#include "study/sweep/suite_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct suite s = { NULL, NULL, 0 };
    struct npu_err e;
    suite_parse(&s, fuzz_text(data, size), "fuzz.suite", &e);   /* takes the text over */
    suite_free(&s);
    return 0;
}
