/* trace_in.h — request traces replayed by `npusim serving --trace FILE`,
 * and the length tables of `--lengths FILE`, read line by line (a trace of
 * millions of requests is never held whole).
 *
 * CSV with a header, or JSONL (one object per line), with the columns of a
 * public trace (docs/serving.md names their sources):
 *   TIMESTAMP,ContextTokens,GeneratedTokens        Azure LLM inference traces;
 *       TIMESTAMP a date-time "2023-11-16 18:15:46.6805900" (a UTC offset
 *       "+00:00" allowed) or seconds
 *   arrived_at,num_prefill_tokens,num_decode_tokens Vidur (seconds)
 *   input_toks,output_toks,arrival_time_ns          LLMServingSim (ns)
 *   timestamp,input_length,output_length            Mooncake (ms)
 *   arrival_s,input_tokens,output_tokens            npusim's own requests.csv
 * Other columns are ignored. Arrivals are taken relative to the first row's
 * and must not go back in time: an unsorted trace is refused, naming the
 * line (sort it first). A length table needs input_tokens,output_tokens
 * (or any pair of length columns above) and no time.
 *
 * Every refusal names the file and line: a missing field, a length below 1
 * or beyond the context, a time that is not a number or date, an empty
 * trace. Main data structure: struct serving_trace, an open reader. */
#ifndef NPUSIM_SERVING_TRACE_IN_H
#define NPUSIM_SERVING_TRACE_IN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "serving/workload.h"

struct serving_trace {
    FILE *f;
    bool own;                   /* f opened here */
    char path[1024];
    int64_t line;               /* of the last line read */
    bool jsonl, lengths_only;
    int set;                    /* the column set (trace_in.c) */
    int col[3];                 /* CSV: columns of time, input, output */
    int ncols;                  /* CSV: the header's fields, which no line may pass */
    double t0_s, last_s;
    int64_t base_s;             /* date-times: the first row's whole seconds */
    int64_t n;                  /* requests read */
    int64_t max_context;        /* 0: no bound */
    char *buf;
    size_t cap;
};

/* Opens path (or reads f when not NULL, path naming it) and its header;
 * -1 with e naming the file when it is neither form or names no known set. */
int serving_trace_open(struct serving_trace *t, const char *path, FILE *f, bool lengths_only, int64_t max_context,
                       struct npu_err *e);
/* The next request (id in file order, arrival_ns relative to the first):
 * 1; 0 at the end (an error for an empty file); -1 with e. */
int serving_trace_next(struct serving_trace *t, struct serving_request *r, struct npu_err *e);
void serving_trace_close(struct serving_trace *t);

/* A whole length table into a malloc'ed array of (input, output) pairs. */
int serving_lengths_table(const char *path, int64_t max_context, int64_t **pairs, size_t *n, struct npu_err *e);

#endif
