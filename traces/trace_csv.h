/* trace_csv.h — traces as CSV: the reference's 101 columns, read and written.
 *
 * Writing follows the reference exactly (chipsim.md §10, opsgen.md §2.4):
 * header from the column list, CRLF line ends, QUOTE_MINIMAL quoting, ints in
 * decimal, floats as Python repr, "" for statistics the op does not carry.
 * A stream trace may carry one extra trailing column "Phase" (prefill/decode)
 * so that prefill and decode survive a pipe, and after it "Group" (the timing
 * group, e.g. the DLRM chip) when some op has a non-zero group; files written
 * per phase leave both out. Energy-stage traces carry 10 slack columns right
 * after the 101 (before Phase). Reading goes through libcsv and accepts every form. Paths ending in
 * ".gz" are compressed/decompressed transparently with zlib; "-" means
 * stdin/stdout. Writing, reading and writing again gives identical bytes. */
#ifndef NPUSIM_TRACE_CSV_H
#define NPUSIM_TRACE_CSV_H

#include <stdbool.h>
#include <stdio.h>

#include "base/err.h"
#include "traces/op.h"

#define TRACE_CSV_NCOLS 101

/* The reference column names, in order. */
extern const char *const trace_csv_columns[TRACE_CSV_NCOLS];

/* The 10 slack columns the reference's energy stage appends (power.md §6):
 * dvfs_extra_{sa,vu,hbm,ici,vmem}_time_ns, then the same _ratio. */
#define TRACE_CSV_NSLACK 10
extern const char *const trace_csv_slack_columns[TRACE_CSV_NSLACK];

struct trace_csv_opts {
    enum phase only;     /* PHASE_NONE: every op; else only ops of that phase */
    bool phase_column;   /* append the "Phase" column */
    bool slack_columns;  /* append the 10 slack columns after the 101 (also
                          * written whenever some op has_slack) */
};

/* Writes to path atomically (temporary file in the same folder, renamed on
 * success, removed on failure); "-" writes to stdout. */
int trace_write_csv(const struct trace *t, const char *path, const struct trace_csv_opts *o,
                    struct npu_err *e);
/* Writes to an open stream (no atomicity; used for stdout). */
int trace_write_csv_stream(const struct trace *t, FILE *f, const struct trace_csv_opts *o,
                           struct npu_err *e);
/* Writes the same trace to n streams at once (each with its own phase filter),
 * formatting every row only once. */
#define TRACE_CSV_MAX_OUTPUTS 8
int trace_write_csv_multi(const struct trace *t, FILE *const *f, const struct trace_csv_opts *o,
                          int n, struct npu_err *e);
/* Writes trace t[k] to stream f[k] for each of n outputs (traces may
 * repeat). Each row is formatted once for all outputs of its trace, and the
 * head cells of op i (the 43 columns before the power columns) once for all
 * traces whose op i prints them the same: an energy run writes one copy of
 * a trace per strategy, which differ only in their power columns. */
int trace_write_csv_each(const struct trace *const *t, FILE *const *f, const struct trace_csv_opts *o,
                         int n, struct npu_err *e);
/* Appends the ops of a CSV file ("-" = stdin, ".gz" decompressed) to t.
 * Errors name the file, the line and the column. */
int trace_read_csv(struct trace *t, const char *path, struct npu_err *e);

/* Who made a stream trace (`npusim opsgen | chipsim | power`): its first
 * line, "# npusim {"version": "0.2.0", "profile": "physical", "model":
 * "llama3-8b", "chip": "tpuv5p", "system": "system_config"}", which every
 * reader here skips (pandas: comment="#"). The stages compare it with
 * their own configs and refuse a trace made for another chip or model.
 * Fields the line lacks stay "". */
struct trace_provenance {
    char version[32], profile[32], model[256], chip[256], system[256];
};
#define TRACE_PROVENANCE_PREFIX "# npusim "
/* trace_read_csv, and the provenance line the file starts with in *p
 * (*p zeroed, returns 0 and has_prov false when it has none). */
int trace_read_csv_prov(struct trace *t, const char *path, struct trace_provenance *p, bool *has_prov,
                        struct npu_err *e);
/* The provenance line for p, newline included, into buf (n bytes). */
void trace_provenance_line(const struct trace_provenance *p, char *buf, size_t n);
/* Same, from a memory buffer (used by tests and fuzzing); `name` for messages. */
int trace_read_csv_buffer(struct trace *t, const char *buf, size_t len, const char *name,
                          struct npu_err *e);
/* Appends to t the ops that writing src with o and reading the file back
 * (NULL: as trace_write_csv, the defaults) would give, without the text: every cell the reader parses, as it would
 * parse it (classified, no parsed shapes, blanks as defaults). Every CSV
 * this program writes reads back (nothing it writes is refused), so this
 * cannot fail; tests hold it equal to trace_read_csv of the written text.
 * Lets a process that just wrote a trace skip reading it again. */
void trace_csv_readback(struct trace *t, const struct trace *src, const struct trace_csv_opts *o);

#endif
