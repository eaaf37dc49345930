/* timeline.h — a timed trace as Chrome trace-event JSON (`--timeline` on
 * run, chipsim and power), which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open: where the time goes, operator by operator.
 *
 * One process per phase (prefill, decode; "ops" for a trace without
 * phases), and in it one track of operators, back to back, then one track
 * per component (MXU, VPU, HBM, ICI) with the time that component is busy
 * in each operator, from the operator's start: the bound one fills its
 * operator, the others show their slack.
 *
 * Two levels of detail. `ops` (the default): a trace row executed count
 * times (layers x decode steps) is one slice of count x its time, "x32" in
 * its name. `layers`: each phase's counts are factored into steps x layers
 * (a decode step per output token; the layers of this chip's pipeline
 * stage) and the rows expanded: "step 3" slices, in them "layer 12" slices,
 * in them one slice per operator execution, named as the operator, with
 * layer and step in its args. The expansion stops at TIMELINE_MAX_EVENTS
 * events: the steps that do not fit are drawn as one "steps K-N" slice
 * holding one summed slice per row, and the metadata says how many steps
 * were expanded. A phase whose counts do not factor is drawn as in `ops`.
 *
 * Every operator slice's args: the operator type, count (executions the
 * slice stands for), time_per_execution_ns and time_total_ns, input and
 * output shapes, the bound, flops and bytes per execution, and
 * energy_per_execution_J and energy_total_J (when the energy pass ran).
 * Times are in microseconds, as the format wants, with nanosecond
 * decimals. Deterministic: the same trace gives the same bytes.
 *
 * No data structure of its own beyond the per-phase plan in timeline.c. */
#ifndef NPUSIM_TIMELINE_H
#define NPUSIM_TIMELINE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "opsgen/model.h"
#include "traces/op.h"

struct chip_config;

/* The bound on a `layers` timeline's events (about 250 bytes each: some 50 MB). */
#define TIMELINE_MAX_EVENTS 200000

enum timeline_detail { TIMELINE_OPS, TIMELINE_LAYERS };

struct timeline_opts {
    enum timeline_detail detail;
    int64_t layers;       /* layers per pass from the model config (timeline_layers_of);
                           * 0: inferred from the counts */
    int64_t max_events;   /* 0: TIMELINE_MAX_EVENTS */
    const struct chip_config *chip;   /* names the tracks in its words (tensor cores,
                                       * NVLink on a GPU); NULL: a TPU's */
};

/* "ops" or "layers" into *d; -1 for anything else. */
int timeline_detail_parse(const char *s, enum timeline_detail *d);

/* The layers one pass of a phase runs on a chip: ceil(num_layers / pp /
 * pp_dcn), as the generators count them (0 when the model has none). */
int64_t timeline_layers_of(const struct model_config *m);

/* The JSON text (malloc'ed; NULL when out of memory). title names the run
 * in the metadata ("llama3-8b on tpuv5p"); provenance (taken, may be NULL)
 * goes there too (study/run/config.h config_provenance). o may be NULL (ops). */
char *timeline_json(const struct trace *t, const char *title, cJSON *provenance, const struct timeline_opts *o);

#endif
