/* stages.c — POST /api/energy, /api/carbon and /api/slo: the stages of
 * `npusim energy`, `npusim carbon` and `npusim slo`, called through their
 * typed entries (study/stages/), so each word means the computation the
 * command makes.
 *
 * Two ways in:
 *  - "results": a results tree on this machine (a caller in this process
 *    only, e.g. Python; a server refuses paths): the stage reads it and
 *    writes its outputs where the command would; the answer says where.
 *  - "sweep": {models, chips, num_chips, batch_sizes[, workload, seqlen]}:
 *    the configurations are swept into a private temporary folder and the
 *    stages run over it up to the one asked (energy; energy and carbon;
 *    energy, carbon and slo), as a suite file's lines would; the folder is
 *    removed after, so nothing stays on the server.
 * Either way the answer holds the statistics files the stage wrote
 * ("files": each JSON file under the stage's output folder, by its path
 * there, its numbers as the file writes them; not the per-operator CSVs).
 *
 * Main data structure: struct chain, the request's values and folders. */
#include "api/api.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/textfile.h"
#include "base/walk.h"
#include "study/stages/stages.h"
#include "study/sweep/sweep.h"

#define CHAIN_MAX 64       /* items of a list member */
#define FILES_MAX 4096     /* statistics files an answer holds at most */

enum stage { STAGE_ENERGY, STAGE_CARBON, STAGE_SLO };

struct chain {
    enum stage upto;
    const char *results;                        /* "results", or NULL */
    char tmp[PATH_MAX];                         /* the private folder of a "sweep", or "" */
    char tree[PATH_MAX];                        /* the tree the next stage reads */
    const char *models[CHAIN_MAX], *versions[CHAIN_MAX];
    int nmodels, nversions;
    const char *workload, *dvfs, *out;
    const char *pgs[CHAIN_MAX];                 /* energy's strategies; carbon and slo's is pgs[0] */
    int npgs;
    double ci[CHAIN_MAX], util;
    int nci;
    int64_t life[CHAIN_MAX], scales[CHAIN_MAX], max_chips, multiple;
    int nlife, nscales;
    /* the sweep */
    const char *chips[CHAIN_MAX];
    int64_t num_chips[CHAIN_MAX], batches[CHAIN_MAX], seq_in, seq_out;
    int nchips, nnum, nbatch;
    char said[2048];                            /* carbon's defaults line */
    cJSON *answer;
};

/* ---- reading the request ---- */

/* A list of strings (or one string) member into out; 0 absent, -1 with msg. */
static int strings_of(const struct api_ctx *ctx, const cJSON *req, const char *key, bool names, const char **out,
                      int *n, char *msg, size_t mn)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key), *it;
    if (!v)
        return 0;
    *n = 0;
    if (cJSON_IsString(v)) {
        out[(*n)++] = v->valuestring;
    } else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0 && cJSON_GetArraySize(v) <= CHAIN_MAX) {
        cJSON_ArrayForEach(it, v) {
            if (!cJSON_IsString(it) || !it->valuestring[0])
                break;
            out[(*n)++] = it->valuestring;
        }
        if (*n != cJSON_GetArraySize(v))
            return snprintf(msg, mn, "\"%s\": expected a list of non-empty strings", key), -1;
    } else {
        return snprintf(msg, mn, "\"%s\": expected a string or a list of 1 to %d strings", key, CHAIN_MAX), -1;
    }
    for (int i = 0; i < *n; i++)
        if (names && !ctx->local && !api_name_ok(out[i]))
            return snprintf(msg, mn, "\"%s\": \"%.64s\": expected a name (letters, digits, _ - .), not a path", key,
                            out[i]), -1;
    return 0;
}

/* A list of numbers (or one number) member; whole: each a whole number from
 * 1 to 2^53. 0 absent, -1 with msg. */
