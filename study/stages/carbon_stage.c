/* carbon_stage.c — the carbon and energy stage (see carbon_stage.h).
 *
 * The chip's power data, PUE and chip count come from each file's
 * sim_config, as in the reference (so a tree is self-describing). The worker
 * threads take the files as they are listed (struct lister), analyse them and
 * write the results into a private staging folder laid out as the
 * destination; only when every file has succeeded is it published
 * (study/stages/staging.h: the folder renamed whole, or merged into an existing
 * one), otherwise removed: all appear or none.
 *
 * The request is checked and completed first (plan_of, take_defaults: the
 * options' rules named by their flags, the system config's defaults and the
 * line saying which values were used) into a struct carbon_plan, the run's
 * state. */
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
#include "study/stages/carbon_stage.h"
#include "study/run/run.h"
#include "base/rawjson.h"
#include "study/stages/results_tree.h"
#include "study/stages/staging.h"
#include "power/carbon.h"
#include "power/system.h"
#include "power/slo.h"
#include "base/atomic.h"
#include "base/pyfmt.h"
#include "base/strbuf.h"
#include "base/textfile.h"
#include "traces/fields.h"

/* A run's state beside its request: the request's values with repeats
 * dropped and the system config's defaults taken, and what the caller
 * handed in (io). */
struct carbon_plan {
    const char *results, *workload, *pg, *dvfs;
    const char *models[CARBON_MAX_ITEMS], *versions[CARBON_MAX_ITEMS];
    int nmodels, nversions;
    double ci[CARBON_MAX_ITEMS];          /* kgCO2e/kWh */
    int nci;
    double util;                          /* duty cycle */
    int64_t life[CARBON_MAX_ITEMS];       /* years */
    int nlife;
    long jobs;                            /* threads, >= 1 */
    struct results *in;                   /* a suite's energy outputs in memory (study/run/results.h), or NULL */
    const struct stage_progress *progress;   /* statistics files done */
    volatile sig_atomic_t *stop;          /* a signal asked to stop (NULL: never) */
};

/* Every key the stage reads, with the file named in the message: path is
 * looked up under o, which sits at prefix ("" for the top) in the file. */
static int need_num(const cJSON *o, const char *prefix, const char *path, const char *file, double *v,
                    struct npu_err *e)
{
    const cJSON *it = jpath(o, path);
    if (it && jnum(it, v))
        return 0;
    return npu_errf(e, "%s: field \"%s%s%s\"%s", file, prefix, *prefix ? "." : "", path,
                    it ? ": expected a number" : " is missing");
}

static void warn(const char *msg) { fprintf(stderr, "npusim carbon: warning: %s\n", msg); }

enum unit_kind { UNIT_TOKENS, UNIT_ITERATIONS, UNIT_REQUESTS };
static const char *const unit_names[] = { "tkn", "iteration", "req" };   /* by enum unit_kind */

/* One lifetime's object: its members in order, each key's printed text
 * (made once, for each unit's two keys that name it) and the value's place
 * in struct carbon_lifetime. The last, embodied carbon, is the int 0 in
 * the _zero_embodied variant. */
#define LIFE_MEMBERS (6 + 2 * CARBON_NCOMP + 4)
static struct {
    char text[96];
    size_t len;
} life_keys[3][LIFE_MEMBERS];
static size_t life_at[LIFE_MEMBERS];
static pthread_once_t life_once = PTHREAD_ONCE_INIT;

struct life_member {
    const char *a, *b, *c;   /* the key's three parts */
    size_t at;
};

