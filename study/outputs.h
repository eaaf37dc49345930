/* outputs.h — a command's output files (CSV views of a trace and JSON texts)
 * written all together or not at all: each to a temporary file, all renamed
 * into place once every one is complete, all removed on a failure.
 * Main data structure: struct output, one file. */
#ifndef NPUSIM_STUDY_OUTPUTS_H
#define NPUSIM_STUDY_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "traces/err.h"
#include "traces/op.h"
#include "traces/trace_csv.h"

struct sim_facts;

/* One output file: a CSV view of a trace or a text (JSON). */

struct output {                  /* each field set by output_clear (common.c) */
    char path[4096];
    const struct trace *trace;   /* CSV if non-NULL */
    struct trace_csv_opts opts;
    char *text;                  /* otherwise this text (owned; freed by write_outputs) */
    bool json;                   /* the text is pyjson_print of an object (study/trace_memo.h) */
    const void *facts;           /* json: what readers take instead of parsing it, or NULL: */
    size_t facts_len;            /* a struct sim_facts or energy_facts (study/sim_facts.h) */
};
/* Empties n outputs: no path, trace or text. Not memset: the 4 KiB path
 * buffers would be written for nothing (a sweep writes five outputs per
 * configuration, an energy run a few per statistics file). */
void output_clear(struct output *o, int n);
/* Marks o, a statistics file whose text is pyjson_print of a tree with
 * sim_config sim, for a suite's later stages (study/trace_memo.h): they edit
 * its text in place, and when recording, *facts receives what they would
 * parse sim_config for (o keeps a pointer to it: it must live until the
 * outputs are written). */
void output_stats_file(struct output *o, const cJSON *sim, struct sim_facts *facts);
/* Writes all outputs (CSV rows formatted once for every CSV of the same trace)
 * to temporary files and renames them all on success, removes them all on
 * failure. Frees the texts. */
int write_outputs(struct output *o, int n, struct npu_err *e);
/* The same, into a private staging folder that is renamed into place whole:
 * each file is written under its own name (atomic_open_staged). */
int write_outputs_staged(struct output *o, int n, struct npu_err *e);
/* While on, write_outputs writes as write_outputs_staged does: for a caller
 * whose whole output goes to a fresh private staging folder (a sweep's
 * tree). Process-wide: set and cleared by the one command running. */
void outputs_set_staged(bool on);
/* Moves a staged file to its place (rename), making the target's folder
 * first unless it is *last_dir, the folder of the previous move (updated). */
int move_into_place(const char *from, const char *to, char *last_dir, size_t last_len, struct npu_err *e);
/* A cJSON object as Python's json.dump(indent=4) text (for struct output). */
char *json_text(const cJSON *j);

#endif
