/* invariants.h — physical checks on a timed (and powered) trace.
 *
 * The physical profile is built so that they hold (tests/cli/t_physics.sh
 * and the unit tests assert it); under the reference's quirks (--profile
 * neusim) they may not, and a violation must never pass in silence: the
 * commands print each as a "warning:" line on stderr and list it under
 * "warnings" in the JSON statistics.
 *
 * Main data structure: struct invariant_warnings, a fixed list of messages. */
#ifndef NPUSIM_INVARIANTS_H
#define NPUSIM_INVARIANTS_H

#include <stdio.h>

#include "chipsim/chip.h"
#include "traces/op.h"
#include "traces/profile.h"

#define INVARIANT_MAX 8
#define INVARIANT_LEN 240

struct invariant_warnings {
    int n;
    char msg[INVARIANT_MAX][INVARIANT_LEN];
};

/* Checks the ops of phase ph (PHASE_NONE: all) of t, timed on ch under prof,
 * and appends one message per violated invariant to w (what is wrong, the
 * figures, and where the phase name `what` says):
 *  - a matmul's or convolution's FLOPs over its time above the SA peak (of
 *    the number format it ran in);
 *  - ops whose number format the chip lacks, run in another (chip.h:
 *    chip_unit_precision), counted per pair of formats;
 *  - with energies: the phase's average power per chip (energy over chip
 *    time) above the power cap (power_cap_W, else TDP_W), or below the
 *    published idle power (idle_power_W); ops drawing more than the cap;
 *  - times rescaled to 1.7 GHz by the energy pass (quirk
 *    rescale_time_to_1_7GHz) on a chip clocked otherwise: they then depend
 *    on whether the pass ran. */
void invariants_check(const struct trace *t, enum phase ph, const struct chip_config *ch,
                      const struct profile *prof, const char *what, struct invariant_warnings *w);

/* Prints each warning as "npusim <cmd>: warning: <msg>" on f. */
void invariants_print(const struct invariant_warnings *w, const char *cmd, FILE *f);

#endif
