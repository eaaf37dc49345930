/* fuzz_sweep_report.c — `npusim report --sweep`'s reader of a sweep's
 * summary CSV (study/view/report_sweep.h) on arbitrary text: a page and its
 * figures, or an error naming the file, never a crash. Seeds:
 * corpus/sweep_report/. */
#include "fuzz_common.h"

#include "study/view/report_sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char *fig[SWEEP_FIG_COUNT];
    struct npu_err e;
    char *html = sweep_report_html("summary.csv", text, size, size % 2 ? 10.0 : 0, fig, &e);
    for (int k = 0; html && k < SWEEP_FIG_COUNT; k++)
        if (!fig[k])
            abort();   /* a page comes with every figure */
    if (html && strncmp(html, "<!DOCTYPE html>", 15))
        abort();
    if (!html && !strstr(e.msg, "summary.csv"))
        abort();   /* an error names the file */
    for (int k = 0; html && k < SWEEP_FIG_COUNT; k++)
        free(fig[k]);
    free(html), free(text);
    return 0;
}
