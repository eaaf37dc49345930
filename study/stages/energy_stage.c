/* energy_stage.c — the energy stage (see energy_stage.h).
 *
 * Walks a sweep's results tree (RESULTS/<model>/<pstr>/), and for every
 * statistics file of the requested versions and workload — LLM inference:
 * <workload>-v<V>_prefill and _decode; other families: the one <workload>-v<V>
 * (DLRM's per-chip and config files are not statistics files) — re-reads the
 * raw CSV, re-classifies the ops (§1.3), runs the per-op energy pass once per
 * power-gating strategy on a fresh copy, aggregates it (power/energy_stats.h)
 * and writes, under RESULTS_<dvfs>/ at the same relative place:
 *   <stem>_<strategy>.csv   one per strategy (the pass's per-op columns)
 *   <stem>.json             the input statistics plus energy_stats{strategy: ...}
 * The chip comes from the statistics' own sim_config, as in the reference.
 *
 * The request is checked first (check_request: the options' rules, named by
 * their flags) and becomes a struct energy_plan, the run's state.
 *
 * Main data structure: struct job (one statistics file) and a staging folder:
 * every output is first written under RESULTS_<dvfs>.tmp.<pid>.<n> and
 * published only when every job has succeeded, so a failing run leaves
 * nothing (study/stages/staging.h: one rename when RESULTS_<dvfs> is new). The folders are
 * discovered one (model, version) at a time as the worker threads ask for
 * jobs (struct job_run). */
#define _DEFAULT_SOURCE   /* DT_DIR: a listing entry's type */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/lists.h"
#include "study/stages/energy_stage.h"
#include "study/run/run.h"
#include "base/strbuf.h"
#include "base/rawjson.h"
#include "study/stages/results_tree.h"
#include "base/textfile.h"
#include "study/stages/staging.h"
#include "power/energy.h"
#include "power/energy_stats.h"
#include "power/pg.h"
#include "base/atomic.h"
#include "base/pyfmt.h"

/* One statistics file: DIR/<rel>.json and .csv; outputs under <out_root>/<rel>. */
struct job {
    char rel[1024];          /* "<model>/<pstr>/<workload>-v<V>[_phase]" */
};

struct jobs {
    struct job *j;
    size_t n, cap;
};

/* A run's state beside its request: the strategies looked up, the output
 * and staging folders, and what the caller handed in (io). */
struct energy_plan {
    const struct energy_request *r;
    struct pg_strategy pg[ENERGY_MAX_PG];   /* r->pgs[i] looked up */
    enum dvfs_policy dvfs;
    const struct profile *prof;
    long jobs;                                /* threads, >= 1 */
    char out_root[4096];                      /* RESULTS_<dvfs> */
    char staging[4096];                       /* RESULTS_<dvfs>.tmp.<pid>.<n>, "" until created */
    /* A suite's results in memory (study/run/results.h), each may be NULL: the
     * sweep's statistics, taken instead of reading results/<rel> when held;
     * and where the outputs' trees go for the carbon stage. */
    struct results *in, *out;
    const struct stage_progress *progress;   /* statistics files done (the total is not known ahead) */
    volatile sig_atomic_t *stop;
    struct strbuf missing;                    /* the models and versions without results (done->missing) */
};

static int push_job(struct jobs *js, const char *rel, struct npu_err *e)
{
    if (js->n == js->cap) {
        size_t cap = js->cap ? 2 * js->cap : 64;
        struct job *nj = realloc(js->j, cap * sizeof *nj);
        if (!nj)
            return npu_errf(e, "out of memory");
        js->j = nj;
        js->cap = cap;
    }
    if ((size_t)snprintf(js->j[js->n].rel, sizeof js->j[js->n].rel, "%s", rel) >= sizeof js->j[js->n].rel)
        return npu_errf(e, "%s: path too long", rel);
    js->n++;
    return 0;
}

/* A statistics stem counts when its JSON exists; its CSV must exist too
 * (the reference reads both). */
static int add_if_present(const struct energy_plan *o, const char *rel, struct jobs *js, bool *found,
                          struct npu_err *e)
{
    char json[4200], csv[4200];
    snprintf(json, sizeof json, "%s/%s.json", o->r->results, rel);
    if (!path_is_file(json))
        return 0;
    snprintf(csv, sizeof csv, "%s/%s.csv", o->r->results, rel);
    if (!path_is_file(csv))
        return npu_errf(e, "%s: the statistics file has no per-op trace %s", json, csv);
    *found = true;
    return push_job(js, rel, e);
}

