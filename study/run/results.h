/* results.h — a results tree in memory: what one stage produced, as values,
 * for the next stage of the same suite.
 *
 * `npusim suite` chains its stages in one process. A sweep writes its
 * statistics files and per-op CSVs and also hands them here, as the trees
 * and traces they were written from; the energy stage then takes its inputs
 * from here instead of reading and parsing those files back, and hands its
 * own outputs (statistics trees with the typed energy of each strategy) to
 * the carbon stage the same way. Every file is still written: the set only
 * spares the next stage the reading. A stage asks for a result by the path
 * it would read, relative to the tree's root; a path the set does not hold
 * (an older file, another tree) is read from disk as usual, and gives the
 * same values: what is held is exactly what reading the files gives
 * (trace_csv_readback; trees whose every number keeps its printed text).
 *
 * Main data structure: struct results, the entries of one tree (struct
 * result), found by key through an open-addressing index. Thread-safe:
 * workers of one stage add entries while the stage runs; a later stage
 * only reads them. */
#ifndef NPUSIM_STUDY_RESULTS_H
#define NPUSIM_STUDY_RESULTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "chipsim/chip.h"
#include "power/carbon.h"
#include "power/system.h"
#include "base/err.h"
#include "traces/op.h"
#include "traces/trace_csv.h"

/* energy_stats[name] of an energy stage's output, as the carbon stage reads
 * it; finite: every value is a finite double (a NaN or an infinity prints
 * as NaN or null, which the carbon stage must see as the file shows it). */
#define RESULT_MAX_STRATEGIES 64
struct result_energy {
    char name[64];
    struct carbon_energy es;
    bool finite;
};

/* What sim_config's chip and system read as (the field tables over the
 * defaults): the carbon stage takes them typed from an energy stage's
 * results instead of reading sim_config again. */
struct result_config {
    struct chip_config chip;
    struct system_config sys;
};

/* One statistics file of the tree, <root>/<key>.json, with its per-op trace
 * <root>/<key>.csv when the stage wrote one. */
struct result {
    char *key;                   /* "<model>/<pstr>/<workload>-v<V>[_phase]" */
    cJSON *stats;                /* the file's tree: printing it gives the file */
    struct trace ops;            /* the CSV as it reads back (no ops: none written) */
    bool has_ops;
    int nenergy;
    struct result_energy *energy;   /* nenergy strategies, in energy_stats' order */
    struct result_config *config;   /* or NULL: read sim_config */
    size_t bytes;                /* what it holds (an estimate), counted once against the budget */
};

struct results {
    char root[4096];             /* the tree's folder, as the stages name it ("OUT/raw") */
    char write_root[4200];       /* where a stage is writing it now (a staging folder), or "" */
    size_t budget_bytes;         /* what the entries may hold at most (an estimate) */
    int takers;                  /* how many stages will still take each entry (0 or 1: the
                                  * next takes it; more: it gets a copy, the entry stays) */
    pthread_mutex_t mu;
    struct result **slot;        /* the index: cap slots, NULL when empty */
    size_t n, cap;
    size_t bytes;                /* what they hold now */
    size_t found, missed;        /* results_find: entries given, asked for in vain */
};

/* An empty set that keeps at most budget_bytes (0: nothing; every stage
 * then reads its inputs from the files). */
void results_init(struct results *r, size_t budget_bytes);
/* Frees every entry and empties r (the root stays). */
void results_clear(struct results *r);
void results_free(struct results *r);

/* Names the tree r holds from now on: its root, and the folder its files
 * are being written to (a staging folder mirroring root; NULL: root
 * itself). Entries of another root are dropped. */
void results_begin(struct results *r, const char *root, const char *write_root);

/* Adds the result at path (a file under the write root or the root; the
 * key is the rest of the path, without the .json): stats is taken (r owns
 * it from now on, also on failure); ops, when not NULL, is copied as the
 * CSV written with o reads back; energy (n strategies) is copied. Replaces
 * an entry of the same key. A result that would exceed the budget is not
 * kept (not an error: the next stage reads the file). 0, or -1 with e (out
 * of memory, a path outside the tree). */
int results_put(struct results *r, const char *path, cJSON *stats, const struct trace *ops,
                const struct trace_csv_opts *o, const struct result_energy *energy, int n,
                struct npu_err *e);

/* The same by key (relative to the root, without ".json"), with the
 * configuration sim_config reads as (copied; may be NULL). */
int results_put_key(struct results *r, const char *key, cJSON *stats, const struct trace *ops,
                    const struct trace_csv_opts *o, const struct result_energy *energy, int n,
                    const struct result_config *config, struct npu_err *e);

/* The entry for root/key, or NULL when r holds another tree or no such
 * entry (then read the file). r may be NULL. */
const struct result *results_find(struct results *r, const char *root, const char *key);

/* Takes the entry for root/key out of r: its statistics tree, with
 * sim_config as a tree (the sweeps print sim_config once and keep its
 * text), which is what parsing the file gives, into *stats; its ops into
 * ops (an empty trace; moved, not copied; copies while r->takers > 1).
 * False when r holds no such entry with ops (then read the files; a later
 * reader of the same key does too). r may be NULL. */
bool results_take(struct results *r, const char *root, const char *key, cJSON **stats, struct trace *ops);

#endif
