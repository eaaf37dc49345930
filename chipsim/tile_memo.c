/* tile_memo.c — per-thread memo of the einsum and conv tile searches.
 *
 * A sweep times the same matmul shapes over and over: every configuration
 * with the same local batch, the same tensor-parallel width or the same chip
 * repeats most of the searches of the one before, and a search (divisor
 * lists of m, n, k and a walk over their pairs) costs far more than an op's
 * remaining timing. The memo maps everything a search reads (the caller
 * packs it into the key: sizes, dtype widths, sa_dim, VMEM bytes, and the
 * bit patterns of the doubles it uses) to the tile sizes it chose. Keying on
 * the search's inputs rather than on op names keeps the by-name instruction
 * cache semantics (chipsim Q1) intact: whatever shapes an op ends up with, the search
 * sees them in the key. Failed searches are not stored; they repeat and fail
 * again with their error message.
 *
 * Bounded and lock-free: a direct-mapped table per thread, in which a
 * colliding key evicts the old entry. Threads never share entries, so the
 * library stays reentrant. */
#include "chipsim/cs_internal.h"
#include "base/dmemo.h"

#include <string.h>

struct tile_vals {
    int64_t v[TILE_MEMO_VALS];
};
DMEMO(memo, struct tile_memo_key, struct tile_vals, 10)   /* 1024 slots, ~190 KiB per thread (base/dmemo.h) */

bool tile_memo_get(const struct tile_memo_key *k, int64_t val[TILE_MEMO_VALS])
{
    /* every word mixed: sizes differ in few bits */
    const struct tile_vals *m = memo_get(k, dmemo_hash(k, sizeof *k, 0));
    if (m)
        memcpy(val, m->v, sizeof m->v);
    return m != NULL;
}

void tile_memo_put(const struct tile_memo_key *k, const int64_t val[TILE_MEMO_VALS])
{
    struct tile_vals *m = memo_put(k, dmemo_hash(k, sizeof *k, 0));
    if (m)   /* no memory for a table: no memo */
        memcpy(m->v, val, sizeof m->v);
}

void tile_memo_clear(void) { memo_clear(); }
