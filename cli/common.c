/* common.c — option handling, messages and the shared pipeline of the CLI. */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chipsim/chipsim.h"
#include "cli/args.h"
#include "cli/family.h"
#include "cli/pyjson.h"
#include "cli/sim_facts.h"
#include "cli/trace_memo.h"
#include "opsgen/builders.h"
#include "opsgen/opsgen.h"
#include "opsgen/sweep.h"
#include "power/energy.h"
#include "power/invariants.h"
#include "power/powercap.h"
#include "traces/atomic.h"
#include "traces/trace_csv.h"

void common_opts_init(struct common_opts *o)
{
    memset(o, 0, sizeof *o);
    o->prof = profile_default();
    o->workload = "inference";
}

int common_opt(struct common_opts *o, int c, const char *arg, struct npu_err *e)
{
    switch (c) {
    case 'C': o->configs = arg; return 1;
    case 'm': o->model = arg; return 1;
    case 'c': o->chip = arg; return 1;
    case 's': o->system = arg; return 1;
    case 'S':
        if (o->nsets == MAX_SETS)
            return npu_errf(e, "--set: at most %d overrides", MAX_SETS);
        o->sets[o->nsets++] = arg;
        return 1;
    case 'P':
        o->prof = profile_by_name(arg);
        return o->prof ? 1 : npu_errf(e, "--profile \"%s\": unknown profile (known: %s)", arg, profile_names());
    case 'w':   /* -w, --workload */
    case 'W':
        if (strcmp(arg, "inference") && strcmp(arg, "training"))
            return npu_errf(e, "--workload \"%s\": expected inference or training", arg);
        o->workload = arg;
        return 1;
    case 'b':   /* -b, --batch */
    case 'B': {
        char *end;
        errno = 0;
        o->batch = strtoll(arg, &end, 10);
        if (*end || end == arg || errno || o->batch <= 0 || o->batch > (long long)FIELD_INT_MAX)
            return npu_errf(e, "--batch \"%s\": expected a positive integer of at most %.0f", arg,
                            FIELD_INT_MAX);
        return 1;
    }
    }
    return 0;
}

int parse_jobs(const char *cmd, const char *arg, long *jobs)
{
    int64_t v;
    if (parse_i64_strict(arg, &v) || v < 1 || v > 4096)
        return usage_error(cmd, "-j \"%s\": expected a thread count from 1 to 4096", arg);
    *jobs = (long)v;
    return 0;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "npusim %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'npusim %s --help')\n", cmd);
    return EXIT_USAGE;
}

int stdout_flushed(const char *cmd)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    int err = errno;
    clearerr(stdout);   /* reported here, not again at exit */
    fprintf(stderr, "npusim%s%s: <stdout>: write failed: %s\n", cmd ? " " : "", cmd ? cmd : "",
            err ? strerror(err) : "stream error");
    return EXIT_USAGE;
}

int report_error(const char *cmd, const struct npu_err *e)
{
    fprintf(stderr, "npusim %s: %s\n", cmd, e->msg);
    return EXIT_USAGE;
}

int load_common(const char *cmd, const struct common_opts *o, bool need_model, struct loaded_config *c,
                const struct family **fam)
{
    struct config_request r = { o->configs, need_model ? (o->model ? o->model : "llama3-8b") : NULL,
                                o->chip, o->system, o->sets, o->nsets };
    struct npu_err e;
    if (config_load(&r, c, &e)) {
        config_free(c);
        return report_error(cmd, &e);
    }
    c->strict = true;
    if (!need_model)
        return 0;
    *fam = family_find(&c->model, o->workload);
    if (!*fam) {
        fprintf(stderr, "npusim %s: model \"%s\" (model_type \"%s\"): no model family simulates its %s "
                        "(families: %s)\n", cmd, c->model_name, c->model.model_type, o->workload,
                families_list());
        config_free(c);
        return EXIT_USAGE;
    }
    struct model_config *m = &c->model;
    if (o->batch > 0) {
        struct parallel_cfg p = { m->num_chips, m->data_parallelism_degree, m->tensor_parallelism_degree,
                                  m->pipeline_parallelism_degree, m->expert_parallelism_degree,
                                  m->data_parallel_degree_dcn, m->tensor_parallel_degree_dcn,
                                  m->pipeline_parallel_degree_dcn, m->expert_parallel_degree_dcn };
        sweep_apply_parallel(m, &p, o->batch);
    }
    if ((*fam)->adjust)
        (*fam)->adjust(c);
    return 0;
}

int family_generate(const struct family *fam, const struct loaded_config *c,
                    const struct profile *prof, struct trace *t, struct npu_err *e)
{
    (void)opsgen_take_overflow();
    if (fam->generate(c, prof, t, e))
        return config_name_source(c, e);
    /* A size the builders could not hold (builders.h): one message for the
     * whole trace, since the product of several fields overflowed. */
    if (opsgen_take_overflow())
        return npu_errf(e, "%s: an operator's size, FLOP count or time exceeds int64 (or a tensor 2^48 "
                           "elements): the model's dimensions, batch, sequence lengths and parallelism "
                           "multiply out of scale", c->model_name);
    return 0;
}

int pipeline_run(const struct family *fam, const struct loaded_config *c, const struct profile *prof,
                 bool energy, struct trace *t, struct npu_err *e)
{
    if (family_generate(fam, c, prof, t, e) || chipsim_run(t, &c->chip, prof, e) ||
        power_cap_pass(t, &c->chip, prof, e))
        return -1;
    return energy ? power_default_pass(t, &c->chip, prof, e) : 0;
}

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

