/* pg.c — power-gating strategies as data, and DVFS policy names (see pg.h).
 *
 * Two tables carry everything: `builtin[]`, the reference's named strategies
 * (power.md §4.2) field by field, and `fields[]`, the JSON schema (key, kind,
 * offset into struct pg_strategy, enum spellings) used both to read a
 * strategy file and to write one. configs/pg/<Name>.json hold the same
 * strategies as the built-in table; a unit test keeps the two equal. Named
 * lookups then apply the sensitivity suffixes of §4.3. */
#include "power/pg.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "traces/fields.h"
#include "base/json_strict.h"
#include "base/pyfmt.h"
#include "base/textfile.h"

/* ------------------------------------------------------------------------ */
/* Built-in strategies                                                       */

/* Component initialisers: levels {1.0, gated}; fields a component lacks in
 * the reference keep fixed placeholder values (never read). */
#define PGC(en, pol, tmp, spa, g, d)                                                          \
    .enabled = en, .policy = pol, .temporal = tmp, .spatial = spa, .voltage = PG_TWO_LEVEL, \
    .n_levels = 2, .levels = {1.0, g}, .delay_cycles = d
#define SA_(en, tmp, spa, g, pe, d) \
    { PGC(en, PG_HW, tmp, spa, g, d), .n_shape = 2, .shape = {128, 128}, .pe_delay_cycles = pe }
#define VU_(en, pol, tmp, spa, g, d) { PGC(en, pol, tmp, spa, g, d), .n_shape = 2, .shape = {8, 128} }
#define VMEM_(en, pol, tmp, spa, g, d) \
    { PGC(en, pol, tmp, spa, g, d), .drowsy_period_cycles = 2000, .partition_size_bytes = 2 << 20 }
#define ICI_(en, tmp, g, d) { PGC(en, PG_HW, tmp, PG_COMPONENT, g, d) }
#define HBM_(en, pol, g, d) { PGC(en, pol, PG_INSTRUCTION, PG_COMPONENT, g, d) }
#define OTHER_ { PGC(false, PG_HW, PG_INSTRUCTION, PG_COMPONENT, 0.0, 0) }
#define REFRESH .hbm_refresh_interval_ns = 3900, .hbm_refresh_delay_ns = 400

/* Short names for the table below. */
#define I PG_INSTRUCTION
#define O PG_OPERATOR
#define FINE PG_FINE
#define PART PG_PARTITION
#define COMP PG_COMPONENT

/* Entry 0 holds the §4.1 defaults; the others are power.md §4.2. */
static const struct pg_strategy builtin[] = {
    {"PowerGatingConfig", SA_(false, I, COMP, 0.0, 1, 10), VU_(false, PG_HW, I, COMP, 0.0, 2),
     VMEM_(false, PG_HW, I, PART, 0.0, 10), ICI_(false, I, 0.0, 10), HBM_(false, PG_HW, 0.1, 60), OTHER_,
     REFRESH},
    {"NoPG", SA_(false, I, COMP, 0.0, 1, 10), VU_(false, PG_HW, I, COMP, 0.0, 2),
     VMEM_(false, PG_HW, I, PART, 0.0, 10), ICI_(false, I, 0.0, 10), HBM_(false, PG_HW, 0.1, 60), OTHER_,
     REFRESH},
    {"ideal_inst_component", SA_(true, I, COMP, 0.0, 1, 10), VU_(true, PG_HW, I, COMP, 0.0, 2),
     VMEM_(true, PG_HW, I, PART, 0.0, 10), ICI_(true, I, 0.0, 10), HBM_(false, PG_HW, 0.1, 60), OTHER_,
     REFRESH},
    {"ideal_op_component", SA_(true, O, COMP, 0.0, 1, 10), VU_(true, PG_HW, O, COMP, 0.0, 2),
     VMEM_(true, PG_HW, O, PART, 0.0, 10), ICI_(true, O, 0.0, 10), HBM_(false, PG_HW, 0.1, 60), OTHER_,
     REFRESH},
    {"Ideal", SA_(true, I, FINE, 0.0, 0, 0), VU_(true, PG_HW, I, FINE, 0.0, 0),
     VMEM_(true, PG_HW, I, FINE, 0.0, 0), ICI_(true, I, 0.0, 0), HBM_(true, PG_SW, 0.1, 0), OTHER_,
     REFRESH},
    {"Base", SA_(true, I, COMP, 0.05, 1, 10), VU_(true, PG_HW, I, COMP, 0.03, 2),
     VMEM_(true, PG_HW, I, FINE, 0.25, 4), ICI_(true, I, 0.03, 60), HBM_(true, PG_HW, 0.1, 60), OTHER_,
     REFRESH},
    {"HW", SA_(true, I, FINE, 0.03, 1, 10), VU_(true, PG_HW, I, COMP, 0.03, 2),
     VMEM_(true, PG_HW, I, FINE, 0.25, 4), ICI_(true, I, 0.03, 60), HBM_(true, PG_HW, 0.1, 60), OTHER_,
     REFRESH},
    {"Full", SA_(true, I, FINE, 0.03, 1, 10), VU_(true, PG_SW, I, COMP, 0.03, 2),
     VMEM_(true, PG_SW, I, FINE, 0.0002, 10), ICI_(true, I, 0.03, 60), HBM_(true, PG_SW, 0.1, 60), OTHER_,
     REFRESH},
};
#undef I
#undef O
#undef FINE
#undef PART
#undef COMP
#define NBUILTIN ((int)(sizeof builtin / sizeof builtin[0]))