static void life_members_init(void)
{
#define AT(f) offsetof(struct carbon_lifetime, f)
    for (int u = 0; u < 3; u++) {
        char name[96];
        struct life_member m[LIFE_MEMBERS] = {
            { "avg_total_carbon_efficiency_", unit_names[u], "_per_kgCO2e", AT(carbon_eff) },
            { "avg_total_energy_consumption_kWh", "", "", AT(total_kWh) },
            { "avg_idle_energy_consumption_kWh", "", "", AT(idle_kWh) },
            { "avg_active_energy_consumption_kWh", "", "", AT(active_kWh) },
            { "avg_static_energy_consumption_kWh", "", "", AT(static_kWh) },
            { "avg_dynamic_energy_consumption_kWh", "", "", AT(dynamic_kWh) },
        };
        int k = 6;   /* after the six above */
        for (int pass = 0; pass < 2; pass++)
            for (int c = 0; c < CARBON_NCOMP; c++, k++) {
                m[k].a = pass ? "avg_dynamic_" : "avg_static_";
                m[k].b = carbon_comp_names[c];
                m[k].c = "_energy_consumption_kWh";
                m[k].at = (pass ? AT(dynamic_c_kWh) : AT(static_c_kWh)) + (size_t)c * sizeof(double);
            }
        m[k++] = (struct life_member){ "avg_power_efficiency_", unit_names[u], "_per_joule", AT(power_eff) };
        m[k++] = (struct life_member){ "avg_embodied_carbon_percentage", "", "", AT(embodied_fraction) };
        m[k++] = (struct life_member){ "avg_total_carbon_kgCO2e", "", "", AT(total_kg) };
        m[k++] = (struct life_member){ "embodied_carbon_kgCO2e", "", "", AT(embodied_kg) };
        for (int i = 0; i < LIFE_MEMBERS; i++) {
            life_keys[u][i].len = pyjson_key_text(strbuf_join3(name, sizeof name, m[i].a, m[i].b, m[i].c),
                                                  life_keys[u][i].text, sizeof life_keys[u][i].text);
            if (!life_keys[u][i].len)
                abort();   /* a key longer than the table's room: a bug here, not an input */
            life_at[i] = m[i].at;
        }
    }
#undef AT
}

/* The carbon_and_energy_stats{,_zero_embodied} object for all lifetimes, as
 * the text it prints as at depth 1 (a member of the statistics). */
static cJSON *lifetimes_json(const struct carbon_plan *o, const struct carbon_summary *s, double PUE,
                             double ci, double embodied, bool zero, enum unit_kind unit)
{
    pthread_once(&life_once, life_members_init);
    struct pyjson_text t;
    pyjson_text_begin(&t, 1);
    for (int i = 0; i < o->nlife; i++) {
        struct carbon_lifetime r;
        carbon_for_lifetime(s, PUE, ci, o->life[i], zero ? 0 : embodied, &r);
        char lk[32];
        struct strbuf lb = STRBUF(lk);
        strbuf_puti(&lb, o->life[i]);
        pyjson_text_object(&t, lk);
        for (int k = 0; k < LIFE_MEMBERS; k++) {
            double v;
            memcpy(&v, (const char *)&r + life_at[k], sizeof v);
            char num[PY_REPR_MAX];
            /* The reference's zero is the int 0; otherwise a float product. */
            const char *text = zero && k == LIFE_MEMBERS - 1 ? "0" : jraw_f64_text(v, num);
            pyjson_text_raw_keyed(&t, life_keys[unit][k].text, life_keys[unit][k].len, text, strlen(text));
        }
        pyjson_text_end(&t);
    }
    pyjson_text_end(&t);
    char *text = pyjson_text_take(&t);
    cJSON *raw = text ? cJSON_CreateRaw(text) : NULL;
    free(text);
    return raw;
}

/* ---- one statistics file, read and written back with keys set ---- */

/* A statistics file's tree (every number keeping its text), and the
 * strategy's energy when a suite's energy stage handed it over typed. */
struct stats_file {
    cJSON *j;
    const struct carbon_energy *es;   /* from memory, or NULL: read from j */
    const struct result_config *cfg;  /* sim_config's chip and system from memory, or NULL */
};

/* The file at path: from the suite's results in memory (study/run/results.h)
 * when they hold it with the strategy's energy as finite numbers, else
 * read and parsed. */