static int numbers_of(const cJSON *req, const char *key, bool whole, double *out, int *n, char *msg, size_t mn)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key), *it;
    if (!v)
        return 0;
    *n = 0;
    if (cJSON_IsNumber(v))
        out[(*n)++] = v->valuedouble;
    else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0 && cJSON_GetArraySize(v) <= CHAIN_MAX)
        cJSON_ArrayForEach(it, v) {
            if (!cJSON_IsNumber(it))
                break;
            out[(*n)++] = it->valuedouble;
        }
    bool ok = *n > 0 && (cJSON_IsNumber(v) || *n == cJSON_GetArraySize(v));
    for (int i = 0; ok && i < *n; i++)
        ok = isfinite(out[i]) && (!whole || (out[i] >= 1 && out[i] <= 9007199254740992.0 && out[i] == floor(out[i])));
    if (!ok)
        return snprintf(msg, mn, "\"%s\": expected %s or a list of 1 to %d", key,
                        whole ? "a whole number from 1" : "a number", CHAIN_MAX), -1;
    return 0;
}

static int whole_list(const cJSON *req, const char *key, int64_t *out, int *n, char *msg, size_t mn)
{
    double d[CHAIN_MAX];
    if (numbers_of(req, key, true, d, n, msg, mn))
        return -1;
    for (int i = 0; i < *n; i++)
        out[i] = (int64_t)d[i];
    return 0;
}

/* "sweep": the configurations to sweep first. */
static int sweep_of(const struct api_ctx *ctx, const cJSON *sw, struct chain *c, char *msg, size_t mn)
{
    static const char *const members[] = { "models", "chips", "num_chips", "batch_sizes", "workload", "seqlen" };
    for (const cJSON *it = sw->child; it; it = it->next) {
        bool known = false;
        for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
            known |= !strcmp(it->string, members[i]);
        if (!known)
            return snprintf(msg, mn, "\"sweep\": unknown member \"%.64s\" (expected models, chips, num_chips, "
                            "batch_sizes, workload, seqlen)", it->string), -1;
    }
    c->nmodels = c->nchips = c->nnum = c->nbatch = 0;
    if (strings_of(ctx, sw, "models", true, c->models, &c->nmodels, msg, mn) ||
        strings_of(ctx, sw, "chips", true, c->chips, &c->nchips, msg, mn) ||
        whole_list(sw, "num_chips", c->num_chips, &c->nnum, msg, mn) ||
        whole_list(sw, "batch_sizes", c->batches, &c->nbatch, msg, mn))
        return -1;
    if (!c->nmodels || !c->nchips || !c->nnum || !c->nbatch)
        return snprintf(msg, mn, "\"sweep\": expected models, chips, num_chips and batch_sizes"), -1;
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(sw, "workload"),
                *s = cJSON_GetObjectItemCaseSensitive(sw, "seqlen");
    if (w && !cJSON_IsString(w))
        return snprintf(msg, mn, "\"sweep\": \"workload\": expected inference or training"), -1;
    c->workload = w ? w->valuestring : "inference";
    char *us = cJSON_IsString(s) ? strchr(s->valuestring, '_') : NULL;
    if (s && (!us || sscanf(s->valuestring, "%" SCNd64, &c->seq_in) != 1 || sscanf(us + 1, "%" SCNd64, &c->seq_out) != 1 ||
              c->seq_in < 1 || c->seq_out < 1))
        return snprintf(msg, mn, "\"sweep\": \"seqlen\": expected \"IN_OUT\", e.g. \"2048_256\""), -1;
    return 0;
}

