/* importers.h — measurements published or recorded in other formats,
 * converted to the native one (op,dtype,m,n,k,batch,time_us: study/run/op_predict.h).
 *
 * Each importer is strict about what it reads and never drops a row in
 * silence: what it cannot map is counted and listed (file, line, why).
 * Formats:
 *   gemm-csv   headerless GEMM timings as simulator papers publish them:
 *              "M, K, N, 0.19ms, 101.7Tflops" (time in s, ms, us or ns; the
 *              throughput, in T/G/Mflops, must agree with 2 M N K / time
 *              within 5%, or the row is listed as inconsistent)
 *   chrome-trace   Chrome trace-event JSON (.json or .json.gz) as PyTorch's
 *              profiler (export_chrome_trace, record_shapes=True) and the
 *              JAX profiler / XProf write: operators mapped by the name
 *              table (calib/import_trace.c), sizes from the recorded input
 *              shapes or the HLO text; the time is the GPU kernels the op
 *              launched (device) where the trace has them, else the op's own
 *              span (host). An op that holds a mapped op (aten::linear
 *              around aten::addmm) is left out for the inner one (counted
 *              as nested).
 *   nsys-csv   Nsight Systems' CUDA kernel summary (nsys stats --report
 *              cuda_gpu_kern_sum --format csv): one row per kernel name, its
 *              median time; sizes only where a name rule captures them.
 * Main data structure: struct import_report. */
#ifndef NPUSIM_IMPORTERS_H
#define NPUSIM_IMPORTERS_H

#include <stdbool.h>

#include "base/err.h"
#include "base/strbuf.h"

#define IMPORT_LIST_MAX 20
struct import_report {
    int rows, mapped, unmapped;
    int nested;                              /* outer ops left out for the mapped op inside */
    int listed;                              /* at most IMPORT_LIST_MAX reasons kept */
    int listed_rows;                         /* the rows those reasons cover */
    char why[IMPORT_LIST_MAX][240];          /* "FILE: line N: why" */
};

/* Appends the native rows of path (a gemm-csv file) to out, which must
 * start with the native header (import_header); dtype: a format name.
 * -1 with e only when the file cannot be read at all. */
int import_gemm_csv(const char *path, const char *dtype, struct strbuf *out, struct import_report *rep,
                    struct npu_err *e);
void import_header(struct strbuf *out);

/* The operator-name table: the user's rules from path (NULL: none; a CSV
 * of pattern,op,m,n,k,batch: a POSIX extended regular expression, matched
 * case-insensitively, a native op type, and each size as a capture group
 * $1..$9, a whole number or empty), then the built-in ones. NULL with e
 * naming the file and line. */
struct name_rules;
struct name_rules *name_rules_load(const char *path, struct npu_err *e);
void name_rules_free(struct name_rules *r);

/* The rows of a trace file (chrome-trace) or a kernel summary (nsys-csv),
 * appended to out under import_trace_header (the native columns, then
 * heads, name and source: device or host). dtype: the format of rows whose
 * file names none (NULL: such rows are listed). -1 with e only when the
 * file cannot be read as its format at all. */
void import_trace_header(struct strbuf *out);
int import_chrome_trace(const char *path, const char *dtype, const struct name_rules *rules, struct strbuf *out,
                        struct import_report *rep, struct npu_err *e);
int import_nsys_csv(const char *path, const char *dtype, const struct name_rules *rules, struct strbuf *out,
                    struct import_report *rep, struct npu_err *e);

#endif