static int stats_load(const struct carbon_plan *o, const char *path, struct stats_file *f, struct npu_err *e)
{
    memset(f, 0, sizeof *f);
    size_t n = strlen(o->results), len = strlen(path);
    const struct result *res = NULL;
    if (o->in && len > n + 6 && !strncmp(path, o->results, n) && path[n] == '/') {
        char key[4096];
        snprintf(key, sizeof key, "%.*s", (int)(len - n - 6), path + n + 1);
        res = results_find(o->in, o->results, key);
    }
    for (int i = 0; res && i < res->nenergy && !f->es; i++)
        if (!strcmp(res->energy[i].name, o->pg) && res->energy[i].finite)
            f->es = &res->energy[i].es;
    if (f->es) {
        f->cfg = res->config;
        return (f->j = cJSON_Duplicate(res->stats, 1)) ? 0 : npu_errf(e, "%s: out of memory", path);
    }
    return (f->j = results_load_json(path, JSON_NUMBERS_TEXT, e)) ? 0 : -1;
}

/* The file with the members of edits set (dict assignment order), as text. */
static char *stats_print(struct stats_file *f, const cJSON *edits)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, edits)
        jset(f->j, it->string, cJSON_Duplicate(it, true));
    return pyjson_print(f->j);
}

/* The strategy's numbers (base: "energy_stats.<pg>") from the parsed tree j. */
static int strategy_energy(const struct carbon_plan *o, const char *file, const cJSON *j, const char *base,
                           struct carbon_energy *es, struct npu_err *e)
{
    const cJSON *es_j = jpath(j, base);
    if (!cJSON_IsObject(es_j)) {
        char known[512] = "";
        const cJSON *it;
        cJSON_ArrayForEach(it, jpath(j, "energy_stats"))
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", known[0] ? ", " : "", it->string);
        return npu_errf(e, "%s: field \"energy_stats\" has no strategy \"%s\" (has: %s)", file, o->pg,
                        known[0] ? known : "none");
    }
#define NEED(name, dst)                                                                                        \
    do {                                                                                                       \
        if (need_num(es_j, base, name, file, dst, e))   /* from the strategy's object, not the top */        \
            return -1;                                                                                         \
    } while (0)
    NEED("total_energy_J", &es->total_energy_J);
    NEED("avg_power_W", &es->avg_power_W);
    NEED("peak_power_W", &es->peak_power_W);
    NEED("component_stats.slowdown", &es->slowdown);
    for (int c = 0; c < CARBON_NCOMP; c++) {
        char n[64];
        strbuf_join3(n, sizeof n, "static_", carbon_comp_names[c], "_energy_J");
        NEED(n, &es->static_J[c]);
        strbuf_join3(n, sizeof n, "dynamic_", carbon_comp_names[c], "_energy_J");
        NEED(n, &es->dynamic_J[c]);
    }
#undef NEED
    return 0;
}

/* Reads the inputs of §8 from one stats file and writes it back with the
 * carbon keys added, once per carbon intensity (texts[i] receives the file
 * for ci[i]). */