int pg_builtin_count(void) { return NBUILTIN - 1; }
const struct pg_strategy *pg_builtin(int i) { return i >= 0 && i < NBUILTIN - 1 ? &builtin[i + 1] : NULL; }
void pg_strategy_default(struct pg_strategy *s) { *s = builtin[0]; }

/* Doubles compare as bits: NaN matches itself, -0.0 differs from 0.0. */
static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static const struct pg_strategy *builtin_named(const char *name)
{
    for (int i = 1; i < NBUILTIN; i++)
        if (strcmp(builtin[i].name, name) == 0)
            return &builtin[i];
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* The JSON schema                                                           */

struct pg_name {
    const char *s;
    int v;
};
static const struct pg_name bool_names[] = {{NULL, 0}};
static const struct pg_name policy_names[] = {{"HW", PG_HW}, {"SW", PG_SW}, {NULL, 0}};
static const struct pg_name temporal_names[] = {
    {"INSTRUCTION", PG_INSTRUCTION}, {"OPERATOR", PG_OPERATOR}, {"APPLICATION", PG_APPLICATION}, {NULL, 0}};
static const struct pg_name sa_spatial[] = {{"PE", PG_FINE}, {"PARTITION", PG_PARTITION}, {"COMPONENT", PG_COMPONENT}, {NULL, 0}};
static const struct pg_name vu_spatial[] = {{"ALU", PG_FINE}, {"PARTITION", PG_PARTITION}, {"COMPONENT", PG_COMPONENT}, {NULL, 0}};
static const struct pg_name vmem_spatial[] = {{"REGISTER_SIZE", PG_FINE}, {"PARTITION", PG_PARTITION}, {NULL, 0}};
static const struct pg_name ici_spatial[] = {{"LINK", PG_FINE}, {"COMPONENT", PG_COMPONENT}, {NULL, 0}};
static const struct pg_name voltage_names[] = {{"TWO_LEVEL", PG_TWO_LEVEL}, {"MULTI_LEVEL", PG_MULTI_LEVEL}, {NULL, 0}};

enum pf_kind { PF_NAME, PF_BOOL, PF_ENUM, PF_LEVELS, PF_SHAPE, PF_CYCLES, PF_BYTES };

struct pg_field {
    const char *key;
    enum pf_kind kind;
    size_t off;                   /* into struct pg_strategy */
    const struct pg_name *names;  /* PF_ENUM */
    const char *doc;              /* its meaning (docs/configs.md) */
};

#define F(key, kind, member, names, doc) { key, kind, offsetof(struct pg_strategy, member), names, doc }
#define COMPONENT_HEAD(P, c, names, WHAT, POLICY_DOC, SPATIAL_DOC)                                        \
    F(P "_PG_enabled", PF_BOOL, c.enabled, bool_names, "Gate " WHAT "."),                                \
    F(P "_PG_policy", PF_ENUM, c.policy, policy_names, POLICY_DOC),                                       \
    F(P "_temporal_granularity", PF_ENUM, c.temporal, temporal_names,                                     \
      "How often the gate may switch: per instruction or per operator (APPLICATION is not implemented)."), \
    F(P "_spatial_granularity", PF_ENUM, c.spatial, names, SPATIAL_DOC)
#define LEVELS_DOC "Power at each level relative to leakage, highest first; the last is the gated power."
#define UNUSED_DOC "Unused (read and kept, as the reference keeps it)."

/* Key order = the reference class's field order = the order files are written in. */
static const struct pg_field fields[] = {
    F("name", PF_NAME, name, NULL, "The strategy's label (a file without it: its file name)."),
    COMPONENT_HEAD("SA", sa, sa_spatial, "the systolic arrays", UNUSED_DOC,
                   "PE: gate idle PEs by utilisation; COMPONENT: the whole array when idle (PARTITION is not "
                   "implemented)."),
    F("sa_partition_shapes", PF_SHAPE, sa, NULL, UNUSED_DOC),
    F("sa_power_level_factors", PF_LEVELS, sa, NULL, LEVELS_DOC),
    F("sa_pe_pg_delay_cycles", PF_CYCLES, sa.pe_delay_cycles, NULL, "Wake-up delay of a PE (PE granularity)."),
    F("sa_pg_delay_cycles", PF_CYCLES, sa.delay_cycles, NULL,
      "Wake-up delay of a whole array (COMPONENT granularity: its overhead and break-even time)."),
    COMPONENT_HEAD("VU", vu, vu_spatial, "the vector units",
                   "HW: idle detection, which adds wake-up time; SW: the compiler's setpm instructions, counted.",
                   "ALU: gate idle ALUs by utilisation; COMPONENT: the whole unit (PARTITION is not implemented)."),
    F("vu_partition_shapes", PF_SHAPE, vu, NULL, UNUSED_DOC),
    F("vu_power_level_factors", PF_LEVELS, vu, NULL, LEVELS_DOC),
    F("vu_pg_delay_cycles", PF_CYCLES, vu.delay_cycles, NULL, "Wake-up delay of a vector unit."),
    COMPONENT_HEAD("vmem", vmem, vmem_spatial, "unused vector memory",
                   "HW: a drowsy mode, which widens the energy window; SW: one setpm per operator.",
                   "REGISTER_SIZE: 4 KiB units; PARTITION: vmem_partition_size_bytes units."),
    F("vmem_voltage_granularity", PF_ENUM, vmem.voltage, voltage_names,
      "Voltage levels of the vector memory (MULTI_LEVEL is not implemented)."),
    F("vmem_power_level_factors", PF_LEVELS, vmem, NULL, LEVELS_DOC),
    F("vmem_partition_size_bytes", PF_BYTES, vmem.partition_size_bytes, NULL, "Size of a vector-memory partition."),
    F("vmem_partition_pg_delay_cycles", PF_CYCLES, vmem.delay_cycles, NULL, "Wake-up delay of a partition (HW policy)."),
    F("vmem_HW_drowsy_period_cycles", PF_CYCLES, vmem.drowsy_period_cycles, NULL, "Period of the HW drowsy sweep."),
    COMPONENT_HEAD("ici", ici, ici_spatial, "the inter-chip links", UNUSED_DOC,
                   "COMPONENT: every link together (LINK is not implemented)."),
    F("ici_power_level_factors", PF_LEVELS, ici, NULL, LEVELS_DOC),
    F("ici_pg_delay_cycles", PF_CYCLES, ici.delay_cycles, NULL, "Wake-up delay of the links (twice per operator with ICI traffic)."),
    F("hbm_PG_enabled", PF_BOOL, hbm.enabled, bool_names, "Gate HBM between DMA bursts."),
    F("hbm_PG_policy", PF_ENUM, hbm.policy, policy_names,
      "SW: gate when the idle gap is at least the break-even time; HW: at least 4 times it, adding wake-up time."),
    F("hbm_power_level_factors", PF_LEVELS, hbm, NULL, LEVELS_DOC " HBM's (0.1) is the refresh cost."),
    F("hbm_refresh_interval_ns", PF_BYTES, hbm_refresh_interval_ns, NULL, UNUSED_DOC),
    F("hbm_refresh_delay_ns", PF_BYTES, hbm_refresh_delay_ns, NULL, UNUSED_DOC),
    F("hbm_pg_delay_cycles", PF_CYCLES, hbm.delay_cycles, NULL, "Wake-up delay of HBM."),
    F("other_PG_enabled", PF_BOOL, other.enabled, bool_names, "Must stay false: gating the rest of the chip is not supported."),
    F("other_PG_policy", PF_ENUM, other.policy, policy_names, UNUSED_DOC),
    F("other_power_level_factors", PF_LEVELS, other, NULL, "Set by _vary_Vth_; otherwise unused."),
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static const char *enum_spelling(const struct pg_name *n, int v)
{
    for (; n->s; n++)
        if (n->v == v)
            return n->s;
    return "?";
}

/* Comma-separated spellings, for messages. */
static void enum_list(const struct pg_name *n, char *buf, size_t size)
{
    buf[0] = '\0';
    for (; n->s; n++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? ", " : "", n->s);
}

/* Bounds of a strategy's numbers: a partition shape's side (2^20), and a
 * delay in cycles (10^12, minutes at any clock): past them no chip exists
 * and products of them leave int64. */
#define PG_SHAPE_MAX 1048576.0
#define PG_CYCLES_MAX 1e12

static bool finite_nonneg(const cJSON *v) { return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0; }

static int read_field(const struct pg_field *f, const cJSON *v, struct pg_strategy *s, const char *what,
                      struct npu_err *e)
{
    char *p = (char *)s + f->off;
    char list[128];
    switch (f->kind) {
    case PF_NAME:
        if (!cJSON_IsString(v) || strlen(v->valuestring) >= sizeof s->name)
            return npu_errf(e, "%s: field \"%s\": expected a string of at most %zu characters", what, f->key,
                            sizeof s->name - 1);
        strcpy(s->name, v->valuestring);
        return 0;
    case PF_BOOL:
        if (!cJSON_IsBool(v))
            return npu_errf(e, "%s: field \"%s\": expected true or false", what, f->key);
        *(bool *)p = cJSON_IsTrue(v);
        return 0;
    case PF_ENUM:
        if (cJSON_IsString(v))
            for (const struct pg_name *n = f->names; n->s; n++)
                if (strcmp(n->s, v->valuestring) == 0) {
                    *(int *)p = n->v;
                    return 0;
                }
        enum_list(f->names, list, sizeof list);
        return npu_errf(e, "%s: field \"%s\": expected one of %s, got %s%s%s", what, f->key, list,
                        cJSON_IsString(v) ? "\"" : "", cJSON_IsString(v) ? v->valuestring : "a non-string",
                        cJSON_IsString(v) ? "\"" : "");
    case PF_LEVELS:
    case PF_SHAPE: {
        struct pg_component *c = (struct pg_component *)p;
        int n = cJSON_GetArraySize(v);
        if (!cJSON_IsArray(v) || n < 1 || n > PG_MAX_LEVELS)
            return npu_errf(e, "%s: field \"%s\": expected a list of 1 to %d numbers", what, f->key, PG_MAX_LEVELS);
        int k = 0;
        for (const cJSON *x = v->child; x; x = x->next, k++) {
            /* A shape's items are PE rows, columns or lanes: int64 products of them stay exact. */
            if (!finite_nonneg(x) || (f->kind == PF_SHAPE && (x->valuedouble != floor(x->valuedouble) ||
                                                            x->valuedouble > PG_SHAPE_MAX)))
                return npu_errf(e, "%s: field \"%s\": item %d: expected a non-negative %s", what, f->key, k,
                                f->kind == PF_SHAPE ? "integer of at most 1048576" : "number");
            if (f->kind == PF_LEVELS)
                c->levels[k] = x->valuedouble;
            else
                c->shape[k] = (int64_t)x->valuedouble;
        }
        if (f->kind == PF_LEVELS)
            c->n_levels = n;
        else
            c->n_shape = n;
        return 0;
    }
    case PF_CYCLES:
        if (!finite_nonneg(v) || v->valuedouble > PG_CYCLES_MAX)
            return npu_errf(e, "%s: field \"%s\": expected a number of cycles from 0 to 1e12", what, f->key);
        *(double *)p = v->valuedouble + 0.0;   /* -0 cycles are 0 (and write back as 0) */
        return 0;
    case PF_BYTES:
        if (!finite_nonneg(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble > 9.0e15 ||
            (f->off == offsetof(struct pg_strategy, vmem.partition_size_bytes) && v->valuedouble < 1))
            return npu_errf(e, "%s: field \"%s\": expected a %s integer", what, f->key,
                            f->off == offsetof(struct pg_strategy, vmem.partition_size_bytes) ? "positive"
                                                                                              : "non-negative");
        *(int64_t *)p = (int64_t)v->valuedouble;
        return 0;
    }
    return npu_errf(e, "%s: field \"%s\": unsupported", what, f->key);
}

int pg_strategy_from_json_text(const char *text, const char *what, struct pg_strategy *out, struct npu_err *e)
{
    struct npu_err pe;
    cJSON *j = json_parse_strict(text, strlen(text), what, &pe);
    if (!j)
        return npu_errf(e, "%s", pe.msg);
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return npu_errf(e, "%s: expected a JSON object of power-gating fields", what);
    }
    struct pg_strategy s = *out;
    for (const cJSON *v = j->child; v; v = v->next) {
        const struct pg_field *f = NULL;
        for (size_t i = 0; i < NFIELDS && !f; i++)
            if (strcmp(fields[i].key, v->string) == 0)
                f = &fields[i];
        if (!f) {
            const char *keys[NFIELDS];
            char hint[128];
            for (size_t i = 0; i < NFIELDS; i++)
                keys[i] = fields[i].key;
            suggest_hint(hint, sizeof hint, v->string, keys, NFIELDS);
            npu_errf(e, "%s: unknown field \"%s\"%s (docs/configs.md lists the fields)", what, v->string,
                     hint);
            cJSON_Delete(j);
            return -1;
        }
        if (read_field(f, v, &s, what, e)) {
            cJSON_Delete(j);
            return -1;
        }
    }
    cJSON_Delete(j);
    *out = s;
    return 0;
}

static void put_num(FILE *f, double x)
{
    char buf[40];
    if (x == floor(x) && fabs(x) < 1e15)
        fprintf(f, "%lld", (long long)x);
    else
        fputs(py_repr_double(x, buf, sizeof buf), f);
}

/* s as a JSON string: quotes, backslashes and control characters escaped,
 * so that a strategy named by its file reads back. */
static void put_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* One field's value in s as JSON text. */
static void put_field(FILE *f, const struct pg_field *d, const struct pg_strategy *s)
{
    const char *p = (const char *)s + d->off;
    switch (d->kind) {
    case PF_NAME: put_json_string(f, s->name); break;
    case PF_BOOL: fputs(*(const bool *)p ? "true" : "false", f); break;
    case PF_ENUM: fprintf(f, "\"%s\"", enum_spelling(d->names, *(const int *)p)); break;
    case PF_LEVELS:
    case PF_SHAPE: {
        const struct pg_component *c = (const struct pg_component *)p;
        int n = d->kind == PF_LEVELS ? c->n_levels : c->n_shape;
        fputc('[', f);
        for (int k = 0; k < n; k++) {
            if (k)
                fputs(", ", f);
            if (d->kind == PF_LEVELS) {
                char buf[40];
                fputs(py_repr_double(c->levels[k], buf, sizeof buf), f);
            } else {
                fprintf(f, "%lld", (long long)c->shape[k]);
            }
        }
        fputc(']', f);
        break;
    }
    case PF_CYCLES: put_num(f, *(const double *)p); break;
    case PF_BYTES: fprintf(f, "%lld", (long long)*(const int64_t *)p); break;
    }
}

int pg_strategy_write_json(const struct pg_strategy *s, FILE *f)
{
    fputs("{\n", f);
    for (size_t i = 0; i < NFIELDS; i++) {
        fprintf(f, "  \"%s\": ", fields[i].key);
        put_field(f, &fields[i], s);
        fputs(i + 1 < NFIELDS ? ",\n" : "\n", f);
    }
    fputs("}\n", f);
    return ferror(f) ? -1 : 0;
}

int pg_field_count(void) { return (int)NFIELDS; }

void pg_field_describe(int i, struct pg_field_doc *out)
{
    /* Per kind: its type and the values read_field accepts; the unit is the
     * key's suffix's, as for config fields (_cycles, _bytes, _ns). */
    static const struct { const char *type, *allowed; } kinds[] = {
        [PF_NAME] = { "text", "text, at most 255 characters" },
        [PF_BOOL] = { "boolean", "true or false" },
        [PF_ENUM] = { "text", NULL },
        [PF_LEVELS] = { "number list", "numbers, each at least 0" },
        [PF_SHAPE] = { "integer list", "integers, each 0 to 1048576" },
        [PF_CYCLES] = { "number", "0 to 1e12" },
        [PF_BYTES] = { "integer", "0 to 9e15" },
    };
    const struct pg_field *d = &fields[i];
    out->key = d->key;
    out->type = kinds[d->kind].type;
    out->unit = fields_key_unit(d->key);
    out->doc = d->doc;
    out->allowed[0] = '\0';
    if (d->kind == PF_ENUM)
        for (const struct pg_name *n = d->names; n->s; n++)
            snprintf(out->allowed + strlen(out->allowed), sizeof out->allowed - strlen(out->allowed), "%s`%s`",
                     n == d->names ? "" : ", ", n->s);
    else if (d->kind == PF_LEVELS || d->kind == PF_SHAPE)
        snprintf(out->allowed, sizeof out->allowed, "1 to %d %s", PG_MAX_LEVELS, kinds[d->kind].allowed);
    else
        snprintf(out->allowed, sizeof out->allowed, "%s",
                 d->off == offsetof(struct pg_strategy, vmem.partition_size_bytes) ? "1 to 9e15" : kinds[d->kind].allowed);
}

void pg_field_write(int i, const struct pg_strategy *s, FILE *f) { put_field(f, &fields[i], s); }

bool pg_strategy_equal(const struct pg_strategy *a, const struct pg_strategy *b)
{
    if (strcmp(a->name, b->name) || a->hbm_refresh_interval_ns != b->hbm_refresh_interval_ns ||
        a->hbm_refresh_delay_ns != b->hbm_refresh_delay_ns)
        return false;
    const struct pg_component *ca = &a->sa, *cb = &b->sa;
    for (int i = 0; i < 6; i++, ca++, cb++) {
        if (ca->enabled != cb->enabled || ca->policy != cb->policy || ca->temporal != cb->temporal ||
            ca->spatial != cb->spatial || ca->voltage != cb->voltage || ca->n_levels != cb->n_levels ||
            ca->n_shape != cb->n_shape || !same_bits(ca->delay_cycles, cb->delay_cycles) ||
            !same_bits(ca->pe_delay_cycles, cb->pe_delay_cycles) ||
            !same_bits(ca->drowsy_period_cycles, cb->drowsy_period_cycles) ||
            ca->partition_size_bytes != cb->partition_size_bytes)
            return false;
        for (int k = 0; k < ca->n_levels; k++)
            if (!same_bits(ca->levels[k], cb->levels[k]))
                return false;
        for (int k = 0; k < ca->n_shape; k++)
            if (ca->shape[k] != cb->shape[k])
                return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Lookup                                                                    */

static int load_file(const char *path, struct pg_strategy *s, struct npu_err *e)
{
    size_t len;
    struct npu_err why;
    char *text = text_read_file(path, &len, &why);
    if (!text)
        return npu_errf(e, "power-gating strategy file %s", why.msg);
    int rc = pg_strategy_from_json_text(text, path, s, e);
    free(text);
    return rc;
}

/* The base strategy a name maps to, as the reference matches it (power Q14):
 * exact names, then the prefixes Base, HW, Full. Corrected (exact): Base,
 * HW or Full alone or followed by "_vary_Vth_" or "_vary_PG_delay_". */
static const struct { const char *name, *base; } exact[] = {
    {"disabled", "NoPG"}, {"NoPG", "NoPG"}, {"ideal_inst_component", "ideal_inst_component"},
    {"ideal_op_component", "ideal_op_component"}, {"ideal_inst_PE_ALU", "Ideal"}, {"Ideal", "Ideal"},
};
static const char *const prefixes[] = {"Base", "HW", "Full"};
#define NEXACT (sizeof exact / sizeof exact[0])
#define NPREFIXES (sizeof prefixes / sizeof prefixes[0])

static const char *base_of(const char *name, bool prefixes_match)
{
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(name, exact[i].name) == 0)
            return exact[i].base;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(name, prefixes[i], n) != 0)
            continue;
        if (prefixes_match || name[n] == '\0' || strncmp(name + n, "_vary_Vth_", 10) == 0 ||
            strncmp(name + n, "_vary_PG_delay_", 15) == 0)
            return prefixes[i];
    }
    return NULL;
}

/* Python float() of the k-th '_'-separated token from the end (k = 1: last). */
static int suffix_number(const char *name, int k, const char *what, double lo, double hi, double *out,
                         struct npu_err *e)
{
    const char *end = name + strlen(name), *start = end;
    for (int i = 0; i < k; i++) {
        if (i)
            end = start - 1;
        if (end < name)
            return npu_errf(e, "power-gating strategy \"%s\": %s: missing value", name, what);
        start = end;
        while (start > name && start[-1] != '_')
            start--;
    }
    char tok[64];
    size_t n = (size_t)(end - start);
    if (n == 0 || n >= sizeof tok)
        return npu_errf(e, "power-gating strategy \"%s\": %s: expected a number, got \"%.*s\"", name, what,
                        (int)n, start);
    memcpy(tok, start, n);
    tok[n] = '\0';
    char *stop;
    errno = 0;
    double x = strtod(tok, &stop);
    if (*stop || errno || !isfinite(x) || isspace((unsigned char)tok[0]))
        return npu_errf(e, "power-gating strategy \"%s\": %s: expected a number, got \"%s\"", name, what, tok);
    if (!(x >= lo && x <= hi))
        return npu_errf(e, "power-gating strategy \"%s\": %s: expected a number from %g to %g, got \"%s\"",
                        name, what, lo, hi, tok);
    *out = x;
    return 0;
}

int pg_strategy_lookup(const char *name, const char *configs_dir, const struct profile *prof,
                       struct pg_strategy *out, struct npu_err *e)
{
    size_t len = strlen(name);
    if (strchr(name, '/') || (len > 5 && strcmp(name + len - 5, ".json") == 0)) {
        struct pg_strategy s;
        pg_strategy_default(&s);
        /* A file without "name" is labelled by its base name. */
        const char *b = path_base(name);
        size_t bl = strlen(b);
        if (bl > 5 && strcmp(b + bl - 5, ".json") == 0)
            bl -= 5;
        snprintf(s.name, sizeof s.name, "%.*s", (int)(bl < sizeof s.name ? bl : sizeof s.name - 1), b);
        if (load_file(name, &s, e))
            return -1;
        *out = s;
        return 0;
    }
    const char *base = base_of(name, prof->pg_strategy_quirks);
    if (!base) {
        const char *named[NPREFIXES + NEXACT];   /* what base_of matches: the closest one's hint */
        for (size_t i = 0; i < NPREFIXES; i++)
            named[i] = prefixes[i];
        for (size_t i = 0; i < NEXACT; i++)
            named[NPREFIXES + i] = exact[i].name;
        char hint[128];
        suggest_hint(hint, sizeof hint, name, named, NPREFIXES + NEXACT);
        return npu_errf(e, "power-gating strategy \"%s\"%s: unknown (NoPG, Base, HW, Full, Ideal, "
                        "ideal_inst_component, ideal_op_component, <Base|HW|Full>_vary_PG_delay_<k>, "
                        "<Base|HW|Full>_vary_Vth_<a>_<b>, or a path to a JSON file)", name, hint);
    }
    if (len >= sizeof out->name)
        return npu_errf(e, "power-gating strategy \"%.40s...\": name longer than %zu characters", name,
                        sizeof out->name - 1);
    struct pg_strategy s;
    char path[4096];
    FILE *probe = NULL;
    if (configs_dir && snprintf(path, sizeof path, "%s/pg/%s.json", configs_dir, base) < (int)sizeof path)
        probe = fopen(path, "rb");
    if (probe) {
        fclose(probe);
        pg_strategy_default(&s);
        if (load_file(path, &s, e))
            return -1;
    } else {
        s = *builtin_named(base);
    }
    if (strstr(name, "vary_Vth")) {
        /* "<base>_vary_Vth_<a>_<b>": a for SA, VU, ICI, HBM, other; b for Vmem (power Q13). */
        double a = 0, b = 0;   /* set by suffix_number (initialised for -O3's flow analysis) */
        /* Both are the gated state's power as a share of the active one. */
        if (suffix_number(name, 2, "vary_Vth value", 0, 1, &a, e) ||
            suffix_number(name, 1, "vary_Vth SRAM value", 0, 1, &b, e))
            return -1;
        /* The reference also sets HBM's (its refresh cost) and other's (power Q13);
         * corrected: a threshold voltage is a logic property (SA, VU, ICI). */
        struct pg_component *cs[] = {&s.sa, &s.vu, &s.ici, &s.hbm, &s.other};
        size_t ncs = prof->pg_strategy_quirks ? 5 : 3;
        for (size_t i = 0; i < ncs; i++)
            cs[i]->levels[cs[i]->n_levels - 1] = a;
        s.vmem.levels[s.vmem.n_levels - 1] = b;
        snprintf(s.name, sizeof s.name, "%s", name);
    }
    if (strstr(name, "vary_PG_delay")) {
        /* "<base>_vary_PG_delay_<k>": component delays x k, rounded up; the SA
         * PE delay and the HBM delay stay (power Q13). */
        double k = 1;
        /* A ratio of delays; past 10^6 a delay outgrows any op (and int64 cycles). */
        if (suffix_number(name, 1, "vary_PG_delay ratio", 0, 1e6, &k, e))
            return -1;
        double *d[] = {&s.sa.delay_cycles, &s.vu.delay_cycles, &s.vmem.delay_cycles, &s.ici.delay_cycles,
                       &s.sa.pe_delay_cycles, &s.hbm.delay_cycles};
        size_t nd = prof->pg_strategy_quirks ? 4 : 6;   /* corrected: every delay (power Q13) */
        for (size_t i = 0; i < nd; i++)
            *d[i] = ceil(*d[i] * k);
        snprintf(s.name, sizeof s.name, "%s", name);
    }
    *out = s;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* DVFS policies                                                             */

int dvfs_policy_parse(const char *s, enum dvfs_policy *out, struct npu_err *e)
{
    static const struct { const char *name; int implemented; enum dvfs_policy p; } policies[] = {
        {"None", 1, DVFS_NONE}, {"Ideal", 1, DVFS_IDEAL}, {"DVFSC", 0, DVFS_NONE},
        {"Custom", 0, DVFS_NONE}, {"PerfDegrad", 0, DVFS_NONE},
    };
    if (s[0] == '\0' || strcmp(s, "None") == 0) {
        *out = DVFS_NONE;
        return 0;
    }
    size_t n = strcspn(s, "_");
    if (s[n] == '_') {
        /* "<Policy>_<x>": x is the performance-degradation percentage, parsed and unused. */
        const char *x = s + n + 1;
        size_t xl = strcspn(x, "_");
        char tok[64], *stop;
        if (xl == 0 || xl >= sizeof tok)
            return npu_errf(e, "DVFS policy \"%s\": expected <Policy>[_<number>]", s);
        memcpy(tok, x, xl);
        tok[xl] = '\0';
        strtod(tok, &stop);
        if (*stop || isspace((unsigned char)tok[0]))
            return npu_errf(e, "DVFS policy \"%s\": \"%s\" is not a number", s, tok);
    }
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++)
        if (strlen(policies[i].name) == n && strncmp(s, policies[i].name, n) == 0) {
            if (!policies[i].implemented)
                return npu_errf(e, "DVFS policy \"%s\": %s is not implemented (None, Ideal)", s, policies[i].name);
            *out = policies[i].p;
            return 0;
        }
    const char *known[sizeof policies / sizeof policies[0]];   /* the implemented ones, for the hint */
    size_t nk = 0;
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++)
        if (policies[i].implemented)
            known[nk++] = policies[i].name;
    char hint[64];
    suggest_hint(hint, sizeof hint, s, known, nk);
    return npu_errf(e, "DVFS policy \"%s\"%s: unknown (None, Ideal)", s, hint);
}

const char *dvfs_policy_name(enum dvfs_policy p) { return p == DVFS_IDEAL ? "Ideal" : "None"; }

int64_t pg_wake_ns(const struct pg_strategy *pg, double freq_GHz)
{
    if (!pg || !(freq_GHz > 0))
        return 0;
    const struct pg_component *g[] = { &pg->sa, &pg->vu, &pg->vmem, &pg->ici, &pg->hbm, &pg->other };
    double cycles = 0;
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
        if (g[i]->enabled && g[i]->delay_cycles > cycles)
            cycles = g[i]->delay_cycles;
    return (int64_t)ceil(cycles / freq_GHz);
}
