/* importers.h — measurements published or recorded in other formats,
 * converted to the native one (op,dtype,m,n,k,batch,time_us: study/op_predict.h).
 *
 * Each importer is strict about what it reads and never drops a row in
 * silence: what it cannot map is counted and listed (file, line, why).
 * Formats:
 *   gemm-csv   headerless GEMM timings as simulator papers publish them:
 *              "M, K, N, 0.19ms, 101.7Tflops" (time in s, ms, us or ns; the
 *              throughput, in T/G/Mflops, must agree with 2 M N K / time
 *              within 5%, or the row is listed as inconsistent)
 * Main data structure: struct import_report. */
#ifndef NPUSIM_IMPORTERS_H
#define NPUSIM_IMPORTERS_H

#include "traces/err.h"
#include "traces/strbuf.h"

#define IMPORT_LIST_MAX 20
struct import_report {
    int rows, mapped, unmapped;
    int listed;                              /* at most IMPORT_LIST_MAX reasons kept */
    char why[IMPORT_LIST_MAX][160];          /* "FILE: line N: why" */
};

/* Appends the native rows of path (a gemm-csv file) to out, which must
 * start with the native header (import_header); dtype: a format name.
 * -1 with e only when the file cannot be read at all. */
int import_gemm_csv(const char *path, const char *dtype, struct strbuf *out, struct import_report *rep,
                    struct npu_err *e);
void import_header(struct strbuf *out);

#endif
