/* main.c — the npusim command: git-style dispatch to subcommands.
 *
 * The table below is the whole list of subcommands; each entry points at a
 * function in cli/cmd_*.c that parses its own options and returns the exit
 * status (0 success, 2 bad usage or input). */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/cli.h"
#include "cli/mpi_world.h"
#include "study/run/run.h"
#include "base/json_strict.h"
#include "base/version.h"


struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    { "run", cmd_run, "simulate one configuration (all stages) and print a summary" },
    { "sweep", cmd_sweep, "sweep parallelism x chips x batch sizes into a results tree" },
    { "merge", cmd_merge, "join the --summary files of sharded sweeps into one" },
    { "opsgen", cmd_opsgen, "stage 1: model config -> operator trace" },
    { "chipsim", cmd_chipsim, "stage 2: trace -> timed trace on a chip" },
    { "power", cmd_power, "stage 3: timed trace -> energy and power (default pass)" },
    { "energy", cmd_energy, "energy per power-gating strategy over a sweep's results tree" },
    { "carbon", cmd_carbon, "energy results tree -> carbon and energy over a lifetime" },
    { "slo", cmd_slo, "carbon results tree -> SLO-driven chip/config selection" },
    { "suite", cmd_suite, "run a suite file (sweep/energy/carbon/slo lines) into a results tree" },
    { "fleet", cmd_fleet, "annual energy and carbon of a fleet of deployments" },
    { "serving", cmd_serving, "requests served over time: TTFT/TPOT percentiles, goodput (docs/serving.md)" },
    { "serve", cmd_serve, "the JSON API and a web page over HTTP (docs/api.md); not `serving`" },
    { "report", cmd_report, "a run, a sweep summary or runs read back: a self-contained HTML page of figures" },
    { "op", cmd_op, "one operator (or a measurement file's rows) predicted on a chip" },
    { "import", cmd_import, "measurements in other formats to npusim's (op,dtype,m,n,k,...)" },
    { "export", cmd_export, "a timed trace's matmuls as a SCALE-Sim topology (M, N, K)" },
    { "measure", cmd_measure, "micro-benchmarks of this machine, each checked: measurements and a host chip" },
    { "calibrate", cmd_calibrate, "a chip's kernel efficiencies fitted to measured operators" },
    { "roofline", cmd_roofline, "a chip's roofline as SVG, with measured and predicted operators" },
    { "validate", cmd_validate, "measured operators against predictions: error per op type, format, bound" },
    { "fields", cmd_fields, "every config and strategy field: type, unit, default, checked range, meaning" },
    { "list", cmd_list, "what can be named: models, chips, systems, strategies, fields" },
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: npusim <command> [options]     (npusim <command> --help for details)\n\n"
               "npusim %s: a trace-driven simulator of neural processing units.\n\ncommands:\n",
            NPUSIM_VERSION);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nPipes: npusim opsgen ... | npusim chipsim ... | npusim power ...\n");
}

/* --version or -V among a command's options (before a "--"): every command
 * answers it, as git does, without running. */
static bool asks_version(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V"))
            return true;
    return false;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (argc > 2)
            for (size_t i = 0; i < NCOMMANDS; i++)
                if (!strcmp(argv[2], commands[i].name)) {
                    char *av[] = { argv[2], "--help", NULL };
                    return commands[i].fn(2, av);
                }
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) {
        printf("npusim %s\n", NPUSIM_VERSION);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(cmd, commands[i].name))
            return asks_version(argc - 1, argv + 1) ? printf("npusim %s\n", NPUSIM_VERSION) < 0
                                                    : commands[i].fn(argc - 1, argv + 1);
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    char hint[300];
    suggest_hint(hint, sizeof hint, cmd, names, NCOMMANDS);
    fprintf(stderr, "npusim: unknown command \"%s\"%s\n(see 'npusim --help')\n", cmd, hint);
    return EXIT_USAGE;
}

/* A sweep allocates and frees the same few traces (tens of KB each) per
 * point. By default glibc returns the top of the heap to the kernel as soon
 * as 128 KB of it is free and serves blocks over 128 KB from fresh mappings,
 * so each point paid for brk/munmap calls and for faulting the same pages in
 * again: 5,046 page faults in the 3,360-point summary sweep of `make bench`
 * (bundles of 4 traces, study/sweep/sweep_points.h), 595 with this. Keeping freed memory for reuse changes no output and
 * not the peak RSS (pages are kept, not added). */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_TRIM_THRESHOLD, 32 << 20);
    mallopt(M_TOP_PAD, 1 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

int main(int argc, char **argv)
{
    keep_freed_memory();
    /* A no-op unless built with `make MPI=1` (then mpirun ranks share sweeps);
     * without MPI, a refusal when mpirun started several copies. */
    if (mpi_world_init(&argc, &argv))
        return EXIT_USAGE;
    pyjson_allocator_init();   /* before any cJSON tree (study/run/pyjson.h) */
    /* A closed pipe is a write error (EPIPE) that names the output and
     * exits 2, not a silent death by SIGPIPE halfway through a file. */
    signal(SIGPIPE, SIG_IGN);
    int rc = dispatch(argc, argv);
    mpi_world_finalize();
    /* What the commands printed (summaries, tables, --help) must reach
     * stdout: a full device or a closed pipe is exit 2, never 0. */
    return stdout_flushed(NULL) ? EXIT_USAGE : rc;
}
