/* sweep_stage.c — the sweep's typed entry (see sweep_stage.h): the request
 * checked, the spec and the request made into a plan, the outputs named and
 * staged (the results tree's locked staging folder, the summary's atomic
 * temporary, what a killed run left of both removed first), the points run
 * (sweep_run.h) and the outputs published or dropped.
 *
 * Main data structure: struct sweep_state, what one run owns. */
#include "study/sweep/sweep_stage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/atomic.h"
#include "base/textfile.h"
#include "power/system.h"
#include "study/run/run.h"
#include "study/stages/stages.h"
#include "study/sweep/sweep_spec.h"
#include "traces/fields.h"

struct sweep_request sweep_request_default(void)
{
    struct sweep_request r;
    memset(&r, 0, sizeof r);
    r.ci_kgCO2_per_kWh = NAN;
    r.prof = profile_default();
    return r;
}

static const char *const degree_flags[SWEEP_DEG_N] = { "--dp", "--tp", "--pp", "--ep" };

/* A list of integers as the command line gives it ("2,8"). */
static void ints_text(const int64_t *v, int n, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len < size; i++) {
        int k = snprintf(buf + len, size - len, "%s%lld", i ? "," : "", (long long)v[i]);
        len += k > 0 ? (size_t)k : 0;
    }
}

/* The integer lists and the degree filters: within their fields' bounds. */
static int check_ints(const struct sweep_request *r, struct npu_err *e)
{
    const struct { const char *flag, *field; const int64_t *v; int n; } lists[] = {
        { "--num-chips", "num_chips", r->num_chips, r->nnum_chips },
        { "--batch-sizes", "global_batch_size", r->batch_sizes, r->nbatch_sizes },
    };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        int64_t max = sweep_int_max(lists[l].field);
        for (int i = 0; i < lists[l].n; i++)
            if (lists[l].v[i] <= 0 || lists[l].v[i] > max)
                return npu_errf(e, "%s: \"%lld\" is not a positive integer of at most %lld", lists[l].flag,
                                (long long)lists[l].v[i], (long long)max);
    }
    for (int d = 0; d < SWEEP_DEG_N; d++) {
        bool ok = r->ndegrees[d] >= 0 && r->ndegrees[d] <= SWEEP_ONLY_MAX;
        for (int i = 0; ok && i < r->ndegrees[d]; i++)
            ok = r->degrees[d][i] >= 1 && r->degrees[d][i] <= (int64_t)FIELD_INT_MAX;
        if (!ok) {
            char text[SWEEP_ONLY_MAX * 24];
            ints_text(r->degrees[d], r->ndegrees[d] > 0 && r->ndegrees[d] <= SWEEP_ONLY_MAX ? r->ndegrees[d] : 0,
                      text, sizeof text);
            return npu_errf(e, "%s \"%s\": expected a comma-separated list of at most %d positive integers",
                            degree_flags[d], text, SWEEP_ONLY_MAX);
        }
    }
    return 0;
}

static double system_max(const char *key)
{
    double lo, hi;
    fields_range(fields_find(&system_fields, key), &lo, &hi);
    return hi;
}

int sweep_request_check(const struct sweep_request *r, struct npu_err *e)
{
    /* As a system file bounds them: no 1e308 intensity reaches the summary as inf. */
    double ci_max = system_max("carbon_intensity_kgCO2_per_kWh"), life_max = system_max("lifetime_years");
    int64_t in = r->seq_in_tokens, out = r->seq_out_tokens;
    if (r->workload && strcmp(r->workload, "inference") != 0 && strcmp(r->workload, "training") != 0)
        return npu_errf(e, "--workload \"%s\": expected inference or training", r->workload);
    if (check_ints(r, e))
        return -1;
    if ((in || out) && (in <= 0 || out <= 0 || in > (int64_t)FIELD_INT_MAX || out > (int64_t)FIELD_INT_MAX))
        return npu_errf(e, "--seqlen \"%lld_%lld\": expected IN_OUT, e.g. 4096_512", (long long)in, (long long)out);
    if (r->shard_given && (r->shard_n < 1 || r->shard_k < 1 || r->shard_k > r->shard_n))
        return npu_errf(e, "--shard \"%ld/%ld\": expected K/N with 1 <= K <= N", r->shard_k, r->shard_n);
    if (!isnan(r->ci_kgCO2_per_kWh) && !(r->ci_kgCO2_per_kWh >= 0 && r->ci_kgCO2_per_kWh <= ci_max))
        return npu_errf(e, "--ci \"%g\": expected a carbon intensity from 0 to %g (kgCO2e/kWh)", r->ci_kgCO2_per_kWh,
                        ci_max);
    if (!(r->util >= 0 && r->util <= 1))
        return npu_errf(e, "--util \"%g\": expected a duty cycle in (0, 1]", r->util);
    if (!(r->lifetime_years >= 0 && r->lifetime_years <= life_max))
        return npu_errf(e, "--lifetime \"%g\": expected a positive number of years, at most %g", r->lifetime_years,
                        life_max);
    if (r->jobs < 0)
        return npu_errf(e, "-j \"%ld\": expected a thread count of at least 1", r->jobs);
    if (r->max_points < 0 || !(r->deadline_s >= 0))
        return npu_errf(e, "expected a bound of at least 0 points and a deadline of at least 0 s");
    return 0;
}

