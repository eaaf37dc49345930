/* fleet_stage.h — the fleet stage behind `npusim fleet` (docs/fleet.md):
 * annual energy and carbon of a fleet of deployments.
 *
 * Each deployment of a fleet file names a model, a chip, a chip count, a
 * parallelism (or "best": the enumerated configuration with the highest
 * throughput), a batch, a load and its site (carbon intensity, PUE,
 * lifetime, power-gating strategy). fleet_evaluate simulates it once
 * (opsgen, chipsim, energy pass), takes its capacity and active power from
 * the family's capacity hook, and power/fleet.c turns the load into duty
 * cycle, power, energy and carbon.
 *
 * Main data structure: struct fleet_deployment (the parsed entry and its
 * results). */
#ifndef NPUSIM_STUDY_FLEET_STAGE_H
#define NPUSIM_STUDY_FLEET_STAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "opsgen/sweep.h"
#include "power/fleet.h"
#include "power/system.h"
#include "study/run/family.h"
#include "base/err.h"
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

/* Reads and checks a whole fleet file's tree j (every key, every
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
