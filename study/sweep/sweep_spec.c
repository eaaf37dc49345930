/* sweep_spec.c — parsing and checking sweep specs (see sweep_spec.h). */
#include "study/sweep/sweep_spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chipsim/chip.h"
#include "study/run/run.h"
#include "base/json_strict.h"
#include "opsgen/model.h"
#include "power/system.h"
#include "base/textfile.h"

/* Values beyond 2^53 are not exact integers in JSON doubles. */
#define MAX_EXACT 9007199254740992.0
/* A field or list with more values than this is surely a typo (step too small). */
#define MAX_VALUES 100000000

static const struct field_desc *find_field(const char *key)
{
    const struct field_table *t[16];
    int n = model_all_tables(t, 14);
    t[n++] = &chip_fields;
    t[n++] = &system_fields;
    for (int i = 0; i < n; i++) {
        const struct field_desc *d = fields_find(t[i], key);
        if (d)
            return d;
    }
    return NULL;
}

/* Keys the sweep itself sets for every point (parallelism, batch, chips). */
static bool reserved_key(const char *key)
{
    return !strcmp(key, "num_chips") || !strcmp(key, "global_batch_size") ||
           !strncmp(key, "microbatch_size", 15) || strstr(key, "parallel") != NULL;
}

static bool is_integral(double v) { return isfinite(v) && v == floor(v) && fabs(v) <= MAX_EXACT; }

static const char *type_word(enum field_type t)
{
    switch (t) {
    case FT_INT: return "an integer";
    case FT_DOUBLE: return "a number";
    case FT_BOOL: return "true or false";
    case FT_STR: return "a string";
    case FT_INT_LIST: return "a list of integers";
    case FT_LAYERS: return "a list of layer objects";
    case FT_MEM_LEVELS: return "a list of memory level objects";
    }
    return "a value";
}

static bool value_fits(const cJSON *v, enum field_type t)
{
    switch (t) {
    case FT_INT: return cJSON_IsNumber(v) && is_integral(v->valuedouble);
    case FT_DOUBLE: return cJSON_IsNumber(v) && isfinite(v->valuedouble);
    case FT_BOOL: return cJSON_IsBool(v);
    case FT_STR: return cJSON_IsString(v);
    case FT_INT_LIST: {
        if (!cJSON_IsArray(v))
            return false;
        const cJSON *x;
        cJSON_ArrayForEach(x, v) if (!cJSON_IsNumber(x) || !is_integral(x->valuedouble)) return false;
        return true;
    }
    case FT_LAYERS:
    case FT_MEM_LEVELS: {
        if (!cJSON_IsArray(v))
            return false;
        const cJSON *x;
        cJSON_ArrayForEach(x, v) if (!cJSON_IsObject(x)) return false;
        return true;
    }
    }
    return false;
}

/* A range object {"from": A, "to": B, "step": S}: from <= to, step > 0. */
static int parse_range(const cJSON *o, const char *file, const char *what, bool integral,
                       double *from, double *step, int64_t *count, struct npu_err *e)
{
    const char *names[3] = { "from", "to", "step" };
    double v[3];
    const cJSON *it;
    cJSON_ArrayForEach(it, o)
        if (strcmp(it->string, "from") && strcmp(it->string, "to") && strcmp(it->string, "step"))
            return npu_errf(e, "%s: %s: unknown range key \"%s\" (expected from, to, step)", file, what,
                            it->string);
    for (int i = 0; i < 3; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, names[i]);
        if (!x)
            return npu_errf(e, "%s: %s: range needs \"%s\"", file, what, names[i]);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
            return npu_errf(e, "%s: %s: range \"%s\" must be a number", file, what, names[i]);
        if (integral && !is_integral(x->valuedouble))
            return npu_errf(e, "%s: %s: range \"%s\" must be an integer", file, what, names[i]);
        v[i] = x->valuedouble;
    }
    if (v[2] == 0)
        return npu_errf(e, "%s: %s: range step must not be zero", file, what);
    if (v[2] < 0)
        return npu_errf(e, "%s: %s: range step must be positive (ranges go from low to high)", file,
                        what);
    if (v[0] > v[1])
        return npu_errf(e, "%s: %s: range from (%g) is greater than to (%g)", file, what, v[0], v[1]);
    /* Inclusive of `to` when it lies on the grid; the 1e-9 absorbs rounding of
     * decimal steps (0.1 * 3 vs 0.3). */
    double n = floor((v[1] - v[0]) / v[2] + 1e-9) + 1;
    if (n > MAX_VALUES)
        return npu_errf(e, "%s: %s: range has %.0f values (at most %d)", file, what, n, MAX_VALUES);
    *from = v[0];
    *step = v[2];
    *count = (int64_t)n;
    return 0;
}

