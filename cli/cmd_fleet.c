/* cmd_fleet.c — `npusim fleet FLEET.json`: annual energy and carbon of a
 * fleet (the fleet stage, study/stages/fleet_stage.h). Output: a table on stdout,
 * fleet.csv and fleet.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "study/stages/fleet_stage.h"
#include "study/run/pyjson.h"

static const char fleet_help[] =
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
    "  -o, --out DIR           output folder (default ./out)\n"
    "      --configs DIR       config folder (see npusim run --help)\n"
    "      --profile NAME      behaviour profile: physical (default) or neusim\n"
    "  -q, --quiet             no progress line (drawn only on a terminal anyway)\n"
    "  -h, --help              this help\n";

enum { F_OUT = 1000, F_CONFIGS, F_PROFILE };

int cmd_fleet(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "out", required_argument, 0, 'o' }, { "configs", required_argument, 0, F_CONFIGS },
        { "profile", required_argument, 0, F_PROFILE }, { "quiet", no_argument, 0, 'q' },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    bool quiet = false;
    const char *out = "out", *configs = NULL;
    const struct profile *prof = profile_default();
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, "ho:q", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': fputs(fleet_help, stdout); return 0;
        case 'q': quiet = true; break;
        case 'o': case F_OUT: out = optarg; break;
        case F_CONFIGS: configs = optarg; break;
        case F_PROFILE:
            if (!(prof = profile_by_name(optarg)))
                return usage_error("fleet", "unknown profile \"%s\" (known: %s)", optarg, profile_names());
            break;
        default: return bad_option("fleet", argv[optind - 1], longopts);
        }
    }
    if (optind != argc - 1)
        return usage_error("fleet", "expected one fleet file");
    const char *file = argv[optind];
    struct npu_err e;
    cJSON *j = config_read_json(file, &e);
    if (!j)
        return report_error("fleet", &e);
    struct fleet_deployment *d = NULL;
    int n = 0;
    int rc = fleet_parse(j, file, &d, &n, &e) ? report_error("fleet", &e) : 0;
    /* A deployment with "best" simulates every layout: seconds each. */
    struct progress prog;
    struct stage_progress shown = progress_hooks(&prog, "npusim fleet", quiet || rc);
    stage_progress_begin(&shown, n);
    for (int i = 0; i < n && !rc; i++) {
        stage_progress_update(&shown, i);
        int bad = fleet_evaluate(configs, false, prof, &d[i], &e);
        stage_progress_end(&shown);   /* a message below starts on a clean line; the next update redraws */
        if (bad) {
            fprintf(stderr, "npusim fleet: %s: deployments[%d] (\"%s\"): %s\n", file, i, d[i].name, e.msg);
            rc = EXIT_USAGE;
        } else if (d[i].oom) {
            fprintf(stderr, "npusim fleet: warning: \"%s\" does not fit in memory: %.1f GiB per chip against %lld GiB "
                    "of HBM: its figures cannot be reached (give it more chips or more tensor parallelism)\n",
                    d[i].name, d[i].cap.mem_GiB, (long long)d[i].chip_hbm_GB);
        }
        if (!bad && d[i].out.overloaded) {
            fprintf(stderr, "npusim fleet: warning: \"%s\" is overloaded: the load needs %lld replicas\n",
                    d[i].name, (long long)d[i].out.replicas_needed);
        }
    }
    struct fleet_out tot;
    fleet_total(d, rc ? 0 : n, &tot);
    if (!rc) {
        struct output o[2];
        memset(o, 0, sizeof o);
        snprintf(o[0].path, sizeof o[0].path, "%s/fleet.csv", out);
        o[0].text = fleet_csv_text(d, n, &tot);
        cJSON *jo = fleet_json(d, n, &tot, prof, file);
        snprintf(o[1].path, sizeof o[1].path, "%s/fleet.json", out);
        o[1].text = pyjson_print(jo);
        cJSON_Delete(jo);
        /* The table first: if it cannot reach the user, no file is written. */
        fleet_print_table(d, n, &tot, stdout);
        rc = stdout_flushed("fleet");
        if (rc) {
            free(o[0].text);
            free(o[1].text);
        } else if (write_outputs(o, 2, &e)) {
            rc = report_error("fleet", &e);
        } else {
            /* Which carbon defaults were used, once all went well (a failure
             * says one thing: what failed). */
            char note[4096];
            fleet_defaults_note(d, n, note, sizeof note);
            fprintf(stderr, "npusim fleet: %s\n", note);
            cli_print_wrote_to(stderr, "fleet", o, 2);
        }
    }
    free(d);
    cJSON_Delete(j);
    return rc;
}
