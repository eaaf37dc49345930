/* cmd_suite.c — `npusim suite SUITE OUT`: a suite file (study/sweep/suite_file.h)
 * run in one process.
 *
 * Each line becomes the npusim call run-suite would make (echoed on stderr
 * as "+ npusim ..."), run here through the subcommand's own function: no
 * shell and no process per stage, and the same results tree. A sweep line
 * records its model and versions under its workload; an energy, carbon or slo
 * line then runs once per workload with sweeps so far (inference, then
 * training), over their models and versions, sorted bytewise, without repeats.
 *
 * The whole file is checked before the first call (every line's fields:
 * models, chip versions, strategies, numbers), so a bad line runs nothing.
 * A call that fails stops the suite (its own outputs are atomic) and, when
 * the suite created OUT, OUT goes with it: all or nothing. --keep-going runs
 * the rest and keeps what they wrote.
 *
 * Main data structure: per workload, the models and versions the sweeps so
 * far have named (struct seen), and the argument vector of the call being
 * built (struct call). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/lists.h"
#include "cli/cli.h"
#include "cli/interrupt.h"
#include "study/run/run.h"
#include "study/stages/stages.h"
#include "study/sweep/sweep.h"
#include "power/pg.h"
#include "base/atomic.h"
#include "base/strbuf.h"

static const char suite_help[] =
    "usage: npusim suite SUITE OUT [--configs DIR] [--profile NAME] [-j N]\n"
    "                    [--stages LIST] [--keep-going] [--hold-MB N]\n"
    "\n"
    "Runs the lines of the suite file SUITE ('-': standard input) in order, in one\n"
    "process, writing the results tree OUT (OUT/raw, OUT/raw_<DVFS>, OUT/carbon_<PG>,\n"
    "OUT/slo_<PG>_<DVFS>): the tree ../shared/tools/run-suite writes for the same file.\n"
    "Lines ('#' starts a comment):\n"
    "  sweep MODEL WORKLOAD VERSIONS NUM_CHIPS BATCHES [SEQLEN]   npusim sweep ... --out OUT/raw\n"
    "  energy PG_LIST DVFS                    npusim energy --results OUT/raw\n"
    "  carbon PG DVFS CI UTIL LIFETIMES       npusim carbon --results OUT/raw_<DVFS>\n"
    "  slo DVFS PG CI UTIL                    npusim slo --results OUT/carbon_<PG>/dvfs_<DVFS>/CI<CI>/UTIL<UTIL>\n"
    "energy, carbon and slo lines run once per workload swept so far, over the models and\n"
    "versions of its sweeps (sorted, without repeats). Each call is echoed on stderr as\n"
    "'+ npusim ...', so a failing one can be rerun by hand. The file is checked whole before\n"
    "anything runs (models, chip versions, strategies, numbers); a failing call stops the\n"
    "suite (exit status: the call's) and, if the suite created OUT, removes it: all or\n"
    "nothing (with --keep-going the rest run and what they wrote stays).\n"
    "\n"
    "options (--configs, --profile and -j apply to every line; run-suite passes --profile neusim):\n";
static const char suite_help_tail[] =
    "      --stages LIST       which kinds of line run (default sweep,energy,carbon,slo); sweep\n"
    "                          lines still name the models and versions of the later stages\n"
    "      --keep-going        run the remaining lines after a failing call; exit with the\n"
    "                          first failure's status\n"
    "      --hold-MB N         memory for the results a stage hands to the next in this\n"
    "                          process (the sweeps' statistics and per-op traces to the energy\n"
    "                          lines, theirs to the carbon lines), so that these need not read\n"
    "                          and parse the files again (default 256 per stage; 0: always\n"
    "                          read the files). The results are the same bytes either way. The\n"
    "                          last line counts what the later stages took from memory\n"
    "  -h, --help              this help\n";

/* The workloads a later stage runs for, in run-suite's order. */
static const char *const workloads[] = { "inference", "training" };
#define NWORKLOADS 2

