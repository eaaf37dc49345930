/* cli.h — shared pieces of the command-line front end.
 *
 * Every subcommand is a function `int cmd_x(int argc, char **argv)` that
 * returns the process exit status: 0 on success, 2 on bad usage or input
 * (after printing one message that names the file, field and expectation).
 * struct common_opts gathers the options all config-reading commands share. */
#ifndef NPUSIM_CLI_H
#define NPUSIM_CLI_H

#include <getopt.h>
#include <stdbool.h>

#include "cli/options.h"
#include "study/run/run.h"
#include "traces/trace_csv.h"
#include "base/err.h"
#include "traces/op.h"
#include "traces/profile.h"

#define EXIT_USAGE 2

/* The options of the commands that read configs: the shared ones
 * (cli/options.h: --configs, --profile, --set; sh.sets also holds the
 * texts --tp, --dp, --pp, --ep and --seqlen stand for) and the config
 * names, batch and workload. */
struct common_opts {
    struct shared_opts sh;
    const char *model, *chip, *system;
    char made_sets[SHARED_MAX_SETS][64];   /* the --set texts --tp, --dp, --pp, --ep, --seqlen stand for */
    long long batch;             /* --batch: global batch size, 0 = as configured */
    const char *workload;        /* --workload: "inference" (default) or "training" */
    char given[8];               /* the short letters of -m, -s, -b, -w as given, for common_refuse */
};

/* getopt_long entries of the shared options; a command copies them into its table.
 * A long option with a short form returns the short letter (bad_option
 * names both: "option -m/--model needs a value"). `op` takes no model: its
 * -m is the GEMM's M, so it copies the entries without "model". */
#define COMMON_LONGOPTS_NO_MODEL \
    SHARED_LONGOPT_CONFIGS, \
    { "chip", required_argument, 0, 'c' }, { "system", required_argument, 0, 's' }, \
    SHARED_LONGOPT_SET, SHARED_LONGOPT_PROFILE, \
    { "batch", required_argument, 0, 'b' }, { "workload", required_argument, 0, 'w' }, \
    { "help", no_argument, 0, 'h' }
#define COMMON_LONGOPTS { "model", required_argument, 0, 'm' }, COMMON_LONGOPTS_NO_MODEL
/* The parallelism degrees and sequence lengths of a model's run: each
 * stands for --set of its field (--tp 2 is --set tensor_parallelism_degree=2),
 * so num_chips follows from them as from --set (study/run/config.h). The names
 * are fleet's (docs/fleet.md) and sweep's. */
enum { CO_TP = 0x300, CO_DP, CO_PP, CO_EP, CO_SEQLEN };
#define PARALLEL_LONGOPTS \
    { "tp", required_argument, 0, CO_TP }, { "dp", required_argument, 0, CO_DP }, \
    { "pp", required_argument, 0, CO_PP }, { "ep", required_argument, 0, CO_EP }, \
    { "seqlen", required_argument, 0, CO_SEQLEN }
#define PARALLEL_HELP \
    "      --tp N, --dp N, --pp N, --ep N\n" \
    "                          tensor, data, pipeline, expert parallelism within a pod: --set\n" \
    "                          tensor_parallelism_degree=N and so on; num_chips follows from them\n" \
    "                          unless --set num_chips is given\n" \
    "      --seqlen IN_OUT     input and output sequence lengths, e.g. 2048_256\n"
#define COMMON_SHORTOPTS "m:c:s:b:w:h"
#define COMMON_HELP \
    "  -m, --model NAME|PATH   model config (configs/models/NAME.json; names in any case)\n" \
    "  -c, --chip NAME|PATH    chip config (configs/chips/NAME.json; 5p, v5p and tpuv5p all work)\n" \
    "  -s, --system NAME|PATH  system config (default system_config)\n" \
    "      --set KEY=VALUE     override one config field (repeatable; VALUE is JSON or text)\n" \
    "      --configs DIR       where to look for configs first (then $NPUSIM_CONFIGS,\n" \
    "                          ~/.local/share/npusim, the installed share folder, ./configs)\n" \
    "      --profile NAME      behaviour profile: physical (default; docs/physics.md) or\n" \
    "                          neusim (reproduce the reference exactly)\n" \
    "  -b, --batch B           global batch size; the per-replica microbatch follows from the\n" \
    "                          data/pipeline degrees as in the sweep (default: the model file's)\n" \
    "  -w, --workload W        inference (default) or training\n" \
    "  -h, --help              this help\n"

void common_opts_init(struct common_opts *o);
/* Handles one shared option; returns 1 if handled, 0 if not a shared option, -1 on error. */
int common_opt(struct common_opts *o, int c, const char *arg, struct npu_err *e);
struct option;
/* The option loop of a command that reads configs: the next option that is
 * not a shared one (those go into *o), as getopt_long returns it, or -1 at
 * the end; OPT_EXIT with *rc the exit status after -h (0, help printed) or
 * a bad shared option (reported). The caller starts getopt (optind = 1,
 * opterr = 0) before its loop. */