/* What one run owns. */
struct sweep_state {
    struct sweep_spec spec;
    cJSON *jc, *jb;                  /* the request's integer lists as spec lists */
    const char **names;              /* the plan's models, then its chips */
    struct sweep_plan plan;
    struct sweep_opts o;
    struct sweep_ctx x;
    struct atomic_file af;           /* the summary */
    bool af_open;
    struct made_dirs made;           /* the results tree's parents made for it */
    int lock_fd;                     /* held on its staging folder */
};

/* The request's integer list as a spec list (the request's values, checked). */
static cJSON *ints_json(const int64_t *v, int n, struct spec_ints *out)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)v[i]));
    memset(out, 0, sizeof *out);
    out->list = arr;
    out->count = n;
    return arr;
}

/* The models and chips of the plan: the request's lists win over the spec's. */
static int plan_names(const struct sweep_request *r, struct sweep_state *st, struct npu_err *e)
{
    const struct sweep_spec *spec = &st->spec;
    struct sweep_plan *plan = &st->plan;
    plan->nmodels = r->nmodels ? r->nmodels : spec->models ? cJSON_GetArraySize(spec->models) : 0;
    plan->nchips = r->nchips ? r->nchips : spec->chips ? cJSON_GetArraySize(spec->chips) : 0;
    st->names = calloc((size_t)plan->nmodels + (size_t)plan->nchips + 1, sizeof *st->names);
    if (!st->names)
        return npu_errf(e, "out of memory");
    const char **chips = st->names + plan->nmodels;
    for (int i = 0; i < plan->nmodels; i++)
        st->names[i] = r->nmodels ? r->models[i] : cJSON_GetArrayItem(spec->models, i)->valuestring;
    for (int i = 0; i < plan->nchips; i++)   /* "5p": tpuv5p (config.c) */
        chips[i] = r->nchips ? r->chips[i] : cJSON_GetArrayItem(spec->chips, i)->valuestring;
    plan->models = st->names;
    plan->chips = chips;
    if (!plan->nmodels || !plan->nchips || !plan->num_chips.count || !plan->batches.count)
        return npu_errf(e, "--models, --versions, --num-chips and --batch-sizes are required "
                           "(or models, chips, num_chips and batch_sizes in --spec)");
    return 0;
}

/* The plan from the spec file and the request (which wins); 0, or -1 with
 * e (*usage: the request's fault). */
static int build_plan(const struct sweep_request *r, struct sweep_state *st, bool *usage, struct npu_err *e)
{
    const struct sweep_spec *spec = &st->spec;
    struct sweep_plan *plan = &st->plan;
    *usage = false;
    if (r->spec_file && sweep_spec_load(r->spec_file, &st->spec, e))
        return -1;
    *usage = true;
    plan->configs = r->configs;
    plan->only_configs = r->only_configs;
    plan->workload = r->workload ? r->workload : spec->workload ? spec->workload : "inference";
    plan->spec_file = r->spec_file;
    plan->fields = spec->fields;
    plan->nfields = spec->nfields;
    plan->num_chips = spec->num_chips;
    plan->batches = spec->batches;
    plan->shard_n = 1;
    if (r->shard_given)
        plan->shard_k = r->shard_k - 1, plan->shard_n = r->shard_n;
    for (int d = 0; d < SWEEP_DEG_N; d++) {
        memcpy(plan->only[d], r->degrees[d], sizeof plan->only[d]);
        plan->nonly[d] = r->ndegrees[d];
    }
    if (strcmp(plan->workload, "inference") != 0 && strcmp(plan->workload, "training") != 0)
        return npu_errf(e, "--workload \"%s\": expected inference or training", plan->workload);
    if ((r->nnum_chips && !(st->jc = ints_json(r->num_chips, r->nnum_chips, &plan->num_chips))) ||
        (r->nbatch_sizes && !(st->jb = ints_json(r->batch_sizes, r->nbatch_sizes, &plan->batches))))
        return npu_errf(e, "out of memory");
    return plan_names(r, st, e);
}

