/* slo_stage.c — the SLO stage (see slo_stage.h): its request's defaults and
 * checks, and the run. For each model and phase every version's statistics
 * files are read once (struct version_set), the reference latency taken
 * from TPUv5p, and each scale's choices made by power/slo.c and written in
 * the reference's key order. */
#include "study/stages/slo_stage.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/textfile.h"
#include "power/slo.h"
#include "study/run/run.h"
#include "study/stages/results_tree.h"

/* The stats files of one version, loaded. */
struct version_set {
    struct results_file *files;
    cJSON **json;
    struct slo_point *pts;
    int n;
    double price;              /* $ per chip-hour from the chip config (sim_config); 0: none */
};

static void set_free(struct version_set *s)
{
    for (int i = 0; i < s->n; i++)
        cJSON_Delete(s->json[i]);
    free(s->json);
    free(s->pts);
    free(s->files);
    memset(s, 0, sizeof *s);
}

static void warn(const char *msg) { fprintf(stderr, "npusim slo: warning: %s\n", msg); }

static double num_or_nan(const cJSON *it)
{
    double v;
    return jnum(it, &v) ? v : NAN;
}

/* The n listed statistics files of s, read: the points carry the metrics of m. */
static int load_files(const struct slo_metrics *m, struct version_set *s, int n, struct npu_err *e)
{
    s->json = calloc(n ? (size_t)n : 1, sizeof *s->json);
    s->pts = calloc(n ? (size_t)n : 1, sizeof *s->pts);
    for (int i = 0; i < n; i++) {
        const char *f = s->files[i].path;
        cJSON *j = s->json[i] = results_load_json(f, JSON_NUMBERS_TEXT, e);
        s->n = i + 1;
        if (!j)
            return -1;
        struct slo_point *p = &s->pts[i];
        p->bs = s->files[i].pc.bs;
        p->pstr_chips = s->files[i].pstr_chips;
        double chips;
        if (!jnum(jpath(j, "sim_config.num_chips"), &chips) || chips < 1)
            return npu_errf(e, "%s: field \"sim_config.num_chips\": expected a positive integer", f);
        p->num_chips = (int64_t)chips;
        const cJSON *oom = jpath(j, "out_of_memory");
        if (!oom)
            return npu_errf(e, "%s: field \"out_of_memory\" is missing", f);
        p->oom = !cJSON_IsFalse(oom);   /* the reference keeps only `is False` */
        p->latency = num_or_nan(jpath(j, m->latency));
        p->tput = num_or_nan(jpath(j, m->tput));
        if (!p->oom && (isnan(p->latency) || isnan(p->tput)))
            return npu_errf(e, "%s: field \"%s\" or \"%s\": expected a number", f, m->latency, m->tput);
        /* Power efficiency is the same for every lifetime: the reference
         * reads lifetime "1"; a tree without it (npusim carbon's lifetime is
         * the system config's) gives its first. */
        const cJSON *lives = jpath(j, "carbon_and_energy_stats");
        const cJSON *life = cJSON_GetObjectItemCaseSensitive(lives, "1");
        if (!life && cJSON_IsObject(lives))
            life = lives->child;
        p->energy = num_or_nan(cJSON_GetObjectItemCaseSensitive(life, m->energy));
        /* The chip's own price when its config gives one (npusim's field). */
        double price;
        if (jnum(jpath(j, "sim_config.price_per_chip_hour_usd"), &price) && price > 0)
            s->price = price;
    }
    return 0;
}

/* Loads model/version; points carry the metrics of m. -1 when the model's
 * folder cannot be listed (the model is skipped), -2 for a statistics file
 * that does not read as one (an error: exit 2); both name the file. */
static int load_set(const struct slo_request *o, const char *model, const char *version, const char *suffix,
                    const struct slo_metrics *m, struct version_set *s, struct npu_err *e)
{
    memset(s, 0, sizeof *s);
    int n;
    if (results_list(o->results_dir, model, version, o->workload, suffix, &s->files, &n, warn, e))
        return -1;
    return load_files(m, s, n, e) ? -2 : 0;
}

