/* report_files.h — the runs a results tree or a run's output folder holds,
 * for `npusim report PATH...`: found by their statistics files and read
 * back into what a report shows, with no simulation.
 *
 * A run is a statistics JSON (an object with "sim_config": what `npusim
 * run`, `npusim sweep` and the reference write), or the pair
 * <stem>_prefill.json and <stem>_decode.json. Beside it: its per-operator
 * trace <stem>[_phase].csv, and the traces the energy stage wrote per
 * power-gating strategy, <stem>[_phase]_<Strategy>.csv. A trace CSV named
 * on its own is a run too (its chip from -c). Folders are walked in name
 * order, so the runs come in the same order on every machine.
 *
 * Main data structures: struct found_run (one run's files and statistics)
 * and struct run_figures (the figures its statistics give). */
#ifndef NPUSIM_REPORT_FILES_H
#define NPUSIM_REPORT_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "chipsim/chip.h"
#include "study/view/report_run.h"
#include "base/err.h"

#define RUN_PATH_MAX 4096
#define REPORT_RUNS_MAX 100000       /* statistics files read from one walk */

/* What a run's statistics say (0 or "" where they are silent). */
struct run_figures {
    char model[64], chip[64];
    int64_t chips, batch, dp, tp, pp;
    double ttft_s, tpot_ms;          /* LLM inference */
    double tput;                     /* output tokens/s end to end (LLMs), else requests/s */
    const char *tput_unit;
    double latency_s;                /* the only phase's time (other families) */
    double energy_J;                 /* both phases, when the energy pass wrote it */
    double mem_GB;                   /* the larger phase footprint */
    bool oom;
};
/* The figures of a run's statistics objects ([0] prefill or the only
 * phase, [1] decode; either may be NULL). */
void run_figures_from(const cJSON *const stats[2], bool phased, struct run_figures *f);

/* A run found: its files by name and its figures. The statistics
 * themselves are read again when a page shows the run, so a tree of many
 * runs costs a few hundred bytes per run. */
struct found_run {
    char *stem;                      /* malloc'ed: the path without ".json" and the phase suffix */
    const char *label;               /* the stem under the path given (points into stem) */
    bool phased;                     /* a _prefill/_decode pair (either may be missing) */
    bool stats[2];                   /* [0] prefill or the only phase, [1] decode: a statistics file */
    bool csv;                        /* a trace named on its own: stem is its path */
    struct run_figures fig;
};

struct found_runs {
    struct found_run *r;
    size_t n;
};

/* The runs under paths (folders walked, files taken as named); at least one,
 * or an error naming what was searched. A file named on its own that is
 * neither statistics nor a trace is an error naming it. */
int runs_find(const char *const *paths, int n, struct found_runs *out, struct npu_err *e);
/* Keeps the runs whose label contains text (in order); how many are left. */
size_t runs_select(struct found_runs *f, const char *text);
void runs_free(struct found_runs *f);

/* The run read back for the one-run page: its traces (the plain trace, else
 * the NoPG strategy's, else the first strategy's), the chip from its
 * sim_config (chip: -c instead, NULL: none), the statistics as the summary
 * text, and the energy of each strategy trace found beside it. */
int report_run_from_files(const struct found_run *fr, const struct chip_config *chip, const char *chip_name,
                          struct report_run *r, struct npu_err *e);

#endif
