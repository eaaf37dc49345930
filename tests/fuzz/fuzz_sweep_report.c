/* fuzz_sweep_report.c — `npusim report --sweep`'s reader of a sweep's
 * summary CSV (study/report_sweep.h) on arbitrary text: a page and its two
 * figures, or an error naming the file, never a crash. Seeds:
 * corpus/sweep_report/. */
#include "fuzz_common.h"

#include "study/report_sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char *a, *b;
    struct npu_err e;
    char *html = sweep_report_html("summary.csv", text, size, size % 2 ? 10.0 : 0, &a, &b, &e);
    if (html && (!a || !b || strncmp(html, "<!DOCTYPE html>", 15)))
        abort();   /* a page comes with both figures */
    if (!html && !strstr(e.msg, "summary.csv"))
        abort();   /* an error names the file */
    free(html), free(a), free(b), free(text);
    return 0;
}
