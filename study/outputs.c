/* outputs.c — a command's output files written all together or not at all
 * (see outputs.h). Main data structure: struct output, one file each. */
#include "study/outputs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/pyjson.h"
#include "study/sim_facts.h"
#include "study/trace_memo.h"
#include "traces/atomic.h"
#include "traces/trace_csv.h"

char *json_text(const cJSON *j) { return pyjson_print(j); }

/* Whether the text outputs of o include csv_path's statistics: the same
 * path with .json for .csv. */
static bool has_stats_twin(const struct output *o, int n, const char *csv_path)
{
    size_t len = strlen(csv_path);
    if (len < 4 || strcmp(csv_path + len - 4, ".csv") != 0)
        return false;
    for (int i = 0; i < n; i++)
        if (!o[i].trace && strncmp(o[i].path, csv_path, len - 4) == 0 && strcmp(o[i].path + len - 4, ".json") == 0)
            return true;
    return false;
}

/* In a suite, the energy stage reads these CSVs back from memory: those
 * written with their statistics (X.csv next to X.json), its inputs; and
 * the carbon stage edits printed statistics without parsing them. */
static bool held_output(const struct output *o, int n, int i, const char *path)
{
    if (!trace_memo_recording())
        return false;
    return o[i].trace ? has_stats_twin(o, n, path) : o[i].json;
}

/* Whether two paths lie in the same folder (the same text up to their last '/'). */
static bool same_folder(const char *a, const char *b)
{
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    return sa && sb && sa - a == sb - b && strncmp(a, b, (size_t)(sa - a)) == 0;
}

/* Set while a sweep writes its tree into a private staging folder
 * (cmd_sweep.c): every output is then new there, so it is created in place
 * (atomic_open_staged: no temporary, no rename, no look at the target). */
static bool outputs_staged;
void outputs_set_staged(bool on) { outputs_staged = on; }

static int write_all(struct output *o, int n, bool staged, struct npu_err *e)
{
    struct atomic_file *af = malloc((n > 0 ? (size_t)n : 1) * sizeof *af);   /* each set by its open */
    int opened = 0, rc = 0;
    /* The outputs' folders, made here so that a failure takes back the ones
     * it made. */
    struct made_dirs *made = malloc((n > 0 ? (size_t)n : 1) * sizeof *made);
    int nmade = 0;
    if (!af || !made)
        rc = npu_errf(e, "writing outputs: out of memory");
    staged |= outputs_staged;
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
    for (int i = 0; i < opened; i++) {
        af[i].want_stat = held_output(o, n, i, af[i].path);
        if (rc)
            atomic_abort(&af[i]);
    }
    if (!rc && atomic_commit_all(af, opened, e))
        rc = -1;
    /* Innermost first: a later output's folder may lie inside an earlier one's. */
    for (int k = nmade - 1; k >= 0; k--)
        (rc ? made_dirs_undo : made_dirs_keep)(&made[k]);
    free(made);
    /* Held for a suite's later stages (want_stat, decided once above), known
     * by the identity their descriptors gave at commit. With rc == 0 every
     * output was opened and committed. */
    for (int i = 0; i < n && !rc; i++) {
        struct stat st;
        if (!af[i].want_stat)
            continue;
        if (af[i].stat_ok)
            st = af[i].st;
        else if (stat(af[i].path, &st) != 0)
            continue;
        if (o[i].trace)
            trace_memo_put(&st, o[i].trace, &o[i].opts);
        else {
            trace_memo_put_json(&st, o[i].facts, o[i].facts ? o[i].facts_len : 0, o[i].text);
            o[i].text = NULL;   /* the memo's now */
        }
    }
    for (int i = 0; i < n; i++)
        free(o[i].text);
    free(af);
    return rc;
}

/* A tripwire: a field added to struct output must be cleared here too
 * (path, trace, opts, text, json, facts, facts_len: 4144 bytes on x86-64). */
_Static_assert(sizeof(void *) != 8 || sizeof(struct output) == 4144,
               "output_clear sets every field of struct output");
void output_clear(struct output *o, int n)
{
    for (int i = 0; i < n; i++) {
        o[i].path[0] = '\0';
        o[i].trace = NULL;
        o[i].opts = (struct trace_csv_opts){ PHASE_NONE, false, false };
        o[i].text = NULL;
        o[i].json = false;
        o[i].facts = NULL;
        o[i].facts_len = 0;
    }
}

void output_stats_file(struct output *o, const cJSON *sim, struct sim_facts *facts)
{
    struct npu_err ignored;
    o->json = true;
    o->facts = trace_memo_recording() && sim_facts_from_json(facts, sim, &ignored) == 0 ? facts : NULL;
    o->facts_len = sizeof *facts;
}

int write_outputs(struct output *o, int n, struct npu_err *e) { return write_all(o, n, false, e); }

int write_outputs_staged(struct output *o, int n, struct npu_err *e) { return write_all(o, n, true, e); }

int move_into_place(const char *from, const char *to, char *last_dir, size_t last_len, struct npu_err *e)
{
    const char *slash = strrchr(to, '/');
    size_t n = slash ? (size_t)(slash - to) : 0;
    if (n && (n >= last_len || strncmp(to, last_dir, n) != 0 || last_dir[n] != '\0')) {
        if (make_dirs_n(to, n, e))
            return -1;
        if (n < last_len) {
            memcpy(last_dir, to, n);
            last_dir[n] = '\0';
        }
    }
    if (rename(from, to) != 0)
        return npu_errf(e, "%s: cannot move into place: %s", to, strerror(errno));
    return 0;
}
