/* sweep_row.h — the rows of `npusim sweep --summary` (one CSV line per point).
 *
 * Columns: index (the global enumeration index: shards keep it, so `npusim
 * merge` can interleave them back into exactly the single-run file), the
 * point (model, workload, chip, chip count, parallel degrees, batch), its
 * status ("ok", "invalid: why", "error: message", "existing"), the figures of
 * struct row_result, then one column per swept spec field. Numbers are
 * written as Python's repr (shortest round-trip digits): exact, and the same
 * text the statistics JSON files use. */
#ifndef NPUSIM_STUDY_SWEEP_ROW_H
#define NPUSIM_STUDY_SWEEP_ROW_H

#include <stdbool.h>
#include <stdint.h>

#include "study/sweep/sweep_spec.h"
#include "opsgen/model.h"

enum row_status { ROW_OK, ROW_INVALID, ROW_ERROR, ROW_EXISTING };

struct row_result {
    enum row_status status;
    char msg[512];                   /* why invalid / the error */
    bool has_llm;                    /* LLM statistics below are set */
    double ttft_s, tpot_ms, prefill_tps, decode_tps;
    bool has_mem;                    /* the footprint per chip and OOM below are set */
    double mem_GiB;
    bool oom;
    bool has_cap;                    /* capacity figures below are set */
    const char *unit;                /* "output tokens", "requests", "iterations" */
    double throughput, energy_per_unit_J, carbon_per_unit_kg;
};

/* The header line (static storage per thread; ends in '\n'). */
const char *row_header(const struct spec_field *fields, int nfields);
/* One row (malloc'ed, ends in '\n'); field_csv = ",v1,v2" (already CSV). */
char *row_format(long index, const char *model, const char *workload, const char *chip,
                 const struct model_config *m, int64_t batch, const struct row_result *r,
                 const char *field_csv);

#endif