/* os.path.abspath: joined with the working folder and normalised. */
static void abspath(const char *in, char *out, size_t n)
{
    char buf[8192], cwd[4096];
    if (in[0] == '/')
        snprintf(buf, sizeof buf, "%s", in);
    else
        snprintf(buf, sizeof buf, "%s/%s", getcwd(cwd, sizeof cwd) ? cwd : ".", in);
    char *parts[512];
    int np = 0;
    for (char *save = NULL, *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (!strcmp(t, "."))
            continue;
        if (!strcmp(t, "..")) {
            np -= np > 0;
            continue;
        }
        if (np < 512)
            parts[np++] = t;
    }
    size_t l = 0;
    out[0] = '\0';
    for (int i = 0; i < np && l + 1 < n; i++)
        l += (size_t)snprintf(out + l, n - l, "/%s", parts[i]);
    if (!np)
        snprintf(out, n, "/");
}

/* str.replace(old, new): every occurrence. */
static void replace_all(const char *s, const char *old, const char *new, char *out, size_t n)
{
    size_t l = 0, ol = strlen(old);
    out[0] = '\0';
    for (const char *p; (p = strstr(s, old)) && l < n;) {
        l += (size_t)snprintf(out + l, n - l, "%.*s%s", (int)(p - s), s, new);
        s = p + ol;
    }
    if (l < n)
        snprintf(out + l, n - l, "%s", s);
}

/* The stats file a choice names: output_file_path with ".csv" → "[_phase].json"
 * made absolute, as the reference names it; or, unless the profile keeps that,
 * the file the choice was read from, relative to the --results root. */
static cJSON *stats_file(const struct slo_request *o, const struct results_file *f, const cJSON *j,
                         const char *phase_suffix, bool llm_inference)
{
    if (!o->prof->absolute_output_paths) {
        size_t n = strlen(o->results_dir);
        bool under = strncmp(f->path, o->results_dir, n) == 0 && f->path[n] == '/';
        return cJSON_CreateString(under ? f->path + n + 1 : f->path);
    }
    const cJSON *p = jpath(j, "sim_config.output_file_path");
    const char *path = cJSON_IsString(p) ? p->valuestring : "";
    char a[8192], b[8192], ext[64];
    if (llm_inference) {
        snprintf(ext, sizeof ext, "%s.json", phase_suffix);
        replace_all(path, ".csv", ext, a, sizeof a);
        abspath(a, b, sizeof b);
    } else {
        abspath(path, a, sizeof a);
        replace_all(a, ".csv", ".json", b, sizeof b);
    }
    return cJSON_CreateString(b);
}

static cJSON *dup_item(const cJSON *it) { return it ? cJSON_Duplicate(it, 1) : cJSON_CreateNull(); }

/* a * b as Python: int if both are ints, else float. */
static cJSON *py_mul(const cJSON *a, const cJSON *b)
{
    double x = 0, y = 0;
    jnum(a, &x), jnum(b, &y);
    if (jis_int(a) && jis_int(b))
        return jraw_i64((int64_t)x * (int64_t)y);
    return jraw_f64(x * y);
}

/* The SLO result of one version when some configuration meets the SLO: the
 * minimum-chip, throughput-optimal, energy-optimal and cost-optimal choices c
 * among s, in the reference's key order. */
