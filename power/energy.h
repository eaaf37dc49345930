/* energy.h — the per-operator energy pass (power.md §3).
 *
 * power_default_pass() is what the reference applies inline after timing
 * (strategy chip->pg_config = "NoPG", DVFS policy None, enable_dvfs false):
 * it rescales component times by f/1.7 (quirk power Q2), recomputes execution time
 * and Bounded-by, sets the DVFS columns and fills the 12 energy terms. Under
 * the physical profile it first types each op by the unit it ran on
 * (power_reclassify_ops), as the energy stage does. */
#ifndef NPUSIM_ENERGY_H
#define NPUSIM_ENERGY_H

#include "chipsim/chip.h"
#include "base/err.h"
#include "traces/op.h"
#include "traces/profile.h"

int power_default_pass(struct trace *t, const struct chip_config *chip, const struct profile *prof,
                       struct npu_err *e);

/* The general per-operator energy pass (power.md §3): DVFS plan, time
 * scaling, regulator efficiency, dynamic and power-gated static energy,
 * set-power-mode counts and the slack columns, for one strategy and policy.
 * enable_dvfs (table powers) follows the policy, as the reference's energy
 * stage sets it. power_default_pass == this with NoPG, DVFS None and the
 * chip's own enable_dvfs, except that only this one fills the slack fields
 * (op->has_slack, written as the 10 extra CSV columns). Errors name the op
 * (the reference's crash cases: exe 0, an MXU op without VPU time, HBM
 * gating without HBM time, PE-level SA or Vmem gating of an MXU op without
 * tile statistics, unimplemented granularities). */
struct pg_strategy;
enum dvfs_policy;
int power_energy_pass(struct trace *t, const struct chip_config *chip, const struct pg_strategy *pg,
                      int dvfs_policy, const struct profile *prof, struct npu_err *e);

/* The default pass's view of one op without changing it: its static power
 * (W, static energy over the execution time) and its dynamic energy (J),
 * with the chip's own clock, NoPG and no DVFS. The power cap
 * (power/powercap.h) throttles against these. */
/* The part of an op's time its components (SA, VU, VMEM, HBM, ICI) do not
 * explain: chipsim's fixed time per kernel and its launch wait (physical
 * profile; 0 else). The energy pass and the power cap keep it when they
 * re-time an op from scaled components, in a piped trace as in a run (the
 * CSV carries the time, not the kernel class). */
int64_t power_op_fixed_ns(const struct op *op);

int power_op_estimate(const struct op *op, const struct chip_config *ch, const struct profile *prof,
                      double *static_W, double *dynamic_J, struct npu_err *e);

/* The op-type override the reference applies to ops read back from a CSV
 * (power.md §1.3): MXU time > 0 -> MXU, else VPU time > 0 -> VPU, else the
 * CSV's OpType; the statistics class follows parsed_op_type, else Op Code
 * (Einsum, MatMul, BatchMatMulV2, Conv2D -> einsum; FlashAttention -> FA). */
void power_reclassify_ops(struct trace *t);

#endif