#define OPT_EXIT (-2)
int command_opt(const char *cmd, const char *help, int argc, char **argv, const char *shortopts,
                const struct option *longopts, struct common_opts *o, int *rc);

/* A command that takes the shared table but has no use for some of its
 * options (letters of m, s, b, w) refuses them when given: "-w/--workload
 * does not apply to npusim op (why)"; returns EXIT_USAGE then, else 0. */
int common_refuse(const char *cmd, const struct common_opts *o, const char *letters, const char *why);

/* "IN_OUT" (e.g. 4096_512) into two positive lengths; -1 if it is not that. */
int parse_seqlen(const char *s, int64_t *in, int64_t *out);
/* The upper bound of a system config field (e.g. "lifetime_years"): the
 * carbon options are bounded as a system file is. */
double system_field_max(const char *key);
/* Prints "npusim CMD: message" and a hint to stderr; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct option;
/* What getopt_long could not take (arg, e.g. argv[optind - 1]): a known
 * option without its value ("option -m/--model needs a value": a short
 * letter is known by the long option that returns it, so a long option
 * returns a lowercase letter only when that letter is also its short
 * option), or an unknown one with the closest of longopts ("did you
 * mean"). Prints it as usage_error does; returns EXIT_USAGE. */
int bad_option(const char *cmd, const char *arg, const struct option *longopts);
/* The short options of the command line being parsed (getopt's optstring),
 * for bad_option to tell "-d" without its value from a "-d" this command
 * does not take when its long options share a table with other commands'
 * (run, opsgen, chipsim, power); NULL: the rule above alone. command_opt
 * sets it. */
void cli_short_options(const char *shortopts);
/* Prints an error value; returns EXIT_USAGE. */
int report_error(const char *cmd, const struct npu_err *e);
/* Flushes what the command printed to standard output; on a write error
 * (a full device, a closed pipe) prints one message and returns 2, so that
 * a command can check its summary reached the user before it writes files.
 * cmd NULL: the message is npusim's own (main, after the command). */
int stdout_flushed(const char *cmd);
/* Prints "npusim: warning: FILE: unknown key "KEY" (ignored)" */

struct family;
/* Loads configs from common options (model optional). Prints errors. With a
 * model: finds its family (*fam), applies --batch, then the family's config
 * adjustments (e.g. mapping parallelism degrees to torus axes when the config
 * leaves every axis count at 0, as the sweep does). */
int load_common(const char *cmd, const struct common_opts *o, bool need_model, struct loaded_config *c,
                const struct family **fam);

int cmd_run(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
struct sweep_request;
struct stage_io;
/* npusim sweep for a request already made (study/sweep/sweep_stage.h), io
 * as the stage takes it (io->out keeps the tree's statistics; io->stop NULL:
 * SIGINT and SIGTERM caught here): prints what the command prints, returns
 * its exit status. */
int sweep_command_run(const struct sweep_request *r, const struct stage_io *io);
int cmd_merge(int argc, char **argv);
/* Joins shard summaries (rows keyed by their leading global index) into out,
 * atomically; the same check and output as `npusim merge`. */
int summary_merge(const char *out, const char *const *paths, int n, struct npu_err *e);
int cmd_opsgen(int argc, char **argv);
int cmd_chipsim(int argc, char **argv);
int cmd_power(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_op(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_measure(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_serving(int argc, char **argv);
int cmd_roofline(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_energy(int argc, char **argv);
struct energy_request;
struct stage_io;
/* npusim energy for a request already made (study/stages/energy_stage.h),
 * io as the stage takes it: prints what the command prints, returns its
 * exit status. */
int energy_command_run(const struct energy_request *r, const struct stage_io *io);
int cmd_carbon(int argc, char **argv);
struct carbon_request;
/* npusim carbon for a request already made (study/stages/carbon_stage.h):
 * prints what the command prints, returns its exit status. */
int carbon_command_run(const struct carbon_request *r, const struct stage_io *io);
int cmd_slo(int argc, char **argv);
/* npusim slo from its request (study/stages/slo_stage.h) and io (its suite
 * flag): prints what the command prints; returns its exit status. */
struct slo_request;
struct stage_io;
int slo_command_run(const struct slo_request *r, const struct stage_io *io);
int cmd_suite(int argc, char **argv);
int cmd_fields(int argc, char **argv);

/* Says what a command wrote: "npusim CMD: wrote A, B and C" on standard
 * output, as `npusim report` says it, or on standard error when one of the
 * files is standard output ("-"), which then carries that file alone. The
 * paths are read before write_outputs (which keeps them). Here, not in study/:
 * nothing below cli/ prints to standard output. */
void cli_print_wrote(const char *cmd, const struct output *o, int n);
/* Whether path is standard output: "-", NULL, or the file descriptor 1 is
 * (/dev/stdout, a file stdout is redirected to). */
bool cli_is_stdout(const char *path);
/* The same line on `to` (a stage whose trace went to standard output says it on stderr). */
void cli_print_wrote_to(FILE *to, const char *cmd, const struct output *o, int n);

#endif