static void fill_choice(const struct slo_request *o, cJSON *r, const struct slo_metrics *pm, const struct version_set *ps,
                        const struct slo_choice *pc, const cJSON *slo_item, const char *eff_display, double cost,
                        const char *suffix, bool llm_inf)
{
    const struct slo_metrics m = *pm;
    const struct version_set s = *ps;
    const struct slo_choice c = *pc;
    char key[256];
    const cJSON *mc = s.json[c.min_chip], *op = s.json[c.optimal], *en = s.json[c.energy],
                *co = s.json[c.cost];
    const struct slo_point *pmc = &s.pts[c.min_chip], *pop = &s.pts[c.optimal],
                           *pen = &s.pts[c.energy], *pco = &s.pts[c.cost];
    jset(r, "min_num_chips", jraw_i64(c.min_num_chips));
    jset(r, "optimal_num_chips", dup_item(jpath(op, "sim_config.num_chips")));
    jset(r, "optimal_energy_eff_num_chips", dup_item(jpath(en, "sim_config.num_chips")));
    jset(r, "optimal_cost_num_chips", dup_item(jpath(co, "sim_config.num_chips")));
    jset(r, "optimal_cost_global_batch_size", dup_item(jpath(co, "sim_config.global_batch_size")));
    snprintf(key, sizeof key, "ref_%s", m.latency);
    jset(r, key, cJSON_Duplicate(slo_item, 1));
    jset(r, m.latency, dup_item(jpath(mc, m.latency)));
    snprintf(key, sizeof key, "optimal_%s", m.latency);
    jset(r, key, dup_item(jpath(op, m.latency)));
    snprintf(key, sizeof key, "optimal_energy_eff_%s", m.latency);
    jset(r, key, dup_item(jpath(en, m.latency)));
    snprintf(key, sizeof key, "optimal_cost_%s", m.latency);
    jset(r, key, dup_item(jpath(co, m.latency)));
    jset(r, eff_display, dup_item(jpath(mc, m.tput)));
    snprintf(key, sizeof key, "optimal_%s", eff_display);
    jset(r, key, dup_item(jpath(op, m.tput)));
    jset(r, "optimal_energy_eff_joule_per_good", jraw_f64(1 / pen->energy));
    jset(r, "throughput_per_chip", jraw_f64(slo_eff(pmc)));
    jset(r, "optimal_throughput_per_chip", jraw_f64(slo_eff(pop)));
    jset(r, "optimal_energy_eff_per_chip", jraw_f64(1 / pen->energy / (double)pen->num_chips));
    jset(r, "optimal_cost_good_per_dollar", jraw_f64(slo_good_per_dollar(pco, cost)));
    jset(r, "optimal_cost_total_memory_capacity_GB",
         py_mul(jpath(co, "sim_config.num_chips"), jpath(co, "sim_config.hbm_size_GB")));
    double watt = num_or_nan(jpath(en, "avg_power_W"));
    jset(r, "optimal_energy_eff_watt", dup_item(jpath(en, "avg_power_W")));
    jset(r, "optimal_energy_eff_watt_per_chip", jraw_f64(watt / (double)pen->num_chips));
    jset(r, "stats_file", stats_file(o, &s.files[c.min_chip], mc, suffix, llm_inf));
    jset(r, "optimal_stats_file", stats_file(o, &s.files[c.optimal], op, suffix, llm_inf));
    jset(r, "optimal_energy_eff_stats_file", stats_file(o, &s.files[c.energy], en, suffix, llm_inf));
    jset(r, "optimal_cost_stats_file", stats_file(o, &s.files[c.cost], co, suffix, llm_inf));
}

/* Who made a result: the model and chip versions it compares (NULL under neusim). */
static cJSON *slo_provenance(const struct slo_request *o, const char *model)
{
    cJSON *prov = config_provenance(o->prof, NULL);
    if (prov) {
        cJSON_AddStringToObject(prov, "model", model);
        cJSON *cv = cJSON_AddArrayToObject(prov, "chips");
        for (int vi = 0; vi < o->nversions; vi++)
            cJSON_AddItemToArray(cv, cJSON_CreateString(o->versions[vi]));
    }
    return prov;
}

/* The metrics of model's class; false (warned on stderr) when the stage has none for it. */
static bool metrics_of(const char *model, bool training, const char *phase, struct slo_metrics *m,
                       enum slo_class *cls)
{
    *cls = slo_model_class(model);
    if (slo_metrics_for(model, training, phase, m)) {
        fprintf(stderr, "npusim slo: warning: %s: unknown model class (not an LLM, DiT/GLIGEN or DLRM); skipped\n",
                model);
        return false;
    }
    if (training && *cls != SLO_LLM) {
        fprintf(stderr, "npusim slo: warning: %s: training results exist for LLMs only; skipped\n", model);
        return false;
    }
    return true;
}

