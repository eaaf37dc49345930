/* timeline.h — a serving run as Chrome trace-event JSON (`npusim serving
 * --timeline FILE`), which Perfetto (ui.perfetto.dev) and chrome://tracing
 * open.
 *
 * Process 1, "replicas": one track per replica (per microbatch of a
 * replica that keeps several passes in flight), one slice per pass, named
 * by what it holds ("prefill 512 + decode 30"), its args the pass's tokens,
 * requests, KV blocks and energy. Process 2, "requests": one track per
 * request, with its "queued" (arrival to first scheduled), "prefill" (to
 * its first token) and "decode" (to its last) slices, its args its lengths,
 * replica, preemptions and energy; a rejected request is an instant.
 * Times in microseconds with nanosecond decimals. Events stream to the
 * file as the run goes; past SERVING_TIMELINE_MAX_EVENTS the rest are left
 * out and the metadata says how many.
 *
 * Main data structure: struct serving_timeline. */
#ifndef NPUSIM_SERVING_TIMELINE_H
#define NPUSIM_SERVING_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/atomic.h"
#include "serving/engine.h"

/* About 200 bytes each: some 100 MB at most. */
#define SERVING_TIMELINE_MAX_EVENTS 500000

struct serving_timeline {
    struct atomic_file f;
    int64_t events, dropped, max_events;
    int64_t replicas;                  /* tracks named so far */
};

/* Opens path (its temporary) and writes the head; -1 with e. */
int serving_timeline_open(struct serving_timeline *t, const char *path, const char *title, struct npu_err *e);
void serving_timeline_pass(struct serving_timeline *t, const struct serving_pass_record *p);
/* energy_J: the request's own (serving/energy.h), or NAN before it is known. */
void serving_timeline_request(struct serving_timeline *t, const struct serving_record *r, double energy_J);
/* Writes the tail (metadata); the caller commits or aborts t->f. -1 with e. */
int serving_timeline_close(struct serving_timeline *t, struct npu_err *e);

#endif
