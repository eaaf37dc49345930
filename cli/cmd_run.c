/* cmd_run.c — `npusim run` (one configuration, all stages in one process)
 * and the three stage commands `opsgen`, `chipsim`, `power` that read and
 * write traces on files or stdin/stdout so that they can be piped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chipsim/chipsim.h"
#include "cli/cli.h"
#include "cli/interrupt.h"
#include "study/run/run.h"
#include "study/stages/stages.h"
#include "study/view/view.h"
#include "opsgen/opsgen.h"
#include "power/energy.h"
#include "power/powercap.h"
#include "power/pg.h"
#include "base/atomic.h"
#include "traces/trace_csv.h"
#include "base/version.h"

#define PG_HELP                                                                                   \
    "      --pg STRATEGY       power-gating strategy instead of the default pass: NoPG, Base,\n"   \
    "                          HW, Full, Ideal, ideal_inst_component, ideal_op_component,\n"     \
    "                          <Base|HW|Full>_vary_PG_delay_<k>, <Base|HW|Full>_vary_Vth_<a>_<b>\n" \
    "                          or a strategy JSON file (docs/power-gating.md); named ones\n"      \
    "                          are read from DIR/pg/ with --configs DIR, else built in\n"         \
    "      --dvfs POLICY       DVFS policy: None (default) or Ideal (table powers)\n"             \
    "                          With --pg or --dvfs the pass is the reference's energy stage:\n"   \
    "                          op types re-derived from the times, 10 slack columns added.\n"

#define TIMELINE_DETAIL_HELP                                                                    \
    "      --timeline-detail ops|layers  ops (default): one slice per trace row (xCOUNT);\n"     \
    "                          layers: a slice per step, layer and execution, up to 200000\n"   \
    "                          events (later steps summed; docs/commands.md)\n"

static const char run_help[] =
    "usage: npusim run [-m MODEL] [-c CHIP] [-s SYSTEM] [--set KEY=VALUE]... [--batch B]\n"
    "                  [--tp N] [--dp N] [--pp N] [--ep N] [--seqlen IN_OUT]\n"
    "                  [--workload inference|training] [--out DIR] [--profile NAME] [--no-energy]\n"
    "                  [--pg STRATEGY] [--dvfs POLICY] [--timeline FILE [--timeline-detail ops|layers]]\n"
    "\n"
    "Simulates one configuration: generates the operators (opsgen), times them on the\n"
    "chip (chipsim) and applies the default energy pass (power: no power gating, no\n"
    "DVFS). Writes DIR/<model>_<chip>_*: for LLM inference _prefill.csv, _decode.csv,\n"
    "_prefill.json and _decode.json; other families write the files their sweep writes.\n"
    "Prints a summary. With no arguments: llama3-8b on tpuv5p into ./out.\n"
    "The files appear as one set: two runs into one DIR take turns, and SIGINT or\n"
    "SIGTERM while they are written lets them finish (exit 130, 143).\n"
    "\n"
    "options:\n" COMMON_HELP PARALLEL_HELP
    "  -o, --out DIR           output folder (default ./out)\n"
    "      --no-energy         skip the energy pass (times as the reference's sweep writes them)\n"
    "      --timeline FILE     the operators as Chrome trace-event JSON (Perfetto, chrome://tracing):\n"
    "                          a track of operators and one per component, per phase\n"
    TIMELINE_DETAIL_HELP
    PG_HELP;

/* Parses the shared options plus -o/--out, -i/--in, --no-energy, --pg, --dvfs. */
struct stage_args {
    struct common_opts co;
    const char *out, *in, *outdir, *name;
    const char *pg, *dvfs;       /* NULL: the default pass */
    const char *timeline;        /* --timeline FILE.json (run, chipsim, power) */
    enum timeline_detail detail; /* --timeline-detail ops|layers */
    bool has_detail;
    bool no_energy;
    bool force;                  /* --force: take a trace made for another chip or model */
    struct trace_provenance prov;   /* the input trace's first line (chipsim, power) */
    bool has_prov;
};

enum { OPT_NO_ENERGY = 1000, OPT_NAME, OPT_PG, OPT_DVFS, OPT_TIMELINE, OPT_FORCE, OPT_TIMELINE_DETAIL };