static int analyse_file(const struct carbon_plan *o, const char *file, struct stats_file *f, enum unit_kind unit,
                        char **texts, struct npu_err *e)
{
    const cJSON *j = f->j;
    const cJSON *sim = jpath(j, "sim_config");
    if (!cJSON_IsObject(sim))
        return npu_errf(e, "%s: field \"sim_config\" is missing", file);
    struct result_config cfg;
    if (f->cfg) {
        cfg = *f->cfg;
    } else {
        chip_config_default(&cfg.chip);
        system_config_default(&cfg.sys);
        if (fields_from_json(&chip_fields, &cfg.chip, sim, NULL, e) ||
            fields_from_json(&system_fields, &cfg.sys, sim, NULL, e)) {
            struct npu_err inner = *e;
            return npu_errf(e, "%s: sim_config: %s", file, inner.msg);
        }
    }
    const struct chip_config chip = cfg.chip;
    const struct system_config sys = cfg.sys;
    const cJSON *nc = cJSON_GetObjectItemCaseSensitive(sim, "num_chips");
    double chips = 1;
    if (nc && (!jnum(nc, &chips) || chips <= 0 || chips != floor(chips)))
        return npu_errf(e, "%s: field \"sim_config.num_chips\": expected a positive integer", file);

    char base[512];
    snprintf(base, sizeof base, "energy_stats.%s", o->pg);
    struct carbon_energy es;
    char key[600];
    if (f->es)
        es = *f->es;
    else if (strategy_energy(o, file, j, base, &es, e))
        return -1;
    if (es.total_energy_J == 0)
        return npu_errf(e, "%s: field \"%s.total_energy_J\" is 0: no energy shares", file, base);
    if (es.slowdown == 0)
        return npu_errf(e, "%s: field \"%s.component_stats.slowdown\" is 0", file, base);

    double unit_per_sec;
    if (unit == UNIT_ITERATIONS) {
        double t;
        if (need_num(j, "", "total_execution_time_ns", file, &t, e))
            return -1;
        if (t == 0)
            return npu_errf(e, "%s: field \"total_execution_time_ns\" is 0", file);
        unit_per_sec = 1 / (t / 1e9);
    } else if (need_num(j, "", unit == UNIT_TOKENS ? "throughput_tokens_per_sec" : "throughput_requests_per_sec",
                        file, &unit_per_sec, e))
        return -1;

    struct carbon_summary s;
    carbon_summarize(carbon_idle_power_W(&chip, strcmp(o->pg, "NoPG") != 0), (int64_t)chips, &es, o->util,
                     unit_per_sec, &s);
    if (s.avg_power_W == 0 || s.goodput * o->util == 0)
        return npu_errf(e, "%s: average power or goodput x utilisation is 0: no efficiency can be formed", file);

    /* The keys set, in order (a Python dict's assignments). */
    cJSON *edits = cJSON_CreateObject();
    /* Distinct keys into a new object: added, no lookup (jset below replaces). */
    cJSON_AddItemToObject(edits, "idle_power_W", jraw_f64(s.idle_power_W));
    cJSON_AddItemToObject(edits, "avg_active_power_W", jraw_f64(s.avg_active_power_W));
    cJSON_AddItemToObject(edits, "avg_power_W", jraw_f64(s.avg_power_W));
    cJSON_AddItemToObject(edits, "peak_power_W", jraw_f64(s.peak_power_W));
    cJSON_AddItemToObject(edits, "idle_ratio", jraw_f64(s.idle_ratio));
    cJSON_AddItemToObject(edits, "active_ratio", jraw_f64(s.active_ratio));
    for (int pass = 0; pass < 2; pass++)
        for (int c = 0; c < CARBON_NCOMP; c++) {
            strbuf_join3(key, sizeof key, pass ? "dynamic_" : "static_", carbon_comp_names[c], "_ratio");
            cJSON_AddItemToObject(edits, key, jraw_f64(pass ? s.dynamic_ratio[c] : s.static_ratio[c]));
        }
    double embodied = chip.embodied_carbon_kgCO2 * chips;
    int rc = 0;
    for (int i = 0; i < o->nci && !rc; i++) {
        jset(edits, "carbon_and_energy_stats", lifetimes_json(o, &s, sys.PUE, o->ci[i], embodied, false, unit));
        jset(edits, "carbon_and_energy_stats_zero_embodied",
             lifetimes_json(o, &s, sys.PUE, o->ci[i], embodied, true, unit));
        if (!(texts[i] = stats_print(f, edits)))
            rc = npu_errf(e, "%s: out of memory", file);
    }
    cJSON_Delete(edits);
    return rc;
}

/* One stats file to analyse. */
struct cfile {
    struct results_file f;
    const char *model;
    enum unit_kind unit;
};

/* The stats files of every model, version and phase, in output order,
 * listed one (model, version, phase) at a time as the workers ask for
 * files: the listing (a folder read and a stat per configuration) overlaps
 * the first analyses instead of delaying them all. */
struct lister {
    const struct carbon_plan *o;
    int model, version, phase;       /* the next group to list */
    struct results_file *files;      /* the current group */
    int nfiles, pos;
    const char *group_model;
    enum unit_kind group_unit;
};