/* Each version's files, read once for all scales (calloc'ed, o->nversions
 * sets). A file that does not read is an error (*fatal); a version without
 * files, a warning here (slo_run refuses one that no model named has results
 * for); a model without a folder, a warning and *failed. */
static struct version_set *load_versions(const struct slo_request *o, const char *model, const char *phase,
                                         const char *suffix, const struct slo_metrics *m, bool *failed,
                                         bool *fatal, struct npu_err *e)
{
    struct version_set *sets = calloc((size_t)o->nversions, sizeof *sets);
    if (!sets)
        return *failed = *fatal = true, npu_errf(e, "out of memory"), NULL;
    for (int vi = 0; vi < o->nversions && !*failed; vi++) {
        int rc = load_set(o, model, o->versions[vi], suffix, m, &sets[vi], e);
        *failed = rc != 0, *fatal = rc == -2;
        if (rc == -1)
            fprintf(stderr, "npusim slo: warning: %s; %s skipped\n", e->msg, model);
        if (!rc && !sets[vi].n && strcmp(phase, "decode"))   /* once per model: the decode phase mirrors */
            fprintf(stderr, "npusim slo: warning: no %s results for %s v%s under %s\n", o->workload, model,
                    o->versions[vi], o->results_dir);
    }
    return sets;
}

int slo_analyse(const struct slo_request *o, const char *model, const char *phase, char **text, struct npu_err *err)
{
    *text = NULL;
    bool training = !strcmp(o->workload, "training");
    enum slo_class cls;
    struct slo_metrics m;
    if (!metrics_of(model, training, phase, &m, &cls))
        return 0;
    bool llm_inf = cls == SLO_LLM && !training;
    char suffix[32] = "";
    if (llm_inf)
        snprintf(suffix, sizeof suffix, "_%s", phase);

    struct npu_err e;
    struct version_set ref;
    int rc = load_set(o, model, "5p", suffix, &m, &ref, &e);
    if (rc == -1)   /* no folder for the model: skipped, as the reference does */
        fprintf(stderr, "npusim slo: warning: %s; %s skipped\n", e.msg, model);
    else if (rc)
        *err = e;
    if (rc) {
        set_free(&ref);
        return rc == -1 ? 0 : -1;
    }
    int ri = slo_reference(ref.pts, ref.n, slo_reference_batch(model, training));
    if (ri < 0) {
        fprintf(stderr, "npusim slo: warning: %s%s%s: no TPUv5p reference configuration (batch %lld, fits in "
                        "memory) under %s; skipped\n", model, phase[0] ? " " : "", phase,
                (long long)slo_reference_batch(model, training), o->results_dir);
        set_free(&ref);
        return 0;
    }
    const cJSON *ref_lat = jpath(ref.json[ri], m.latency);
    cJSON *mult = jraw_i64(o->slo_multiple);
    cJSON *base = py_mul(ref_lat, mult);

    cJSON *root = cJSON_CreateObject();
    static const char *const preset[] = { "2", "3", "4", "5p" };   /* always present, maybe empty */
    const char *eff_name = m.tput;
    char eff_display[128];
    snprintf(eff_display, sizeof eff_display, "%s%s", training ? "eff_metric_" : "", m.tput);
    bool failed = false, fatal = false;
    struct version_set *sets = load_versions(o, model, phase, suffix, &m, &failed, &fatal, &e);
    for (int si = 0; si < o->nscales && !failed; si++) {
        char sk[32];
        snprintf(sk, sizeof sk, "%lld", (long long)o->slo_scales[si]);
        cJSON *scale = cJSON_CreateObject();
        for (size_t k = 0; k < 4; k++)
            cJSON_AddItemToObject(scale, preset[k], cJSON_CreateObject());
        cJSON *sc = jraw_i64(o->slo_scales[si]);
        cJSON *slo_item = py_mul(base, sc);
        cJSON_Delete(sc);
        double slo;
        jnum(slo_item, &slo);
        for (int vi = 0; vi < o->nversions && !failed; vi++) {
            const char *v = o->versions[vi];
            struct version_set s = sets[vi];
            double cost = s.price > 0 ? s.price : slo_cost_per_chip_hour(v);
            struct slo_choice c;
            rc = slo_select(s.pts, s.n, training ? 32 : -1, o->max_num_chips, slo, m.tput_max, cost, &c);
            cJSON *r = cJSON_CreateObject();
            if (rc) {
                npu_errf(&e, "%s: field \"carbon_and_energy_stats.1.%s\" is missing (expected the "
                             "statistics of npusim carbon)", s.files[c.bad].path, m.energy);
                failed = fatal = true;
            } else if (c.any_ok && cost < 0) {
                fprintf(stderr, "npusim slo: warning: version \"%s\": no $/chip-hour (the chip's "
                                "price_per_chip_hour_usd, else the TPU table); %s skipped\n", v, model);
                failed = true;
            } else if (!c.any_ok) {
                jset(r, "min_num_chips", jraw_i64(0));
                jset(r, m.latency, c.min_latency >= 0 ? dup_item(jpath(s.json[c.min_latency], m.latency))
                                                      : jraw_i64(0));
                jset(r, eff_name, jraw_i64(0));
            } else {
                fill_choice(o, r, &m, &s, &c, slo_item, eff_display, cost, suffix, llm_inf);
            }
            jset(scale, v, r);
        }
        cJSON_Delete(slo_item);
        jset(root, sk, scale);
    }
    for (int vi = 0; sets && vi < o->nversions; vi++)
        set_free(&sets[vi]);
    free(sets);
    cJSON_Delete(base);
    cJSON_Delete(mult);
    set_free(&ref);
    cJSON *prov = slo_provenance(o, model);
    if (prov)
        jset(root, "provenance", prov);
    *text = failed ? NULL : pyjson_print(root);
    cJSON_Delete(root);
    if (fatal)
        *err = e;
    return fatal ? -1 : 0;
}