/* The options of the stages' shared table that only some of the four take,
 * with why the others do not: a command refuses them rather than ignore them
 * (its --help lists only what it takes). */
#define FIXED_BY_TRACE(what, it) "the trace fixes " what ": give " it " to opsgen, and to power for the statistics"
static const struct {
    int code;
    const char *name, *cmds, *why;
} stage_only[] = {
    { 'i', "-i/--in", "chipsim power", "it reads no trace" },
    { 'd', "-d/--out-dir", "power", "-o names its output" },
    { OPT_NAME, "--name", "power", "the files are named by model and chip" },
    { OPT_NO_ENERGY, "--no-energy", "run", "power is the energy pass; opsgen and chipsim have none" },
    { OPT_PG, "--pg", "run power", "the power stage applies it" },
    { OPT_DVFS, "--dvfs", "run power", "the power stage applies it" },
    { OPT_TIMELINE, "--timeline", "run chipsim power", "an untimed trace has no timeline" },
    { OPT_TIMELINE_DETAIL, "--timeline-detail", "run chipsim power", "an untimed trace has no timeline" },
    { OPT_FORCE, "--force", "chipsim power", "it takes a trace made for another chip or model" },
    { CO_TP, "--tp", "run opsgen power", FIXED_BY_TRACE("the parallelism", "it") },
    { CO_DP, "--dp", "run opsgen power", FIXED_BY_TRACE("the parallelism", "it") },
    { CO_PP, "--pp", "run opsgen power", FIXED_BY_TRACE("the parallelism", "it") },
    { CO_EP, "--ep", "run opsgen power", FIXED_BY_TRACE("the parallelism", "it") },
    { CO_SEQLEN, "--seqlen", "run opsgen power", FIXED_BY_TRACE("the sequence lengths", "them") },
};

/* 0 when cmd takes option ch, else the usage error that says it does not. */
static int stage_takes(const char *cmd, int ch)
{
    for (size_t i = 0; i < sizeof stage_only / sizeof stage_only[0]; i++) {
        if (stage_only[i].code != ch)
            continue;
        const char *w = strstr(stage_only[i].cmds, cmd);
        size_t n = strlen(cmd);
        if (w && (w[n] == ' ' || !w[n]))
            return 0;
        return usage_error(cmd, "%s does not apply to npusim %s (%s)", stage_only[i].name, cmd, stage_only[i].why);
    }
    return 0;
}

static int parse(const char *cmd, const char *help, int argc, char **argv, struct stage_args *a,
                 const char *shortopts)
{
    static const struct option longopts[] = {
        COMMON_LONGOPTS, PARALLEL_LONGOPTS,
        { "out", required_argument, 0, 'o' }, { "in", required_argument, 0, 'i' },
        { "out-dir", required_argument, 0, 'd' }, { "name", required_argument, 0, OPT_NAME },
        { "no-energy", no_argument, 0, OPT_NO_ENERGY }, { "pg", required_argument, 0, OPT_PG },
        { "dvfs", required_argument, 0, OPT_DVFS }, { "timeline", required_argument, 0, OPT_TIMELINE },
        { "force", no_argument, 0, OPT_FORCE }, { "timeline-detail", required_argument, 0, OPT_TIMELINE_DETAIL },
        { 0, 0, 0, 0 },
    };
    memset(a, 0, sizeof *a);
    common_opts_init(&a->co);
    cli_short_options(shortopts);   /* run takes no -i or -d: the table is the stages' too */
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        struct npu_err e;
        int r = stage_takes(cmd, ch);
        if (r)
            return r;
        r = common_opt(&a->co, ch, optarg, &e);
        if (r < 0)
            return usage_error(cmd, "%s", e.msg);
        if (r > 0)
            continue;
        switch (ch) {
        case 'h': fputs(help, stdout); return -1;
        case 'o': a->out = optarg; break;
        case 'i': a->in = optarg; break;
        case 'd': a->outdir = optarg; break;
        case OPT_NAME: a->name = optarg; break;
        case OPT_NO_ENERGY: a->no_energy = true; break;
        case OPT_FORCE: a->force = true; break;
        case OPT_TIMELINE: a->timeline = optarg; break;
        case OPT_TIMELINE_DETAIL:
            if (timeline_detail_parse(optarg, &a->detail))
                return usage_error(cmd, "--timeline-detail: expected ops or layers, got \"%s\"", optarg);
            a->has_detail = true;
            break;
        case OPT_PG: case OPT_DVFS:
            *(ch == OPT_PG ? &a->pg : &a->dvfs) = optarg;
            break;
        default: return bad_option(cmd, argv[optind - 1], longopts);   /* also a missing value */
        }
    }
    if (optind < argc)
        return usage_error(cmd, "unexpected argument \"%s\"", argv[optind]);
    if (a->has_detail && !a->timeline)
        return usage_error(cmd, "--timeline-detail needs --timeline FILE.json");
    if (a->no_energy && (a->pg || a->dvfs))
        return usage_error(cmd, "--no-energy and --pg/--dvfs exclude each other");
    return 0;
}