/* Models and versions the sweeps of one workload named so far. */
struct seen {
    char *models[MAX_LIST], *versions[MAX_LIST];
    int nmodels, nversions;
};

struct suite_opts {
    const char *suite, *out;
    struct shared_opts sh;   /* --configs, --profile, -j: every line's */
    char jobs[24];           /* -j as given, for the echoed calls ("" when not given) */
    bool stage[SUITE_NKINDS];
    bool keep_going;
    long hold_MB;            /* --hold-MB: each results set's budget */
};

/* What the stages hand on in memory (study/run/results.h): the sweeps'
 * statistics and traces to the energy lines, theirs (one tree per DVFS
 * policy, OUT/raw_<DVFS>) to the carbon lines. */
#define NDVFS 2
struct handover {
    struct results raw, energy[NDVFS];
};

/* The energy results of a line's DVFS field (checked already). */
static struct results *energy_of(struct handover *h, const char *dvfs)
{
    enum dvfs_policy p = DVFS_NONE;
    struct npu_err ignored;
    (void)dvfs_policy_parse(dvfs, &p, &ignored);
    return &h->energy[p == DVFS_IDEAL];
}
#define MAX_HOLD_MB (1 << 20)    /* 1 TiB */

/* ---- the models and versions swept so far ---- */

/* strcmp of a against the len bytes at t. */
static int cmp_token(const char *a, const char *t, size_t len)
{
    int c = strncmp(a, t, len);
    return c ? c : a[len] != '\0';
}

/* Adds the items of the comma list s to set (copies, bytewise sorted, no
 * repeats, as run-suite's `sort -u` in the C locale). */
static int add_items(char **set, int *n, const char *s, const char *path, int lineno, const char *what,
                     struct npu_err *e)
{
    for (const char *t = s; *t;) {
        size_t len = strcspn(t, ",");
        int i = 0;
        while (i < *n && cmp_token(set[i], t, len) < 0)
            i++;
        if (len && (i == *n || cmp_token(set[i], t, len) != 0)) {
            if (*n == MAX_LIST)
                return npu_errf(e, "%s:%d: more than %d %s", path, lineno, MAX_LIST, what);
            char *item = strndup(t, len);
            if (!item)
                return npu_errf(e, "out of memory");
            memmove(set + i + 1, set + i, (size_t)(*n - i) * sizeof *set);
            set[i] = item;
            (*n)++;
        }
        t += len + (t[len] == ',');
    }
    return 0;
}

/* Records a sweep line's models and versions under its workload. */
static int note_sweep(struct seen *seen, const struct suite_line *l, const char *path, struct npu_err *e)
{
    for (int w = 0; w < NWORKLOADS; w++)
        if (!strcmp(l->f[1], workloads[w]))
            return add_items(seen[w].models, &seen[w].nmodels, l->f[0], path, l->lineno, "models", e) ||
                           add_items(seen[w].versions, &seen[w].nversions, l->f[2], path, l->lineno,
                                     "versions", e) ? -1 : 0;
    return 0;
}

static void seen_free(struct seen *s)
{
    for (int i = 0; i < s->nmodels; i++)
        free(s->models[i]);
    for (int i = 0; i < s->nversions; i++)
        free(s->versions[i]);
}

/* The items joined with commas (malloc'ed). */
static char *join(char *const *item, int n)
{
    struct strbuf b = STRBUF_GROWING;
    for (int i = 0; i < n; i++) {
        if (i)
            strbuf_putc(&b, ',');
        strbuf_puts(&b, item[i]);
    }
    return b.s ? b.s : strdup("");
}

/* ---- the calls ---- */

#define MAX_ARGS 40
struct call {
    char *v[MAX_ARGS + 1];
    int n;
    char path[2][4200];      /* --results / --out values built from OUT */
};

static void arg(struct call *c, const char *s) { c->v[c->n++] = (char *)s; }
static void opt(struct call *c, const char *name, const char *value)
{
    arg(c, name);
    arg(c, value);
}

