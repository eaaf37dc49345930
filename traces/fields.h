/* fields.h — table-driven config structs: defaults, JSON loading, --set, dumping.
 *
 * Each config struct (chip, model, system) is described once by a table of
 * struct field_desc: key, type, offset, default and checks. The same table
 * sets defaults, reads a cJSON object (naming the file and field on error),
 * applies `--set key=value` overrides and writes the struct back as JSON (the
 * "sim_config" block of the statistics). Tables are data, not code. */
#ifndef NPUSIM_FIELDS_H
#define NPUSIM_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/err.h"

enum field_type { FT_INT, FT_DOUBLE, FT_BOOL, FT_STR, FT_INT_LIST, FT_LAYERS, FT_MEM_LEVELS };

/* Checks applied after loading. */
enum {
    FF_REQUIRED = 1 << 0,  /* must be present in the JSON */
    FF_POSITIVE = 1 << 1,  /* > 0 */
    FF_NONNEG   = 1 << 2,  /* >= 0 */
    FF_RATE     = 1 << 3,  /* a bandwidth or frequency: at least FIELD_RATE_MIN */
    FF_EXT      = 1 << 4,  /* npusim's own field, not the reference's: left out of the
                            * dump when it must list only the reference's keys */
};

/* The ranges every field is checked against when loaded, unless its entry
 * names its own (lo, hi). They bound what a user's input can drive: sizes and
 * counts multiply into int64 element, byte and nanosecond counts, so no
 * config value may be larger than a real machine or model could be by many
 * orders of magnitude. docs/configs.md lists them per field. */
#define FIELD_INT_MAX 16777216.0          /* integers: 2^24 (tokens, dimensions, layers, counts) */
#define FIELD_LIST_ITEM_MAX 1099511627776.0 /* integer list items (table rows): 2^40 */
#define FIELD_NUM_MAX 1e15                /* numbers (rates, powers, carbon) */
#define FIELD_RATE_MIN 1e-3               /* GB/s, GHz: below this a time overflows */
#define FIELD_RATE_MAX 1e9                /* GB/s (an exabyte per second) */
#define FIELD_UNITS_MAX 65536.0           /* a chip's unit counts and array sides (num_sa, sa_dim, ...) */

#define FIELD_STR_MAX 256
#define FIELD_LIST_MAX 64

/* An int list stored inline (e.g. DLRM table sizes). */
struct int_list {
    int n;
    int64_t v[FIELD_LIST_MAX];
};

/* A list of MLP layers: [{"in_features": I, "out_features": O, ...}, ...]. */
struct mlp_layers {
    int n;
    struct { int64_t in_features, out_features; } l[FIELD_LIST_MAX];
};

/* A chip's on-chip memory levels, innermost first: [{"name": "smem",
 * "capacity_KiB": 228, "fill_GBps": 5500}, ...] (chipsim/chip.h). Names are
 * [a-z0-9_], capacities grow outward. */
#define MEM_LEVELS_MAX 4
#define MEM_LEVEL_NAME_MAX 16
struct mem_levels {
    int n;
    struct {
        char name[MEM_LEVEL_NAME_MAX];
        double capacity_KiB;     /* per instance (per SM for shared memory, per chip for L2) */
        double fill_GBps;        /* the rate the next level out fills it, all instances together */
    } l[MEM_LEVELS_MAX];
};

/* A key may be a dotted path into nested objects ("unet_config.model_channels").
 * FT_INT_LIST defaults come from def_str as comma-separated integers. */
struct field_desc {
    const char *key;
    enum field_type type;
    size_t offset;        /* offsetof(struct, member); FT_STR members are char[FIELD_STR_MAX] */
    double def_num;       /* default for FT_INT / FT_DOUBLE / FT_BOOL */
    const char *def_str;  /* default for FT_STR */
    unsigned flags;
    double lo, hi;        /* the allowed range; both 0: the default for the type and flags */
    const char *one_of;   /* FT_STR: the allowed values, '|'-separated; NULL: any text */
    const char *doc;      /* what the field means, one or two sentences (docs/configs.md) */
    const char *unit;     /* its unit when the key's suffix does not say it (fields_unit) */
};

/* A table entry: FIELD(key, type, offset, default number, default text, flags),
 * then optional designated members (.lo, .hi, .one_of, .unit) and .doc,
 * which every entry has (a unit test checks it). */
#define FIELD(k, ty, off, num, str, fl, ...) \
    { .key = (k), .type = (ty), .offset = (off), .def_num = (num), .def_str = (str), .flags = (fl), __VA_ARGS__ }

struct field_table {
    const char *what;     /* "chip", "model", "system": used in messages */
    const struct field_desc *f;
    size_t n;
};

/* Where each key of a merged config came from: an object mapping key -> file
 * name (string). May be NULL; then messages say "<config>". */
typedef const cJSON field_sources;

void fields_set_defaults(const struct field_table *t, void *obj);
/* Reads every key of the table present in json into obj (the rest keep their
 * values), then applies the checks. Lax coercion as the reference: a number
 * for a double, an integral number (or numeric string) for an int. */
int fields_from_json(const struct field_table *t, void *obj, const cJSON *json,
                     field_sources *src, struct npu_err *e);
bool fields_has_key(const struct field_table *t, const char *key);
/* Adds every field of obj to the cJSON object `into` (doubles as Python repr);
 * FF_EXT fields only when with_ext. */
void fields_to_json(const struct field_table *t, const void *obj, cJSON *into, bool with_ext);
/* The range a numeric field (or an int list's items) is checked against. */
void fields_range(const struct field_desc *f, double *lo, double *hi);
const struct field_desc *fields_find(const struct field_table *t, const char *key);
/* The field's unit: its .unit, else the one its key's suffix names ("_GBps":
 * "GB/s", "_ns": "ns", "tflops.": "TFLOP/s", ...), else "" (a count or a ratio). */
const char *fields_unit(const struct field_desc *f);
/* The unit a key's suffix names (the rule above, for any table's keys:
 * power-gating strategy files follow it too); "" when none. */
const char *fields_key_unit(const char *key);
/* "integer", "number", "boolean", "text", ...: a type as the references name it. */
const char *fields_type_name(enum field_type t);
/* The field key among cands a misspelt key most likely meant, or NULL: a
 * typo (suggest_closest: at most 2 edits), else the key in another case
 * ("HBM_BW_GBPS"), else the shortest key it begins ("hbm_bw": "hbm_bw_GBps",
 * for keys of 3 characters or more). For "did you mean" in field errors. */
const char *fields_suggest(const char *key, const char *const *cands, size_t n);
/* Appends ` (did you mean "X"?)` to buf (size n) when fields_suggest finds X; else "". */
void fields_suggest_hint(char *buf, size_t n, const char *key, const char *const *cands, size_t ncands);

#endif