/* --pg/--dvfs: the energy stage's pass (power.md §7) on the timed trace. */
static int strategy_pass(const struct stage_args *a, const struct chip_config *chip, struct trace *t,
                         struct npu_err *e)
{
    struct pg_strategy pg;
    enum dvfs_policy p;
    if (pg_strategy_lookup(a->pg ? a->pg : "NoPG", a->co.sh.configs, a->co.sh.prof, &pg, e) ||
        dvfs_policy_parse(a->dvfs ? a->dvfs : "None", &p, e))
        return -1;
    power_reclassify_ops(t);
    return power_energy_pass(t, chip, &pg, p, a->co.sh.prof, e);
}

/* --timeline: the timed trace as Chrome trace-event JSON (study/view/timeline.h),
 * written whole or not at all. */
static int write_timeline(const char *cmd, const struct stage_args *a, const struct trace *t,
                          const struct loaded_config *c)
{
    if (!a->timeline)
        return 0;
    char title[600];
    snprintf(title, sizeof title, "%s%s%s", c->model_name[0] ? c->model_name : "trace", " on ", c->chip_name);
    struct output out;
    output_clear(&out, 1);
    snprintf(out.path, sizeof out.path, "%s", a->timeline);
    /* the model's layers name the layers of a phase; without -m they are inferred from the counts */
    struct timeline_opts o = { a->detail, c->model_name[0] ? timeline_layers_of(&c->model) : 0, 0, &c->chip };
    out.text = timeline_json(t, title, config_provenance(a->co.sh.prof, c), &o);
    struct npu_err e;
    if (!out.text)
        return npu_errf(&e, "--timeline: out of memory"), report_error(cmd, &e);
    return write_outputs(&out, 1, &e) ? report_error(cmd, &e) : 0;
}

/* A stage says what it wrote (the trace file of -o, the --timeline file): on
 * standard output, or on standard error when the trace itself went there. */
static void say_stage_wrote(const char *cmd, const struct stage_args *a, bool trace_file)
{
    struct output o[2];
    int n = 0;
    output_clear(o, 2);
    bool trace_out = trace_file && cli_is_stdout(a->out),
         to_stdout = trace_out || (a->timeline && cli_is_stdout(a->timeline));
    if (trace_file && !trace_out)
        snprintf(o[n++].path, sizeof o[0].path, "%s", a->out);
    if (a->timeline)
        snprintf(o[n++].path, sizeof o[0].path, "%s", a->timeline);
    if (n)
        cli_print_wrote_to(to_stdout ? stderr : stdout, cmd, o, n);
}

#define PARSE(cmd, help, shortopts)                                   \
    struct stage_args a;                                              \
    int pr = parse(cmd, help, argc, argv, &a, shortopts);             \
    if (pr)                                                           \
        return pr < 0 ? 0 : pr;