/* The call's first words: the command and the options every call shares. */
static void start(struct call *c, const char *cmd, const struct suite_opts *o)
{
    c->n = 0;
    arg(c, cmd);
    if (o->sh.profile_name)
        opt(c, "--profile", o->sh.profile_name);
    if (o->sh.configs)
        opt(c, "--configs", o->sh.configs);
}

/* A comma list of the line's into l (checked by check_suite already). */
static int items(const char *s, struct list *l, struct npu_err *e)
{
    return list_split(s, l) ? npu_errf(e, "out of memory") : 0;
}

/* A sweep line as the sweep stage's request, run. */
static int sweep_line(const struct suite_line *l, const struct call *c, const struct suite_opts *o,
                      struct handover *h)
{
    struct list m = { 0 }, v = { 0 }, n = { 0 }, b = { 0 };
    int64_t num[MAX_LIST], batch[MAX_LIST];
    struct npu_err e;
    int rc = items(l->f[0], &m, &e) || items(l->f[2], &v, &e) || items(l->f[3], &n, &e) || items(l->f[4], &b, &e);
    for (int i = 0; !rc && i < n.n; i++)
        rc = parse_i64_strict(n.item[i], &num[i]);
    for (int i = 0; !rc && i < b.n; i++)
        rc = parse_i64_strict(b.item[i], &batch[i]);
    struct sweep_request r = sweep_request_default();
    r.models = (const char *const *)m.item, r.nmodels = m.n;
    r.chips = (const char *const *)v.item, r.nchips = v.n;
    r.num_chips = num, r.nnum_chips = n.n;
    r.batch_sizes = batch, r.nbatch_sizes = b.n;
    r.workload = l->f[1];
    if (!rc && l->n > 5)
        rc = parse_seqlen(l->f[5], &r.seq_in_tokens, &r.seq_out_tokens);
    r.out = c->path[0];
    r.configs = o->sh.configs, r.prof = o->sh.prof, r.jobs = o->sh.jobs_given ? o->sh.jobs : 0;
    struct stage_io io = stage_io_none();
    io.stop = (volatile sig_atomic_t *)interrupt_flag();   /* the suite's handler (cmd_suite) */
    io.out = &h->raw;
    if (!rc)
        rc = sweep_command_run(&r, &io);
    else
        rc = report_error("suite", &(struct npu_err){ "a sweep line's numbers did not read (out of memory?)" });
    list_free(&m), list_free(&v), list_free(&n), list_free(&b);
    return rc;
}

/* An energy, carbon or slo line for workload w's models and versions, as
 * its stage's request, run (io->suite: a model or version without results
 * is the sweeps' to have said). */