/* The members every stage takes, and each stage's own. */
static int chain_of(const struct api_ctx *ctx, const cJSON *req, struct chain *c, char *msg, size_t mn)
{
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(req, "results"),
                *sw = cJSON_GetObjectItemCaseSensitive(req, "sweep");
    if (!res == !sw)
        return snprintf(msg, mn, "expected \"sweep\" (configurations to sweep first) or \"results\" (a results "
                                 "tree on this machine), one of them"), -1;
    if (res && !ctx->local)
        return snprintf(msg, mn, "\"results\": a server reads no folder of its own; send \"sweep\" and it sweeps "
                                 "them first"), -1;
    if (res && (!cJSON_IsString(res) || !res->valuestring[0]))
        return snprintf(msg, mn, "\"results\": expected the path of a results tree"), -1;
    c->results = res ? res->valuestring : NULL;
    if (sw && (!cJSON_IsObject(sw) || sweep_of(ctx, sw, c, msg, mn)))
        return sw && !cJSON_IsObject(sw) ? snprintf(msg, mn, "\"sweep\": expected an object"), -1 : -1;
    /* Over a sweep, the models and versions are the sweep's unless given. */
    if (sw) {
        c->nversions = c->nchips;
        memcpy(c->versions, c->chips, sizeof c->chips);
    }
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(req, "workload"),
                *d = cJSON_GetObjectItemCaseSensitive(req, "dvfs"), *o = cJSON_GetObjectItemCaseSensitive(req, "out");
    if (strings_of(ctx, req, "models", true, c->models, &c->nmodels, msg, mn) ||
        strings_of(ctx, req, "versions", true, c->versions, &c->nversions, msg, mn) ||
        strings_of(ctx, req, "pg", true, c->pgs, &c->npgs, msg, mn))
        return -1;
    if ((w && !cJSON_IsString(w)) || (d && !cJSON_IsString(d)) || (o && !cJSON_IsString(o)))
        return snprintf(msg, mn, "\"workload\", \"dvfs\" and \"out\": expected strings"), -1;
    if (o && !ctx->local)
        return snprintf(msg, mn, "\"out\": a server writes no folder of its own; the answer holds the files"), -1;
    if (w)
        c->workload = w->valuestring;
    c->dvfs = d ? d->valuestring : NULL;
    c->out = o ? o->valuestring : NULL;
    double util[CHAIN_MAX];
    int nutil = 0, n = 0;
    int64_t one[CHAIN_MAX];
    c->util = NAN;
    if (numbers_of(req, "ci", false, c->ci, &c->nci, msg, mn) || numbers_of(req, "util", false, util, &nutil, msg, mn) ||
        whole_list(req, "lifetime", c->life, &c->nlife, msg, mn) ||
        whole_list(req, "slo_scales", c->scales, &c->nscales, msg, mn) ||
        whole_list(req, "max_num_chips", one, &n, msg, mn))
        return -1;
    c->max_chips = n ? one[0] : 0;
    n = 0;
    if (whole_list(req, "slo_multiple", one, &n, msg, mn))
        return -1;
    c->multiple = n ? one[0] : 0;
    if (nutil > 1)
        return snprintf(msg, mn, "\"util\": expected one duty cycle"), -1;
    if (nutil)
        c->util = util[0];
    if (c->results && (!c->nmodels || !c->nversions))
        return snprintf(msg, mn, "\"models\" and \"versions\": expected with \"results\""), -1;
    return 0;
}

/* ---- running the stages ---- */

