/* outputs.h — a command's output files (CSV views of a trace and JSON texts)
 * written all together or not at all: each to a temporary file, all renamed
 * into place once every one is complete, all removed on a failure.
 * Main data structure: struct output, one file. */
#ifndef NPUSIM_STUDY_OUTPUTS_H
#define NPUSIM_STUDY_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "traces/op.h"
#include "traces/trace_csv.h"

struct results;

/* One output file: a CSV view of a trace or a text (JSON). */
struct output {                  /* each field set by output_clear */
    char path[4096];
    const struct trace *trace;   /* CSV if non-NULL */
    struct trace_csv_opts opts;
    char *text;                  /* otherwise this text (owned; freed by write_outputs) */
    cJSON *tree;                 /* a statistics file: the tree text was printed from (owned:
                                  * freed, or handed to the sink's results with the CSV of
                                  * the same name, <stem>.csv beside <stem>.json) */
};
/* Empties n outputs: no path, trace or text. Not memset: the 4 KiB path
 * buffers would be written for nothing (a sweep writes five outputs per
 * configuration, an energy run a few per statistics file). */
void output_clear(struct output *o, int n);

/* Where outputs go besides their files. */
struct output_sink {
    bool staged;                 /* the files are new in a private staging folder that is
                                  * published whole: each written under its own name
                                  * (atomic_open_staged: no temporary, no rename) */
    struct results *keep;        /* statistics files also kept here as values (study/run/results.h),
                                  * for the next stage of a suite; or NULL */
    cJSON *memory;               /* an object: no file is written; each statistics tree is added
                                  * to it under its file's name (the HTTP API, Python); or NULL */
};

/* Writes all outputs (CSV rows formatted once for every CSV of the same trace)
 * to temporary files and renames them all on success, removes them all on
 * failure; then hands the statistics trees to to->keep. Frees the texts and
 * the trees not kept. to may be NULL (plain files). */
int write_outputs_to(struct output *o, int n, const struct output_sink *to, struct npu_err *e);
/* <dir>/<base>.csv (all of t) and <base>.json (stats printed; the tree
 * taken), written to `to` as write_outputs_to does. */
int write_trace_and_stats(const struct trace *t, cJSON *stats, const char *dir, const char *base,
                          const struct output_sink *to, struct npu_err *e);
/* write_outputs_to with plain files. */
int write_outputs(struct output *o, int n, struct npu_err *e);

#endif