/* A version named that none of the models named has statistics for is a
 * mistake (a typo, or the wrong tree): an error before any analysis. In a
 * suite (suite) the sweeps before said what they found, and a workload
 * whose points were all invalid leaves none: a warning there. */
static int versions_have_results(const struct slo_request *o, bool suite, struct npu_err *e)
{
    bool training = !strcmp(o->workload, "training");
    for (int v = 0; v < o->nversions; v++) {
        int total = 0;
        for (int i = 0; i < o->nmodels && !total; i++) {
            bool llm_inf = !training && slo_model_class(o->models[i]) == SLO_LLM;
            struct results_file *files = NULL;
            int n = 0;
            struct npu_err ignored;   /* a model without a folder is warned about where it is analysed */
            if (!results_list(o->results_dir, o->models[i], o->versions[v], o->workload,
                              llm_inf ? "_prefill" : "", &files, &n, NULL, &ignored))
                total += n;
            free(files);
        }
        if (total)
            continue;
        if (!suite && !o->prof->stage_without_results_warns)
            return npu_errf(e, "--versions \"%s\": no %s results for version %s of any model named under %s",
                            o->versions[v], o->workload, o->versions[v], o->results_dir);
        fprintf(stderr, "npusim slo: warning: no %s results for version %s of any model named under %s\n",
                o->workload, o->versions[v], o->results_dir);
    }
    return 0;
}

struct slo_request slo_request_default(void)
{
    struct slo_request r;
    memset(&r, 0, sizeof r);
    r.workload = "inference";
    for (int i = 0; i < 6; i++)
        r.slo_scales[i] = i + 1;
    r.nscales = 6;
    r.max_num_chips = INT_MAX;
    r.slo_multiple = 1;
    r.prof = profile_default();
    return r;
}

/* --results must be a folder holding at least one of the models (see
 * slo_request_check). */