/* The sweep into <tmp>/raw, bounded as /api/sweep is. */
static int run_sweep(const struct api_ctx *ctx, struct chain *c, struct npu_err *e)
{
    const char *base = getenv("TMPDIR");
    snprintf(c->tmp, sizeof c->tmp, "%s/npusim-api.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(c->tmp)) {
        c->tmp[0] = '\0';
        return npu_errf(e, "a temporary folder for the sweep: %s", strerror(errno));
    }
    snprintf(c->tree, sizeof c->tree, "%s/raw", c->tmp);
    struct sweep_request r = sweep_request_default();
    r.models = c->models, r.nmodels = c->nmodels;
    r.chips = c->chips, r.nchips = c->nchips;
    r.num_chips = c->num_chips, r.nnum_chips = c->nnum;
    r.batch_sizes = c->batches, r.nbatch_sizes = c->nbatch;
    r.workload = c->workload;
    r.seq_in_tokens = c->seq_in, r.seq_out_tokens = c->seq_out;
    r.out = c->tree;
    r.configs = ctx->configs;
    r.only_configs = ctx->only_configs;
    r.prof = ctx->prof;
    r.jobs = ctx->local ? 0 : 1;            /* a server's request computes on its worker alone */
    r.max_points = ctx->max_points;
    r.deadline_s = api_deadline(ctx);
    struct stage_io io = stage_io_none();
    struct sweep_done done;
    if (sweep_stage_run(&r, &io, &done, e))
        return -1;
    cJSON *p = cJSON_AddObjectToObject(c->answer, "points");
    cJSON_AddNumberToObject(p, "simulated", (double)done.cnt.simulated);
    cJSON_AddNumberToObject(p, "invalid", (double)done.cnt.invalid);
    cJSON_AddNumberToObject(p, "errors", (double)done.cnt.errors);
    if (!done.cnt.simulated)
        return npu_errf(e, "\"sweep\": no valid configuration (%ld invalid: out of memory, too many chips for "
                        "the model, ...): nothing to compute", (long)done.cnt.invalid);
    return 0;
}

static int run_energy(const struct api_ctx *ctx, struct chain *c, bool only_pg, struct npu_err *e)
{
    struct energy_request r = energy_request_default();
    const char *pgs[2] = { "NoPG", c->npgs ? c->pgs[0] : "NoPG" };
    r.results = c->results && c->upto == STAGE_ENERGY ? c->results : c->tree;
    r.models = c->models, r.nmodels = c->nmodels;
    r.versions = c->versions, r.nversions = c->nversions;
    r.workload = c->workload ? c->workload : r.workload;
    if (only_pg)   /* before carbon: NoPG and the strategy carbon reads */
        r.pgs = pgs, r.npgs = strcmp(pgs[1], "NoPG") ? 2 : 1;
    else if (c->npgs)
        r.pgs = c->pgs, r.npgs = c->npgs;
    r.dvfs = c->dvfs ? c->dvfs : r.dvfs;
    r.configs = ctx->configs, r.prof = ctx->prof;
    r.jobs = ctx->local ? 0 : 1;
    struct stage_io io = stage_io_none();
    struct energy_done done;
    int rc = energy_run(&r, &io, &done, e);
    if (!rc && done.nothing_found)
        rc = npu_errf(e, "no %s results for any model and version named under %s", r.workload,
                      c->results ? c->results : "the sweep");
    if (!rc && done.missing)
        cJSON_AddStringToObject(c->answer, "warnings", done.missing);
    free(done.missing);
    snprintf(c->tree, sizeof c->tree, "%s", done.out_root);
    return rc;
}

static int run_carbon(const struct api_ctx *ctx, struct chain *c, struct npu_err *e)
{
    struct carbon_request r = carbon_request_default();
    r.results = c->results && c->upto == STAGE_CARBON ? c->results : c->tree;
    r.models = c->models, r.nmodels = c->nmodels;
    r.versions = c->versions, r.nversions = c->nversions;
    r.workload = c->workload ? c->workload : r.workload;
    r.pg = c->npgs ? c->pgs[0] : NULL;
    r.dvfs = c->dvfs ? c->dvfs : r.dvfs;
    memcpy(r.ci_kgCO2e_per_kWh, c->ci, sizeof c->ci[0] * (size_t)c->nci);
    r.nci = c->nci;
    r.duty_cycle = c->util;
    memcpy(r.lifetime_years, c->life, sizeof c->life[0] * (size_t)c->nlife);
    r.nlifetimes = c->nlife;
    r.configs = ctx->configs, r.prof = ctx->prof;
    r.jobs = ctx->local ? 0 : 1;
    struct stage_io io = stage_io_none();
    struct carbon_done done;
    if (carbon_run(&r, &io, &done, e))
        return -1;
    snprintf(c->said, sizeof c->said, "%s", done.said);
    cJSON_AddStringToObject(c->answer, "carbon_defaults", done.said);
    snprintf(c->tree, sizeof c->tree, "%s/carbon_%s/dvfs_%s", done.root, r.pg, r.dvfs);
    return 0;
}