int cmd_run(int argc, char **argv)
{
    PARSE("run", run_help, COMMON_SHORTOPTS "o:")
    /* SIGINT, SIGTERM: exit at once (nothing is on disk yet) but while the
     * output files are written. */
    interrupt_catch("run", true);
    struct loaded_config c;
    const struct family *fam;
    if (load_common("run", &a.co, true, &c, &fam))
        return EXIT_USAGE;
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    char base[600];
    const char *dir = a.out ? a.out : "out";
    snprintf(base, sizeof base, "%s_%s", c.model_name, c.chip_name);
    bool custom = a.pg || a.dvfs;
    int rc = pipeline_run(fam, &c, a.co.sh.prof, !a.no_energy && !custom, &t, &e) ||
             (custom && strategy_pass(&a, &c.chip, &t, &e));
    if (rc)
        rc = report_error("run", &e);
    /* The summary first: if it cannot reach the user (a full device, a
     * closed pipe), no output file is written either. */
    if (!rc) {
        fam->summary(&c, a.co.sh.prof, &t, stdout);
        run_notes_print(&c, a.co.sh.prof, a.no_energy ? NULL : a.pg ? a.pg : "NoPG", a.dvfs, &t, stdout);
        char missing[512];
        if (run_notes_uncalibrated(&c, a.co.sh.prof, &t, missing, sizeof missing))
            fprintf(stderr, "npusim run: warning: %s has no calibration for %s (its calibration: %s): they run at "
                            "their roofline\n", c.chip_name, missing, c.chip.calibration_source);
        rc = stdout_flushed("run");
    }
    /* The files go out whole: a signal while they are written waits for
     * them (interrupt.h); temporaries a killed run left in dir go first. */
    if (!rc) {
        staging_clean_temps(dir, base, "run");
        interrupt_hold();
        rc = write_timeline("run", &a, &t, &c);
    }
    if (!rc && fam->write(&c, a.co.sh.prof, &t, dir, base, false, NULL, &e)) {
        rc = report_error("run", &e);
        if (a.timeline)
            remove(a.timeline);   /* all the outputs or none */
    } else if (!rc)
    {
        printf("  outputs       %s/%s*\n  configs       %s, %s, %s\n", dir, base, c.files[CONFIG_MODEL],
               c.files[CONFIG_CHIP], c.files[CONFIG_SYSTEM]);
        if (a.timeline)
            printf("  timeline      %s\n", a.timeline);
    }
    int sig = interrupt_release();
    if (sig) {
        fprintf(stderr, "npusim run: interrupted by %s while writing; %s\n", interrupt_name(sig),
                rc ? "no output was written" : "the outputs were written whole");
        rc = interrupt_status(sig);
    }
    interrupt_restore();
    trace_free(&t);
    config_free(&c);
    return rc;
}

static const char opsgen_help[] =
    "usage: npusim opsgen [-m MODEL] [-c CHIP] [--set KEY=VALUE]... [-o TRACE]\n"
    "\n"
    "Generates the operator trace of a model (prefill then decode ops, untimed) and\n"
    "writes it as CSV with a trailing Phase column to TRACE (default stdout; a name\n"
    "ending in .gz is compressed), its first line \"# npusim {...}\" naming the version,\n"
    "profile, model, chip and system (not under --profile neusim). The chip is needed\n"
    "for the communication ops' link parameters.\n"
    "\n"
    "options:\n" COMMON_HELP PARALLEL_HELP
    "  -o, --out TRACE         output trace (default -)\n";

/* Writes a stream trace, its provenance line first unless the profile
 * keeps the reference's bare CSV (traces/trace_csv.h). */
static int write_stream(const char *cmd, const struct trace *t, const char *path, const struct loaded_config *c,
                        const struct stage_args *a)
{
    struct trace_csv_opts o = { PHASE_NONE, true, false };
    struct npu_err e;
    struct atomic_file f;
    if (atomic_open(&f, path ? path : "-", &e))
        return report_error(cmd, &e);
    if (!a->co.sh.prof->no_provenance) {
        struct trace_provenance p = { .version = NPUSIM_VERSION };
        snprintf(p.profile, sizeof p.profile, "%s", a->co.sh.prof->name);
        /* a stage keeps the model its input was made for unless -m says */
        snprintf(p.model, sizeof p.model, "%s", c->model_name[0] || !a->has_prov ? c->model_name : a->prov.model);
        snprintf(p.chip, sizeof p.chip, "%s", c->chip_name);
        snprintf(p.system, sizeof p.system, "%s", a->co.system || !a->has_prov ? c->system_name : a->prov.system);
        char line[1200];
        trace_provenance_line(&p, line, sizeof line);
        fputs(line, f.f);
    }
    if (trace_write_csv_stream(t, f.f, &o, &e)) {   /* the message names the output, as trace_write_csv's */
        char why[sizeof e.msg];
        snprintf(why, sizeof why, "%s", e.msg);
        npu_errf(&e, "%s: %s", f.path, why);
        atomic_abort(&f);
        return report_error(cmd, &e);
    }
    return atomic_commit(&f, &e) ? report_error(cmd, &e) : 0;
}

