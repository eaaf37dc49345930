/* report_run.h — what a report shows of one configuration, simulated here
 * (`npusim report`, the HTTP API's /api/simulate) or read back from the
 * files a run or a sweep wrote (`npusim report PATH`, report_files.h).
 *
 * Main data structure: struct report_run, which owns the traces, the
 * summary text and the names struct report_input points at. */
#ifndef NPUSIM_REPORT_RUN_H
#define NPUSIM_REPORT_RUN_H

#include <stdbool.h>

#include "study/run/run.h"
#include "study/view/report_html.h"
#include "base/err.h"
#include "traces/op.h"
#include "traces/profile.h"

struct family;

struct report_run {
    struct report_input in;            /* points into the members below */
    struct trace t;                    /* timed, with energies when the pass ran */
    char title[600];
    char pg_names[512];                /* the strategy names, split in place */
    char *summary;                     /* malloc'ed text */
    struct chip_config chip;           /* a run read back: its chip (in.chip points here) */
    char chip_name[256];
};

void report_run_init(struct report_run *r);
void report_run_free(struct report_run *r);

/* Runs c (generate, chipsim, the default energy pass unless !energy) and,
 * when pg_list is a comma list of strategies (NULL or "none": no
 * comparison; needs the energy pass), the energy of each strategy's pass on
 * copies of the timed trace. configs: where named strategies are found
 * (NULL: built in). c must outlive r (r->in.chip points into it). */
int report_run_simulate(const struct family *fam, const struct loaded_config *c, const struct profile *prof,
                        bool energy, const char *pg_list, const char *configs, struct report_run *r,
                        struct npu_err *e);

/* The energy (J) of one strategy's pass over a copy of the timed trace, per
 * phase column (0: prefill or the only phase, 1: decode). */
int report_pg_energy(const char *strategy, const struct trace *timed, const struct chip_config *chip,
                     const char *configs, const struct profile *prof, double energy_J[2], struct npu_err *e);

/* One execution's energy times its count, summed per phase column, into
 * energy_J[2] (added to what is there). */
void report_trace_energy(const struct trace *t, double energy_J[2]);

#endif
