/* trace_csv.c — the reference's 101-column operator CSV, written and read back.
 *
 * One X-macro table (COLUMNS) gives every column an id and its reference
 * header name; trace_csv_columns[] and enum col are both generated from it,
 * so the two can never drift (trace_csv_internal.h). Writing
 * (trace_csv_write.c) and reading (trace_csv_read.c) are each one switch over
 * the column id (put_cell / parse_cell); a change to one direction is a change
 * to the other, and the round-trip tests (test_traces) catch a mismatch.
 *
 * Writing reproduces Python's csv.DictWriter byte for byte (QUOTE_MINIMAL,
 * CRLF, floats via py_repr_double); a row is formatted into a reusable buffer
 * and written with one fwrite. Reading slurps the input through zlib (plain
 * and gzip alike), feeds it to libcsv one physical line at a time (so errors
 * can name the line), maps columns by header name and parses every cell
 * strictly, as libcsv hands it over (no copy; a row's first error waits for
 * the row's end, so that a wrong field count is reported first). On any
 * error the trace is left exactly as it was on entry. */
#include "traces/trace_csv_internal.h"

const char *const trace_csv_columns[TRACE_CSV_NCOLS] = {
#define X(id, name) name,
    COLUMNS
#undef X
};

const char *const trace_csv_slack_columns[TRACE_CSV_NSLACK] = {
    "dvfs_extra_sa_time_ns", "dvfs_extra_vu_time_ns", "dvfs_extra_hbm_time_ns", "dvfs_extra_ici_time_ns",
    "dvfs_extra_vmem_time_ns", "dvfs_extra_sa_ratio", "dvfs_extra_vu_ratio", "dvfs_extra_hbm_ratio",
    "dvfs_extra_ici_ratio", "dvfs_extra_vmem_ratio",
};

