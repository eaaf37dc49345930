/* dlrm.h — DLRM inference (opsgen.md §9): the embedding-table plan, the
 * EmbeddingBag builder, the per-chip op lists and the sweep helpers.
 *
 * The reference simulates every chip separately: each chip runs the bottom
 * MLP, an all-to-all of the lookup indices, its own embedding bags, an
 * all-to-all of the looked-up rows, the dot interaction and the top MLP. All
 * chips go into one trace here, chip c's ops contiguous with op->group = c,
 * so chipsim times each chip with its own name table. The slowest chip (the
 * "straggler") stands for the whole run.
 *
 * Main data structure: struct dlrm_plan, the bisection bandwidth, the torus
 * shape and one struct dlrm_table per embedding table (how it is sharded and
 * which chips hold it), as the reference dumps them in _config_stats.json. */
#ifndef NPUSIM_DLRM_H
#define NPUSIM_DLRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opsgen/opsgen.h"
#include "opsgen/parallel.h"
#include "opsgen/sweep.h"
#include "traces/fields.h"

struct dlrm_table {
    int64_t embed_dim, num_entries, num_indices_per_lookup;
    int64_t row_sharding_degree, column_sharding_degree, data_parallel_degree;
    bool all_chips;           /* on every chip; else only on `chip` */
    int64_t chip;
    int64_t batch_size;       /* fixed before sharding (quirk opsgen Q26) */
};

struct dlrm_plan {
    double bisection_bw_GBps;            /* negative for 1 chip on a 3-D torus (reference) */
    int ntopo;
    int64_t topology[PAR_MAX_FACTORS];   /* split of num_chips over the torus axes, unsorted */
    int ntables;
    struct dlrm_table tables[FIELD_LIST_MAX];
};

/* Checks what the generator needs beyond the field loader: as many lookup
 * counts as tables, non-empty MLPs, pp = 1, no DCN parallelism. Messages name
 * the file the field came from (src may be NULL: "<config>"). */
int dlrm_check(const struct model_config *m, field_sources *src, struct npu_err *e);

/* Bisection bandwidth, topology and table placement (opsgen.md §9 setup):
 * >= 6 GiB row-sharded over all chips, <= 2 GiB replicated on all chips,
 * otherwise round-robin over the chips in table order. */
void dlrm_plan(const struct model_config *m, const struct opsgen_links *l,
               const struct profile *prof, struct dlrm_plan *p);

/* EmbeddingBag over one table of `rows` rows of width dim, k lookups per
 * sample (opsgen.md §3.11; the reference's list form with one table):
 * indices [B, 1, k] int64 and the table as inputs, output [B, 1, dim];
 * pre-set memory traffic and VPU FLOPs (checked: *ovf, builders.h). Name
 * kept raw. Returns the op, or NULL for an unknown dtype. */
struct op *b_embedding_bag(struct trace *t, bool *ovf, int64_t fid, int64_t count, const char *desc,
                           const char *name, int64_t batch, int64_t k, int64_t rows, int64_t dim,
                           const char *dtype);

/* All chips' ops, chip c's with group = c (phase NONE); validates first.
 * *ovf as opsgen_llm_inference (opsgen.h). */
int opsgen_dlrm_inference(const struct model_config *m, const struct opsgen_links *l,
                          const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e);

/* Footprint of the reference: the constant 8 chips of HBM minus 1 KiB (quirk opsgen Q26b). */
int64_t dlrm_mem_bytes(int64_t hbm_size_GB);
/* The per-chip footprint of the plan (dlrm_plan) on the busiest chip: its
 * FP32 embedding tables (row-sharded ones split, replicated ones whole, the
 * round-robin ones on their chip), the BF16 bottom and top MLPs (the top
 * MLP's padded interaction layer included) and the local batch's looked-up
 * rows and interaction matrix; the reference's constant under
 * prof->dlrm_gligen_placeholder_footprint (quirk opsgen Q26b). Terms past
 * int64 count 0. */
int64_t dlrm_mem_bytes_of(const struct model_config *m, const struct opsgen_links *l,
                          const struct profile *prof);

/* The ops of group g: the contiguous run [*first, *first + *n). Returns 0, or
 * -1 with e if the group has no ops or is split. */
int dlrm_group_range(const struct trace *t, int32_t g, size_t *first, size_t *n,
                     struct npu_err *e);
/* The group (chip) with the largest sum of execution times; the first on ties. */
int32_t dlrm_straggler(const struct trace *t, int64_t num_chips);

/* Sweep (§13.2): one config dp = tp = num_chips; above 256 chips one each for
 * num_chips / {1, 2, 4} (quirk opsgen Q32). Caller frees *out. */
int sweep_dlrm_configs(int64_t num_chips, struct parallel_cfg **out, size_t *n, struct npu_err *e);
/* Sweep (§13.4): axes (m, m, 0), m = 2 on v2/v3, else 3. */
void sweep_map_axes_dlrm(const char *chip_version, struct model_config *m);

#endif
