/* fuzz_serving_report.c — `npusim report DIR`'s reading of a serving run's
 * folder (study/view/report_serving.h) on arbitrary bytes: the input is
 * summary.json, requests.csv and iterations.csv split at "\n--\n". The page
 * with its figures, or an error naming a file: never a crash. Seeds:
 * corpus/serving_report/. */
#include "fuzz_common.h"

#include "study/view/report_serving.h"

/* The next part of [*p, end) up to "\n--\n" (or the end). */
static const char *part(const uint8_t **p, const uint8_t *end, size_t *n)
{
    const uint8_t *s = *p, *q = s;
    while (q + 4 <= end && memcmp(q, "\n--\n", 4))
        q++;
    if (q + 4 > end)
        q = end;
    *n = (size_t)(q - s);
    *p = q == end ? end : q + 4;
    return (const char *)s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    size_t n[3];
    const char *t[3];
    for (int i = 0; i < 3; i++)
        t[i] = part(&p, end, &n[i]);
    char *fig[SERVING_FIG_COUNT];
    struct npu_err e;
    char *html = serving_report_html("fuzz", t[0], n[0], "summary.json", t[1], n[1], "requests.csv", t[2], n[2],
                                     "iterations.csv", fig, &e);
    if (html)
        for (int k = 0; k < SERVING_FIG_COUNT; k++)
            free(fig[k]);
    else if (!e.msg[0])
        abort();
    free(html);
    return 0;
}
