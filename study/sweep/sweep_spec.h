/* sweep_spec.h — the sweep spec file of `npusim sweep --spec` (docs/sweep-spec.md).
 *
 * A spec names the models, chips, chip counts and batch sizes to sweep and,
 * under "fields", lists or ranges of values for any model, chip or system
 * config field; the sweep is their cartesian product (with each family's
 * parallelism enumeration). Main data structure: struct sweep_spec, whose
 * fields (struct spec_field) keep a range as from/step/count, so a spec
 * costs memory in the number of fields, never in the number of points. Every
 * check that needs no simulation happens here: unknown keys, empty lists and
 * ranges, zero or negative steps, from > to, non-numeric bounds, values of
 * the wrong JSON type for the field. */
#ifndef NPUSIM_STUDY_SWEEP_SPEC_H
#define NPUSIM_STUDY_SWEEP_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "traces/fields.h"

#define SPEC_MAX_FIELDS 64

/* One swept config field: a list of JSON values or a numeric range. */
struct spec_field {
    char key[256];                   /* "hbm_bw_GBps", "unet_config.num_heads" */
    enum field_type type;
    const cJSON *list;               /* a JSON array (owned by the spec's root), or NULL */
    double from, step;               /* a range: from + i * step, i < count */
    int64_t count;
};

/* An integer list given as a list or a range (num_chips, batch_sizes). */
struct spec_ints {
    int64_t from, step, count;       /* a range */
    const cJSON *list;               /* or a JSON array of positive integers */
};

struct sweep_spec {
    cJSON *root;
    const char *workload;            /* "inference" / "training", or NULL */
    const cJSON *models, *chips;     /* arrays of strings, or NULL */
    struct spec_ints num_chips, batches;  /* count 0 = not given */
    struct spec_field *fields;
    int nfields;
};

/* Parses spec text; `file` names it in messages ("FILE: fields.num_sa: ...").
 * On failure nothing is left allocated (sweep_spec_free stays harmless). */
int sweep_spec_parse(const char *text, const char *file, struct sweep_spec *s, struct npu_err *e);
/* Reads and parses a spec file. */
int sweep_spec_load(const char *path, struct sweep_spec *s, struct npu_err *e);
void sweep_spec_free(struct sweep_spec *s);

/* The i-th value (0-based, i < count) of a field as a new cJSON (caller deletes). */
cJSON *spec_field_value(const struct spec_field *f, int64_t i);
/* Number of values of an int list. */
/* The largest chip count or batch a sweep takes: the upper bound of the model
 * field it sets ("num_chips", "global_batch_size"), as a config file's value
 * is bounded (docs/configs.md). */
int64_t sweep_int_max(const char *field);
int64_t spec_ints_count(const struct spec_ints *l);
int64_t spec_ints_value(const struct spec_ints *l, int64_t i);

#endif
