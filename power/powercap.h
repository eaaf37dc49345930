/* powercap.h — the chip's power cap: throttle an op's clock until it fits.
 *
 * Real accelerators hold their power under a limit by lowering the clock.
 * Under a profile without the no_power_cap quirk, every timed op whose power
 * (static power plus dynamic energy over its time, as the default energy pass
 * computes them at the chip's clock) exceeds the cap runs longer: its compute
 * times (SA, VU) stretch until static + dynamic energy / time equals the cap;
 * the dynamic energy of the work stays the same (constant voltage), so the
 * time is E_dyn / (cap - P_static) to first order; the smallest stretch that
 * meets the cap, with the regulators' efficiency at the new activity, is a
 * root found by GSL's Brent solver. The op is then BOUND_POWER ("Power").
 * Memory and ICI times do not follow the core clock and are left alone.
 *
 * The pass runs right after chipsim wherever times are produced (run, sweep,
 * the chipsim stage, fleet), so that the times a command reports never depend
 * on whether an energy pass follows. It is idempotent. */
#ifndef NPUSIM_POWERCAP_H
#define NPUSIM_POWERCAP_H

#include "chipsim/chip.h"
#include "base/err.h"
#include "traces/op.h"
#include "traces/profile.h"

/* The cap in W: power_cap_W, else TDP_W; 0 = none. */
double power_cap_of(const struct chip_config *ch);

/* Throttles the ops of t that exceed the cap (see above). -1 with e set when
 * the chip's static power alone exceeds the cap. */
int power_cap_pass(struct trace *t, const struct chip_config *ch, const struct profile *prof,
                   struct npu_err *e);

#endif