/* The options every point shares; the energy pass the summary rows use:
 * NoPG and no DVFS unless the request names a strategy or a policy. */
static int point_opts(const struct sweep_request *r, struct sweep_opts *o, struct npu_err *e)
{
    o->summary = r->summary;
    o->seq_in = r->seq_in_tokens;
    o->seq_out = r->seq_out_tokens;
    o->skip_existing = r->skip_existing;
    o->dry_run = r->dry_run;
    o->prof = r->prof ? r->prof : profile_default();
    o->ci_given = !isnan(r->ci_kgCO2_per_kWh);
    o->ci = o->ci_given ? r->ci_kgCO2_per_kWh : 0;
    o->util = r->util;
    o->lifetime = r->lifetime_years;
    /* Without a summary the results tree is the output (./results by default). */
    o->tree = r->out || !r->summary;
    o->out = r->out ? r->out : "results";
    o->fatal_errors = !r->summary;
    pg_strategy_default(&o->pg);
    snprintf(o->pg.name, sizeof o->pg.name, "NoPG");
    o->dvfs = DVFS_NONE;
    if (!r->pg && !r->dvfs)
        return 0;
    o->custom_energy = true;
    if (pg_strategy_lookup(r->pg ? r->pg : "NoPG", r->configs, o->prof, &o->pg, e) ||
        dvfs_policy_parse(r->dvfs ? r->dvfs : "None", &o->dvfs, e))
        return -1;
    return 0;
}

/* The staging folder of a results tree, beside it (its parents made first,
 * recorded in made to be taken back if the sweep fails), locked while the
 * sweep lives (*lock_fd); a dead run's staging folder is removed first. */
static int stage_tree(struct sweep_state *st, struct npu_err *e)
{
    struct sweep_opts *o = &st->o;
    const char *slash = strrchr(o->out, '/');
    char parent[4200];
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - o->out) : 0, o->out);
    if (parent[0] && make_dirs_undoable(parent, &st->made, e))
        return -1;
    staging_clean_stale(o->out, "sweep");
    return staging_create_locked(o->out, o->stage, sizeof o->stage, &st->lock_fd, e);
}

/* Drops the staging folder: every finished configuration was published from
 * it as it finished (sweep_run.h), so what is left is folders and the
 * unfinished points' files. The parents stage_tree made go when nothing was
 * published into them. */
static void drop_stage(struct sweep_state *st, bool ok)
{
    staging_remove(st->o.stage);
    if (st->lock_fd >= 0)
        close(st->lock_fd);
    (ok ? made_dirs_keep : made_dirs_undo)(&st->made);
}

/* Removes the summary's temporaries a killed sweep left beside it. */
static void clean_summary_temps(const char *summary)
{
    char dir[4200];
    path_folder(summary, dir, sizeof dir);
    staging_clean_temps(dir, path_base(summary), "sweep");
}

/* A bound's refusal, as /api/sweep words it: before the enumeration (points
 * < 0), a lower bound on the points (every chip count has at least one
 * parallel configuration), which a huge range would make slow to count;
 * after it, the points. 0 within the bound, else -1 with e. */
static int too_many_points(const struct sweep_plan *plan, long max_points, long points, struct npu_err *e)
{
    if (points >= 0)
        return points > max_points ? npu_errf(e, "the sweep has %ld points; expected at most %ld", points, max_points)
                                   : 0;
    double bound = (double)plan->nmodels * plan->nchips * (double)spec_ints_count(&plan->num_chips) *
                   (double)spec_ints_count(&plan->batches);
    for (int f = 0; f < plan->nfields; f++)
        bound *= (double)(plan->fields[f].list ? cJSON_GetArraySize(plan->fields[f].list) : plan->fields[f].count);
    if (bound > (double)max_points)
        return npu_errf(e, "the sweep has at least %.0f points; expected at most %ld", bound, max_points);
    return 0;
}

/* The plan, the options and the enumerator, checked; 0, or -1 with e
 * (*usage: the request's fault). */
