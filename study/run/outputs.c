/* outputs.c — a command's output files written all together or not at all
 * (see outputs.h). Main data structure: struct output, one file each. */
#include "study/run/outputs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/run/pyjson.h"
#include "study/run/results.h"
#include "base/atomic.h"
#include "base/json_strict.h"
#include "base/rawjson.h"
#include "base/textfile.h"
#include "traces/trace_csv.h"


/* The CSV written beside statistics file i (<stem>.csv for <stem>.json), or -1. */
static int csv_twin(const struct output *o, int n, int i)
{
    size_t len = strlen(o[i].path);
    if (len < 5 || strcmp(o[i].path + len - 5, ".json") != 0)
        return -1;
    for (int k = 0; k < n; k++)
        if (o[k].trace && strncmp(o[k].path, o[i].path, len - 5) == 0 && strcmp(o[k].path + len - 5, ".csv") == 0)
            return k;
    return -1;
}

/* Whether two paths lie in the same folder (the same text up to their last '/'). */
static bool same_folder(const char *a, const char *b)
{
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    return sa && sb && sa - a == sb - b && strncmp(a, b, (size_t)(sa - a)) == 0;
}

/* Hands the committed statistics trees to keep (with their CSVs' traces). */
static int keep_results(struct output *o, int n, struct results *keep, struct npu_err *e)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (!o[i].tree)
            continue;
        int k = csv_twin(o, n, i);
        if (!rc)
            rc = results_put(keep, o[i].path, o[i].tree, k >= 0 ? o[k].trace : NULL, k >= 0 ? &o[k].opts : NULL,
                             NULL, 0, e);
        else
            cJSON_Delete(o[i].tree);
        o[i].tree = NULL;
    }
    return rc;
}

/* The memory sink: every JSON output as a tree, by file name (a text
 * without its tree parsed back, its numbers kept as the file writes them:
 * read as doubles, cJSON would print some a bit off); nothing written. */
static int keep_in_memory(struct output *o, int n, cJSON *memory)
{
    for (int i = 0; i < n; i++) {
        cJSON *tree = o[i].tree                  ? o[i].tree
                      : o[i].text && !o[i].trace ? rawjson_parse(o[i].text, strlen(o[i].text), JSON_NUMBERS_TEXT, NULL)
                                                 : NULL;
        if (tree)
            cJSON_AddItemToObject(memory, path_base(o[i].path), tree);
        free(o[i].text);
    }
    return 0;
}

int write_outputs_to(struct output *o, int n, const struct output_sink *to, struct npu_err *e)
{
    if (to && to->memory)
        return keep_in_memory(o, n, to->memory);
    struct atomic_file *af = malloc((n > 0 ? (size_t)n : 1) * sizeof *af);   /* each set by its open */
    int opened = 0, rc = 0;
    /* The outputs' folders, made here so that a failure takes back the ones
     * it made. */
    struct made_dirs *made = malloc((n > 0 ? (size_t)n : 1) * sizeof *made);
    int nmade = 0;
    if (!af || !made)
        rc = npu_errf(e, "writing outputs: out of memory");
    bool staged = to && to->staged;
    for (int i = 0; i < n && !rc; i++) {
        const char *slash = strrchr(o[i].path, '/');
        if (!slash || slash == o[i].path || (i > 0 && same_folder(o[i - 1].path, o[i].path)))
            continue;
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - o[i].path), o[i].path);
        struct made_dirs m = { 0 };   /* a staging folder is removed whole: nothing to record */
        if (staged ? make_dirs(dir, e) : make_dirs_undoable(dir, &m, e))
            rc = -1;
        else if (m.n)
            made[nmade++] = m;
    }
    for (int i = 0; i < n && !rc; i++) {
        if ((staged ? atomic_open_staged : atomic_open)(&af[i], o[i].path, e)) {
            rc = -1;
            break;
        }
        opened++;
        /* Texts go out whole and CSV rows in ~64 KiB blocks: a stdio buffer
         * would only add a copy (and the fstat that sizes it). */
        if (!af[i].gz && af[i].f != stdout)
            setvbuf(af[i].f, NULL, _IONBF, 0);
        if (!o[i].trace && fputs(o[i].text, af[i].f) == EOF)
            rc = npu_errf(e, "%s: write failed", o[i].path);
    }
    /* The CSVs in one pass, up to TRACE_CSV_MAX_OUTPUTS at a time: rows
     * formatted once per trace, heads once across the strategies' copies. */
    for (int i = 0; i < opened && !rc;) {
        FILE *f[TRACE_CSV_MAX_OUTPUTS];
        const struct trace *t[TRACE_CSV_MAX_OUTPUTS];
        struct trace_csv_opts opts[TRACE_CSV_MAX_OUTPUTS];
        int k = 0;
        for (; i < opened && k < TRACE_CSV_MAX_OUTPUTS; i++)
            if (o[i].trace) {
                f[k] = af[i].f;
                t[k] = o[i].trace;
                opts[k++] = o[i].opts;
            }
        if (k)
            rc = trace_write_csv_each(t, f, opts, k, e);
    }
    for (int i = 0; i < opened && rc; i++)
        atomic_abort(&af[i]);
    if (!rc && atomic_commit_all(af, opened, e))
        rc = -1;
    /* Innermost first: a later output's folder may lie inside an earlier one's. */
    for (int k = nmade - 1; k >= 0; k--)
        (rc ? made_dirs_undo : made_dirs_keep)(&made[k]);
    free(made);
    if (!rc && to && to->keep)
        rc = keep_results(o, n, to->keep, e);
    for (int i = 0; i < n; i++) {
        free(o[i].text);
        cJSON_Delete(o[i].tree);
    }
    free(af);
    return rc;
}

/* A tripwire: a field added to struct output must be cleared here too
 * (path, trace, opts, text, tree: 4128 bytes on x86-64). */
_Static_assert(sizeof(void *) != 8 || sizeof(struct output) == 4128,
               "output_clear sets every field of struct output");
void output_clear(struct output *o, int n)
{
    for (int i = 0; i < n; i++) {
        o[i].path[0] = '\0';
        o[i].trace = NULL;
        o[i].opts = (struct trace_csv_opts){ PHASE_NONE, false, false };
        o[i].text = NULL;
        o[i].tree = NULL;
    }
}

int write_outputs(struct output *o, int n, struct npu_err *e) { return write_outputs_to(o, n, NULL, e); }

int write_trace_and_stats(const struct trace *t, cJSON *stats, const char *dir, const char *base,
                          const struct output_sink *to, struct npu_err *e)
{
    struct output o[2];
    output_clear(o, 2);
    snprintf(o[0].path, sizeof o[0].path, "%s/%s.csv", dir, base);
    o[0].trace = t;
    snprintf(o[1].path, sizeof o[1].path, "%s/%s.json", dir, base);
    o[1].text = pyjson_print(stats);
    o[1].tree = stats;
    return write_outputs_to(o, 2, to, e);
}