/* The next file into *cf; false when every group is done. */
static bool lister_next(struct lister *l, struct cfile *cf)
{
    const struct carbon_plan *o = l->o;
    bool training = !strcmp(o->workload, "training");
    while (l->pos == l->nfiles && l->model < o->nmodels) {
        free(l->files);
        l->files = NULL;
        l->nfiles = l->pos = 0;
        const char *model = o->models[l->model];
        bool llm = slo_model_class(model) == SLO_LLM;
        if (!llm && training) {
            fprintf(stderr, "npusim carbon: warning: %s: training carbon analysis covers LLMs only; skipped\n",
                    model);
            l->model++;
            continue;
        }
        const char *phases[2] = { "", NULL };
        if (llm && !training)
            phases[0] = "_prefill", phases[1] = "_decode";
        const char *version = o->versions[l->version], *phase = phases[l->phase];
        bool last_phase = l->phase == 1 || !phases[1];
        l->phase = last_phase ? 0 : l->phase + 1;
        if (last_phase && ++l->version == o->nversions)
            l->version = 0, l->model++;
        struct npu_err e;
        if (results_list(o->results, model, version, o->workload, phase, &l->files, &l->nfiles, warn, &e)) {
            fprintf(stderr, "npusim carbon: warning: %s; model %s skipped\n", e.msg, model);
            if (l->phase || l->version) /* not moved on to the next model yet */
                l->phase = l->version = 0, l->model++;
            continue;
        }
        l->group_model = model;
        l->group_unit = llm ? (training ? UNIT_ITERATIONS : UNIT_TOKENS) : UNIT_REQUESTS;
    }
    if (l->pos == l->nfiles)
        return false;
    *cf = (struct cfile){ l->files[l->pos++], l->group_model, l->group_unit };
    return true;
}

/* A pool task: its file (a copy); work() analyses it and writes its files
 * (one per carbon intensity) into the staging folder. */
struct citem {
    struct cfile cf;
    int rc;
    struct npu_err e;
};

struct crun {
    const struct carbon_plan *o;
    struct lister *files;
    int written;                 /* files staged by the items emitted so far */
    const char *util, *staging;   /* staging: laid out as <root>/carbon_<PG>/dvfs_<D> */
    struct npu_err first;
    bool failed;
    long done;                   /* items emitted, for the progress line */
};

static int citem_next(void *ctx, void *item)
{
    struct crun *r = ctx;
    struct citem *it = item;
    memset(it, 0, sizeof *it);
    if (r->o->stop && *r->o->stop) {   /* a signal asked to stop: no further file */
        npu_errf(&r->first, "interrupted");
        r->failed = true;
        return -1;
    }
    return lister_next(r->files, &it->cf) ? 1 : 0;
}

/* Writes text to staged (a new file in the run's private staging folder,
 * removed whole if the run fails). The text is freed. */
static int stage_file(const char *staged, char *text, struct npu_err *e)
{
    struct atomic_file a;
    int rc = atomic_open_staged(&a, staged, e);
    if (!rc) {
        setvbuf(a.f, NULL, _IONBF, 0);   /* one write of the whole text */
        if (fputs(text, a.f) == EOF) {
            rc = npu_errf(e, "%s: write failed: %s", staged, strerror(errno));
            atomic_abort(&a);
        } else if (atomic_commit(&a, e)) {
            rc = -1;
        }
    }
    free(text);
    return rc;
}

static void citem_work(void *ctx, void *item)
{
    struct crun *r = ctx;
    struct citem *it = item;
    const struct cfile *cf = &it->cf;
    const struct carbon_plan *o = r->o;
    char **texts = calloc((size_t)o->nci, sizeof *texts);
    struct stats_file f = { 0 };
    it->rc = !texts ? npu_errf(&it->e, "out of memory")
                    : stats_load(o, cf->f.path, &f, &it->e) || analyse_file(o, cf->f.path, &f, cf->unit, texts, &it->e);
    cJSON_Delete(f.j);
    const char *b = strrchr(cf->f.path, '/') + 1;
    for (int i = 0; texts && i < o->nci; i++) {
        if (it->rc) {
            free(texts[i]);
            continue;
        }
        /* Staged at the same place under the staging folder as under dest
         * (study/stages/staging.h publishes it there). */
        char ci[40], rel[4096], staged[4200];
        py_repr_double(o->ci[i], ci, sizeof ci);
        snprintf(rel, sizeof rel, "CI%s/UTIL%s/%s/%s", ci, r->util, cf->model, cf->f.pstr);
        snprintf(staged, sizeof staged, "%s/%s", r->staging, rel);
        it->rc = make_dirs(staged, &it->e);
        snprintf(staged, sizeof staged, "%s/%s/%s", r->staging, rel, b);
        if (it->rc)
            free(texts[i]);
        else
            it->rc = stage_file(staged, texts[i], &it->e);
    }
    free(texts);
}