/* The one CI<ci>/UTIL<u> folder a chain's carbon stage wrote under c->tree. */
static int carbon_leaf(struct chain *c, struct npu_err *e)
{
    for (int depth = 0; depth < 2; depth++) {
        DIR *d = opendir(c->tree);
        struct dirent *de;
        char name[256] = "";
        while (d && (de = readdir(d)))
            if (de->d_name[0] != '.')
                snprintf(name, sizeof name, "%s", de->d_name);
        if (d)
            closedir(d);
        if (!name[0])
            return npu_errf(e, "the carbon stage wrote nothing under %s", c->tree);
        size_t l = strlen(c->tree);
        snprintf(c->tree + l, sizeof c->tree - l, "/%s", name);
    }
    return 0;
}

static int run_slo(const struct api_ctx *ctx, struct chain *c, struct npu_err *e)
{
    struct slo_request r = slo_request_default();
    char out[PATH_MAX];
    snprintf(out, sizeof out, "%s/slo", c->tmp);
    r.results_dir = c->results ? c->results : c->tree;
    r.out_dir = c->results ? c->out : out;
    r.workload = c->workload ? c->workload : r.workload;
    for (int i = 0; i < c->nmodels; i++)
        r.models[i] = c->models[i];
    r.nmodels = c->nmodels;
    for (int i = 0; i < c->nversions; i++)
        r.versions[i] = c->versions[i];
    r.nversions = c->nversions;
    if (c->nscales) {
        memcpy(r.slo_scales, c->scales, sizeof c->scales[0] * (size_t)c->nscales);
        r.nscales = c->nscales;
    }
    if (c->max_chips)
        r.max_num_chips = c->max_chips;
    if (c->multiple)
        r.slo_multiple = c->multiple;
    r.configs = ctx->configs, r.prof = ctx->prof;
    struct stage_io io = stage_io_none();
    struct slo_done done;
    if (slo_run(&r, &io, &done, e))
        return -1;
    snprintf(c->tree, sizeof c->tree, "%s", r.out_dir);
    return 0;
}

/* ---- the answer ---- */

/* "files": the JSON files below root (links not followed), sorted by their
 * path there, each as it reads. */
static int add_files(cJSON *answer, const char *root, struct npu_err *e)
{
    static const struct walk_limits lim = { 16, FILES_MAX + 1, 64 << 20 };
    struct file_list f = { 0 };
    int rc = file_list_walk(&f, root, ".json", &lim) ? npu_errf(e, "out of memory") : 0;
    if (!rc && f.n > FILES_MAX)
        rc = npu_errf(e, "more than %d statistics files: ask for fewer models or configurations", FILES_MAX);
    file_list_sort(&f);
    cJSON *files = cJSON_AddObjectToObject(answer, "files");
    size_t skip = strlen(root) + 1;
    for (size_t i = 0; !rc && i < f.n; i++) {
        /* numbers as the file writes them (Python's json: NaN and Infinity may appear) */
        cJSON *j = results_load_json(f.path[i], JSON_NUMBERS_TEXT, e);
        if (!j)
            rc = -1;
        else
            cJSON_AddItemToObject(files, f.path[i] + skip, j);
    }
    file_list_free(&f);
    cJSON_AddNumberToObject(answer, "count", (double)cJSON_GetArraySize(files));
    return rc;
}

/* ---- the handlers ---- */

static const char *const members_energy[] = { "results", "sweep", "models", "versions", "workload", "pg", "dvfs" };
static const char *const members_carbon[] = { "results", "sweep", "models", "versions", "workload", "pg", "dvfs",
                                              "ci", "util", "lifetime" };