static int later_line(const struct suite_line *l, const struct seen *sw, const char *w, const struct call *c,
                      const struct suite_opts *o, struct handover *h)
{
    char *const *f = l->f;
    struct stage_io io = stage_io_none();
    io.stop = (volatile sig_atomic_t *)interrupt_flag();   /* the suite's handler (cmd_suite) */
    io.suite = 1;
    long jobs = o->sh.jobs_given ? o->sh.jobs : 0;
    const char *const *models = (const char *const *)sw->models, *const *versions = (const char *const *)sw->versions;
    struct list a = { 0 }, b = { 0 };
    struct npu_err e;
    int rc = 0;
    if (l->kind == SUITE_ENERGY) {
        struct energy_request r = energy_request_default();
        r.results = c->path[0], r.models = models, r.nmodels = sw->nmodels, r.versions = versions;
        r.nversions = sw->nversions, r.workload = w, r.dvfs = f[1];
        r.configs = o->sh.configs, r.prof = o->sh.prof, r.jobs = jobs;
        rc = items(f[0], &a, &e) ? report_error("suite", &e) : 0;
        r.pgs = (const char *const *)a.item, r.npgs = a.n;
        io.in = &h->raw, io.out = energy_of(h, f[1]);
        rc = rc ? rc : energy_command_run(&r, &io);
    } else if (l->kind == SUITE_CARBON) {
        struct carbon_request r = carbon_request_default();
        r.results = c->path[0], r.models = models, r.nmodels = sw->nmodels, r.versions = versions;
        r.nversions = sw->nversions, r.workload = w, r.pg = f[0], r.dvfs = f[1];
        r.configs = o->sh.configs, r.prof = o->sh.prof, r.jobs = jobs;
        /* check_suite read every number already: only memory can fail here */
        bool bad = items(f[2], &a, &e) || items(f[4], &b, &e) || a.n > CARBON_MAX_ITEMS || b.n > CARBON_MAX_ITEMS;
        for (int i = 0; !bad && i < a.n; i++)
            bad = parse_f64_strict(a.item[i], &r.ci_kgCO2e_per_kWh[r.nci++]) != 0;
        for (int i = 0; !bad && i < b.n; i++)
            bad = parse_i64_strict(b.item[i], &r.lifetime_years[r.nlifetimes++]) != 0;
        bad = bad || parse_f64_strict(f[3], &r.duty_cycle);
        rc = bad ? report_error("suite", &(struct npu_err){ "a carbon line's numbers did not read" }) : 0;
        io.in = energy_of(h, f[1]);
        rc = rc ? rc : carbon_command_run(&r, &io);
    } else {
        struct slo_request r = slo_request_default();
        r.results_dir = c->path[0], r.out_dir = c->path[1], r.workload = w;
        for (int i = 0; i < sw->nmodels && i < SLO_MAX_ITEMS; i++)
            r.models[r.nmodels++] = sw->models[i];
        for (int i = 0; i < sw->nversions && i < SLO_MAX_ITEMS; i++)
            r.versions[r.nversions++] = sw->versions[i];
        r.configs = o->sh.configs, r.prof = o->sh.prof;
        rc = slo_command_run(&r, &io);
    }
    list_free(&a), list_free(&b);
    return rc;
}

/* Echoes the call as run-suite does (the command that would compute the
 * same), then runs the line's request in this process; returns its exit
 * status. sw and w: the models, versions and workload of a later stage. */
static int run_call(struct call *c, const struct suite_line *l, const struct suite_opts *o, struct handover *h,
                    const struct seen *sw, const char *w)
{
    enum suite_kind k = l->kind;
    if (o->jobs[0] && k != SUITE_SLO)
        opt(c, "-j", o->jobs);
    c->v[c->n] = NULL;
    fputs("+ npusim", stderr);
    for (int i = 0; i < c->n; i++)
        fprintf(stderr, " %s", c->v[i]);
    fputc('\n', stderr);
    fflush(stderr);
    int rc = k == SUITE_SWEEP ? sweep_line(l, c, o, h) : later_line(l, sw, w, c, o, h);
    if (rc)
        fprintf(stderr, "npusim suite: %s:%d: npusim %s failed (exit status %d)\n", o->suite, l->lineno,
                suite_kind_name(k), rc);
    return rc;
}

/* One energy, carbon or slo line for one workload's models and versions. */
static int run_later(const struct suite_line *l, const char *w, const char *ms, const char *vs,
                     const struct seen *sw, const struct suite_opts *o, struct call *c, struct handover *h)
{
    start(c, suite_kind_name(l->kind), o);
    char *const *f = l->f;
    switch (l->kind) {
    case SUITE_ENERGY:
        snprintf(c->path[0], sizeof c->path[0], "%s/raw", o->out);
        break;
    case SUITE_CARBON:
        snprintf(c->path[0], sizeof c->path[0], "%s/raw_%s", o->out, f[1]);
        break;
    default:
        snprintf(c->path[0], sizeof c->path[0], "%s/carbon_%s/dvfs_%s/CI%s/UTIL%s", o->out, f[1], f[0], f[2], f[3]);
        snprintf(c->path[1], sizeof c->path[1], "%s/slo_%s_%s", o->out, f[1], f[0]);
        break;
    }
    opt(c, "--results", c->path[0]);
    if (l->kind == SUITE_SLO)
        opt(c, "--out", c->path[1]);
    opt(c, "--models", ms);
    opt(c, "--versions", vs);
    opt(c, "--workload", w);
    if (l->kind != SUITE_SLO) {
        opt(c, "--pg", f[0]);
        opt(c, "--dvfs", f[1]);
    }
    if (l->kind == SUITE_CARBON) {
        opt(c, "--ci", f[2]);
        opt(c, "--util", f[3]);
        opt(c, "--lifetime", f[4]);
    }
    return run_call(c, l, o, h, sw, w);
}