int cmd_opsgen(int argc, char **argv)
{
    PARSE("opsgen", opsgen_help, COMMON_SHORTOPTS "o:")
    struct loaded_config c;
    const struct family *fam;
    if (load_common("opsgen", &a.co, true, &c, &fam))
        return EXIT_USAGE;
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    int rc = family_generate(fam, &c, a.co.sh.prof, &t, &e) ? report_error("opsgen", &e)
                                                  : write_stream("opsgen", &t, a.out, &c, &a);
    if (!rc)
        say_stage_wrote("opsgen", &a, true);
    trace_free(&t);
    config_free(&c);
    return rc;
}

static const char chipsim_help[] =
    "usage: npusim chipsim [-c CHIP] [-m MODEL] [--set KEY=VALUE]... [-i TRACE] [-o TRACE]\n"
    "\n"
    "Times every operator of a trace on a chip: MXU/VPU compute, HBM traffic with\n"
    "on-chip tiling, vmem, ICI; execution time, Bounded-by and utilisation columns.\n"
    "Reads TRACE (default stdin; .gz decompressed) and writes the timed trace (default\n"
    "stdout). All ops are timed as one list (same-named ops share shapes, as the\n"
    "reference does). -m MODEL applies the model family's chip defaults (DLRM times\n"
    "small matmuls without the VPU fallback), as `npusim run` does.\n"
    "\n"
    "options:\n" COMMON_HELP
    "  -i, --in TRACE          input trace (default -)\n"
    "  -o, --out TRACE         output trace (default -)\n"
    "      --timeline FILE     the timed operators as Chrome trace-event JSON (Perfetto)\n"
    TIMELINE_DETAIL_HELP
    "      --force             take a trace whose first line says it was made for another chip,\n"
    "                          model (-m), system (-s) or profile (refused otherwise)\n";

/* Reads a stream trace and, when it says who made it, refuses one made for
 * another chip, model (with -m), system (with -s) or profile, naming each
 * field that differs, unless --force. */
static int read_stream(const char *cmd, struct trace *t, struct stage_args *a, const struct loaded_config *c)
{
    struct npu_err e;
    const char *path = a->in ? a->in : "-";
    if (trace_read_csv_prov(t, path, &a->prov, &a->has_prov, &e))
        return report_error(cmd, &e);
    if (!a->has_prov || a->force)
        return 0;
    const struct { const char *field, *was, *now; bool asked; } f[] = {
        { "chip", a->prov.chip, c->chip_name, true },
        { "model", a->prov.model, c->model_name, a->co.model && c->model_name[0] },
        { "system", a->prov.system, c->system_name, a->co.system != NULL },
        { "profile", a->prov.profile, a->co.sh.prof->name, true },
    };
    char diff[1200] = "";
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].asked && f[i].was[0] && strcmp(f[i].was, f[i].now)) {
            size_t l = strlen(diff);
            snprintf(diff + l, sizeof diff - l, "%s%s \"%s\", not \"%s\"", l ? "; " : "", f[i].field, f[i].was,
                     f[i].now);
        }
    if (!diff[0])
        return 0;
    return usage_error(cmd, "%s: the trace was made for another configuration (%s): --force to take it anyway",
                       strcmp(path, "-") ? path : "<stdin>", diff);
}

/* An error about one of the input trace's operators ("op 12 ...") names the
 * trace first, as its read errors do. */
static int trace_error(const char *cmd, const struct stage_args *a, struct npu_err *e)
{
    if (!strncmp(e->msg, "op ", 3)) {
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s: %s", a->in && strcmp(a->in, "-") ? a->in : "<stdin>", e->msg);
        memcpy(e->msg, msg, sizeof msg);
    }
    return report_error(cmd, e);
}