static int parse_strings(const cJSON *root, const char *key, const char *file, const cJSON **out,
                         struct npu_err *e)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    *out = NULL;
    if (!a)
        return 0;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
        return npu_errf(e, "%s: \"%s\": expected a non-empty list of names", file, key);
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
        if (!cJSON_IsString(x) || !x->valuestring[0])
            return npu_errf(e, "%s: \"%s\": every item must be a non-empty string", file, key);
    *out = a;
    return 0;
}

int64_t sweep_int_max(const char *field)
{
    double lo, hi;
    fields_range(fields_find(&model_base_fields, field), &lo, &hi);
    return (int64_t)hi;
}

/* A list or range of positive integers for key, each at most field's bound. */
static int parse_ints(const cJSON *root, const char *key, const char *field, const char *file, struct spec_ints *l,
                      struct npu_err *e)
{
    int64_t max = sweep_int_max(field);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    memset(l, 0, sizeof *l);
    if (!a)
        return 0;
    if (cJSON_IsObject(a)) {
        double from, step;
        if (parse_range(a, file, key, true, &from, &step, &l->count, e))
            return -1;
        if (from <= 0)
            return npu_errf(e, "%s: \"%s\": range must start at a positive integer", file, key);
        if (from + step * (double)(l->count - 1) > (double)max)
            return npu_errf(e, "%s: \"%s\": range must end at most at %lld (%s's range)", file, key,
                            (long long)max, field);
        l->from = (int64_t)from;
        l->step = (int64_t)step;
        return 0;
    }
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
        return npu_errf(e, "%s: \"%s\": expected a non-empty list or a range {\"from\", \"to\", \"step\"}",
                        file, key);
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
        if (!cJSON_IsNumber(x) || !is_integral(x->valuedouble) || x->valuedouble <= 0 ||
            x->valuedouble > (double)max)
            return npu_errf(e, "%s: \"%s\": every item must be a positive integer of at most %lld (%s's range)",
                            file, key, (long long)max, field);
    l->list = a;
    l->count = cJSON_GetArraySize(a);
    return 0;
}

static int parse_field(const cJSON *v, const char *file, struct spec_field *f, struct npu_err *e)
{
    const char *key = v->string;
    if (strlen(key) >= sizeof f->key)
        return npu_errf(e, "%s: fields: key \"%.40s...\" too long", file, key);
    snprintf(f->key, sizeof f->key, "%s", key);
    const struct field_desc *d = find_field(key);
    if (!d) {
        const char *cands[1024];
        char hint[300];
        fields_suggest_hint(hint, sizeof hint, key, cands, config_field_keys(cands, 1024));
        return npu_errf(e, "%s: fields: unknown config field \"%s\"%s (not a model, chip or system field)",
                        file, key, hint);
    }
    if (reserved_key(key))
        return npu_errf(e, "%s: fields: \"%s\" is set by the sweep itself for every point "
                           "(use num_chips / batch_sizes; parallelism is enumerated)", file, key);
    f->type = d->type;
    char what[300];
    snprintf(what, sizeof what, "fields.%s", key);
    if (cJSON_IsObject(v)) {
        if (d->type != FT_INT && d->type != FT_DOUBLE)
            return npu_errf(e, "%s: %s: a range needs a numeric field (this one is %s)", file, what,
                            type_word(d->type));
        return parse_range(v, file, what, d->type == FT_INT, &f->from, &f->step, &f->count, e);
    }
    if (!cJSON_IsArray(v))
        return npu_errf(e, "%s: %s: expected a list of values or a range {\"from\", \"to\", \"step\"}",
                        file, what);
    if (cJSON_GetArraySize(v) == 0)
        return npu_errf(e, "%s: %s: empty list", file, what);
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, v) {
        if (!value_fits(x, d->type)) {
            char *t = cJSON_PrintUnformatted(x);
            int rc = npu_errf(e, "%s: %s[%d]: %s is not %s", file, what, i, t ? t : "value",
                              type_word(d->type));
            cJSON_free(t);
            return rc;
        }
        i++;
    }
    f->list = v;
    f->count = i;
    return 0;
}

