/* fleet_stage.h — the fleet stage behind `npusim fleet` and POST /api/fleet
 * (docs/fleet.md): annual energy and carbon of a fleet of deployments.
 *
 * Each deployment of a fleet file names a model, a chip, a chip count, a
 * parallelism (or "best": the enumerated configuration with the highest
 * throughput), a batch, a load and its site (carbon intensity, PUE,
 * lifetime, power-gating strategy). fleet_run is the one typed entry: it
 * parses the file (fleet_parse), simulates each deployment once
 * (fleet_evaluate: opsgen, chipsim, energy pass; its capacity and active
 * power from the family's capacity hook, power/fleet.c turning the load into
 * duty cycle, power, energy and carbon), totals them, says which carbon
 * defaults were used, and writes fleet.csv and fleet.json when asked.
 *
 * Main data structures: struct fleet_request (what to estimate), struct
 * fleet_deployment (the parsed entry and its results), struct fleet_done
 * (what a run found and wrote). */
#ifndef NPUSIM_STUDY_FLEET_STAGE_H
#define NPUSIM_STUDY_FLEET_STAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "opsgen/sweep.h"
#include "power/fleet.h"
#include "power/system.h"
#include "study/run/run.h"
#include "study/stages/stage_io.h"
#include "traces/profile.h"

/* Site and policy settings a deployment inherits from "defaults"; a number
 * neither gives is NAN until fleet_evaluate takes the system config's. */
struct fleet_site {
    double pue, ci, lifetime;
    char pg[128], dvfs[32];
};

struct fleet_deployment {
    char name[128], model[256], chip[256];
    char workload[16];        /* "inference" (default) or "training" */
    int64_t num_chips, batch, replicas;
    bool best;
    struct parallel_cfg par;
    double load;              /* units/s, or -1 */
    char load_unit[32];       /* "tokens", "requests", "iterations" */
    double duty;              /* with no load; NAN: the system config's */
    struct fleet_site site;
    /* "serving": a request rate and lengths served through the serving
     * simulation (the keys of POST /api/serving) instead of a load or duty
     * cycle; borrowed from the fleet's tree while fleet_run runs */
    const cJSON *serving;
    bool by_serving;
    struct fleet_serving_out srv;
    /* results */
    struct family_capacity cap;
    int64_t chip_hbm_GB;      /* one chip's HBM, for the out-of-memory warning */
    bool oom;                 /* its footprint does not fit in the chips' memory (never under the
                               * reference's verdicts, profile switch oom_vs_pod_hbm) */
    char pstr[128];
    double idle_W, embodied_kg;
    struct fleet_out out;
    /* The system config's carbon defaults (power/system.h), its name and
     * the line saying which values were used and where from. */
    struct carbon_defaults dflt;
    bool given[CD_N];         /* which the fleet file set instead */
    char system[256], dflt_line[2048];
};

/* What to estimate: values only, the strings and the tree borrowed from
 * the caller. */
struct fleet_request {
    const cJSON *tree;          /* the fleet file's tree (docs/fleet.md); NULL: read path */
    const char *path;           /* the fleet file: read when tree is NULL; its name (never its
                                 * path) goes in fleet.json's provenance. May be NULL with a tree */
    const char *name;           /* what messages call the fleet (NULL: path) */
    const char *configs;        /* where models, chips and strategies are looked up first (--configs);
                                 * NULL: the usual places */
    bool only_configs;          /* there alone (config_request's only_dir) */
    const struct profile *prof; /* --profile; NULL: profile_default() */
    const char *out_dir;        /* fleet.csv and fleet.json written here, all together (--out);
                                 * NULL: nothing written */
    double deadline_s;          /* clock_monotonic_s() past which no further deployment is begun
                                 * (the first always is); 0: none */
    fleet_serving_fn serving;   /* how a "serving" deployment is simulated (the front end's: cli/ and
                                 * api/ give serving_fleet_estimate); NULL: such a deployment is an error */
};

