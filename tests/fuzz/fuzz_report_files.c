/* fuzz_report_files.c — `npusim report PATH...`'s reading of runs back from
 * their files (study/view/report_files.h, report_tree.h) on arbitrary bytes. The
 * input is a statistics JSON and a trace CSV, split at the first
 * "\n--\n"; they are written as a run's decode statistics and trace, with
 * the trace also as its NoPG and Base strategy traces, and a second run
 * beside it with the statistics alone. The one-run page, the page of both
 * runs, or an error naming a file: never a crash. Seeds:
 * corpus/report_files/. */
#include "fuzz_common.h"

#include "study/view/report_files.h"
#include "study/view/report_tree.h"

static void put(const char *dir, const char *name, const uint8_t *data, size_t size)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    fuzz_write(path, data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *sep = NULL;
    for (size_t i = 0; i + 4 <= size && !sep; i++)
        if (!memcmp(data + i, "\n--\n", 4))
            sep = data + i;
    size_t nj = sep ? (size_t)(sep - data) : size;
    const uint8_t *csv = sep ? sep + 4 : data + size;
    size_t nc = (size_t)(data + size - csv);
    char dir[128], sub[160];
    snprintf(dir, sizeof dir, "%s/t", fuzz_dir());
    snprintf(sub, sizeof sub, "%s/b", dir);
    mkdir(dir, 0700);
    mkdir(sub, 0700);
    put(dir, "run_decode.json", data, nj);
    put(dir, "run_decode.csv", csv, nc);
    put(dir, "run_decode_NoPG.csv", csv, nc);
    put(dir, "run_decode_Base.csv", csv, nc);
    put(sub, "other.json", data, nj);
    const char *paths[1] = { dir };
    struct found_runs f;
    struct npu_err e;
    if (runs_find(paths, 1, &f, &e) == 0) {
        struct report_run r;
        report_run_init(&r);
        if (report_run_from_files(&f.r[0], NULL, NULL, &r, &e) == 0) {
            struct report_figures figs;
            free(report_html(&r.in, &figs));
            report_figures_free(&figs);
        } else if (!strstr(e.msg, f.r[0].label) && !strstr(e.msg, "out of memory"))
            abort();   /* an error names the run or its file */
        report_run_free(&r);
        char *fig[TREE_FIG_COUNT];
        char *html = report_tree_html("t", &f, NULL, NULL, 5, fig, &e);
        for (int k = 0; html && k < TREE_FIG_COUNT; k++)
            free(fig[k]);
        free(html);
        runs_free(&f);
    }
    return 0;
}
