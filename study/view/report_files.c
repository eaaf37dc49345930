/* report_files.c — runs found in files and read back (see
 * report_files.h). Main data structure: the statistics paths a walk
 * collected (base/walk.h), sorted before they are grouped into runs. */
#define _DEFAULT_SOURCE  /* DT_DIR, DT_REG, open_memstream */
#include "study/view/report_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "power/pg.h"
#include "study/stages/stages.h"
#include "traces/profile.h"
#include "traces/fields.h"
#include "base/rawjson.h"
#include "base/textfile.h"
#include "base/walk.h"
#include "traces/trace_csv.h"

#define WALK_DEPTH 16
#define STATS_BYTES_MAX (16 << 20)   /* a statistics file is a few KiB; a larger JSON is something else */

static const struct walk_limits walk_limits = { WALK_DEPTH, REPORT_RUNS_MAX, STATS_BYTES_MAX };

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* The statistics object of a file, or NULL (not JSON, not statistics). */
static cJSON *stats_of(const char *path, struct npu_err *e)
{
    cJSON *j = results_load_json(path, JSON_NUMBERS_TEXT, e);
    if (j && !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "sim_config"))) {
        cJSON_Delete(j);
        npu_errf(e, "%s: expected a statistics JSON (an object with \"sim_config\")", path);
        return NULL;
    }
    return j;
}

/* The statistics file of a run's phase p. */
static void stats_path(const struct found_run *r, int p, char *out, size_t n)
{
    snprintf(out, n, "%s%s.json", r->stem, !r->phased ? "" : p ? "_decode" : "_prefill");
}

/* The run of stem: the last one when it is the same (paths sorted: a pair
 * is adjacent), else a new one. Its index, or -1 when out of memory. */
static long run_for(struct found_runs *f, const char *stem, bool phased, const char *root)
{
    if (f->n && !strcmp(f->r[f->n - 1].stem, stem))
        return (long)f->n - 1;
    struct found_run *p = realloc(f->r, (f->n + 1) * sizeof *p);
    if (!p)
        return -1;
    f->r = p;
    struct found_run *r = memset(&f->r[f->n], 0, sizeof *r);
    if (!(r->stem = strdup(stem)))
        return -1;
    size_t rl = strlen(root);
    r->label = !strncmp(stem, root, rl) && stem[rl] == '/' ? r->stem + rl + 1 : r->stem;
    r->phased = phased;
    return (long)f->n++;
}

/* The figures of run k from the statistics held, which it frees. */
static void finish_run(struct found_runs *f, long k, cJSON *held[2])
{
    if (k >= 0)
        run_figures_from((const cJSON *const *)held, f->r[k].phased, &f->r[k].fig);
    cJSON_Delete(held[0]), cJSON_Delete(held[1]);
    held[0] = held[1] = NULL;
}

/* Groups the sorted statistics paths of one root into runs. */
static int group(struct file_list *w, const char *root, bool named, struct found_runs *f, struct npu_err *e)
{
    file_list_sort(w);
    cJSON *held[2] = { NULL, NULL };
    long cur = -1;
    for (size_t i = 0; i < w->n; i++) {
        cJSON *j = stats_of(w->path[i], e);
        if (!j) {
            if (named)
                return -1;
            continue;   /* a walk skips other JSON (timelines, measurements, fleet estimates) */
        }
        char stem[RUN_PATH_MAX];
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(w->path[i]) - 5), w->path[i]);
        int phase = ends_with(stem, "_prefill") ? 0 : ends_with(stem, "_decode") ? 1 : -1;
        if (phase >= 0)
            stem[strlen(stem) - (phase ? 7 : 8)] = '\0';
        long k = run_for(f, stem, phase >= 0, root);
        if (k != cur)
            finish_run(f, cur, held);
        cur = k;
        if (k < 0) {
            cJSON_Delete(j);
            return npu_errf(e, "report: out of memory");
        }
        int slot = phase > 0;
        if (held[slot]) {   /* "x.json" beside "x_prefill.json": the first kept */
            cJSON_Delete(j);
            continue;
        }
        held[slot] = j;
        f->r[k].stats[slot] = true;
    }
    finish_run(f, cur, held);
    return 0;
}