/* Runs one line: 0, a failing call's exit status, or -1 with e set (the
 * suite itself failed: out of memory, too many models). */
static int run_line(const struct suite_line *l, struct seen *seen, const struct suite_opts *o, struct call *c,
                    struct handover *h, struct npu_err *e)
{
    if (l->kind == SUITE_SWEEP) {
        int rc = 0;
        if (o->stage[SUITE_SWEEP]) {
            start(c, "sweep", o);
            snprintf(c->path[0], sizeof c->path[0], "%s/raw", o->out);
            opt(c, "--out", c->path[0]);
            opt(c, "--models", l->f[0]);
            opt(c, "--workload", l->f[1]);
            opt(c, "--versions", l->f[2]);
            opt(c, "--num-chips", l->f[3]);
            opt(c, "--batch-sizes", l->f[4]);
            if (l->n > 5)
                opt(c, "--seqlen", l->f[5]);
            rc = run_call(c, l, o, h, NULL, NULL);
        }
        /* Later stages name the models even when this sweep failed or did not run. */
        return note_sweep(seen, l, o->suite, e) ? -1 : rc;
    }
    if (!o->stage[l->kind])
        return 0;
    int first = 0;
    for (int w = 0; w < NWORKLOADS; w++) {
        if (!seen[w].nmodels)
            continue;
        char *ms = join(seen[w].models, seen[w].nmodels), *vs = join(seen[w].versions, seen[w].nversions);
        int rc = ms && vs ? run_later(l, workloads[w], ms, vs, &seen[w], o, c, h) : npu_errf(e, "out of memory");
        free(ms);
        free(vs);
        if (rc < 0)
            return -1;
        if (rc && !first)
            first = rc;
        if (rc && !o->keep_going)
            break;
    }
    return first;
}

/* ---- checking every line before anything runs ---- */

/* Each item of the comma list s passes ok(item); else the error names the
 * line, the field and what was expected. */
static int check_items(const char *s, bool (*ok)(const char *item, const struct suite_opts *o),
                       const struct suite_opts *o, const struct suite_line *l, const char *field,
                       const char *expected, struct npu_err *e)
{
    char buf[4096];
    char *item[MAX_LIST];
    snprintf(buf, sizeof buf, "%s", s);
    int n = strlen(s) < sizeof buf ? split_inplace(buf, item, MAX_LIST) : -1;
    if (n < 0)
        return npu_errf(e, "%s:%d: %s \"%s\": expected a comma-separated list of at most %d items, none empty",
                        o->suite, l->lineno, field, s, MAX_LIST);
    for (int i = 0; i < n; i++)
        if (!ok(item[i], o))
            return npu_errf(e, "%s:%d: %s \"%s\": expected %s", o->suite, l->lineno, field, item[i], expected);
    return 0;
}

static bool is_model(const char *m, const struct suite_opts *o)
{
    char path[4096];
    struct npu_err ignored;
    return config_resolve(o->sh.configs, CONFIG_MODEL, m, path, sizeof path, &ignored) == 0;
}

static bool is_version(const char *v, const struct suite_opts *o)
{
    char chip[300], path[4096];
    struct npu_err ignored;
    snprintf(chip, sizeof chip, "%s", v);   /* "5p": tpuv5p, "h100": h100 (config.c) */
    return config_resolve(o->sh.configs, CONFIG_CHIP, chip, path, sizeof path, &ignored) == 0;
}

static bool is_workload(const char *w, const struct suite_opts *o)
{
    (void)o;
    return !strcmp(w, workloads[0]) || !strcmp(w, workloads[1]);
}

