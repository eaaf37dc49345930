/* dmemo.h — the one memo mechanism of the hot paths: a per-thread
 * direct-mapped table from a fixed-size key to a fixed-size value.
 *
 * Sweeps repeat the same work over and over (tile searches of the same
 * matmul shapes, divisor lists, the energy of ops with the same times, the
 * text of the same doubles and row tails). Each of those places keeps the
 * results of its recent inputs in one of these tables:
 *   - per thread, so threads never share entries and no lock is taken; the
 *     results do not depend on the thread count;
 *   - direct-mapped: a key's hash picks one slot, and a colliding key evicts
 *     the old entry; a lookup is one hash, a compare of the hashes and, when
 *     they agree, one of the keys;
 *   - exact: a hit compares the whole key, byte for byte, so a memo changes
 *     how fast, never what (keys must be built with every byte set: memset
 *     or a full initializer, no stray padding);
 *   - on the heap, allocated on the first put (base/tls_table.h), so a
 *     thread that never uses a memo costs nothing; without memory for the
 *     table the caller just computes.
 *
 * DMEMO(name, KEY, VAL, BITS), at file scope, defines for a table of
 * 2^BITS slots (KEY and VAL complete types):
 *   VAL *name_get(const KEY *k, uint64_t h)  the value kept for k, or NULL
 *   VAL *name_put(const KEY *k, uint64_t h)  k's slot, now holding k, whose
 *                                            value the caller fills; NULL
 *                                            without memory for the table
 *   void name_clear(void)                    forgets everything (tests)
 * h is the key's hash: its top BITS bits pick the slot; dmemo_hash() and
 * dmemo_mix() give one. A memo that never clears (or gets) leaves its
 * function unused: they are marked so (clang warns in the .c file). */
#ifndef NPUSIM_DMEMO_H
#define NPUSIM_DMEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/tls_table.h"

/* One step of a splitmix64-style hash: word w mixed into h. */
static inline uint64_t dmemo_mix(uint64_t h, uint64_t w)
{
    h ^= w;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

/* The hash of n bytes at p (n a multiple of 8), from seed. */
static inline uint64_t dmemo_hash(const void *p, size_t n, uint64_t seed)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ seed;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, (const unsigned char *)p + i, sizeof w);
        h = dmemo_mix(h, w);
    }
    return h;
}

#define DMEMO(name, KEY, VAL, BITS)                                                                   \
    struct name##_slot {                                                                              \
        uint64_t h; /* the key's hash, or 0 (and then h | 1 stands for it): empty */                  \
        KEY key;                                                                                      \
        VAL val;                                                                                      \
    };                                                                                                \
    static _Thread_local struct name##_slot *name##_table;                                           \
    static inline __attribute__((unused)) struct name##_slot *name##_slot_of(uint64_t h)                                      \
    {                                                                                                 \
        return &name##_table[h >> (64 - (BITS))];                                                     \
    }                                                                                                 \
    static inline __attribute__((unused)) VAL *name##_get(const KEY *k, uint64_t h)                                          \
    {                                                                                                 \
        if (!name##_table)                                                                            \
            return NULL;                                                                              \
        struct name##_slot *s_ = name##_slot_of(h);                                                   \
        return s_->h == (h | 1) && memcmp(&s_->key, k, sizeof *k) == 0 ? &s_->val : NULL;             \
    }                                                                                                 \
    static inline __attribute__((unused)) VAL *name##_put(const KEY *k, uint64_t h)                                          \
    {                                                                                                 \
        if (!name##_table &&                                                                          \
            !(name##_table = tls_table_calloc(((size_t)1 << (BITS)) * sizeof *name##_table)))          \
            return NULL;                                                                              \
        struct name##_slot *s_ = name##_slot_of(h);                                                   \
        s_->h = h | 1;                                                                                \
        memcpy(&s_->key, k, sizeof *k);                                                               \
        return &s_->val;                                                                              \
    }                                                                                                 \
    static inline __attribute__((unused)) void name##_clear(void)                                                             \
    {                                                                                                 \
        if (name##_table)                                                                             \
            memset(name##_table, 0, ((size_t)1 << (BITS)) * sizeof *name##_table);                   \
    }

#endif