int runs_find(const char *const *paths, int n, struct found_runs *out, struct npu_err *e)
{
    memset(out, 0, sizeof *out);
    for (int p = 0; p < n; p++) {
        struct file_list w = { 0 };
        bool dir = path_is_dir(paths[p]);
        struct stat st;
        int rc = 0;
        if (!dir && stat(paths[p], &st))
            rc = npu_errf(e, "%s: no such file or folder", paths[p]);
        else if (!dir && (ends_with(paths[p], ".csv") || ends_with(paths[p], ".csv.gz"))) {
            long k = run_for(out, paths[p], false, paths[p]);
            if (k < 0)
                rc = npu_errf(e, "report: out of memory");
            else
                out->r[k].csv = true;
        } else if (dir ? file_list_walk(&w, paths[p], ".json", &walk_limits)
                       : file_list_add(&w, paths[p], REPORT_RUNS_MAX))
            rc = npu_errf(e, "report: out of memory");
        if (!rc && w.full)
            fprintf(stderr, "npusim report: warning: %s: only the first %d JSON files were read\n", paths[p],
                    REPORT_RUNS_MAX);
        if (!rc && w.n)
            rc = group(&w, paths[p], !dir, out, e);
        file_list_free(&w);
        if (rc) {
            runs_free(out);
            return -1;
        }
    }
    if (!out->n)
        return npu_errf(e, "%s%s: no statistics JSON (an object with \"sim_config\") or trace CSV found", paths[0],
                        n > 1 ? " and the other paths" : "");
    return 0;
}

size_t runs_select(struct found_runs *f, const char *text)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (strstr(f->r[i].label, text))
            f->r[k++] = f->r[i];
        else
            free(f->r[i].stem);
    }
    return f->n = k;
}

void runs_free(struct found_runs *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->r[i].stem);
    free(f->r);
    memset(f, 0, sizeof *f);
}

static double num(const cJSON *o, const char *key)
{
    double v;
    return jnum(jpath(o, key), &v) && v == v ? v : 0;
}

void run_figures_from(const cJSON *const stats[2], bool phased, struct run_figures *f)
{
    memset(f, 0, sizeof *f);
    const cJSON *any = stats[0] ? stats[0] : stats[1];
    if (!any)
        return;
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(any, "sim_config"), *s;
    if (cJSON_IsString(s = cJSON_GetObjectItemCaseSensitive(sc, "model_name")))
        snprintf(f->model, sizeof f->model, "%s", s->valuestring);
    if (cJSON_IsString(s = cJSON_GetObjectItemCaseSensitive(sc, "name")))
        snprintf(f->chip, sizeof f->chip, "%s", s->valuestring);
    f->chips = (int64_t)num(sc, "num_chips");
    f->batch = (int64_t)num(sc, "global_batch_size");
    f->dp = (int64_t)num(sc, "data_parallelism_degree");
    f->tp = (int64_t)num(sc, "tensor_parallelism_degree");
    f->pp = (int64_t)num(sc, "pipeline_parallelism_degree");
    for (int p = 0; p < 2; p++) {
        const cJSON *j = stats[p];
        if (!j)
            continue;
        double m = num(j, "mem_footprint_GB");
        f->mem_GB = m > f->mem_GB ? m : f->mem_GB;
        f->oom |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "out_of_memory"));
        f->energy_J += num(j, "total_energy_J");
    }
    if (phased) {
        f->ttft_s = stats[0] ? num(stats[0], "TTFT_sec") : 0;
        if (stats[1]) {
            f->tpot_ms = num(stats[1], "TPOT_ms_request");
            double e2e = num(stats[1], "e2e_throughput_tokens_per_sec");
            f->tput = e2e > 0 ? e2e : num(stats[1], "throughput_tokens_per_sec");
            f->tput_unit = "output tokens/s";
        }
        return;
    }
    const cJSON *j = stats[0];
    double lat_ns = num(j, "latency_ns"), lat_s = num(j, "latency_sec");
    f->latency_s = lat_s > 0 ? lat_s : lat_ns > 0 ? lat_ns / 1e9 : num(j, "total_execution_time_chip_ns") / 1e9;
    double req = num(j, "throughput_requests_per_sec"), tok = num(j, "throughput_tokens_per_sec");
    f->tput = req > 0 ? req : tok;
    f->tput_unit = req > 0 ? "requests/s" : tok > 0 ? "tokens/s" : "";
}