static bool is_count(const char *s, const struct suite_opts *o)
{
    (void)o;
    int64_t v;
    return parse_i64_strict(s, &v) == 0 && v >= 1 && v <= (int64_t)FIELD_INT_MAX;
}

/* The carbon stage's own range checks (study/stages/carbon_stage.h): a
 * line holds what the stage would take. */
static bool is_intensity(const char *s, const struct suite_opts *o)
{
    (void)o;
    double v;
    struct npu_err ignored;
    return parse_f64_strict(s, &v) == 0 && carbon_ci_check(v, s, &ignored) == 0;
}

static bool is_lifetime(const char *s, const struct suite_opts *o)
{
    (void)o;
    int64_t v;
    struct npu_err ignored;
    return parse_i64_strict(s, &v) == 0 && carbon_lifetime_check(v, s, &ignored) == 0;
}

static bool is_util(const char *s, const struct suite_opts *o)
{
    (void)o;
    double v;
    struct npu_err ignored;
    return parse_f64_strict(s, &v) == 0 && carbon_duty_cycle_check(v, s, &ignored) == 0;
}

static bool is_seqlen(const char *s, const struct suite_opts *o)
{
    char in[32];
    const char *us = strchr(s, '_');
    if (!us || (size_t)(us - s) >= sizeof in)
        return false;
    snprintf(in, sizeof in, "%.*s", (int)(us - s), s);
    return is_count(in, o) && is_count(us + 1, o);
}

static bool is_strategy(const char *s, const struct suite_opts *o)
{
    struct pg_strategy pg;
    struct npu_err ignored;
    return pg_strategy_lookup(s, o->sh.configs, &profile_neusim, &pg, &ignored) == 0;
}

static bool is_name(const char *s, const struct suite_opts *o)
{
    (void)o;
    return s[0] && !strchr(s, '/');
}

static bool is_dvfs(const char *s, const struct suite_opts *o)
{
    (void)o;
    enum dvfs_policy p;
    struct npu_err ignored;
    return dvfs_policy_parse(s, &p, &ignored) == 0;
}

/* What each field of each kind of line must hold (suite_file.c checked the
 * kinds and field counts): the subcommands would say the same, but only
 * when the line's turn came, after the lines before it had written. */
struct field_check {
    enum suite_kind kind;
    int field;
    const char *name;
    bool (*ok)(const char *item, const struct suite_opts *o);
    const char *expected;
};

static const struct field_check field_checks[] = {
    { SUITE_SWEEP, 0, "MODEL", is_model, "a model config name (configs/models/)" },
    { SUITE_SWEEP, 1, "WORKLOAD", is_workload, "inference or training" },
    { SUITE_SWEEP, 2, "VERSIONS", is_version, "a chip version with a config (configs/chips/tpuv<V>.json)" },
    { SUITE_SWEEP, 3, "NUM_CHIPS", is_count, "a positive integer" },
    { SUITE_SWEEP, 4, "BATCHES", is_count, "a positive integer" },
    { SUITE_SWEEP, 5, "SEQLEN", is_seqlen, "IN_OUT, two positive integers" },
    { SUITE_ENERGY, 0, "PG_LIST", is_strategy, "a power-gating strategy (docs/power-gating.md)" },
    { SUITE_ENERGY, 1, "DVFS", is_dvfs, "None or Ideal" },
    { SUITE_CARBON, 0, "PG", is_name, "a strategy name" },
    { SUITE_CARBON, 1, "DVFS", is_dvfs, "None or Ideal" },
    { SUITE_CARBON, 2, "CI", is_intensity, "a carbon intensity from 0 to 100 (kgCO2e/kWh)" },
    { SUITE_CARBON, 3, "UTIL", is_util, "a duty cycle in (0, 1]" },
    { SUITE_CARBON, 4, "LIFETIMES", is_lifetime, "a whole number of years from 1 to 100" },
    { SUITE_SLO, 0, "DVFS", is_dvfs, "None or Ideal" },
    { SUITE_SLO, 1, "PG", is_name, "a strategy name" },
    { SUITE_SLO, 2, "CI", is_intensity, "a carbon intensity from 0 to 100 (kgCO2e/kWh)" },
    { SUITE_SLO, 3, "UTIL", is_util, "a duty cycle in (0, 1]" },
};