static int citem_emit(void *ctx, void *item)
{
    struct crun *r = ctx;
    struct citem *it = item;
    if (it->rc) {
        r->first = it->e;
        r->failed = true;
        return -1;
    }
    r->written += r->o->nci;
    stage_progress_update(r->o->progress, ++r->done);
    return 0;
}

/* Runs the stage of plan o: every file analysed into a staging folder,
 * published when all succeeded. */
static int run_plan(const struct carbon_plan *o, struct carbon_done *done, struct npu_err *e)
{
    /* Outputs go beside the raw_<dvfs> folder. */
    char *root = done->root;
    snprintf(root, sizeof done->root, "%s", o->results);
    for (size_t l = strlen(root); l > 1 && root[l - 1] == '/'; l--)
        root[l - 1] = '\0';
    char *slash = strrchr(root, '/');
    if (slash)
        *(slash == root ? slash + 1 : slash) = '\0';
    else
        strcpy(root, ".");
    char util[40];
    py_repr_double(o->util, util, sizeof util);

    struct lister files = { .o = o };
    /* Results are staged in a private folder beside carbon_<PG>, laid out as
     * under dest, so a failure leaves neither files nor folders behind. */
    char base[4200], dest[4300], staging[4400];
    snprintf(base, sizeof base, "%s/carbon_%s", root, o->pg);
    snprintf(dest, sizeof dest, "%s/dvfs_%s", base, o->dvfs);
    if (staging_create(base, staging, sizeof staging, e))
        return -1;
    struct crun r = { o, &files, 0, util, staging, { "" }, false, 0 };
    struct ordered_pool_ops ops = { &r, citem_next, citem_work, citem_emit, NULL };
    long n = o->jobs < 1 ? 1 : o->jobs;
    int rc = ordered_pool_run(&ops, sizeof(struct citem), (int)n, (size_t)(4 * n + 4));
    free(files.files);
    if (rc && !r.failed) {
        npu_errf(&r.first, "cannot start the worker threads");
        r.failed = true;
    }
    *e = r.first;
    /* Everything is written: publish it all (one rename when dest is new). */
    if (!r.failed && staging_publish(staging, dest, e))
        r.failed = true;
    else if (!r.failed)
        staging[0] = '\0';   /* published: nothing left to remove */
    staging_remove(staging);
    done->files = r.written;
    return r.failed ? -1 : 0;
}


/* ---- the request ---- */

struct carbon_request carbon_request_default(void)
{
    struct carbon_request r;
    memset(&r, 0, sizeof r);
    r.workload = "inference";
    r.dvfs = "None";
    r.duty_cycle = NAN;
    r.prof = profile_default();
    return r;
}

/* The upper bound of system config field key: the options stop where a
 * system file does, so an intensity of 1e308 cannot reach a statistics
 * JSON as Infinity. */
static double system_max(const char *key)
{
    double lo, hi;
    fields_range(fields_find(&system_fields, key), &lo, &hi);
    return hi;
}

int carbon_ci_check(double ci, const char *text, struct npu_err *e)
{
    double hi = system_max("carbon_intensity_kgCO2_per_kWh");
    if (ci >= 0 && ci <= hi)
        return 0;
    char num[40];
    py_repr_double(ci, num, sizeof num);
    return npu_errf(e, "--ci \"%s\": expected a carbon intensity from 0 to %g (kgCO2e/kWh)", text ? text : num, hi);
}