static int prepare(const struct sweep_request *r, struct sweep_state *st, bool *usage, struct npu_err *e)
{
    struct sweep_ctx *x = &st->x;
    *usage = true;
    if (sweep_request_check(r, e))
        return -1;
    if (build_plan(r, st, usage, e))
        return -1;
    *usage = false;
    if (point_opts(r, &st->o, e))
        return -1;
    x->want_row = r->summary && !r->dry_run;
    /* Summary rows only: a bundle shares one generated trace (sweep_points.h). */
    st->plan.bundle_max = x->want_row && !st->o.tree ? SWEEP_BUNDLE_MAX : 1;
    *usage = true;
    if (r->max_points && too_many_points(&st->plan, r->max_points, -1, e))
        return -1;
    *usage = false;
    if (sweep_enum_init(&x->en, &st->plan, e))
        return -1;
    *usage = true;
    if (r->max_points && too_many_points(&st->plan, r->max_points, sweep_enum_total(&x->en), e))
        return -1;
    /* Degrees no configuration has would answer with an empty summary. */
    bool filtered = false;
    for (int d = 0; d < SWEEP_DEG_N; d++)
        filtered |= r->ndegrees[d] > 0;
    if (filtered && sweep_enum_total(&x->en) == 0)
        return npu_errf(e, "--dp/--tp/--pp/--ep: no configuration of the sweep has the degrees given "
                           "(without them the sweep lists the ones it has)");
    *usage = false;
    return 0;
}

/* Names and stages the outputs: the summary's temporary (a dead run's
 * removed first), the results tree's staging folder. 0, or -1 with e. */
static int stage_outputs(struct sweep_state *st, struct npu_err *e)
{
    struct sweep_opts *o = &st->o;
    if (st->x.want_row) {
        clean_summary_temps(o->summary);
        if (open_summary(&st->x, &st->af, &st->spec, e))
            return -1;
        st->af_open = true;
    }
    if (o->tree && !o->dry_run && stage_tree(st, e))
        return -1;
    return 0;
}

/* The threads: the request's, or every core. */
static long jobs_of(const struct sweep_request *r)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return r->jobs > 0 ? r->jobs : cores > 0 ? cores : 1;
}

static void state_free(struct sweep_state *st)
{
    sweep_ctx_free(&st->x);
    free(st->names);
    cJSON_Delete(st->jc);
    cJSON_Delete(st->jb);
    sweep_spec_free(&st->spec);
}

/* What the run did, for the caller to report. */
static void fill_done(const struct sweep_state *st, struct sweep_done *done)
{
    const struct sweep_ctx *x = &st->x;
    done->cnt = x->cnt;
    done->published = x->published;
    done->out = st->o.tree ? st->o.out : NULL;
    done->summary = st->o.summary;
    done->rows = x->want_row;
    done->violating = x->violating;
    snprintf(done->first_warn, sizeof done->first_warn, "%s", x->first_warn);
    snprintf(done->carbon_note, sizeof done->carbon_note, "%s", x->carbon_note);
    done->carbon_varies = x->carbon_varies;
}

int sweep_stage_run(const struct sweep_request *r, const struct stage_io *io, struct sweep_done *done,
                    struct npu_err *e)
{
    struct sweep_state *st = calloc(1, sizeof *st);   /* large: the staging path, the held rows */
    memset(done, 0, sizeof *done);
    done->peak_rss_KiB = -1;
    if (!st)
        return npu_errf(e, "out of memory");
    st->lock_fd = -1;
    struct sweep_ctx *x = &st->x;
    struct sweep_opts *o = &st->o;
    for (int pos = 0; pos < SWEEP_BUNDLE_MAX; pos++)
        x->held[pos] = STRBUF_GROWING;
    x->o = o;
    x->progress = io->progress;
    x->cancel = io->stop;
    x->deadline_s = r->deadline_s;
    bool usage = false;
    int rc = prepare(r, st, &usage, e);
    done->request_error = rc && usage;
    int sig = io->stop ? *io->stop : 0;   /* a signal before the run: nothing staged */
    if (!rc && !sig)
        rc = stage_outputs(st, e);
    struct results *keep = o->tree && !o->dry_run ? io->out : NULL;
    o->sink = (struct output_sink){ .staged = o->stage[0] != '\0', .keep = keep };
    if (keep)
        results_begin(keep, o->out, o->stage[0] ? o->stage : NULL);
    if (!rc && !sig && !x->failed)
        run_points(x, &st->plan, jobs_of(r));
    sig = io->stop ? *io->stop : 0;
    if (!rc && sig) {
        done->signal = sig;
        rc = npu_errf(e, "interrupted");
    } else if (!rc && x->failed) {
        *e = x->err;
        rc = -1;
    }
    drop_stage(st, rc == 0 || x->published > 0);
    if (keep && rc)
        results_clear(keep);   /* what the failed sweep kept was never published */
    if (st->af_open) {
        if (rc)
            atomic_abort(&st->af);
        else
            rc = atomic_commit(&st->af, e);
    }
    fill_done(st, done);
    if (r->stats) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        done->peak_rss_KiB = ru.ru_maxrss;
    }
    state_free(st);
    free(st);
    return rc ? -1 : 0;
}