static int check_suite(const struct suite *s, const struct suite_opts *o, struct npu_err *e)
{
    if (s->n == 0)
        return npu_errf(e, "%s: no lines to run (expected sweep, energy, carbon or slo lines)", o->suite);
    bool swept = false;   /* a sweep line came before */
    for (int i = 0; i < s->n; i++) {
        const struct suite_line *l = &s->line[i];
        swept |= l->kind == SUITE_SWEEP;
        if (!swept)   /* it would run over no models at all: nothing done, nothing said */
            return npu_errf(e, "%s:%d: %s line with no sweep line before it: energy, carbon and slo lines run "
                            "over the models of the sweeps above them", o->suite, l->lineno, suite_kind_name(l->kind));
        for (size_t k = 0; k < sizeof field_checks / sizeof field_checks[0]; k++) {
            const struct field_check *fc = &field_checks[k];
            if (fc->kind == l->kind && fc->field < l->n &&
                check_items(l->f[fc->field], fc->ok, o, l, fc->name, fc->expected, e))
                return -1;
        }
        if (l->kind == SUITE_ENERGY && (strncmp(l->f[0], "NoPG", 4) != 0 || (l->f[0][4] && l->f[0][4] != ',')))
            return npu_errf(e, "%s:%d: PG_LIST \"%s\": the first strategy must be NoPG (slowdowns are "
                            "relative to it)", o->suite, l->lineno, l->f[0]);
    }
    return 0;
}

/* ---- the command ---- */

static int parse_stages(const char *s, bool stage[SUITE_NKINDS])
{
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", s) >= (int)sizeof buf)
        return usage_error("suite", "--stages: too long");
    memset(stage, 0, SUITE_NKINDS * sizeof *stage);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = suite_kind_find(t);
        if (k < 0)
            return usage_error("suite", "--stages: unknown stage \"%s\"; expected sweep, energy, carbon or slo", t);
        stage[k] = true;
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct suite_opts *o)
{
    enum { O_STAGES = 0x100, O_KEEP_GOING, O_HOLD };
    static const struct option longopts[] = {
        SHARED_LONGOPT_CONFIGS, SHARED_LONGOPT_PROFILE, SHARED_LONGOPT_JOBS,
        { "stages", required_argument, 0, O_STAGES }, { "keep-going", no_argument, 0, O_KEEP_GOING },
        { "hold-MB", required_argument, 0, O_HOLD }, { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const unsigned shared = SHARED_CONFIGS | SHARED_PROFILE | SHARED_JOBS;
    memset(o, 0, sizeof *o);
    shared_opts_init(&o->sh);
    for (int k = 0; k < SUITE_NKINDS; k++)
        o->stage[k] = true;
    o->hold_MB = 256;
    int64_t hold;
    int ch, rc;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":hj:", longopts, NULL)) != -1) {
        int taken = shared_opt("suite", shared, &o->sh, ch, optarg);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken)
            continue;
        switch (ch) {
        case 'h':
            fputs(suite_help, stdout);
            shared_help(shared, stdout);
            fputs(suite_help_tail, stdout);
            return -1;
        case O_STAGES:
            if ((rc = parse_stages(optarg, o->stage)))
                return rc;
            break;
        case O_KEEP_GOING: o->keep_going = true; break;
        case O_HOLD:
            if (parse_i64_strict(optarg, &hold) || hold < 0 || hold > MAX_HOLD_MB)
                return usage_error("suite", "--hold-MB: expected a whole number of MB from 0 to %d, got \"%s\"",
                                   MAX_HOLD_MB, optarg);
            o->hold_MB = hold;
            break;
        case ':': return usage_error("suite", "option %s needs a value", argv[optind - 1]);
        default: return bad_option("suite", argv[optind - 1], longopts);
        }
    }
    if (argc - optind != 2)
        return usage_error("suite", "expected SUITE and OUT, got %d argument%s", argc - optind,
                           argc - optind == 1 ? "" : "s");
    o->suite = argv[optind];
    o->out = argv[optind + 1];
    if (o->sh.jobs_given)
        snprintf(o->jobs, sizeof o->jobs, "%ld", o->sh.jobs);
    return 0;
}

