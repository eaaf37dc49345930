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
#include "traces/tls_table.h"

#include <string.h>

#define TILE_MEMO_SLOTS 1024   /* power of two; ~190 KiB per thread */

struct memo_slot {
    bool used;
    struct tile_memo_key key;
    int64_t val[TILE_MEMO_VALS];
};

/* The thread's table, allocated on first use (traces/tls_table.h). */
static _Thread_local struct memo_slot *memo;

static size_t slot_of(const struct tile_memo_key *k)
{
    /* splitmix64-style mixing of every word: sizes differ in few bits. */
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < TILE_MEMO_WORDS; i++) {
        h ^= k->w[i];
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    return (size_t)(h & (TILE_MEMO_SLOTS - 1));
}

bool tile_memo_get(const struct tile_memo_key *k, int64_t val[TILE_MEMO_VALS])
{
    if (!memo)
        return false;
    const struct memo_slot *s = &memo[slot_of(k)];
    if (!s->used || memcmp(&s->key, k, sizeof *k))
        return false;
    memcpy(val, s->val, sizeof s->val);
    return true;
}

void tile_memo_put(const struct tile_memo_key *k, const int64_t val[TILE_MEMO_VALS])
{
    if (!memo && !(memo = tls_table_calloc(TILE_MEMO_SLOTS * sizeof *memo)))
        return;   /* no memory for a table: no memo */
    struct memo_slot *s = &memo[slot_of(k)];
    s->used = true;
    s->key = *k;
    memcpy(s->val, val, sizeof s->val);
}

void tile_memo_clear(void)
{
    if (memo)
        memset(memo, 0, TILE_MEMO_SLOTS * sizeof *memo);
}