/* The chip a run was timed on, from its sim_config. */
static int chip_of(const struct found_run *fr, cJSON *const stats[2], struct report_run *r, struct npu_err *e)
{
    const cJSON *any = stats[0] ? stats[0] : stats[1];
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(any, "sim_config"), *name;
    char *text = sc ? cJSON_PrintUnformatted(sc) : NULL;   /* raw numbers print as their text */
    cJSON *j = text ? rawjson_parse(text, strlen(text), JSON_NUMBERS_DOUBLE, NULL) : NULL;
    cJSON_free(text);
    /* every field's source is the statistics file: errors name it */
    char file[RUN_PATH_MAX + 32];
    stats_path(fr, !stats[0], file, sizeof file - 16);
    strcat(file, " sim_config");
    cJSON *src = cJSON_CreateObject();
    for (size_t k = 0; k < chip_fields.n; k++) {   /* by top-level key, those it lacks too */
        char top[128];
        snprintf(top, sizeof top, "%.*s", (int)strcspn(chip_fields.f[k].key, "."), chip_fields.f[k].key);
        if (!cJSON_GetObjectItemCaseSensitive(src, top))
            cJSON_AddStringToObject(src, top, file);
    }
    chip_config_default(&r->chip);
    int rc = j ? fields_from_json(&chip_fields, &r->chip, j, src, e) : -1;
    if (rc) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", j ? e->msg : "");
        if (j)
            npu_errf(e, "%s (or give the chip with -c)", why);
        else
            npu_errf(e, "%s: expected the chip's fields as JSON numbers (or give the chip with -c)", file);
    }
    cJSON_Delete(src);
    name = cJSON_GetObjectItemCaseSensitive(sc, "name");
    snprintf(r->chip_name, sizeof r->chip_name, "%s", cJSON_IsString(name) ? name->valuestring : "chip");
    cJSON_Delete(j);
    return rc;
}

/* The strategies whose traces lie beside a phase's: "<name>_<S>.csv" for
 * every S the power stage knows (not "chip0", "prefill", ...), in name
 * order, at most REPORT_PG_MAX. */
static int strategies_of(const char *name, char strat[][64])
{
    char dir[RUN_PATH_MAX], prefix[600];
    snprintf(dir, sizeof dir, "%s", name);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    snprintf(prefix, sizeof prefix, "%s_", slash ? slash + 1 : name);
    struct dirent **list;
    int m = scandir(slash ? dir : ".", &list, NULL, alphasort), n = 0;
    size_t pl = strlen(prefix);
    for (int i = 0; i < m; i++) {
        const char *f = list[i]->d_name;
        size_t fl = strlen(f);
        struct pg_strategy pg;
        struct npu_err e;
        if (n < REPORT_PG_MAX && fl > pl + 4 && fl - pl - 4 < 64 && !strncmp(f, prefix, pl) && ends_with(f, ".csv")) {
            snprintf(strat[n], 64, "%.*s", (int)(fl - pl - 4), f + pl);
            if (!ends_with(strat[n], ".json") && !pg_strategy_lookup(strat[n], NULL, profile_default(), &pg, &e))
                n++;
        }
        free(list[i]);
    }
    if (m >= 0)
        free(list);
    /* the baseline first: NoPG, Base, HW, Full, Ideal, then the rest by name */
    static const char *const order[] = { "NoPG", "Base", "HW", "Full", "Ideal" };
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int a = 5, b = 5;
            for (int k = 0; k < 5; k++) {
                a = !strcmp(strat[j - 1], order[k]) ? k : a;
                b = !strcmp(strat[j], order[k]) ? k : b;
            }
            if (a < b || (a == b && strcmp(strat[j - 1], strat[j]) <= 0))
                break;
            char tmp[64];
            memcpy(tmp, strat[j], 64), memcpy(strat[j], strat[j - 1], 64), memcpy(strat[j - 1], tmp, 64);
        }
    return n;
}

/* Reads a trace file, its ops given phase ph unless the file says. */
static int read_phase(struct trace *t, const char *path, enum phase ph, struct npu_err *e)
{
    size_t from = t->n;
    if (trace_read_csv(t, path, e))
        return -1;
    for (size_t i = from; i < t->n; i++)
        if (t->ops[i].phase == PHASE_NONE)
            t->ops[i].phase = ph;
    return 0;
}

/* The statistics as text: who ran, then each phase's scalar members. */
static char *summary_of(const struct found_run *fr, cJSON *const stats[2])
{
    const struct run_figures f = fr->fig;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return NULL;
    fprintf(m, "%s\n", fr->label);
    if (f.model[0])
        fprintf(m, "  %s on %lld %s (dp %lld, tp %lld, pp %lld), global batch %lld\n", f.model, (long long)f.chips,
                f.chip, (long long)f.dp, (long long)f.tp, (long long)f.pp, (long long)f.batch);
    static const char *const phase[2][2] = { { "prefill", "statistics" }, { "decode", "decode" } };
    for (int p = 0; p < 2; p++) {
        const cJSON *it;
        if (!stats[p])
            continue;
        fprintf(m, "%s:\n", phase[p][!fr->phased]);
        cJSON_ArrayForEach(it, stats[p]) {
            if (cJSON_IsRaw(it) || cJSON_IsNumber(it)) {
                char *v = cJSON_PrintUnformatted(it);
                fprintf(m, "  %-36s %s\n", it->string, v ? v : "");
                cJSON_free(v);
            } else if (cJSON_IsBool(it))
                fprintf(m, "  %-36s %s\n", it->string, cJSON_IsTrue(it) ? "true" : "false");
        }
    }
    fclose(m);
    return text;
}

