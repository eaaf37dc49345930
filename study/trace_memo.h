/* trace_memo.h — files this process wrote, remembered so that a later stage
 * of the same process need not parse them in full again (`npusim suite`):
 * per-op traces, whose ops are held (the energy stage re-reads every per-op
 * CSV the sweeps just wrote), and statistics JSON files printed by
 * pyjson_print, whose text is held with the configurations their sim_config
 * holds (the energy and carbon stages then edit that text in place,
 * pyjson_splice, instead of reading, parsing and re-printing it).
 *
 * While recording, write_outputs and write_outputs_staged (common.c) hand
 * every CSV they commit to trace_memo_put, which keeps the ops the file would
 * read back as (trace_csv_readback), keyed by the file's identity: device,
 * inode, size and modification time, taken from the open file once it is
 * complete. A reader asks trace_memo_read with a path: when the file there is
 * still that very file, unchanged, it gets the held ops (as many times as
 * trace_memo_readers said: copies, then the ops themselves); otherwise
 * (never held, replaced, touched, or handed over already) it reads the file
 * as usual. So the memo changes how fast, never what: a stage's outputs are
 * the same bytes with it and without it.
 *
 * Off until trace_memo_begin; held ops count against a byte budget, and a
 * trace that would exceed it is simply not held. Thread-safe. */
#ifndef NPUSIM_TRACE_MEMO_H
#define NPUSIM_TRACE_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "traces/err.h"
#include "traces/op.h"
#include "traces/trace_csv.h"

/* Starts holding (budget_bytes of ops and strings at most; 0 holds nothing). */
void trace_memo_begin(size_t budget_bytes);
/* How many readers each per-op trace held from now on will have (default 1;
 * a suite: its energy lines still to come). The first n-1 get copies, the
 * last the held ops; 0 holds no trace at all. */
void trace_memo_readers(int n);
/* Whether statistics files written from now on are held (default true; a
 * suite: whether an energy or carbon line is still to come). */
void trace_memo_hold_stats(bool on);
/* Whether written CSVs are recorded (between calls: no writer may be running). */
void trace_memo_record(bool on);
bool trace_memo_recording(void);
/* Drops everything held and stops. */
void trace_memo_end(void);

/* Holds what the file st describes (fstat of the complete, written file)
 * reads back as: t written with o. Does nothing when not recording or over
 * budget. Call only once the file is in place (committed). */
void trace_memo_put(const struct stat *st, const struct trace *t, const struct trace_csv_opts *o);
/* Remembers that the file st is `text` (st_size bytes, the memo's to free
 * from now on), printed by pyjson_print (of an object), as write_outputs
 * does for outputs marked json, and keeps a copy of facts (n bytes; NULL:
 * none): what a reader would otherwise take out of the text by parsing it
 * (cli/sim_facts.h). Same conditions as above. */
void trace_memo_put_json(const struct stat *st, const void *facts, size_t n, char *text);
/* When the file at path is such a printed file, unchanged since it was
 * written: its text, a malloc'ed copy (NUL-terminated, *len bytes), read
 * from memory; and when it came with n bytes of facts, they are copied to
 * facts and *got_facts set (facts and got_facts may be NULL). Otherwise
 * NULL: read the file, and parse it. */
char *trace_memo_json_text(const char *path, size_t *len, void *facts, size_t n, bool *got_facts);
/* Appends the ops of the CSV at path to t: from the memo when path is a
 * held file, unchanged; else trace_read_csv. Same contract as trace_read_csv.
 * A held trace goes to as many readers as trace_memo_readers said when it
 * was held: copies to all but the last, which takes the ops themselves (its
 * memory then the reader's to free); a later read of the file reads the
 * file. */
int trace_memo_read(struct trace *t, const char *path, struct npu_err *e);

/* What the memo has done since trace_memo_begin (for tests and bench). */
struct trace_memo_stats {
    size_t held, hits, misses;   /* files held (ever); reads served; reads from the file */
    size_t bytes;                /* bytes held now (ops, strings, entries) */
    size_t json_hits, json_misses;   /* trace_memo_json_text: texts served; files to read */
};
struct trace_memo_stats trace_memo_stats(void);

#endif