/* The defaults: the default profile, configs looked up the usual way, no
 * fleet, nothing written, no deadline (the command line's --out default,
 * ./out, is the command's). */
struct fleet_request fleet_request_default(void);

/* What a run found and wrote. */
struct fleet_done {
    struct fleet_deployment *d;   /* the n deployments parsed (malloc'ed), their results filled
                                   * for the first `evaluated` */
    int n, evaluated;
    bool late;                    /* stopped at r->deadline_s (the error says after how many) */
    struct fleet_out total;       /* the fleet's totals, when all were evaluated */
    char *warnings;               /* lines "warning: ...\n" (malloc'ed; NULL: none): a deployment
                                   * that does not fit in memory or is overloaded; set on a
                                   * failure too, for those evaluated before it */
    char defaults_note[4096];     /* which carbon defaults the system config gave, and which the
                                   * fleet file set instead */
    struct output wrote[2];       /* the files written (their paths), nwrote of them */
    int nwrote;
};
void fleet_done_free(struct fleet_done *done);

/* Parses r's fleet, evaluates every deployment in order, totals them, makes
 * the defaults note and, with r->out_dir, writes fleet.csv and fleet.json
 * (fleet_write). 0, or -1 with e: the file that does not read, the entry
 * and field that do not parse, "NAME: deployments[i] ("its name"): why" for
 * one that cannot be evaluated (the later ones are not begun), the deadline
 * (done->late) or a stop asked through io->stop, or the files that could
 * not be written (none is then). io: its progress hooks count the
 * deployments; io->in, io->out and io->suite are not used. Free done with
 * fleet_done_free in every case. */
int fleet_run(const struct fleet_request *r, const struct stage_io *io, struct fleet_done *done,
              struct npu_err *e);
/* fleet.csv and fleet.json of a successful run (done), written under
 * out_dir all together or not at all (fleet_run does this with r->out_dir;
 * a caller that must show the table first runs without it and writes
 * after). Fills done->wrote. 0, or -1 with e. */
int fleet_write(const struct fleet_request *r, const char *out_dir, struct fleet_done *done, struct npu_err *e);

/* The steps of fleet_run, for a caller that checks the deployments before
 * any is simulated (the HTTP API: names only, at most --max-points) and for
 * the fuzzer.
 * Reads and checks a whole fleet file's tree j (every key, every
 * deployment) before anything is simulated; *out gets the deployments
 * (malloc'ed). 0, or -1 with e naming the file, the entry and the field. */
int fleet_parse(const cJSON *j, const char *file, struct fleet_deployment **out, int *n, struct npu_err *e);
/* Simulates deployment d and fills its results (configs: where to look for
 * its model and chip, may be NULL; only_configs: there alone, as
 * config_request's only_dir). 0, or -1 with e. */
int fleet_evaluate(const char *configs, bool only_configs, const struct profile *prof, struct fleet_deployment *d,
                   struct npu_err *e);
/* The fleet's totals of n evaluated deployments. */
void fleet_total(const struct fleet_deployment *d, int n, struct fleet_out *tot);
/* The line saying which carbon defaults n evaluated deployments took from
 * their system config, and which the fleet file set instead. */
void fleet_defaults_note(const struct fleet_deployment *d, int n, char *buf, size_t len);
/* The outputs: a table, fleet.csv's text (malloc'ed), fleet.json's tree
 * (with its provenance under prof, naming the fleet file when file is
 * given: its name, never its path). */
void fleet_print_table(const struct fleet_deployment *d, int n, const struct fleet_out *tot, FILE *f);
char *fleet_csv_text(const struct fleet_deployment *d, int n, const struct fleet_out *tot);
cJSON *fleet_json(const struct fleet_deployment *d, int n, const struct fleet_out *tot, const struct profile *prof,
                  const char *file);

#endif