static int parse_spec(const char *text, const char *file, struct sweep_spec *s, struct npu_err *e)
{
    s->root = json_parse_strict(text, strlen(text), file, e);
    if (!s->root)
        return -1;
    if (!cJSON_IsObject(s->root))
        return npu_errf(e, "%s: expected a JSON object at the top level", file);
    static const char *const keys[] = { "models", "chips", "num_chips", "batch_sizes", "fields",
                                        "workload" };
    const cJSON *it;
    cJSON_ArrayForEach(it, s->root) {
        bool known = false;
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            known |= !strcmp(it->string, keys[i]);
        char hint[300];
        suggest_hint(hint, sizeof hint, it->string, keys, sizeof keys / sizeof keys[0]);
        if (!known)
            return npu_errf(e, "%s: unknown key \"%s\"%s (expected models, chips, num_chips, batch_sizes, "
                               "fields, workload)", file, it->string, hint);
    }
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(s->root, "workload");
    if (w) {
        if (!cJSON_IsString(w) || (strcmp(w->valuestring, "inference") && strcmp(w->valuestring, "training")))
            return npu_errf(e, "%s: \"workload\": expected \"inference\" or \"training\"", file);
        s->workload = w->valuestring;
    }
    if (parse_strings(s->root, "models", file, &s->models, e) ||
        parse_strings(s->root, "chips", file, &s->chips, e) ||
        parse_ints(s->root, "num_chips", "num_chips", file, &s->num_chips, e) ||
        parse_ints(s->root, "batch_sizes", "global_batch_size", file, &s->batches, e))
        return -1;
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(s->root, "fields");
    if (fl && !cJSON_IsObject(fl))
        return npu_errf(e, "%s: \"fields\": expected an object of field -> list or range", file);
    int n = fl ? cJSON_GetArraySize(fl) : 0;
    if (n > SPEC_MAX_FIELDS)
        return npu_errf(e, "%s: \"fields\": at most %d fields", file, SPEC_MAX_FIELDS);
    s->fields = calloc(n ? (size_t)n : 1, sizeof *s->fields);
    if (!s->fields)
        return npu_errf(e, "%s: out of memory", file);
    cJSON_ArrayForEach(it, fl) {
        for (int j = 0; j < s->nfields; j++)
            if (!strcmp(s->fields[j].key, it->string))
                return npu_errf(e, "%s: fields: \"%s\" given twice", file, it->string);
        if (parse_field(it, file, &s->fields[s->nfields], e))
            return -1;
        s->nfields++;
    }
    /* The product is only counted, never built; still, 2^62 points is a typo. */
    double combos = 1;
    for (int j = 0; j < s->nfields; j++)
        combos *= (double)s->fields[j].count;
    if (combos > 4e18)
        return npu_errf(e, "%s: \"fields\": %.3g combinations is too many", file, combos);
    return 0;
}

int sweep_spec_parse(const char *text, const char *file, struct sweep_spec *s, struct npu_err *e)
{
    memset(s, 0, sizeof *s);
    if (parse_spec(text, file, s, e) == 0)
        return 0;
    sweep_spec_free(s);   /* a rejected spec owns nothing */
    return -1;
}

int sweep_spec_load(const char *path, struct sweep_spec *s, struct npu_err *e)
{
    memset(s, 0, sizeof *s);
    size_t n;
    char *buf = text_read_file(path, &n, e);
    if (!buf)
        return -1;
    int rc = sweep_spec_parse(buf, path, s, e);
    free(buf);
    return rc;
}

void sweep_spec_free(struct sweep_spec *s)
{
    cJSON_Delete(s->root);
    free(s->fields);
    memset(s, 0, sizeof *s);
}

cJSON *spec_field_value(const struct spec_field *f, int64_t i)
{
    if (f->list)
        return cJSON_Duplicate(cJSON_GetArrayItem(f->list, (int)i), 1);
    /* from + i*step, not a running sum: no drift over long ranges. */
    double v = f->from + (double)i * f->step;
    return cJSON_CreateNumber(f->type == FT_INT ? floor(v + 0.5) : v);
}

int64_t spec_ints_count(const struct spec_ints *l) { return l->count; }

int64_t spec_ints_value(const struct spec_ints *l, int64_t i)
{
    if (l->list)
        return (int64_t)cJSON_GetArrayItem(l->list, (int)i)->valuedouble;
    return l->from + i * l->step;
}
