/* energy_memo.c — per-thread memo of the energy pass's per-op results (see
 * energy_memo.h).
 *
 * Main data structures, per thread (on the heap: base/tls_table.h): a
 * direct-mapped memo (base/dmemo.h) from an op's inputs (struct
 * energy_in) and the generation of the setting they were computed under to
 * every field the pass writes; and the thread's ENERGY_MEMO_SETTINGS most recent settings, kept
 * whole (chip bytes, strategy, policy, table flag, profile) with their
 * generations, so that a pass can tell whether its setting is one of them.
 * A sweep's bundle (study/sweep/sweep_points.h) times one trace on several chips in
 * turn: each keeps its generation, and its entries stay valid. */
#include "power/energy_memo.h"

#include "base/dmemo.h"
#include "base/tls_table.h"

#include <string.h>


struct energy_out {
    int64_t exe_scaled_ns;    /* the op's time after DVFS scaling, before the overheads */
    enum bounded_by bounded_by;
    int64_t sa_ns, vu_ns, vmem_ns, mem_ns, ici_ns, exe_ns;
    double static_J[NUM_EN], dynamic_J[NUM_EN];
    int64_t num_setpm[NUM_COMP];
    struct {
        char policy[sizeof ((struct op_dvfs *)0)->policy];
        double voltage_V, freq_GHz, efficiency_pct;
        int64_t scaling_time_ns;
    } dvfs[NUM_COMP];
};

/* Copies every field the pass writes from src to dst, one an op and the
 * other an entry's results (the same field names: one list, both ways). */
#define COPY_RESULTS(dst, src)                                                                  \
    do {                                                                                        \
        (dst)->bounded_by = (src)->bounded_by;                                                  \
        (dst)->sa_ns = (src)->sa_ns;                                                            \
        (dst)->vu_ns = (src)->vu_ns;                                                            \
        (dst)->vmem_ns = (src)->vmem_ns;                                                        \
        (dst)->mem_ns = (src)->mem_ns;                                                          \
        (dst)->ici_ns = (src)->ici_ns;                                                          \
        (dst)->exe_ns = (src)->exe_ns;                                                          \
        memcpy((dst)->static_J, (src)->static_J, sizeof (dst)->static_J);                       \
        memcpy((dst)->dynamic_J, (src)->dynamic_J, sizeof (dst)->dynamic_J);                    \
        memcpy((dst)->num_setpm, (src)->num_setpm, sizeof (dst)->num_setpm);                    \
        for (int k_ = 0; k_ < NUM_COMP; k_++) {                                                 \
            memcpy((dst)->dvfs[k_].policy, (src)->dvfs[k_].policy, sizeof (dst)->dvfs[k_].policy); \
            (dst)->dvfs[k_].voltage_V = (src)->dvfs[k_].voltage_V;                              \
            (dst)->dvfs[k_].freq_GHz = (src)->dvfs[k_].freq_GHz;                                \
            (dst)->dvfs[k_].efficiency_pct = (src)->dvfs[k_].efficiency_pct;                    \
            (dst)->dvfs[k_].scaling_time_ns = (src)->dvfs[k_].scaling_time_ns;                  \
        }                                                                                       \
    } while (0)

struct setting {
    uint64_t gen;   /* 0: unused */
    struct chip_config chip;
    struct pg_strategy pg;
    int policy;
    bool tables;
    const struct profile *prof;
};

_Static_assert(sizeof(struct energy_in) == 11 * 8 + 2 * 4, "energy_in has no padding");
_Static_assert(sizeof(struct energy_key) == 8 + sizeof(struct energy_in), "energy_key has no padding");

DMEMO(results, struct energy_key, struct energy_out, 10)   /* 1024 slots, ~540 KiB per thread (base/dmemo.h) */

/* The thread's recent settings, allocated by its first pass. */
struct settings {
    struct setting recent[ENERGY_MEMO_SETTINGS];
    int cur;          /* recent[cur] is the current setting */
    int oldest;       /* the next one to replace */
    uint64_t gen;     /* of recent[cur]; 0 before the first pass, or without memory */
    uint64_t last_gen;
    long hits;
};
static _Thread_local struct settings *st;