/* Every configuration folder of one model and version, in name order. */
static int discover(const struct energy_plan *o, const char *model, const char *version, struct jobs *js,
                    bool *found, struct npu_err *e)
{
    char mdir[4200];
    snprintf(mdir, sizeof mdir, "%s/%s", o->r->results, model);
    *found = false;
    if (!path_is_dir(mdir))
        return 0;
    struct dirent **ents = NULL;
    int n = scandir(mdir, &ents, NULL, alphasort);
    if (n < 0)
        return npu_errf(e, "%s: cannot list: %s", mdir, strerror(errno));
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *name = ents[i]->d_name;
        char sub[4400], base[1024], rel[1100];
        snprintf(sub, sizeof sub, "%s/%s", mdir, name);
        /* The listing's type when it has one (no stat); a link is followed. */
        bool dir = ents[i]->d_type == DT_DIR ||
                   ((ents[i]->d_type == DT_UNKNOWN || ents[i]->d_type == DT_LNK) && path_is_dir(sub));
        if (!rc && name[0] != '.' && dir) {
            snprintf(base, sizeof base, "%s/%s/%s-v%s", model, name, o->r->workload, version);
            /* LLM inference: one statistics file per phase; otherwise one file. */
            bool phases = false;
            static const char *const ph[] = { "prefill", "decode" };
            for (int p = 0; p < 2 && !rc; p++) {
                snprintf(rel, sizeof rel, "%s_%s", base, ph[p]);
                rc = add_if_present(o, rel, js, &phases, e);
            }
            if (!rc && !phases)
                rc = add_if_present(o, base, js, found, e);
            *found = *found || phases;
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

/* A job's inputs: the statistics tree (numbers as their Python text, as
 * json.load + json.dump would print them) and the per-op trace, from the
 * suite's results in memory (study/run/results.h) or read from the files. */
static int read_inputs(const struct energy_plan *o, const struct job *jb, const char *json_in, const char *csv_in,
                       cJSON **j, struct trace *ops, struct npu_err *e)
{
    if (results_take(o->in, o->r->results, jb->rel, j, ops))
        return 0;
    return (*j = results_load_json(json_in, JSON_NUMBERS_PYTHON, e)) ? trace_read_csv(ops, csv_in, e) : -1;
}

/* The chip of the statistics' sim_config. */
static int chip_of(const cJSON *j, const char *path, struct chip_config *chip, struct npu_err *e)
{
    const cJSON *sim = cJSON_GetObjectItemCaseSensitive(j, "sim_config");
    if (!cJSON_IsObject(sim))
        return npu_errf(e, "%s: \"sim_config\": expected the simulation's configuration object", path);
    chip_config_default(chip);
    if (!fields_from_json(&chip_fields, chip, sim, NULL, e))
        return 0;
    char msg[sizeof e->msg];
    const char *rest = strncmp(e->msg, "<config>: ", 10) == 0 ? e->msg + 10 : e->msg;
    snprintf(msg, sizeof msg, "%s: sim_config: %s", path, rest);
    memcpy(e->msg, msg, sizeof msg);
    return -1;
}

/* ---- energy_stats as the reference's JSON ---- */

/* JSON order of the components (ici before hbm, unlike the CSV). */
static const struct {
    int en;
    const char *name;
} json_comp[] = {
    { EN_SA, "sa" }, { EN_VU, "vu" }, { EN_SRAM, "sram" }, { EN_ICI, "ici" }, { EN_HBM, "hbm" },
    { EN_OTHER, "other" },
};
#define NJSON_COMP (sizeof json_comp / sizeof json_comp[0])

/* energy_stats[strategy] as the reference prints it: its members in order,
 * each a key and where its value lies in struct energy_stats. The keys'
 * printed texts are made once (energy_members_init): a file has two hundred
 * of them per strategy. */
enum member_kind {
    M_F,        /* a double: repr, NaN as NaN, an infinity as null (as report.c's json_add_f64) */
    M_I,        /* an int64 */
    M_F_OR_0,   /* a double, or the int 0 the reference leaves when the int64 at zero_if is <= 0 */
    M_OPEN,     /* component_stats: a nested object */
    M_CLOSE,
};
struct member {
    enum member_kind kind;
    size_t at, zero_if;          /* offsets in struct energy_stats */
    char key[48];                /* the key's printed text, "name": */
    size_t key_len;
};
#define MAX_MEMBERS_ES 160
static struct member members[MAX_MEMBERS_ES];
static int nmembers;
static pthread_once_t members_once = PTHREAD_ONCE_INIT;

static void member(enum member_kind kind, const char *p1, const char *p2, const char *p3, size_t at,
                   size_t zero_if)
{
    char name[64];
    if (nmembers == MAX_MEMBERS_ES)
        abort();   /* the table below outgrew its array */
    struct member *m = &members[nmembers++];
    m->kind = kind;
    m->at = at;
    m->zero_if = zero_if;
    m->key_len = pyjson_key_text(strbuf_join3(name, sizeof name, p1, p2, p3), m->key, sizeof m->key);
    if (!m->key_len)
        abort();   /* a key longer than the table's room: a bug here, not an input */
}

#define ES(f) offsetof(struct energy_stats, f)
#define CS(f) offsetof(struct energy_stats, comp.f)
static void per_comp(const char *prefix, const char *suffix, size_t at)
{
    for (size_t i = 0; i < NJSON_COMP; i++)
        member(M_F, prefix, json_comp[i].name, suffix, at + (size_t)json_comp[i].en * sizeof(double), 0);
}

static void energy_members_init(void)
{
    member(M_F, "total_energy_J", "", "", ES(total_energy_J), 0);
    per_comp("", "_energy_J", ES(energy_J));
    member(M_F, "total_static_energy_J", "", "", ES(total_static_energy_J), 0);
    per_comp("static_", "_energy_J", ES(static_energy_J));
    member(M_F, "total_dynamic_energy_J", "", "", ES(total_dynamic_energy_J), 0);
    per_comp("dynamic_", "_energy_J", ES(dynamic_energy_J));
    member(M_F, "peak_power_W", "", "", ES(peak_power_W), 0);
    member(M_F, "avg_power_W", "", "", ES(avg_power_W), 0);
    member(M_F, "avg_static_power_W", "", "", ES(avg_static_power_W), 0);
    per_comp("avg_static_", "_power_W", ES(avg_static_power_W_c));
    member(M_F, "avg_dynamic_power_W", "", "", ES(avg_dynamic_power_W), 0);
    per_comp("avg_dynamic_", "_power_W", ES(avg_dynamic_power_W_c));
    member(M_OPEN, "component_stats", "", "", 0, 0);
    static const struct {
        enum member_kind kind;
        const char *key;
        size_t at, zero_if;
    } comp[] = {
        { M_I, "total_exe_time_ns", CS(total_exe_time_ns), 0 },
        { M_I, "sa_time_ns", CS(sa_time_ns), 0 },
        { M_I, "vu_time_ns", CS(vu_time_ns), 0 },
        { M_I, "vmem_time_ns", CS(vmem_time_ns), 0 },
        { M_I, "hbm_time_ns", CS(hbm_time_ns), 0 },
        { M_I, "ici_time_ns", CS(ici_time_ns), 0 },
        { M_F, "sa_temp_util", CS(sa_temp_util), 0 },
        { M_F, "vu_temp_util", CS(vu_temp_util), 0 },
        { M_F, "vmem_temp_util", CS(vmem_temp_util), 0 },
        { M_F, "hbm_temp_util", CS(hbm_temp_util), 0 },
        { M_F, "ici_temp_util", CS(ici_temp_util), 0 },
        { M_F_OR_0, "sa_spatial_util", CS(sa_spatial_util), CS(sa_time_ns) },
        { M_I, "flop_count", CS(flop_count), 0 },
        { M_I, "hbm_bytes_accessed", CS(hbm_bytes_accessed), 0 },
        { M_I, "ici_bytes_accessed", CS(ici_bytes_accessed), 0 },
        { M_F, "tflops_per_sec", CS(tflops_per_sec), 0 },
        { M_F_OR_0, "flop_per_byte_hbm", CS(flop_per_byte_hbm), CS(hbm_bytes_accessed) },
        { M_F_OR_0, "flop_per_byte_ici", CS(flop_per_byte_ici), CS(ici_bytes_accessed) },
        { M_F, "model_flops_util", CS(model_flops_util), 0 },
        { M_F, "hbm_bw_util", CS(hbm_bw_util), 0 },
        { M_F_OR_0, "avg_einsum_B", CS(avg_einsum_B), CS(sa_time_ns) },
        { M_F_OR_0, "avg_einsum_K", CS(avg_einsum_K), CS(sa_time_ns) },
        { M_F_OR_0, "avg_einsum_N", CS(avg_einsum_N), CS(sa_time_ns) },
        { M_F_OR_0, "avg_einsum_M", CS(avg_einsum_M), CS(sa_time_ns) },
        { M_F, "avg_vmem_demand_MB", CS(avg_vmem_demand_MB), 0 },
    };
    for (size_t i = 0; i < sizeof comp / sizeof comp[0]; i++)
        member(comp[i].kind, comp[i].key, "", "", comp[i].at, comp[i].zero_if);
    for (int k = 0; k < NUM_SLACK; k++)
        member(M_I, "dvfs_extra_", slack_names[k], "_time_ns", CS(dvfs_extra_time_ns) + (size_t)k * sizeof(int64_t), 0);
    for (int k = 0; k < NUM_SLACK; k++)
        member(M_F, "dvfs_extra_", slack_names[k], "_ratio", CS(dvfs_extra_ratio) + (size_t)k * sizeof(double), 0);
    member(M_F, "slowdown", "", "", CS(slowdown), 0);
    member(M_I, "num_setpm_vu", "", "", CS(num_setpm_vu), 0);
    member(M_I, "num_setpm_sram", "", "", CS(num_setpm_sram), 0);
    member(M_CLOSE, "", "", "", 0, 0);
}
#undef ES
#undef CS

/* What the carbon stage reads of strategy `name`'s energy_stats (need_num's
 * keys, as printed above and read back), for the suite's results in memory;
 * finite is false when a value is not (then printed as NaN or null) or a
 * component has no JSON name: the carbon stage then reads the printed text. */
static void result_energy_of(const char *name, const struct energy_stats *s, struct result_energy *r)
{
    struct carbon_energy *c = &r->es;
    snprintf(r->name, sizeof r->name, "%s", name);
    c->total_energy_J = s->total_energy_J;
    c->avg_power_W = s->avg_power_W;
    c->peak_power_W = s->peak_power_W;
    c->slowdown = s->comp.slowdown;
    bool finite = strlen(name) < sizeof r->name && isfinite(c->total_energy_J) && isfinite(c->avg_power_W) &&
                  isfinite(c->peak_power_W) && isfinite(c->slowdown);
    for (int k = 0; k < CARBON_NCOMP; k++) {
        size_t i = 0;   /* "static_<name>_energy_J": the component of that JSON name */
        while (i < NJSON_COMP && strcmp(json_comp[i].name, carbon_comp_names[k]) != 0)
            i++;
        if (i == NJSON_COMP) {
            finite = false;
            continue;
        }
        c->static_J[k] = s->static_energy_J[json_comp[i].en];
        c->dynamic_J[k] = s->dynamic_energy_J[json_comp[i].en];
        finite = finite && isfinite(c->static_J[k]) && isfinite(c->dynamic_J[k]);
    }
    r->finite = finite;
}

/* energy_stats[strategy]: the totals, then component_stats. */
static void energy_stats_json(struct pyjson_text *o, const char *strategy, const struct energy_stats *s)
{
    pthread_once(&members_once, energy_members_init);
    const char *base = (const char *)s;
    pyjson_text_object(o, strategy);
    for (int i = 0; i < nmembers; i++) {
        const struct member *m = &members[i];
        char v[PY_REPR_MAX > 24 ? PY_REPR_MAX : 24];
        size_t n = 0;
        double d;
        int64_t x;
        switch (m->kind) {
        case M_OPEN: pyjson_text_object(o, "component_stats"); continue;
        case M_CLOSE: pyjson_text_end(o); continue;
        case M_I: {
            memcpy(&x, base + m->at, sizeof x);
            struct strbuf sb = STRBUF(v);
            strbuf_puti(&sb, x);
            n = sb.n;
            break;
        }
        case M_F_OR_0:
            memcpy(&x, base + m->zero_if, sizeof x);
            if (x <= 0) {
                v[0] = '0';
                n = 1;
                break;
            }
            /* fall through */
        case M_F:
            memcpy(&d, base + m->at, sizeof d);
            if (isnan(d))
                n = (size_t)snprintf(v, sizeof v, "NaN");
            else if (!isfinite(d))
                n = (size_t)snprintf(v, sizeof v, "null");
            else
                n = py_repr_fmt(d, v);
            break;
        }
        pyjson_text_raw_keyed(o, m->key, m->key_len, v, n);
    }
    pyjson_text_end(o);
}

/* Sets o[key] in place when present (Python dict assignment keeps the
 * position), else appends it. Takes ownership of v. */
static void set_item(cJSON *o, const char *key, cJSON *v)
{
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
    else
        cJSON_AddItemToObject(o, key, v);
}

/* ---- one statistics file ---- */

/* The statistics JSON of a job (the input's statistics j with energy_stats
 * added and sim_config's paths naming the outputs' final places), then every
 * output written staged; the tree (taken) goes on to o->out for a suite's
 * carbon stage. out[np] is the JSON's slot. */
static int stats_output(const struct energy_plan *o, const struct job *jb, cJSON *j, struct pyjson_text *all,
                        const struct energy_stats *es, const struct chip_config *chip, struct output *out,
                        const char *json_in, struct npu_err *e)
{
    const int np = o->r->npgs;
    struct output *so = &out[np];
    /* sim_config names the outputs' final places (the last strategy's CSV,
     * as the reference leaves it, and the JSON itself). */
    char path[4400];
    cJSON *sim = cJSON_GetObjectItemCaseSensitive(j, "sim_config");
    /* Relative to out_root unless the profile keeps the reference's joined paths. */
    const char *root = o->prof->absolute_output_paths ? o->out_root : "", *sep = root[0] ? "/" : "";
    snprintf(path, sizeof path, "%s%s%s_%s.csv", root, sep, jb->rel, o->r->pgs[np - 1]);
    set_item(sim, "output_file_path", cJSON_CreateString(path));
    snprintf(path, sizeof path, "%s%s%s.json", root, sep, jb->rel);
    set_item(sim, "out_stats_file_path", cJSON_CreateString(path));
    pyjson_text_end(all);
    char *text = pyjson_text_take(all);
    set_item(j, "energy_stats", cJSON_CreateRaw(text));
    free(text);
    snprintf(so->path, sizeof so->path, "%s/%s.json", o->staging, jb->rel);
    if (!(so->text = pyjson_print(j))) {
        cJSON_Delete(j);
        return npu_errf(e, "%s: out of memory", json_in);
    }
    /* The staged writes make the files' folder in the staging tree. */
    if (write_outputs_to(out, np + 1, &(struct output_sink){ .staged = true }, e)) {
        cJSON_Delete(j);
        return -1;
    }
    if (!o->out) {
        cJSON_Delete(j);
        return 0;
    }
    struct result_energy *re = malloc((size_t)np * sizeof *re);
    if (!re) {
        cJSON_Delete(j);
        return npu_errf(e, "out of memory");
    }
    for (int i = 0; i < np; i++)
        result_energy_of(o->r->pgs[i], &es[i], &re[i]);
    /* The chip and system the carbon stage would read from this file's
     * sim_config (the chip as read above; the paths just set are neither). */
    struct result_config cfg = { .chip = *chip };
    system_config_default(&cfg.sys);
    struct npu_err ignored;
    bool cfg_ok = !fields_from_json(&system_fields, &cfg.sys, sim, NULL, &ignored);
    int rc = results_put_key(o->out, jb->rel, j, NULL, NULL, re, np, cfg_ok ? &cfg : NULL, e);
    free(re);
    return rc;
}

/* Runs strategy i's energy pass on tr[i] (a copy of base; the last takes
 * base itself) and adds its energy_stats to all and its CSV to out[i]. */
static int run_strategy(const struct energy_plan *o, const struct job *jb, int i, struct trace *base,
                        const struct chip_config *chip, struct trace *tr, struct energy_stats *es,
                        struct pyjson_text *all, struct output *out, const char *csv_in, struct npu_err *e)
{
    trace_init(&tr[i]);
    if (i == o->r->npgs - 1) {
        tr[i] = *base;
        trace_init(base);
    } else if (trace_append(&tr[i], base)) {
        return npu_errf(e, "out of memory");
    }
    if (power_energy_pass(&tr[i], chip, &o->pg[i], o->dvfs, o->prof, e) ||
        energy_stats_compute(&tr[i], chip, &es[i], e)) {
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s (strategy %s): %s", csv_in, o->r->pgs[i], e->msg);
        memcpy(e->msg, msg, sizeof msg);
        return -1;
    }
    energy_stats_set_slowdown(&es[i], &es[0]);   /* es[0] is NoPG (checked) */
    energy_stats_json(all, o->r->pgs[i], &es[i]);   /* names are distinct (checked) */
    snprintf(out[i].path, sizeof out[i].path, "%s/%s_%s.csv", o->staging, jb->rel, o->r->pgs[i]);
    out[i].trace = &tr[i];
    /* The reference's energy CSVs carry the 10 dvfs_extra_* slack columns
     * after the 101 (power.md §6). */
    out[i].opts = (struct trace_csv_opts){ PHASE_NONE, false, true };
    return 0;
}

static int run_job(const struct energy_plan *o, const struct job *jb, struct npu_err *e)
{
    char json_in[4200], csv_in[4200];
    snprintf(json_in, sizeof json_in, "%s/%s.json", o->r->results, jb->rel);
    snprintf(csv_in, sizeof csv_in, "%s/%s.csv", o->r->results, jb->rel);
    struct chip_config chip;
    cJSON *j = NULL;
    struct trace base;
    trace_init(&base);
    if (read_inputs(o, jb, json_in, csv_in, &j, &base, e) || chip_of(j, json_in, &chip, e)) {
        cJSON_Delete(j);
        trace_free(&base);
        return -1;
    }
    power_reclassify_ops(&base);

    const int np = o->r->npgs;
    struct trace *tr = calloc((size_t)np, sizeof *tr);
    struct output *out = malloc(((size_t)np + 1) * sizeof *out);
    if (out)
        output_clear(out, np + 1);
    struct energy_stats *es = calloc((size_t)np, sizeof *es);
    /* energy_stats as text, at the depth it takes in the statistics (1). */
    struct pyjson_text all;
    pyjson_text_begin(&all, 1);
    int rc = (!tr || !out || !es) ? npu_errf(e, "out of memory") : 0;
    for (int i = 0; i < np && !rc; i++)
        rc = run_strategy(o, jb, i, &base, &chip, tr, es, &all, out, csv_in, e);
    if (!rc)
        rc = stats_output(o, jb, j, &all, es, &chip, out, json_in, e);
    else
        cJSON_Delete(j);
    for (int i = 0; tr && i < np; i++)
        trace_free(&tr[i]);
    free(tr);
    free(out);
    free(es);
    free(pyjson_text_take(&all));
    trace_free(&base);
    return rc;
}

/* ---- running the jobs on threads (each writes only its own staged files) ---- */

/* The folders are discovered one (model, version) at a time as the workers
 * ask for jobs, so that listing them (some 1,700 stat calls for perf.suite)
 * overlaps the first jobs instead of delaying them all; the staging folder
 * is made with the first job. A discovery error still wins over any job's:
 * it is what a run discovering everything first would report. */
struct job_item {
    struct job job;              /* a copy: discovery may move the list */
    int rc;
    struct npu_err e;
};

struct job_run {
    struct energy_plan *o;
    struct jobs *js;
    size_t next;
    int model, version;          /* the next (model, version) to discover */
    struct npu_err first;        /* the first failure in job order */
    bool failed;
    bool discovery_failed;       /* first holds a discovery error */
    long done;                   /* jobs emitted, for the progress line */
};

/* Discovers the next (model, version) pair's jobs. */
static int discover_pair(struct job_run *r)
{
    struct energy_plan *o = r->o;
    const char *model = o->r->models[r->model], *version = o->r->versions[r->version];
    if (++r->version == o->r->nversions)
        r->version = 0, r->model++;
    bool found;
    if (discover(o, model, version, r->js, &found, &r->first))
        return -1;
    if (!found)
        strbuf_printf(&o->missing, "no %s results for %s v%s under %s (skipped)\n",
                      o->r->workload, model, version, o->r->results);
    return 0;
}

/* Discovers pairs until a job is waiting or none is left. */
static int discover_more(struct job_run *r)
{
    while (r->next == r->js->n && r->model < r->o->r->nmodels)
        if (discover_pair(r))
            return -1;
    if (r->next < r->js->n && !r->o->staging[0] &&
        staging_create(r->o->out_root, r->o->staging, sizeof r->o->staging, &r->first))
        return -1;
    return 0;
}

static int job_next(void *ctx, void *item)
{
    struct job_run *r = ctx;
    if (r->o->stop && *r->o->stop) {   /* a signal asked to stop: no further job */
        npu_errf(&r->first, "interrupted");
        r->failed = r->discovery_failed = true;
        return -1;
    }
    if (discover_more(r)) {
        r->failed = r->discovery_failed = true;
        return -1;
    }
    if (r->next == r->js->n)
        return 0;
    ((struct job_item *)item)->job = r->js->j[r->next++];
    return 1;
}

static void job_work(void *ctx, void *item)
{
    struct job_run *r = ctx;
    struct job_item *it = item;
    it->rc = run_job(r->o, &it->job, &it->e);
}

static int job_emit(void *ctx, void *item)
{
    struct job_run *r = ctx;
    struct job_item *it = item;
    stage_progress_update(r->o->progress, ++r->done);
    if (!it->rc)
        return 0;
    if (!r->failed)
        r->first = it->e;
    r->failed = true;
    return -1;
}

/* Discovers and runs every job; js receives the jobs. */
static int run_jobs(struct energy_plan *o, struct jobs *js, struct npu_err *e)
{
    struct job_run r = { o, js, 0, 0, 0, { "" }, false, false, 0 };
    if (o->out)
        results_begin(o->out, o->out_root, NULL);
    struct ordered_pool_ops ops = { &r, job_next, job_work, job_emit, NULL };
    long n = o->jobs;
    if (ordered_pool_run(&ops, sizeof(struct job_item), (int)n, (size_t)(4 * n + 4)) && !r.failed)
        return npu_errf(e, "cannot start the worker threads");
    if (r.failed && !r.discovery_failed) {
        /* A job failed before everything was discovered: the rest is still
         * listed, for its warnings and for an error there to win. */
        struct npu_err job_err = r.first;
        while (r.model < o->r->nmodels && !r.discovery_failed)
            r.discovery_failed = discover_pair(&r) != 0;
        if (!r.discovery_failed)
            r.first = job_err;
    }
    if (r.failed) {
        if (o->out)
            results_clear(o->out);
        *e = r.first;
        return -1;
    }
    return 0;
}

/* Publishes the staging tree, which holds exactly the jobs' outputs. */
static int commit(struct energy_plan *o, struct npu_err *e)
{
    if (staging_publish(o->staging, o->out_root, e)) {
        if (o->out)
            results_clear(o->out);
        return -1;
    }
    o->staging[0] = '\0';   /* published: nothing left to remove */
    return 0;
}

/* ---- the request ---- */

static const char *const default_pgs[] = { "NoPG", "Base", "HW", "Full", "Ideal" };

struct energy_request energy_request_default(void)
{
    struct energy_request r = { 0 };
    r.workload = "inference";
    r.pgs = default_pgs;
    r.npgs = (int)(sizeof default_pgs / sizeof default_pgs[0]);
    r.dvfs = "None";
    r.prof = profile_default();
    return r;
}

/* The strategies: NoPG first, none twice, each found (into o->pg). */
static int check_pgs(const struct energy_request *r, struct energy_plan *o, struct npu_err *e)
{
    if (r->npgs < 1 || !r->pgs)
        return npu_errf(e, "--pg: expected at least one strategy (NoPG first)");
    if (r->npgs > ENERGY_MAX_PG)
        return npu_errf(e, "--pg: at most %d strategies", ENERGY_MAX_PG);
    /* Slowdowns divide by NoPG's time, so NoPG comes first (the reference
     * fails with a KeyError otherwise, quirk power Q22). */
    if (strcmp(r->pgs[0], "NoPG") != 0) {
        struct strbuf all = STRBUF_GROWING;
        for (int i = 0; i < r->npgs; i++)
            strbuf_printf(&all, "%s%s", i ? "," : "", r->pgs[i]);
        npu_errf(e, "--pg \"%s\": the first strategy must be NoPG (slowdowns are relative to it)",
                 all.s ? all.s : r->pgs[0]);
        free(all.s);
        return -1;
    }
    for (int i = 0; i < r->npgs; i++) {
        for (int k = 0; k < i; k++)
            if (strcmp(r->pgs[k], r->pgs[i]) == 0)
                return npu_errf(e, "--pg: strategy \"%s\" is listed twice", r->pgs[i]);
        struct npu_err inner;
        if (pg_strategy_lookup(r->pgs[i], r->configs, o->prof, &o->pg[i], &inner))
            return npu_errf(e, "--pg: %s", inner.msg);
    }
    return 0;
}

/* The request's values, before any work: the strategies and dvfs policy
 * into o, and the output folder RESULTS -> RESULTS_<dvfs>. 0 or -1 with e
 * naming the option. */
static int check_request(const struct energy_request *r, struct energy_plan *o, struct npu_err *e)
{
    if (!r->results || r->nmodels < 1 || r->nversions < 1 || !r->models || !r->versions)
        return npu_errf(e, "--results, --models and --versions are required");
    if (!r->workload || (strcmp(r->workload, "inference") && strcmp(r->workload, "training")))
        return npu_errf(e, "--workload \"%s\": expected inference or training", r->workload ? r->workload : "");
    if (check_pgs(r, o, e))
        return -1;
    struct npu_err inner;
    if (!r->dvfs || dvfs_policy_parse(r->dvfs, &o->dvfs, &inner))
        return npu_errf(e, "--dvfs: %s", r->dvfs ? inner.msg : "expected a DVFS policy");
    /* RESULTS/ -> RESULTS_<dvfs>, as the reference renames the results folder. */
    char res[4096];
    snprintf(res, sizeof res, "%s", r->results);
    for (size_t l = strlen(res); l > 1 && res[l - 1] == '/'; l--)
        res[l - 1] = '\0';
    const char *last = strrchr(res, '/');
    last = last ? last + 1 : res;
    if (!*last || !strcmp(last, ".") || !strcmp(last, ".."))
        return npu_errf(e, "--results \"%s\": name the results folder itself (its name gets the suffix _%s)",
                        r->results, r->dvfs);
    if ((size_t)snprintf(o->out_root, sizeof o->out_root, "%s_%s", res, r->dvfs) >= sizeof o->out_root)
        return npu_errf(e, "--results: path too long");
    return 0;
}

/* ---- the run ---- */

/* The run once its plan is made: discover and run the jobs, publish. */
static int run_plan(struct energy_plan *o, struct energy_done *done, struct npu_err *e)
{
    if (!path_is_dir(o->r->results))
        return npu_errf(e, "--results \"%s\": no such folder (run npusim sweep --out %s first)", o->r->results,
                        o->r->results);
    struct jobs js = { 0 };
    stage_progress_begin(o->progress, 0);
    int rc = run_jobs(o, &js, e);
    stage_progress_end(o->progress);
    done->files = js.n;
    done->nothing_found = !rc && js.n == 0;
    if (!rc && js.n > 0)
        rc = commit(o, e);
    staging_remove(o->staging);
    free(js.j);
    return rc;
}

int energy_run(const struct energy_request *r, const struct stage_io *io, struct energy_done *done,
               struct npu_err *e)
{
    memset(done, 0, sizeof *done);
    struct energy_plan *o = calloc(1, sizeof *o);
    if (!o)
        return npu_errf(e, "out of memory");
    struct stage_io none = stage_io_none();
    io = io ? io : &none;
    o->r = r;
    o->prof = r->prof ? r->prof : profile_default();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = r->jobs > 0 ? r->jobs : cores > 0 ? cores : 1;
    o->in = io->in;
    o->out = io->out;
    o->progress = &io->progress;
    o->stop = io->stop;
    o->missing = STRBUF_GROWING;
    done->strategies = r->npgs;
    int rc = check_request(r, o, e);
    done->request_error = rc != 0;
    snprintf(done->out_root, sizeof done->out_root, "%s", o->out_root);
    if (!rc)
        rc = run_plan(o, done, e);
    done->missing = o->missing.n ? o->missing.s : (free(o->missing.s), NULL);
    free(o);
    return rc;
}
