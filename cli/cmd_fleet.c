/* cmd_fleet.c — `npusim fleet FLEET.json`: annual energy and carbon of a
 * fleet. The command line made into the fleet stage's request
 * (study/stages/fleet_stage.h: fleet_run), its results printed: the
 * warnings, a table on stdout, then fleet.csv and fleet.json written. No
 * data structure of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "serving/serving.h"
#include "study/stages/stages.h"

static const char fleet_usage[] =
    "usage: npusim fleet FLEET.json [--out DIR] [--configs DIR] [--profile NAME] [-q]\n"
    "\n"
    "Estimates the annual energy (MWh) and the operational and embodied carbon (tCO2e)\n"
    "of a fleet of deployments. Each deployment is simulated once; its capacity at full\n"
    "load and its active power come from the simulation, idle time draws idle power.\n"
    "Prints a table and writes DIR/fleet.csv and DIR/fleet.json (default DIR: ./out).\n"
    "See docs/fleet.md for the file format and the formulas, examples/fleet.json for a\n"
    "fleet.\n"
    "\n"
    "options:\n"
    "  -o, --out DIR           output folder (default ./out)\n";

#define FLEET_SHARED (SHARED_CONFIGS | SHARED_PROFILE | SHARED_QUIET)

/* Each of done's warning lines, as "npusim fleet: warning: ...". */
static void print_warnings(const char *w)
{
    for (const char *nl; w && (nl = strchr(w, '\n')); w = nl + 1)
        fprintf(stderr, "npusim fleet: %.*s\n", (int)(nl - w), w);
}

int cmd_fleet(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "out", required_argument, 0, 'o' }, SHARED_LONGOPT_CONFIGS, SHARED_LONGOPT_PROFILE,
        SHARED_LONGOPT_QUIET, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    struct shared_opts sh;
    shared_opts_init(&sh);
    const char *out = "out";
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "ho:q", longopts, NULL)) != -1) {
        int taken = shared_opt("fleet", FLEET_SHARED, &sh, ch, optarg);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken)
            continue;
        switch (ch) {
        case 'h':
            fputs(fleet_usage, stdout);
            shared_help(FLEET_SHARED, stdout);
            fputs("  -h, --help              this help\n", stdout);
            return 0;
        case 'o': out = optarg; break;
        default: return bad_option("fleet", argv[optind - 1], longopts);
        }
    }
    if (optind != argc - 1)
        return usage_error("fleet", "expected one fleet file");
    struct fleet_request r = fleet_request_default();
    r.serving = serving_fleet_estimate;   /* deployments driven by a request rate (docs/fleet.md) */
    r.path = argv[optind];
    r.configs = sh.configs;
    r.prof = sh.prof;
    /* No r.out_dir: the table first, and if it cannot reach the user, no file is written. */
    struct progress prog;
    struct stage_io io = stage_io_none();
    io.progress = progress_hooks(&prog, "npusim fleet", sh.quiet);
    struct fleet_done done;
    struct npu_err e;
    int rc = fleet_run(&r, &io, &done, &e);
    print_warnings(done.warnings);
    if (rc) {
        rc = report_error("fleet", &e);
    } else {
        fleet_print_table(done.d, done.n, &done.total, stdout);
        rc = stdout_flushed("fleet");
        if (!rc && fleet_write(&r, out, &done, &e)) {
            rc = report_error("fleet", &e);
        } else if (!rc) {
            /* Which carbon defaults were used, once all went well (a failure
             * says one thing: what failed). */
            fprintf(stderr, "npusim fleet: %s\n", done.defaults_note);
            cli_print_wrote_to(stderr, "fleet", done.wrote, done.nwrote);
        }
    }
    fleet_done_free(&done);
    return rc;
}