void energy_memo_clear(void)
{
    if (st)
        memset(st, 0, sizeof *st);
    results_clear();
}

long energy_memo_hits(void) { return st ? st->hits : 0; }

static void energy_in_of(const struct op *op, struct energy_in *in)
{
    memset(in, 0, sizeof *in);
    in->t_ns[0] = op->sa_ns;
    in->t_ns[1] = op->vu_ns;
    in->t_ns[2] = op->vmem_ns;
    in->t_ns[3] = op->mem_ns;
    in->t_ns[4] = op->ici_ns;
    in->t_ns[5] = op->exe_ns;
    in->flops = op->flops;
    in->num_sa_ops = op->num_sa_ops;
    in->max_vmem_demand_bytes = op->max_vmem_demand_bytes;
    in->bytes = op->bytes;
    memcpy(&in->flops_util_bits, &op->flops_util, sizeof in->flops_util_bits);
    in->type = (int32_t)op->type;
    in->stats_kind = (int32_t)op->stats_kind;
}

static bool same_setting(const struct setting *s, const struct chip_config *chip, const struct pg_strategy *pg,
                         int policy, bool tables, const struct profile *prof)
{
    /* Chip configs come zeroed from the loader and are copied whole, so
     * comparing bytes is exact; a padding difference would only cost hits.
     * The documentation strings at the end take no part in the energy. */
    return s->gen && s->policy == policy && s->tables == tables && s->prof == prof &&
           memcmp(&s->chip, chip, CHIP_CONFIG_COMPUTED_BYTES) == 0 && pg_strategy_equal(&s->pg, pg);
}

void energy_memo_begin(const struct chip_config *chip, const struct pg_strategy *pg, int policy,
                       bool tables, const struct profile *prof)
{
    if (!st && !(st = tls_table_calloc(sizeof *st)))
        return;   /* no memory for the settings: every op is computed */
    struct setting *recent = st->recent;
    if (same_setting(&recent[st->cur], chip, pg, policy, tables, prof))
        return;
    for (int i = 0; i < ENERGY_MEMO_SETTINGS; i++)
        if (same_setting(&recent[i], chip, pg, policy, tables, prof)) {
            st->cur = i;
            st->gen = recent[i].gen;
            return;
        }
    /* A new setting replaces the oldest; its fresh generation never matches
     * the entries of the one it replaces. */
    struct setting *s = &recent[st->oldest];
    st->cur = st->oldest;
    st->oldest = (st->oldest + 1) % ENERGY_MEMO_SETTINGS;
    memcpy(&s->chip, chip, sizeof *chip);
    s->pg = *pg;
    s->policy = policy;
    s->tables = tables;
    s->prof = prof;
    s->gen = st->gen = ++st->last_gen;
}

uint64_t energy_key_of(const struct op *op, struct energy_key *k)
{
    k->gen = st ? st->gen : 0;
    energy_in_of(op, &k->in);
    return dmemo_hash(&k->in, sizeof k->in, k->gen);   /* the settings of a bundle spread over the table */
}

bool energy_memo_get(const struct energy_key *k, uint64_t h, struct op *op, int64_t *exe_scaled_ns)
{
    const struct energy_out *out = k->gen ? results_get(k, h) : NULL;
    if (!out)
        return false;
    COPY_RESULTS(op, out);
    *exe_scaled_ns = out->exe_scaled_ns;
    op->energy_done = true;
    st->hits++;
    return true;
}

void energy_memo_put(const struct energy_key *k, uint64_t h, const struct op *op, int64_t exe_scaled_ns)
{
    struct energy_out *out = k->gen ? results_put(k, h) : NULL;
    if (out) {
        COPY_RESULTS(out, op);
        out->exe_scaled_ns = exe_scaled_ns;
    }
}