int cmd_suite(int argc, char **argv)
{
    struct suite_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct npu_err e;
    struct suite s = { NULL, NULL, 0 };
    struct seen seen[NWORKLOADS];
    memset(seen, 0, sizeof seen);
    struct call *c = malloc(sizeof *c);
    if (!c)
        rc = npu_errf(&e, "out of memory");
    /* A tree the suite creates is the suite's whole output: if a call fails
     * (without --keep-going), it goes again, with the folders made for it. */
    struct stat st;
    bool fresh = stat(o.out, &st) != 0 && errno == ENOENT;
    struct made_dirs made = { 0 };
    if (c && (suite_read(&s, o.suite, &e) || check_suite(&s, &o, &e) || make_dirs_undoable(o.out, &made, &e)))
        rc = -1;
    struct handover h;
    results_init(&h.raw, (size_t)o.hold_MB << 20);
    for (int d = 0; d < NDVFS; d++)
        results_init(&h.energy[d], (size_t)o.hold_MB << 20);
    int first = 0;
    /* SIGINT, SIGTERM: deferred for the whole suite, so one between two
     * lines stops it as one inside a line does (each line's stage polls
     * the flag through its io->stop); the suite then undoes OUT. */
    interrupt_catch("suite", false);
    for (int i = 0; !rc && i < s.n; i++) {
        /* Every energy line from here on takes the sweeps' results: all
         * but the last get copies. */
        h.raw.takers = 0;
        for (int k = i; k < s.n; k++)
            h.raw.takers += s.line[k].kind == SUITE_ENERGY && o.stage[SUITE_ENERGY];
        int r = run_line(&s.line[i], seen, &o, c, &h, &e);
        int sig = *interrupt_flag();   /* during the line or between two: the suite stops here */
        if (sig && r >= 0)
            r = interrupt_status(sig);
        bool interrupted = r == 128 + SIGINT || r == 128 + SIGTERM;   /* a line stopped by a signal */
        if (r < 0)
            rc = -1;
        else if (r && (!first || interrupted))
            first = r;
        if (first && (!o.keep_going || interrupted))
            break;
    }
    /* How much the later stages took from memory (--hold-MB): a stage that
     * parsed its inputs again after all is the first suspect of a slow run. */
    size_t found = 0, asked = 0;
    for (int d = 0; d < NDVFS; d++) {
        found += h.energy[d].found;
        asked += h.energy[d].found + h.energy[d].missed;
        results_free(&h.energy[d]);
    }
    if (!rc && o.hold_MB > 0)
        fprintf(stderr, "npusim suite: from memory: %zu of %zu sweep results taken by the energy lines, %zu of "
                        "%zu energy results by the carbon lines\n", h.raw.found, h.raw.found + h.raw.missed, found,
                asked);
    results_free(&h.raw);
    interrupt_restore();
    bool undo = fresh && (rc || (first && !o.keep_going));
    if (undo)
        staging_remove(o.out);
    if (undo && (first == 128 + SIGINT || first == 128 + SIGTERM))   /* the sweep's line said what its tree kept */
        fprintf(stderr, "npusim suite: interrupted: %s removed, as the suite created it (all or nothing)\n", o.out);
    (undo ? made_dirs_undo : made_dirs_keep)(&made);
    suite_free(&s);
    for (int w = 0; w < NWORKLOADS; w++)
        seen_free(&seen[w]);
    free(c);
    if (rc)
        return report_error("suite", &e);
    return first;
}
