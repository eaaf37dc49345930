/* cmd_slo.c — `npusim slo`: SLO-driven design-space selection (power.md §9, §10).
 *
 * For each model (and LLM inference phase) reads the carbon results tree,
 * derives the latency SLO from the TPUv5p reference configuration and, per SLO
 * scale and chip version, picks the minimum-chip, throughput-, energy- and
 * cost-optimal configurations (power/slo.c), writing
 *   OUT/<model>/<workload>.json   or   OUT/<model>/<workload>-<prefill|decode>.json
 * A model the analysis cannot handle (unknown class, no results, no reference
 * configuration, a stats file without a needed key) is skipped with a warning;
 * every other file is still written, all together. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traces/lists.h"
#include "cli/cli.h"
#include "study/pyjson.h"
#include "study/results_tree.h"
#include "power/slo.h"
#include "traces/atomic.h"

static const char slo_help[] =
    "usage: npusim slo --results DIR/carbon_<PG>/dvfs_<D>/CI<ci>/UTIL<u> --out OUT\n"
    "                  --models M[,M...] --versions V[,V...] [--workload W] [--slo-scales LIST]\n"
    "                  [--max-num-chips N] [--default-slo-multiple K] [--configs DIR] [--profile NAME]\n"
    "\n"
    "The SLO of a model is the best latency (TTFT, TPOT, step or request latency, or\n"
    "iteration time) of TPUv5p at the reference batch with the fewest chips, times K,\n"
    "times each scale. For every scale and version it reports the fewest chips meeting\n"
    "the SLO, the best throughput per chip, the best energy per unit of work and the\n"
    "best goodput per dollar, in OUT/<model>/<workload>[-<phase>].json.\n"
    "\n"
    "options:\n"
    "      --results DIR       carbon results tree (from npusim carbon)\n"
    "      --out DIR           output folder\n"
    "      --models LIST       model names\n"
    "      --versions LIST     chip versions (2,3,4,5e,5p,6e,6p)\n"
    "      --workload W        inference (default: prefill, and decode for LLMs) or training\n"
    "      --slo-scales LIST   SLO multiples (default 1,2,3,4,5,6)\n"
    "      --max-num-chips N   ignore configurations with more chips (default 2147483647)\n"
    "      --default-slo-multiple K   the 1x SLO in units of the reference latency (default 1)\n"
    "      --configs DIR       accepted for symmetry (the results carry their configs)\n"
    "      --profile NAME      behaviour profile: physical (default) or neusim\n"
    "  -h, --help              this help\n";

#define MAX_ITEMS 64

struct slo_opts {
    const char *results, *out, *workload;
    char *models[MAX_ITEMS], *versions[MAX_ITEMS];
    int nmodels, nversions;
    int64_t scales[MAX_ITEMS];
    int nscales;
    int64_t max_chips, multiple;
    char *bufs[3];
};

/* The stats files of one version, loaded. */
struct version_set {
    struct results_file *files;
    cJSON **json;
    struct slo_point *pts;
    int n;
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

/* Loads model/version; points carry the metrics of m. Errors name the file. */
static int load_set(const struct slo_opts *o, const char *model, const char *version, const char *suffix,
                    const struct slo_metrics *m, struct version_set *s, struct npu_err *e)
{
    memset(s, 0, sizeof *s);
    int n;
    if (results_list(o->results, model, version, o->workload, suffix, &s->files, &n, warn, e))
        return -1;
    s->json = calloc(n ? (size_t)n : 1, sizeof *s->json);
    s->pts = calloc(n ? (size_t)n : 1, sizeof *s->pts);
    for (int i = 0; i < n; i++) {
        const char *f = s->files[i].path;
        cJSON *j = s->json[i] = results_load_json(f, e);
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
        char key[256];
        snprintf(key, sizeof key, "carbon_and_energy_stats.1.%s", m->energy);
        p->energy = num_or_nan(jpath(j, key));
    }
    return 0;
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

/* The stats file a choice names: output_file_path with ".csv" → "[_phase].json". */
static cJSON *stats_file(const cJSON *j, const char *phase_suffix, bool llm_inference)
{
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

struct task {
    const char *model, *phase;   /* phase "" for single-file workloads */
};

/* One model and phase: the text of its output file, or NULL (skipped, warned). */
/* The SLO result of one version when some configuration meets the SLO: the
 * minimum-chip, throughput-optimal, energy-optimal and cost-optimal choices c
 * among s, in the reference's key order. */
static void fill_choice(cJSON *r, const struct slo_metrics *pm, const struct version_set *ps,
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
    jset(r, "stats_file", stats_file(mc, suffix, llm_inf));
    jset(r, "optimal_stats_file", stats_file(op, suffix, llm_inf));
    jset(r, "optimal_energy_eff_stats_file", stats_file(en, suffix, llm_inf));
    jset(r, "optimal_cost_stats_file", stats_file(co, suffix, llm_inf));
}

static char *analyse(const struct slo_opts *o, const struct task *t)
{
    bool training = !strcmp(o->workload, "training");
    enum slo_class cls = slo_model_class(t->model);
    struct slo_metrics m;
    if (slo_metrics_for(t->model, training, t->phase, &m)) {
        fprintf(stderr, "npusim slo: warning: %s: unknown model class (not an LLM, DiT/GLIGEN or DLRM); skipped\n",
                t->model);
        return NULL;
    }
    if (training && cls != SLO_LLM) {
        fprintf(stderr, "npusim slo: warning: %s: training results exist for LLMs only; skipped\n", t->model);
        return NULL;
    }
    bool llm_inf = cls == SLO_LLM && !training;
    char suffix[32] = "";
    if (llm_inf)
        snprintf(suffix, sizeof suffix, "_%s", t->phase);

    struct npu_err e;
    struct version_set ref;
    if (load_set(o, t->model, "5p", suffix, &m, &ref, &e)) {
        fprintf(stderr, "npusim slo: warning: %s; %s skipped\n", e.msg, t->model);
        set_free(&ref);
        return NULL;
    }
    int ri = slo_reference(ref.pts, ref.n, slo_reference_batch(t->model, training));
    if (ri < 0) {
        fprintf(stderr, "npusim slo: warning: %s%s%s: no TPUv5p reference configuration (batch %lld, fits in "
                        "memory) under %s; skipped\n", t->model, t->phase[0] ? " " : "", t->phase,
                (long long)slo_reference_batch(t->model, training), o->results);
        set_free(&ref);
        return NULL;
    }
    const cJSON *ref_lat = jpath(ref.json[ri], m.latency);
    cJSON *mult = jraw_i64(o->multiple);
    cJSON *base = py_mul(ref_lat, mult);

    cJSON *root = cJSON_CreateObject();
    static const char *const preset[] = { "2", "3", "4", "5p" };   /* always present, maybe empty */
    const char *eff_name = m.tput;
    char eff_display[128];
    snprintf(eff_display, sizeof eff_display, "%s%s", training ? "eff_metric_" : "", m.tput);
    bool failed = false;
    /* Each version's files are read once, for all scales. */
    struct version_set *sets = calloc((size_t)o->nversions, sizeof *sets);
    for (int vi = 0; vi < o->nversions && !failed; vi++)
        if (load_set(o, t->model, o->versions[vi], suffix, &m, &sets[vi], &e)) {
            fprintf(stderr, "npusim slo: warning: %s; %s skipped\n", e.msg, t->model);
            failed = true;
        }
    for (int si = 0; si < o->nscales && !failed; si++) {
        char sk[32];
        snprintf(sk, sizeof sk, "%lld", (long long)o->scales[si]);
        cJSON *scale = cJSON_CreateObject();
        for (size_t k = 0; k < 4; k++)
            cJSON_AddItemToObject(scale, preset[k], cJSON_CreateObject());
        cJSON *sc = jraw_i64(o->scales[si]);
        cJSON *slo_item = py_mul(base, sc);
        cJSON_Delete(sc);
        double slo;
        jnum(slo_item, &slo);
        for (int vi = 0; vi < o->nversions && !failed; vi++) {
            const char *v = o->versions[vi];
            struct version_set s = sets[vi];
            double cost = slo_cost_per_chip_hour(v);
            struct slo_choice c;
            int rc = slo_select(s.pts, s.n, training ? 32 : -1, o->max_chips, slo, m.tput_max, cost, &c);
            cJSON *r = cJSON_CreateObject();
            if (rc) {
                fprintf(stderr, "npusim slo: warning: %s: field \"carbon_and_energy_stats.1.%s\" is missing; "
                                "%s skipped\n", s.files[c.bad].path, m.energy, t->model);
                failed = true;
            } else if (c.any_ok && cost < 0) {
                fprintf(stderr, "npusim slo: warning: version \"%s\": no $/chip-hour in the cost table; %s "
                                "skipped\n", v, t->model);
                failed = true;
            } else if (!c.any_ok) {
                jset(r, "min_num_chips", jraw_i64(0));
                jset(r, m.latency, c.min_latency >= 0 ? dup_item(jpath(s.json[c.min_latency], m.latency))
                                                      : jraw_i64(0));
                jset(r, eff_name, jraw_i64(0));
            } else {
                fill_choice(r, &m, &s, &c, slo_item, eff_display, cost, suffix, llm_inf);
            }
            jset(scale, v, r);
        }
        cJSON_Delete(slo_item);
        jset(root, sk, scale);
    }
    for (int vi = 0; vi < o->nversions; vi++)
        set_free(&sets[vi]);
    free(sets);
    cJSON_Delete(base);
    cJSON_Delete(mult);
    set_free(&ref);
    char *text = failed ? NULL : pyjson_print(root);
    cJSON_Delete(root);
    return text;
}

static int run(const struct slo_opts *o)
{
    struct stat st;
    if (stat(o->results, &st) != 0 || !S_ISDIR(st.st_mode))
        return usage_error("slo", "--results \"%s\": no such folder", o->results);
    bool training = !strcmp(o->workload, "training");
    /* A results tree holding none of the models named is the wrong tree
     * (or the wrong level of it): an error before any analysis. A model
     * missing among others is skipped with a warning, as the reference does
     * (a sweep whose points were all invalid leaves no folder). */
    int present = 0;
    char first_missing[4096] = "";
    for (int i = 0; i < o->nmodels; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", o->results, o->models[i]);
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            present++;
        else if (!first_missing[0])
            snprintf(first_missing, sizeof first_missing, "%s", dir);
    }
    if (!present)
        return usage_error("slo", "%s: no such folder: --results holds none of the models named "
                           "(expected the carbon stage's CI<ci>/UTIL<u> folder)", first_missing);
    struct task tasks[2 * MAX_ITEMS];
    int nt = 0;
    for (int i = 0; i < o->nmodels; i++)
        tasks[nt++] = (struct task){ o->models[i], training ? "" : "prefill" };
    if (!training)
        for (int i = 0; i < o->nmodels; i++)
            if (slo_model_class(o->models[i]) == SLO_LLM)
                tasks[nt++] = (struct task){ o->models[i], "decode" };
    struct output *out = calloc((size_t)nt, sizeof *out);
    int n = 0;
    for (int i = 0; i < nt; i++) {
        char *text = analyse(o, &tasks[i]);
        if (!text)
            continue;
        bool llm_inf = !training && slo_model_class(tasks[i].model) == SLO_LLM;
        if (llm_inf)
            snprintf(out[n].path, sizeof out[n].path, "%s/%s/%s-%s.json", o->out, tasks[i].model, o->workload,
                     tasks[i].phase);
        else
            snprintf(out[n].path, sizeof out[n].path, "%s/%s/%s.json", o->out, tasks[i].model, o->workload);
        out[n++].text = text;
    }
    struct npu_err e;
    /* Nothing left to write (every model skipped for what its results hold,
     * warned above) is the reference's outcome too: exit 0, no file. */
    int rc = write_outputs(out, n, &e);
    free(out);
    if (rc)
        return report_error("slo", &e);
    fprintf(stderr, "npusim slo: %d of %d analyses written under %s\n", n, nt, o->out);
    return 0;
}

int cmd_slo(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "results", required_argument, 0, 'r' },  { "out", required_argument, 0, 'o' },
        { "models", required_argument, 0, 'M' },   { "versions", required_argument, 0, 'V' },
        { "workload", required_argument, 0, 'W' }, { "slo-scales", required_argument, 0, 's' },
        { "max-num-chips", required_argument, 0, 'x' }, { "default-slo-multiple", required_argument, 0, 'k' },
        { "configs", required_argument, 0, 'C' },  { "profile", required_argument, 0, 'P' },
        { "help", no_argument, 0, 'h' },           { 0, 0, 0, 0 },
    };
    struct slo_opts o;
    memset(&o, 0, sizeof o);
    o.workload = "inference";
    o.max_chips = INT_MAX;
    o.multiple = 1;
    for (int i = 0; i < 6; i++)
        o.scales[i] = i + 1;
    o.nscales = 6;
    const char *models = NULL, *versions = NULL, *scales = NULL;
    int c, rc = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r': o.results = optarg; break;
        case 'o': o.out = optarg; break;
        case 'M': models = optarg; break;
        case 'V': versions = optarg; break;
        case 'W':
            if (strcmp(optarg, "inference") && strcmp(optarg, "training"))
                return usage_error("slo", "--workload \"%s\": expected inference or training", optarg);
            o.workload = optarg;
            break;
        case 's': scales = optarg; break;
        case 'x':
            if (parse_i64_strict(optarg, &o.max_chips) || o.max_chips < 1)
                return usage_error("slo", "--max-num-chips \"%s\": expected a positive integer", optarg);
            break;
        case 'k':
            if (parse_i64_strict(optarg, &o.multiple) || o.multiple <= 0)
                return usage_error("slo", "--default-slo-multiple \"%s\": expected a positive integer", optarg);
            break;
        case 'C': break;
        case 'P':
            if (!profile_by_name(optarg))
                return usage_error("slo", "--profile \"%s\": unknown profile (known: %s)", optarg, profile_names());
            break;
        case 'h': fputs(slo_help, stdout); return 0;
        default: return usage_error("slo", "unknown option \"%s\"", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("slo", "unexpected argument \"%s\"", argv[optind]);
    if (!o.results || !o.out || !models || !versions)
        return usage_error("slo", "--results, --out, --models and --versions are required");
    o.bufs[0] = strdup(models), o.bufs[1] = strdup(versions);
    o.nmodels = split_inplace(o.bufs[0], o.models, MAX_ITEMS);
    o.nversions = split_inplace(o.bufs[1], o.versions, MAX_ITEMS);
    if (o.nmodels <= 0 || o.nversions <= 0)
        rc = usage_error("slo", "--models / --versions: expected a comma list of at most %d names", MAX_ITEMS);
    if (!rc && scales) {
        char *item[MAX_ITEMS];
        o.bufs[2] = strdup(scales);
        o.nscales = split_inplace(o.bufs[2], item, MAX_ITEMS);
        if (o.nscales <= 0)
            rc = usage_error("slo", "--slo-scales \"%s\": expected a comma list of integers", scales);
        for (int i = 0; i < o.nscales && !rc; i++)
            if (parse_i64_strict(item[i], &o.scales[i]) || o.scales[i] <= 0)
                rc = usage_error("slo", "--slo-scales \"%s\": expected a positive integer", item[i]);
    }
    if (!rc)
        rc = run(&o) ? EXIT_USAGE : 0;
    for (int i = 0; i < 3; i++)
        free(o.bufs[i]);
    return rc;
}
