/* energy_memo.c — per-thread memo of the energy pass's per-op results (see
 * energy_memo.h).
 *
 * Main data structures, per thread (on the heap: traces/tls_table.h): a
 * direct-mapped table of ENERGY_MEMO_SLOTS entries, each an op's inputs
 * (struct energy_in), the generation of the setting it was computed under,
 * and every field the pass writes; and the thread's ENERGY_MEMO_SETTINGS most recent settings, kept
 * whole (chip bytes, strategy, policy, table flag, profile) with their
 * generations, so that a pass can tell whether its setting is one of them.
 * A sweep's bundle (cli/sweep_points.h) times one trace on several chips in
 * turn: each keeps its generation, and its entries stay valid. */
#include "power/energy_memo.h"

#include "traces/tls_table.h"

#include <string.h>

#define ENERGY_MEMO_SLOTS 1024   /* power of two; ~540 KiB per thread */

struct energy_out {
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

struct slot {
    uint64_t gen;   /* 0: empty */
    struct energy_in in;
    struct energy_out out;
};

struct setting {
    uint64_t gen;   /* 0: unused */
    struct chip_config chip;
    struct pg_strategy pg;
    int policy;
    bool tables;
    const struct profile *prof;
};

_Static_assert(sizeof(struct energy_in) == 11 * 8 + 2 * 4, "energy_in has no padding");

/* The thread's table, allocated by its first pass (traces/tls_table.h). */
struct tables {
    struct slot slots[ENERGY_MEMO_SLOTS];
    struct setting recent[ENERGY_MEMO_SETTINGS];
};
static _Thread_local struct tables *tab;
static _Thread_local int cur;          /* recent[cur] is the current setting */
static _Thread_local int oldest;       /* the next one to replace */
static _Thread_local uint64_t gen;     /* of recent[cur]; 0 before the first pass */
static _Thread_local uint64_t last_gen;
static _Thread_local long hits;

void energy_memo_clear(void)
{
    if (tab)
        memset(tab, 0, sizeof *tab);
    cur = oldest = 0;
    gen = last_gen = 0;
    hits = 0;
}

long energy_memo_hits(void) { return hits; }

void energy_in_of(const struct op *op, struct energy_in *in)
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
     * comparing bytes is exact; a padding difference would only cost hits. */
    return s->gen && s->policy == policy && s->tables == tables && s->prof == prof &&
           memcmp(&s->chip, chip, sizeof *chip) == 0 && pg_strategy_equal(&s->pg, pg);
}

void energy_memo_begin(const struct chip_config *chip, const struct pg_strategy *pg, int policy,
                       bool tables, const struct profile *prof)
{
    if (!tab && !(tab = tls_table_calloc(sizeof *tab))) {
        gen = 0;   /* no memory for a table: every op is computed */
        return;
    }
    struct setting *recent = tab->recent;
    if (same_setting(&recent[cur], chip, pg, policy, tables, prof))
        return;
    for (int i = 0; i < ENERGY_MEMO_SETTINGS; i++)
        if (same_setting(&recent[i], chip, pg, policy, tables, prof)) {
            cur = i;
            gen = recent[i].gen;
            return;
        }
    /* A new setting replaces the oldest; its fresh generation never matches
     * the entries of the one it replaces. */
    struct setting *s = &recent[oldest];
    cur = oldest;
    oldest = (oldest + 1) % ENERGY_MEMO_SETTINGS;
    memcpy(&s->chip, chip, sizeof *chip);
    s->pg = *pg;
    s->policy = policy;
    s->tables = tables;
    s->prof = prof;
    s->gen = gen = ++last_gen;
}

static struct slot *slot_of(const struct energy_in *in)
{
    const unsigned char *p = (const unsigned char *)in;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ gen;   /* the settings of a bundle spread over the table */
    for (size_t i = 0; i < sizeof *in / 8; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, sizeof w);   /* words without aliasing the int32 fields */
        h ^= w;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    return &tab->slots[h & (ENERGY_MEMO_SLOTS - 1)];
}

bool energy_memo_get(const struct energy_in *in, struct op *op)
{
    if (gen == 0)
        return false;
    const struct slot *s = slot_of(in);
    if (s->gen != gen || memcmp(&s->in, in, sizeof *in) != 0)
        return false;
    COPY_RESULTS(op, &s->out);
    op->energy_done = true;
    hits++;
    return true;
}

void energy_memo_put(const struct energy_in *in, const struct op *op)
{
    if (gen == 0)
        return;
    struct slot *s = slot_of(in);
    s->gen = gen;
    s->in = *in;
    COPY_RESULTS(&s->out, op);
}