int write_llm_outputs(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                      const char *dir, const char *base, bool combined, cJSON *sim_extra,
                      struct llm_report *summary, struct npu_err *e)
{
    return write_llm_outputs_mem(c, prof, t, dir, base, combined, sim_extra, NULL, summary, e);
}

int write_llm_outputs_mem(const struct loaded_config *c, const struct profile *prof,
                          const struct trace *t, const char *dir, const char *base, bool combined,
                          cJSON *sim_extra, llm_mem_fn mem, struct llm_report *summary,
                          struct npu_err *e)
{
    struct llm_report r;
    if (llm_report_compute_mem(&c->model, &c->chip, prof, t, mem, &r, e))
        return -1;
    if (!combined)   /* results trees keep the reference's bytes */
        llm_report_check(&r, t, &c->chip, prof);
    if (summary)
        *summary = r;
    struct output p[5];
    int n = 0;
    output_clear(p, 5);
    if (combined) {
        snprintf(p[n].path, sizeof p[n].path, "%s/%s.csv", dir, base);
        p[n].trace = t;
        p[n++].opts = (struct trace_csv_opts){ PHASE_NONE, false, false };
    }
    for (int ph = PHASE_PREFILL; ph <= PHASE_DECODE; ph++) {
        snprintf(p[n].path, sizeof p[n].path, "%s/%s_%s.csv", dir, base, phase_name(ph));
        p[n].trace = t;
        p[n++].opts = (struct trace_csv_opts){ (enum phase)ph, false, false };
    }
    cJSON *sim = config_dump(c, prof);
    const cJSON *it;
    if (sim_extra)
        cJSON_ArrayForEach(it, sim_extra)
            cJSON_AddItemToObject(sim, it->string, cJSON_Duplicate(it, 1));
    /* Both phases' files hold the same sim_config: one set of facts, one
     * text (printed at its depth in the files). */
    struct sim_facts facts;
    output_stats_file(&p[n], sim, &facts);
    char *sim_text = pyjson_print_at(sim, 1);
    cJSON_Delete(sim);
    for (int ph = PHASE_PREFILL; ph <= PHASE_DECODE; ph++) {
        if (ph == PHASE_DECODE)
            p[n].json = true, p[n].facts = p[n - 1].facts, p[n].facts_len = p[n - 1].facts_len;
        cJSON *j = llm_report_json(&r, (enum phase)ph, cJSON_CreateRaw(sim_text));
        snprintf(p[n].path, sizeof p[n].path, "%s/%s_%s.json", dir, base, phase_name(ph));
        p[n++].text = pyjson_print(j);
        cJSON_Delete(j);
    }
    free(sim_text);
    return write_outputs(p, n, e);
}

int write_llm_family_outputs(const struct loaded_config *c, const struct profile *prof,
                             const struct trace *t, const char *dir, const char *base, bool sweep,
                             llm_mem_fn mem, struct npu_err *e)
{
    if (!sweep)
        return write_llm_outputs_mem(c, prof, t, dir, base, false, NULL, mem, NULL, e);
    /* The reference's sweep adds these to sim_config. */
    const struct model_config *m = &c->model;
    cJSON *extra = cJSON_CreateObject();
    int64_t pods = m->data_parallel_degree_dcn * m->pipeline_parallel_degree_dcn;
    int64_t stages = m->pipeline_parallelism_degree * m->pipeline_parallel_degree_dcn;
    json_add_i64(extra, "num_pods", pods);
    json_add_i64(extra, "batch_size_per_pod", (m->global_batch_size + pods - 1) / pods);
    json_add_i64(extra, "layers_per_pp_stage", (m->num_layers + stages - 1) / stages);
    int rc = write_llm_outputs_mem(c, prof, t, dir, base, true, extra, mem, NULL, e);
    cJSON_Delete(extra);
    return rc;
}

void llm_capacity_from_report(const struct model_config *m, const struct llm_report *r,
                              struct family_capacity *cap)
{
    /* Steady state: every chip handles one microbatch per (prefill + decode)
     * chip time; each request yields output_seqlen tokens; the DCN data-
     * parallel pods each serve their own microbatches. */
    double busy_s = (double)(r->prefill.total_execution_time_chip_ns +
                             r->decode.total_execution_time_chip_ns) / 1e9;
    double chip_J = r->prefill_energy_J + r->decode_energy_J;
    cap->unit = "output tokens";
    cap->units_per_sec = (double)(m->microbatch_size_ici * m->data_parallel_degree_dcn *
                                  m->output_seqlen) / busy_s;
    cap->active_power_W = chip_J / busy_s * (double)m->num_chips;
}

int llm_family_capacity(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                        llm_mem_fn mem, struct family_capacity *cap, struct npu_err *e)
{
    struct llm_report r;
    if (llm_report_compute_mem(&c->model, &c->chip, prof, t, mem, &r, e))
        return -1;
    llm_capacity_from_report(&c->model, &r, cap);
    return 0;
}

void summary_warnings(const struct loaded_config *c, const struct profile *prof, const struct trace *t)
{
    struct invariant_warnings w = { 0 };
    invariants_check(t, PHASE_NONE, &c->chip, prof, "trace", &w);
    invariants_print(&w, "run", stderr);
}