static int check_results(const struct slo_request *r, struct npu_err *e)
{
    if (!path_is_dir(r->results_dir))
        return npu_errf(e, "--results \"%s\": no such folder", r->results_dir);
    char first_missing[4096] = "";
    for (int i = 0; i < r->nmodels; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", r->results_dir, r->models[i]);
        if (path_is_dir(dir))
            return 0;
        if (!first_missing[0])
            snprintf(first_missing, sizeof first_missing, "%s", dir);
    }
    return npu_errf(e, "%s: no such folder: --results holds none of the models named "
                    "(expected the carbon stage's CI<ci>/UTIL<u> folder)", first_missing);
}

int slo_request_check(const struct slo_request *r, struct npu_err *e)
{
    if (!r->workload || (strcmp(r->workload, "inference") && strcmp(r->workload, "training")))
        return npu_errf(e, "--workload \"%s\": expected inference or training", r->workload ? r->workload : "");
    if (r->max_num_chips < 1)
        return npu_errf(e, "--max-num-chips \"%lld\": expected a positive integer", (long long)r->max_num_chips);
    if (r->slo_multiple <= 0)
        return npu_errf(e, "--default-slo-multiple \"%lld\": expected a positive integer",
                        (long long)r->slo_multiple);
    if (!r->results_dir || !r->out_dir || !r->nmodels || !r->nversions)
        return npu_errf(e, "--results, --out, --models and --versions are required");
    if (r->nmodels < 0 || r->nmodels > SLO_MAX_ITEMS || r->nversions < 0 || r->nversions > SLO_MAX_ITEMS)
        return npu_errf(e, "--models / --versions: expected a comma list of at most %d names", SLO_MAX_ITEMS);
    if (r->nscales <= 0 || r->nscales > SLO_MAX_ITEMS)
        return npu_errf(e, "--slo-scales: expected a comma list of at most %d integers", SLO_MAX_ITEMS);
    for (int i = 0; i < r->nscales; i++)
        if (r->slo_scales[i] <= 0)
            return npu_errf(e, "--slo-scales \"%lld\": expected a positive integer", (long long)r->slo_scales[i]);
    return check_results(r, e);
}

int slo_run(const struct slo_request *req, const struct stage_io *io, struct slo_done *done, struct npu_err *e)
{
    done->written = done->analyses = 0;
    if (slo_request_check(req, e))
        return -1;
    struct slo_request rq = *req;
    const struct slo_request *o = &rq;
    if (!rq.prof)
        rq.prof = profile_default();
    bool training = !strcmp(o->workload, "training");
    struct task {
        const char *model, *phase;   /* phase "" for single-file workloads */
    } tasks[2 * SLO_MAX_ITEMS];
    int nt = 0;
    for (int i = 0; i < o->nmodels; i++)
        tasks[nt++] = (struct task){ o->models[i], training ? "" : "prefill" };
    if (!training)
        for (int i = 0; i < o->nmodels; i++)
            if (slo_model_class(o->models[i]) == SLO_LLM)
                tasks[nt++] = (struct task){ o->models[i], "decode" };
    struct output *out = calloc((size_t)nt, sizeof *out);
    if (!out)
        return npu_errf(e, "out of memory");
    int n = 0, rc = versions_have_results(o, io && io->suite, e);
    for (int i = 0; i < nt && !rc; i++) {
        char *text = NULL;
        rc = slo_analyse(o, tasks[i].model, tasks[i].phase, &text, e);
        if (!text)
            continue;
        bool llm_inf = !training && slo_model_class(tasks[i].model) == SLO_LLM;
        if (llm_inf)
            snprintf(out[n].path, sizeof out[n].path, "%s/%s/%s-%s.json", o->out_dir, tasks[i].model,
                     o->workload, tasks[i].phase);
        else
            snprintf(out[n].path, sizeof out[n].path, "%s/%s/%s.json", o->out_dir, tasks[i].model, o->workload);
        out[n++].text = text;
    }
    /* Nothing left to write (every model skipped for what its results hold,
     * warned above) is the reference's outcome too: no error, no file. */
    if (!rc)
        rc = write_outputs(out, n, e);
    else
        for (int i = 0; i < n; i++)
            free(out[i].text);
    free(out);
    done->written = n;
    done->analyses = nt;
    return rc;
}