static const char *const members_slo[] = { "results", "sweep", "models", "versions", "workload", "pg", "dvfs",
                                           "ci", "util", "lifetime", "slo_scales", "max_num_chips",
                                           "slo_multiple", "out" };
static const struct {
    const char *const *members;
    size_t n;
    const char *expected;
} stage_members[] = {
    { members_energy, sizeof members_energy / sizeof *members_energy,
      "results or sweep, models, versions, workload, pg, dvfs" },
    { members_carbon, sizeof members_carbon / sizeof *members_carbon,
      "results or sweep, models, versions, workload, pg, dvfs, ci, util, lifetime" },
    { members_slo, sizeof members_slo / sizeof *members_slo,
      "results or sweep, models, versions, workload, pg, dvfs, ci, util, lifetime, slo_scales, max_num_chips, "
      "slo_multiple, out" },
};

/* The chain up to stage upto, answered. */
static int run_chain(const struct api_ctx *ctx, const cJSON *req, enum stage upto, struct api_response *r)
{
    if (api_unknown_member(req, stage_members[upto].members, stage_members[upto].n, stage_members[upto].expected, r))
        return 0;
    struct chain *c = calloc(1, sizeof *c);
    if (!c)
        return api_reply_error(r, 500, "out of memory");
    c->upto = upto;
    char msg[512] = "";
    struct npu_err e = { "" };
    int rc = chain_of(ctx, req, c, msg, sizeof msg);
    if (!rc && upto != STAGE_ENERGY && !c->npgs)
        rc = -1, snprintf(msg, sizeof msg, "\"pg\": expected the power-gating strategy whose energy is used");
    if (!rc && upto != STAGE_ENERGY && c->npgs > 1)
        rc = -1, snprintf(msg, sizeof msg, "\"pg\": expected one strategy");
    if (!rc && upto == STAGE_SLO && !c->results && (c->nci > 1 || c->nlife > 1))
        rc = -1, snprintf(msg, sizeof msg, "\"ci\", \"lifetime\": the SLO stage reads one carbon folder: expected one each");
    if (!rc && upto == STAGE_SLO && c->results && !c->out)
        rc = -1, snprintf(msg, sizeof msg, "\"out\": expected the folder the analyses go to (with \"results\")");
    if (rc) {
        free(c);
        return api_reply_error(r, 400, msg);
    }
    c->answer = cJSON_CreateObject();
    if (!c->results)
        rc = run_sweep(ctx, c, &e);
    if (!rc && (!c->results || upto == STAGE_ENERGY))
        rc = run_energy(ctx, c, upto != STAGE_ENERGY, &e);
    if (!rc && upto >= STAGE_CARBON && (!c->results || upto == STAGE_CARBON))
        rc = run_carbon(ctx, c, &e);
    if (!rc && upto == STAGE_SLO && !c->results)
        rc = carbon_leaf(c, &e);
    if (!rc && upto == STAGE_SLO)
        rc = run_slo(ctx, c, &e);
    if (!rc && c->results)
        cJSON_AddStringToObject(c->answer, "out", c->tree);
    if (!rc)
        rc = add_files(c->answer, c->tree, &e);
    if (c->tmp[0])
        staging_remove(c->tmp);
    int status = 200;
    if (rc) {
        bool late = strstr(e.msg, "the time limit") != NULL;
        cJSON_Delete(c->answer);
        free(c);
        char m[sizeof e.msg + 40];
        snprintf(m, sizeof m, "%s%s", e.msg, late ? " (npusim serve --time-limit)" : "");
        return api_reply_error(r, late ? 503 : 400, m);
    }
    cJSON *a = c->answer;
    free(c);
    return api_reply_json(r, status, a);
}

int api_energy(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    return run_chain(ctx, req, STAGE_ENERGY, r);
}

int api_carbon(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    return run_chain(ctx, req, STAGE_CARBON, r);
}

int api_slo(const struct api_ctx *ctx, const cJSON *req, struct api_response *r)
{
    return run_chain(ctx, req, STAGE_SLO, r);
}
