/* energy_memo.h — a per-thread memo of the energy pass's per-op results
 * (internal to power/energy.c).
 *
 * The points of a sweep on one chip repeat most of their ops exactly: the
 * same matmul with the same times recurs for every pipeline depth and many
 * batch sizes. The energy of an op is a function of its timed fields
 * (struct energy_in) and of the pass's setting (chip, power-gating strategy,
 * DVFS policy, table powers, profile), so a repeat can take the stored
 * result instead of recomputing it.
 *
 * energy_memo_begin() names the setting of a pass. A thread remembers its
 * ENERGY_MEMO_SETTINGS most recent settings, each with its own generation
 * (a sweep bundle times one trace on several chips in turn, and each keeps
 * its entries); a new setting replaces the oldest with a fresh generation,
 * so the entries of the one it replaces no longer match. Entries live in a
 * direct-mapped table per thread (a colliding op evicts the
 * older one), so threads never share them and results do not depend on the
 * thread count. */
#ifndef NPUSIM_ENERGY_MEMO_H
#define NPUSIM_ENERGY_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "chipsim/chip.h"
#include "power/pg.h"
#include "traces/op.h"
#include "traces/profile.h"

/* Every op field the energy of an op depends on (read before the pass
 * rewrites the times). Built zeroed, so it compares as bytes. */
struct energy_in {
    int64_t t_ns[6];             /* sa, vu, vmem, mem, ici, exe */
    int64_t flops, num_sa_ops, max_vmem_demand_bytes, bytes;
    uint64_t flops_util_bits;
    int32_t type, stats_kind;
};

/* An op's memo key: its energy inputs under the generation of this thread's
 * current setting (0 before the first begin or without memory for the memo:
 * then nothing is kept). The power cap keys its own memo with it too. */
struct energy_key {
    uint64_t gen;
    struct energy_in in;
};
/* Fills k for op and returns its hash (base/dmemo.h). */
uint64_t energy_key_of(const struct op *op, struct energy_key *k);

#define ENERGY_MEMO_SETTINGS 16   /* as many as a sweep bundle's chips (SWEEP_BUNDLE_MAX) */

/* Starts (or continues) the generation of this setting on this thread. */
void energy_memo_begin(const struct chip_config *chip, const struct pg_strategy *pg, int policy,
                       bool tables, const struct profile *prof);
/* Copies the stored results for key k (hash h) into op, and the op's time
 * after DVFS scaling, before the overheads, into *exe_scaled_ns (what its
 * utilisations are rescaled from): true on a hit. */
bool energy_memo_get(const struct energy_key *k, uint64_t h, struct op *op, int64_t *exe_scaled_ns);
/* Stores what the pass computed for k (op after the pass, and that time). */
void energy_memo_put(const struct energy_key *k, uint64_t h, const struct op *op, int64_t exe_scaled_ns);

/* Tests: forgets this thread's entries and setting; counts its hits. */
void energy_memo_clear(void);
long energy_memo_hits(void);

#endif