int carbon_duty_cycle_check(double util, const char *text, struct npu_err *e)
{
    char num[40];
    py_repr_double(util, num, sizeof num);
    text = text ? text : num;
    if (!(util >= 0 && util <= 1))
        return npu_errf(e, "--util \"%s\": expected a duty cycle in (0, 1]", text);
    /* No work over the lifetime: carbon per unit of work is undefined
     * (the reference divides by zero). */
    if (util == 0)
        return npu_errf(e, "--util \"%s\": a duty cycle of 0 does no work, so carbon and energy per unit of work "
                           "are undefined", text);
    return 0;
}

int carbon_lifetime_check(int64_t years, const char *text, struct npu_err *e)
{
    double hi = system_max("lifetime_years");
    if (years > 0 && (double)years <= hi)
        return 0;
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)years);
    return npu_errf(e, "--lifetime \"%s\": expected a positive whole number of years, at most %g", text ? text : num,
                    hi);
}

/* names[0..n) into out without repeats (each analysed and written once);
 * the count, or -1 when there are none or more than CARBON_MAX_ITEMS. */
static int distinct_names(const char *const *names, int n, const char **out)
{
    if (!names || n < 1 || n > CARBON_MAX_ITEMS)
        return -1;
    int k = 0;
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < k && strcmp(out[j], names[i]) != 0)
            j++;
        if (j == k)
            out[k++] = names[i];
    }
    return k;
}

/* The request's values into o, checked, repeats dropped (the same folder
 * name CI<repr> means the same bits; one lifetime key, as in a Python
 * dict). 0 or -1 with e naming the option. */
static int plan_of(const struct carbon_request *r, struct carbon_plan *o, struct npu_err *e)
{
    if (!r->results || r->nmodels < 1 || r->nversions < 1 || !r->pg)
        return npu_errf(e, "--results, --models, --versions and --pg are required");
    if (!r->workload || (strcmp(r->workload, "inference") && strcmp(r->workload, "training")))
        return npu_errf(e, "--workload \"%s\": expected inference or training", r->workload ? r->workload : "");
    if (!r->pg[0] || strchr(r->pg, '/') || !r->dvfs || !r->dvfs[0] || strchr(r->dvfs, '/'))
        return npu_errf(e, "--pg / --dvfs: expected a strategy / policy name");
    o->results = r->results, o->workload = r->workload, o->pg = r->pg, o->dvfs = r->dvfs;
    o->nmodels = distinct_names(r->models, r->nmodels, o->models);
    o->nversions = distinct_names(r->versions, r->nversions, o->versions);
    if (o->nmodels < 0 || o->nversions < 0)
        return npu_errf(e, "--models / --versions: expected a comma list of at most %d names", CARBON_MAX_ITEMS);
    if (r->nci > CARBON_MAX_ITEMS || r->nlifetimes > CARBON_MAX_ITEMS)
        return npu_errf(e, "--ci / --lifetime: at most %d values", CARBON_MAX_ITEMS);
    for (int i = 0; i < r->nci; i++) {
        double v = r->ci_kgCO2e_per_kWh[i];
        if (carbon_ci_check(v, NULL, e))
            return -1;
        bool dup = false;
        for (int k = 0; k < o->nci; k++)
            dup |= memcmp(&o->ci[k], &v, sizeof v) == 0;
        if (!dup)
            o->ci[o->nci++] = v;
    }
    for (int i = 0; i < r->nlifetimes; i++) {
        int64_t v = r->lifetime_years[i];
        if (carbon_lifetime_check(v, NULL, e))
            return -1;
        bool dup = false;
        for (int k = 0; k < o->nlife; k++)
            dup |= o->life[k] == v;
        if (!dup)
            o->life[o->nlife++] = v;
    }
    if (!isnan(r->duty_cycle) && carbon_duty_cycle_check(r->duty_cycle, NULL, e))
        return -1;
    o->util = r->duty_cycle;
    return 0;
}

/* The line naming the values used, each as the files' folders and keys
 * name it, and where each came from (an option, or cd's source). */