int cmd_chipsim(int argc, char **argv)
{
    PARSE("chipsim", chipsim_help, COMMON_SHORTOPTS "i:o:")
    struct loaded_config c;
    const struct family *fam = NULL;
    /* With -m the model family's config defaults apply too (DLRM times its
     * matmuls without the small-matmul VPU fallback, like `npusim run`). */
    if (load_common("chipsim", &a.co, a.co.model != NULL, &c, &fam))
        return EXIT_USAGE;
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    int rc = read_stream("chipsim", &t, &a, &c);
    if (!rc)
        rc = chipsim_run(&t, &c.chip, a.co.sh.prof, &e) || power_cap_pass(&t, &c.chip, a.co.sh.prof, &e)
                 ? trace_error("chipsim", &a, &e) : write_timeline("chipsim", &a, &t, &c);
    if (!rc && (rc = write_stream("chipsim", &t, a.out, &c, &a)) && a.timeline)
        remove(a.timeline);   /* all the outputs or none */
    if (!rc)
        say_stage_wrote("chipsim", &a, true);
    trace_free(&t);
    config_free(&c);
    return rc;
}

static const char power_help[] =
    "usage: npusim power [-c CHIP] [-i TRACE] [-o TRACE] [--pg STRATEGY] [--dvfs POLICY]\n"
    "       npusim power [-m MODEL] [-c CHIP] [-i TRACE] --out-dir DIR [--name BASE]\n"
    "\n"
    "Applies the default energy pass (no power gating, no DVFS) to a timed trace:\n"
    "rescales component times as the reference does, recomputes execution time and\n"
    "Bounded-by, and fills the DVFS, energy and power columns. With -o writes the\n"
    "trace (default stdout); with --out-dir writes the same four files as `npusim run`\n"
    "(BASE defaults to <model>_<chip>), so that\n"
    "  npusim opsgen ... | npusim chipsim ... | npusim power ... --out-dir DIR\n"
    "gives the same files as `npusim run ... --out DIR`: the statistics need the\n"
    "model, batch, parallelism and sequence lengths opsgen was given.\n"
    "\n"
    "options:\n" COMMON_HELP PARALLEL_HELP
    "  -i, --in TRACE          input trace (default -)\n"
    "  -o, --out TRACE         output trace (default -)\n"
    "  -d, --out-dir DIR       write per-phase CSVs and statistics JSON into DIR\n"
    "      --name BASE         base name of the files in DIR\n"
    "      --timeline FILE     the operators after the pass as Chrome trace-event JSON (Perfetto)\n"
    TIMELINE_DETAIL_HELP
    "      --force             take a trace whose first line says it was made for another chip,\n"
    "                          model (-m), system (-s) or profile (refused otherwise)\n"
    PG_HELP;

int cmd_power(int argc, char **argv)
{
    PARSE("power", power_help, COMMON_SHORTOPTS "i:o:d:")
    struct loaded_config c;
    const struct family *fam = NULL;
    if (load_common("power", &a.co, a.outdir != NULL, &c, &fam))
        return EXIT_USAGE;
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    int rc = read_stream("power", &t, &a, &c);
    if (!rc && ((a.pg || a.dvfs) ? strategy_pass(&a, &c.chip, &t, &e)
                                  : power_default_pass(&t, &c.chip, a.co.sh.prof, &e)))
        rc = trace_error("power", &a, &e);
    if (!rc)
        rc = write_timeline("power", &a, &t, &c);
    bool had_timeline = !rc && a.timeline;
    if (!rc && a.outdir) {
        char base[600];
        snprintf(base, sizeof base, "%s_%s", c.model_name, c.chip_name);
        fam->summary(&c, a.co.sh.prof, &t, stdout);
        run_notes_print(&c, a.co.sh.prof, a.pg ? a.pg : "NoPG", a.dvfs, &t, stdout);
        rc = stdout_flushed("power");
        if (!rc && fam->write(&c, a.co.sh.prof, &t, a.outdir, a.name ? a.name : base, false, NULL, &e))
            rc = report_error("power", &e);
    } else if (!rc)
        rc = write_stream("power", &t, a.out, &c, &a);
    if (rc && had_timeline)
        remove(a.timeline);   /* all the outputs or none */
    if (!rc)
        say_stage_wrote("power", &a, !a.outdir);
    trace_free(&t);
    config_free(&c);
    return rc;
}