/* The phase's timed trace and its strategies' energies. */
static int load_phase(const struct found_run *fr, int p, struct report_run *r, struct npu_err *e)
{
    enum phase ph = fr->phased ? (p ? PHASE_DECODE : PHASE_PREFILL) : PHASE_NONE;
    if (fr->csv)
        return read_phase(&r->t, fr->stem, ph, e);
    char name[RUN_PATH_MAX + 16], path[RUN_PATH_MAX + 100], strat[REPORT_PG_MAX][64];
    snprintf(name, sizeof name, "%s%s", fr->stem, fr->phased ? (p ? "_decode" : "_prefill") : "");
    int ns = strategies_of(name, strat);
    snprintf(path, sizeof path, "%s.csv", name);
    struct stat st;
    /* no plain trace: the first strategy's (NoPG's when there, strategies_of
     * puts it first), whose energies then need no second read */
    int timed = stat(path, &st) && ns ? 0 : -1;
    if (timed >= 0)
        snprintf(path, sizeof path, "%s_%s.csv", name, strat[timed]);
    if (stat(path, &st))
        return 0;   /* statistics without a trace: the summary alone */
    size_t from = r->t.n;
    if (read_phase(&r->t, path, ph, e))
        return -1;
    for (int s = 0; s < ns; s++) {
        int k = 0;
        while (k < r->in.n_pg && strcmp(r->in.pg_name[k], strat[s]))
            k++;
        if (k == r->in.n_pg) {   /* a strategy's name, kept in r->pg_names */
            size_t used = 0;
            for (int q = 0; q < k; q++)
                used += strlen(r->in.pg_name[q]) + 1;
            if (used + strlen(strat[s]) + 1 > sizeof r->pg_names)
                continue;
            r->in.pg_name[k] = strcpy(r->pg_names + used, strat[s]);
            r->in.n_pg++;
        }
        double j[2] = { 0, 0 };
        if (s == timed) {   /* read already: the ops this phase added to r->t */
            const struct trace view = { r->t.ops + from, r->t.n - from, 0 };
            report_trace_energy(&view, j);
        } else {
            struct trace t;
            trace_init(&t);
            snprintf(path, sizeof path, "%s_%s.csv", name, strat[s]);
            int rc = read_phase(&t, path, ph, e);
            if (!rc)
                report_trace_energy(&t, j);
            trace_free(&t);
            if (rc)
                return -1;
        }
        r->in.pg_energy_J[k][p] += j[0] + j[1];
    }
    return 0;
}

int report_run_from_files(const struct found_run *fr, const struct chip_config *chip, const char *chip_name,
                          struct report_run *r, struct npu_err *e)
{
    snprintf(r->title, sizeof r->title, "%s", fr->label);
    cJSON *stats[2] = { NULL, NULL };
    int rc = 0;
    for (int p = 0; p < 2 && !rc; p++) {   /* read again: found_run keeps only the figures */
        char path[RUN_PATH_MAX + 16];
        stats_path(fr, p, path, sizeof path);
        if (fr->stats[p] && !(stats[p] = stats_of(path, e)))
            rc = -1;
    }
    if (!rc && chip) {
        r->chip = *chip;
        snprintf(r->chip_name, sizeof r->chip_name, "%s", chip_name);
    } else if (!rc && fr->csv)
        rc = npu_errf(e, "%s: a trace alone: give its chip with -c", fr->stem);
    else if (!rc)
        rc = chip_of(fr, stats, r, e);
    r->in.chip = &r->chip;
    r->in.chip_name = r->chip_name;
    for (int p = 0; p < 2 && !rc; p++)
        if ((fr->stats[p] || (fr->csv && !p)) && load_phase(fr, p, r, e))
            rc = -1;
    if (!rc && !(r->summary = summary_of(fr, stats)))
        rc = npu_errf(e, "report: out of memory");
    r->in.summary = r->summary;
    cJSON_Delete(stats[0]), cJSON_Delete(stats[1]);
    return rc;
}