static void said_line(const struct carbon_plan *o, const struct carbon_request *r, const struct carbon_defaults *cd,
                      char *said, size_t n)
{
    char ci[256] = "", util[32], life[256] = "";
    for (int i = 0; i < o->nci; i++) {
        char one[40];
        py_repr_double(o->ci[i], one, sizeof one);
        snprintf(ci + strlen(ci), sizeof ci - strlen(ci), "%s%s", i ? "," : "", one);
    }
    carbon_default_text(o->util, util, sizeof util);
    for (int i = 0; i < o->nlife; i++)
        snprintf(life + strlen(life), sizeof life - strlen(life), "%s%lld", i ? "," : "", (long long)o->life[i]);
    const char *text[CD_N] = { ci, life, util, NULL };
    const char *from[CD_N] = { r->nci ? "--ci" : cd->from[CD_CI], r->nlifetimes ? "--lifetime" : cd->from[CD_LIFETIME],
                               !isnan(r->duty_cycle) ? "--util" : cd->from[CD_DUTY], "" };
    carbon_defaults_line(text, from, said, n);
}

/* The intensity, duty cycle and lifetime the request leaves out: the system
 * config's (power/system.h, the one set of defaults), or under the profile
 * switch carbon_script_defaults the reference script's. said gets the line
 * naming the values used and where each came from. 0 or -1 with e. */
static int take_defaults(struct carbon_plan *o, const struct carbon_request *r, const struct profile *prof,
                         char *said, size_t n, struct npu_err *e)
{
    struct carbon_defaults cd = { { 0 }, { 0 } };
    struct loaded_config sys;
    struct config_request cr = { r->configs, NULL, NULL, NULL, NULL, 0, false };
    /* Only looked for when a default is taken: a call that gives all three needs no system config. */
    bool need = !r->nci || isnan(r->duty_cycle) || !r->nlifetimes;
    struct npu_err inner;
    if (need && config_load(&cr, &sys, &inner)) {
        config_free(&sys);
        return npu_errf(e, "the system config (for the defaults of --ci, --util, --lifetime): %s", inner.msg);
    }
    if (need) {
        carbon_defaults_of(&sys.sys, sys.sources, prof, true, &cd);
        if (!r->nci)
            o->ci[0] = cd.v[CD_CI], o->nci = 1;
        if (isnan(r->duty_cycle))
            o->util = cd.v[CD_DUTY];
        double life = cd.v[CD_LIFETIME];
        if (!r->nlifetimes && life != floor(life)) {
            npu_errf(e, "%s: field \"lifetime_years\" %g: carbon needs whole years; give --lifetime",
                     cd.from[CD_LIFETIME], life);
            config_free(&sys);
            return -1;
        }
        if (!r->nlifetimes)
            o->life[0] = (int64_t)life, o->nlife = 1;
    }
    said_line(o, r, &cd, said, n);
    if (need)
        config_free(&sys);
    return 0;
}

int carbon_run(const struct carbon_request *r, const struct stage_io *io, struct carbon_done *done,
               struct npu_err *e)
{
    memset(done, 0, sizeof *done);
    struct stage_io none = stage_io_none();
    io = io ? io : &none;
    struct carbon_plan *o = calloc(1, sizeof *o);
    if (!o)
        return npu_errf(e, "out of memory");
    const struct profile *prof = r->prof ? r->prof : profile_default();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = r->jobs > 0 ? r->jobs : cores > 0 ? cores : 1;
    o->in = io->in;
    o->progress = &io->progress;
    o->stop = io->stop;
    int rc = plan_of(r, o, e) || take_defaults(o, r, prof, done->said, sizeof done->said, e) ? -1 : 0;
    if (!rc && !path_is_dir(r->results))
        rc = npu_errf(e, "--results \"%s\": no such folder", r->results);
    done->request_error = rc != 0;
    if (!rc) {
        stage_progress_begin(o->progress, 0);
        rc = run_plan(o, done, e);
        stage_progress_end(o->progress);
    }
    free(o);
    return rc;
}
