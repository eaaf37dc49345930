/* fields.c — generic loader/dumper over struct field_table (see fields.h). */
#include "traces/fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fastfloat.h"
#include "base/json_strict.h"
#include "base/pyfmt.h"
#include "base/strbuf.h"

#define AT(obj, f, T) ((T *)((char *)(obj) + (f)->offset))
#define CAT(obj, f, T) ((const T *)((const char *)(obj) + (f)->offset))

static const char *source_of(field_sources *src, const char *key)
{
    const cJSON *s = src ? cJSON_GetObjectItemCaseSensitive(src, key) : NULL;
    return cJSON_IsString(s) ? s->valuestring : "<config>";
}

void fields_set_defaults(const struct field_table *t, void *obj)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct field_desc *f = &t->f[i];
        switch (f->type) {
        case FT_INT: *AT(obj, f, int64_t) = (int64_t)f->def_num; break;
        case FT_DOUBLE: *AT(obj, f, double) = f->def_num; break;
        case FT_BOOL: *AT(obj, f, bool) = f->def_num != 0; break;
        case FT_STR:
            snprintf(AT(obj, f, char), FIELD_STR_MAX, "%s", f->def_str ? f->def_str : "");
            break;
        case FT_INT_LIST: {
            struct int_list *l = AT(obj, f, struct int_list);
            l->n = 0;
            for (const char *p = f->def_str; p && *p && l->n < FIELD_LIST_MAX;) {
                char *end;
                l->v[l->n++] = strtoll(p, &end, 10);
                p = *end == ',' ? end + 1 : end;
                if (end == p && *p) /* not a number: stop */
                    break;
            }
            break;
        }
        case FT_LAYERS: AT(obj, f, struct mlp_layers)->n = 0; break;
        case FT_MEM_LEVELS: AT(obj, f, struct mem_levels)->n = 0; break;
        }
    }
}

const struct field_desc *fields_find(const struct field_table *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->f[i].key, key) == 0)
            return &t->f[i];
    return NULL;
}

const char *fields_type_name(enum field_type t)
{
    static const char *const names[] = { "integer", "number", "boolean", "text", "integer list", "MLP layers",
                                         "memory levels" };
    return names[t];
}

const char *fields_unit(const struct field_desc *f) { return f->unit ? f->unit : fields_key_unit(f->key); }

const char *fields_key_unit(const char *key)
{
    /* Longest suffixes first: "_W_per_GBps" before "_GBps" and "_W". */
    static const struct { const char *suffix, *unit; } units[] = {
        { "_kgCO2_per_kWh", "kgCO2e/kWh" }, { "_W_per_GBps", "W per GB/s" }, { "_GBps_per_W", "GB/s per W" },
        { "_W_per_sa", "W per SA" },        { "_W_per_SA", "W per SA" },     { "_W_per_vu", "W per VU" },
        { "_W_per_VU", "W per VU" },        { "_kgCO2", "kgCO2e" },          { "_GBps", "GB/s" },
        { "_GHz", "GHz" },                  { "_ns", "ns" },                 { "_W", "W" },
        { "_MB", "MiB" },                   { "_GB", "GiB" },                { "_KiB", "KiB" },
        { "_mm2", "mm^2" },                 { "_usd", "USD" },               { "_cycles", "cycles" },
        { "_bytes", "bytes" },
    };
    if (strstr(key, "tflops."))
        return "TFLOP/s";
    size_t n = strlen(key);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t k = strlen(units[i].suffix);
        if (n > k && strcmp(key + n - k, units[i].suffix) == 0)
            return units[i].unit;
    }
    return "";
}

const char *fields_suggest(const char *key, const char *const *cands, size_t n)
{
    const char *best = suggest_closest(key, cands, n);
    size_t len = strlen(key);
    for (size_t i = 0; i < n && !best; i++)
        if (strcasecmp(cands[i], key) == 0)
            best = cands[i];
    const char *cut = NULL;   /* a key cut short (its unit left off, say): the shortest it begins */
    for (size_t i = 0; i < n && len >= 3 && !best; i++)
        if (strncasecmp(cands[i], key, len) == 0 && (!cut || strlen(cands[i]) < strlen(cut)))
            cut = cands[i];
    return best ? best : cut;
}

void fields_suggest_hint(char *buf, size_t n, const char *key, const char *const *cands, size_t ncands)
{
    hint_text(buf, n, fields_suggest(key, cands, ncands));
}

bool fields_has_key(const struct field_table *t, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < t->n; i++)
        if (strncmp(t->f[i].key, key, n) == 0 && (t->f[i].key[n] == '\0' || t->f[i].key[n] == '.'))
            return true;
    return false;
}

/* The value at a (possibly dotted) key, or NULL. */
/* An object's children by key, hashed once so that loading a table (up to a
 * hundred fields from an object of as many keys, per statistics file) does
 * not scan the children once per field. The first child with a key wins,
 * as cJSON_GetObjectItemCaseSensitive has it. The table is at most half
 * full; objects too large for it are not indexed (cap 0) and lookups scan
 * as before. */
#define KEY_INDEX_SLOTS 1024
struct key_index {
    const cJSON *obj;
    size_t cap;
    const cJSON *slot[KEY_INDEX_SLOTS];
};

static uint64_t key_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static void key_index_build(struct key_index *x, const cJSON *obj)
{
    x->obj = obj;
    x->cap = 0;
    size_t n = 0, cap = 64;
    const cJSON *c;
    cJSON_ArrayForEach(c, obj)
        n++;
    while (cap < 2 * n)
        cap *= 2;
    if (cap > KEY_INDEX_SLOTS)
        return;
    x->cap = cap;
    memset(x->slot, 0, cap * sizeof x->slot[0]);
    cJSON_ArrayForEach(c, obj) {
        if (!c->string)
            continue;
        size_t i = (size_t)key_hash(c->string) & (x->cap - 1);
        while (x->slot[i] && strcmp(x->slot[i]->string, c->string))
            i = (i + 1) & (x->cap - 1);
        if (!x->slot[i])
            x->slot[i] = c;   /* a later duplicate never replaces the first */
    }
}

static const cJSON *key_index_get(const struct key_index *x, const cJSON *obj, const char *key)
{
    if (!x || x->obj != obj || !x->cap)
        return cJSON_GetObjectItemCaseSensitive(obj, key);
    size_t i = (size_t)key_hash(key) & (x->cap - 1);
    while (x->slot[i] && strcmp(x->slot[i]->string, key))
        i = (i + 1) & (x->cap - 1);
    return x->slot[i];
}

/* json[key], a dotted key reaching into nested objects; the top level
 * through x when it indexes json. */
static const cJSON *lookup_in(const struct key_index *x, const cJSON *json, const char *key)
{
    char part[128];
    bool top = true;
    while (json) {
        const char *dot = strchr(key, '.');
        if (!dot)
            return top ? key_index_get(x, json, key) : cJSON_GetObjectItemCaseSensitive(json, key);
        size_t n = (size_t)(dot - key);
        if (n >= sizeof part)
            return NULL;
        memcpy(part, key, n);
        part[n] = '\0';
        json = top ? key_index_get(x, json, part) : cJSON_GetObjectItemCaseSensitive(json, part);
        top = false;
        key = dot + 1;
    }
    return NULL;
}


/* The object that holds the last part of a dotted key (created as needed). */
static cJSON *holder(cJSON *into, const char *key, const char **leaf)
{
    char part[128];
    const char *dot;
    while ((dot = strchr(key, '.')) != NULL) {
        size_t n = (size_t)(dot - key) < sizeof part ? (size_t)(dot - key) : sizeof part - 1;
        memcpy(part, key, n);
        part[n] = '\0';
        cJSON *next = cJSON_GetObjectItemCaseSensitive(into, part);
        if (!cJSON_IsObject(next))
            next = cJSON_AddObjectToObject(into, part);
        into = next;
        key = dot + 1;
    }
    *leaf = key;
    return into;
}

/* A JSON value as a number: numbers, raw number items (a statistics file's
 * sim_config read with its number text kept), and numeric strings (lax
 * coercion). */
static bool as_number(const cJSON *v, double *out)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return true;
    }
    if ((cJSON_IsString(v) || cJSON_IsRaw(v)) && v->valuestring && v->valuestring[0]) {
        char *end;
        *out = fast_strtod(v->valuestring, &end);
        return *end == '\0';
    }
    return false;
}

/* One memory level object: exactly name, capacity_KiB and fill_GBps. */
static int load_mem_level(const struct field_table *t, const struct field_desc *f, struct mem_levels *l,
                          const cJSON *x, const char *file, struct npu_err *e)
{
    int i = l->n;
    const cJSON *it;
    if (!cJSON_IsObject(x))
        return npu_errf(e, "%s: %s field \"%s\": level %d: expected an object {\"name\", \"capacity_KiB\", "
                        "\"fill_GBps\"}", file, t->what, f->key, i);
    cJSON_ArrayForEach(it, x)
        if (strcmp(it->string, "name") && strcmp(it->string, "capacity_KiB") && strcmp(it->string, "fill_GBps"))
            return npu_errf(e, "%s: %s field \"%s\": level %d: unknown key \"%s\" (expected name, "
                            "capacity_KiB, fill_GBps)", file, t->what, f->key, i, it->string);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(x, "name");
    const char *s = cJSON_IsString(name) ? name->valuestring : NULL;
    bool ok = s && *s && strlen(s) < MEM_LEVEL_NAME_MAX;
    for (const char *p = s; ok && *p; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_';
    if (!ok)
        return npu_errf(e, "%s: %s field \"%s\": level %d: expected a \"name\" of 1 to %d characters "
                        "[a-z0-9_]", file, t->what, f->key, i, MEM_LEVEL_NAME_MAX - 1);
    double cap, bw;
    if (!as_number(cJSON_GetObjectItemCaseSensitive(x, "capacity_KiB"), &cap) || !(cap > 0 && cap <= 1e9))
        return npu_errf(e, "%s: %s field \"%s\": level %d (%s): expected \"capacity_KiB\" above 0 and at "
                        "most 1e9", file, t->what, f->key, i, s);
    if (!as_number(cJSON_GetObjectItemCaseSensitive(x, "fill_GBps"), &bw) ||
        !(bw >= FIELD_RATE_MIN && bw <= FIELD_RATE_MAX))
        return npu_errf(e, "%s: %s field \"%s\": level %d (%s): expected \"fill_GBps\" from %g to %g",
                        file, t->what, f->key, i, s, FIELD_RATE_MIN, FIELD_RATE_MAX);
    if (i > 0 && cap <= l->l[i - 1].capacity_KiB)
        return npu_errf(e, "%s: %s field \"%s\": level %d (%s): expected a capacity above the level "
                        "inside it (%g KiB), got %g", file, t->what, f->key, i, s, l->l[i - 1].capacity_KiB, cap);
    snprintf(l->l[i].name, sizeof l->l[i].name, "%s", s);
    l->l[i].capacity_KiB = cap;
    l->l[i].fill_GBps = bw;
    l->n++;
    return 0;
}

static int load_mem_levels(const struct field_table *t, const struct field_desc *f, struct mem_levels *l,
                           const cJSON *v, const char *file, struct npu_err *e)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > MEM_LEVELS_MAX)
        return npu_errf(e, "%s: %s field \"%s\": expected a list of at most %d memory levels, innermost first",
                        file, t->what, f->key, MEM_LEVELS_MAX);
    l->n = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, v)
        if (load_mem_level(t, f, l, x, file, e))
            return -1;
    return 0;
}

static int load_one(const struct field_table *t, const struct field_desc *f, void *obj,
                    const cJSON *v, const char *file, struct npu_err *e)
{
    double d;
    switch (f->type) {
    case FT_INT:
        if (!as_number(v, &d) || d != floor(d) || fabs(d) > 9.2e18)
            return npu_errf(e, "%s: %s field \"%s\": expected an integer", file, t->what, f->key);
        *AT(obj, f, int64_t) = (int64_t)d;
        break;
    case FT_DOUBLE:
        if (!as_number(v, &d) || !isfinite(d))
            return npu_errf(e, "%s: %s field \"%s\": expected a number", file, t->what, f->key);
        *AT(obj, f, double) = d;
        break;
    case FT_BOOL:
        if (!cJSON_IsBool(v))
            return npu_errf(e, "%s: %s field \"%s\": expected true or false", file, t->what, f->key);
        *AT(obj, f, bool) = cJSON_IsTrue(v);
        break;
    case FT_STR:
        if (!cJSON_IsString(v) || strlen(v->valuestring) >= FIELD_STR_MAX)
            return npu_errf(e, "%s: %s field \"%s\": expected a string of at most %d characters",
                            file, t->what, f->key, FIELD_STR_MAX - 1);
        strcpy(AT(obj, f, char), v->valuestring);
        break;
    case FT_INT_LIST: {
        struct int_list *l = AT(obj, f, struct int_list);
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > FIELD_LIST_MAX)
            return npu_errf(e, "%s: %s field \"%s\": expected a list of at most %d integers",
                            file, t->what, f->key, FIELD_LIST_MAX);
        l->n = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, v) {
            if (!as_number(x, &d) || d != floor(d) || !(fabs(d) <= FIELD_LIST_ITEM_MAX))
                return npu_errf(e, "%s: %s field \"%s\": expected a list of integers of at most %.17g",
                                file, t->what, f->key, FIELD_LIST_ITEM_MAX);
            l->v[l->n++] = (int64_t)d;
        }
        break;
    }
    case FT_LAYERS: {
        struct mlp_layers *l = AT(obj, f, struct mlp_layers);
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > FIELD_LIST_MAX)
            return npu_errf(e, "%s: %s field \"%s\": expected a list of at most %d layers",
                            file, t->what, f->key, FIELD_LIST_MAX);
        l->n = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, v) {
            double in, out;
            if (!cJSON_IsObject(x) ||
                !as_number(cJSON_GetObjectItemCaseSensitive(x, "in_features"), &in) ||
                !as_number(cJSON_GetObjectItemCaseSensitive(x, "out_features"), &out) ||
                in != floor(in) || out != floor(out) || !(in > 0 && in <= FIELD_INT_MAX) ||
                !(out > 0 && out <= FIELD_INT_MAX))
                return npu_errf(e, "%s: %s field \"%s\": layer %d: expected positive integer "
                                "\"in_features\" and \"out_features\"", file, t->what, f->key, l->n);
            l->l[l->n].in_features = (int64_t)in;
            l->l[l->n++].out_features = (int64_t)out;
        }
        break;
    }
    case FT_MEM_LEVELS:
        return load_mem_levels(t, f, AT(obj, f, struct mem_levels), v, file, e);
    }
    return 0;
}

void fields_range(const struct field_desc *f, double *lo, double *hi)
{
    if (f->lo != 0 || f->hi != 0) {
        *lo = f->lo;
        *hi = f->hi;
        return;
    }
    bool pos = f->flags & FF_POSITIVE, nonneg = f->flags & FF_NONNEG;
    switch (f->type) {
    case FT_INT:
        /* Unflagged integers use -1 for "derive it" (num_kv_heads, moe_d_ff). */
        *lo = pos ? 1 : nonneg ? 0 : -1;
        *hi = FIELD_INT_MAX;
        break;
    case FT_INT_LIST:
        *lo = pos ? 1 : 0;
        *hi = FIELD_LIST_ITEM_MAX;
        break;
    default:
        *lo = f->flags & FF_RATE ? FIELD_RATE_MIN : pos || nonneg ? 0 : -FIELD_NUM_MAX;
        *hi = f->flags & FF_RATE ? FIELD_RATE_MAX : FIELD_NUM_MAX;
        break;
    }
}

/* v against f's range: the lower bound's message says positive / >= 0 as
 * the flags do, the upper one gives the bound. */
static int check_range(const struct field_table *t, const struct field_desc *f, double v,
                       const char *file, struct npu_err *e)
{
    double lo, hi;
    fields_range(f, &lo, &hi);
    bool positive_ok = !(f->flags & FF_POSITIVE) || v > 0, nonneg_ok = !(f->flags & FF_NONNEG) || v >= 0;
    if (positive_ok && nonneg_ok && v >= lo && v <= hi)
        return 0;   /* the common case: no message to format (configs are checked on every read) */
    char got[40];   /* the shortest text that reads back as v: -0.1, not -0.10000000000000001 */
    num_text_shortest(v, got, sizeof got);
    if (!positive_ok)
        return npu_errf(e, "%s: %s field \"%s\": expected a positive value, got %s", file, t->what, f->key, got);
    if (!nonneg_ok)
        return npu_errf(e, "%s: %s field \"%s\": expected a value >= 0, got %s", file, t->what, f->key, got);
    if (!(v >= lo))
        return npu_errf(e, "%s: %s field \"%s\": expected at least %.17g, got %s", file, t->what, f->key,
                        lo, got);
    return npu_errf(e, "%s: %s field \"%s\": expected at most %.17g, got %s", file, t->what, f->key,
                    hi, got);
}

/* A string field with a list of allowed values must hold one of them. */
static int check_choice(const struct field_table *t, const struct field_desc *f, const char *v,
                        const char *file, struct npu_err *e)
{
    if (!f->one_of)
        return 0;
    size_t n = strlen(v);
    char words[FIELD_STR_MAX], hint[FIELD_STR_MAX + 32];
    const char *cand[32];
    size_t nc = 0;
    for (const char *p = f->one_of; *p;) {
        size_t k = strcspn(p, "|");
        if (k == n && strncmp(p, v, n) == 0)
            return 0;
        p += k + (p[k] == '|');
    }
    /* The choices as words, for the closest one's hint. */
    snprintf(words, sizeof words, "%s", f->one_of);
    char *save = NULL;
    for (char *w = strtok_r(words, "|", &save); w && nc < sizeof cand / sizeof cand[0]; w = strtok_r(NULL, "|", &save))
        cand[nc++] = w;
    suggest_hint(hint, sizeof hint, v, cand, nc);
    return npu_errf(e, "%s: %s field \"%s\": expected one of %s, got \"%s\"%s", file, t->what, f->key,
                    f->one_of, v, hint);
}

static int check_one(const struct field_table *t, const struct field_desc *f, const void *obj,
                     const char *file, struct npu_err *e)
{
    switch (f->type) {
    case FT_INT:
        return check_range(t, f, (double)*CAT(obj, f, int64_t), file, e);
    case FT_DOUBLE:
        return check_range(t, f, *CAT(obj, f, double), file, e);
    case FT_STR:
        return check_choice(t, f, CAT(obj, f, char), file, e);
    case FT_INT_LIST: {
        const struct int_list *l = CAT(obj, f, struct int_list);
        if ((f->flags & (FF_POSITIVE | FF_REQUIRED)) && l->n == 0)
            return npu_errf(e, "%s: %s field \"%s\": expected a non-empty list", file, t->what, f->key);
        double lo, hi;
        fields_range(f, &lo, &hi);
        for (int i = 0; i < l->n; i++)
            if (!((double)l->v[i] >= lo && (double)l->v[i] <= hi))
                return npu_errf(e, "%s: %s field \"%s\": expected %s integers of at most %.17g, got %lld",
                                file, t->what, f->key, lo > 0 ? "positive" : "non-negative", hi,
                                (long long)l->v[i]);
        return 0;
    }
    case FT_LAYERS: {
        const struct mlp_layers *l = CAT(obj, f, struct mlp_layers);
        if ((f->flags & (FF_POSITIVE | FF_REQUIRED)) && l->n == 0)
            return npu_errf(e, "%s: %s field \"%s\": expected a non-empty list", file, t->what, f->key);
        for (int i = 0; i < l->n; i++)
            if (l->l[i].in_features > FIELD_INT_MAX || l->l[i].out_features > FIELD_INT_MAX)
                return npu_errf(e, "%s: %s field \"%s\": layer %d: expected features of at most %.17g",
                                file, t->what, f->key, i, FIELD_INT_MAX);
        return 0;
    }
    default:
        return 0;
    }
}

int fields_from_json(const struct field_table *t, void *obj, const cJSON *json,
                     field_sources *src, struct npu_err *e)
{
    /* Per thread: 8 KiB is too much for some callers' stacks, and a
     * table's load is never reentered on one thread. */
    static _Thread_local struct key_index x;
    if (cJSON_IsObject(json))
        key_index_build(&x, json);
    /* Entries of one nested object sit together (a chip's 66
     * kernel_efficiency.* fields): the object is looked up once per run of
     * them, and all are skipped when it is absent. */
    const char *run_key = NULL;
    size_t run_len = 0;
    const cJSON *run_obj = NULL;
    for (size_t i = 0; i < t->n; i++) {
        const struct field_desc *f = &t->f[i];
        size_t tn = strcspn(f->key, ".");
        const cJSON *v;
        if (f->key[tn] == '.' && cJSON_IsObject(json)) {
            if (!run_key || tn != run_len || strncmp(f->key, run_key, tn)) {
                char part[128];
                struct strbuf pb = STRBUF(part);
                strbuf_putn(&pb, f->key, tn);
                run_key = f->key, run_len = tn;
                run_obj = key_index_get(&x, json, part);
            }
            v = run_obj ? lookup_in(NULL, run_obj, f->key + tn + 1) : NULL;
        } else {
            v = lookup_in(cJSON_IsObject(json) ? &x : NULL, json, f->key);
        }
        if ((!v || cJSON_IsNull(v)) && !(f->flags & FF_REQUIRED))
            continue;
        char top[128];
        struct strbuf tb = STRBUF(top);
        strbuf_putn(&tb, f->key, tn);
        const char *file = source_of(src, top);
        if (!v || cJSON_IsNull(v))
            return npu_errf(e, "%s: %s field \"%s\" is missing", file, t->what, f->key);
        if (load_one(t, f, obj, v, file, e) || check_one(t, f, obj, file, e)) {
            /* A nested value set on its own (--set kernel_efficiency.gemm.bf16=...)
             * has its own source: the message names it, not the object's file.
             * Looked up only here, as the common case has no error. */
            const char *own = f->key[tn] == '.' ? source_of(src, f->key) : NULL;
            if (own && strcmp(own, "<config>") && strcmp(own, file))
                (void)(load_one(t, f, obj, v, own, e) || check_one(t, f, obj, own, e));
            return -1;
        }
    }
    return 0;
}

/* v's decimal text into buf (size n), as "%lld" prints it, without
 * snprintf's format parsing (a sweep prints ~35 per configuration). */
static void int_text(char *buf, size_t n, int64_t v)
{
    struct strbuf b = strbuf_on(buf, n);
    strbuf_puti(&b, v);
}

void fields_to_json(const struct field_table *t, const void *obj, cJSON *into_top, bool with_ext)
{
    char buf[64];
    for (size_t i = 0; i < t->n; i++) {
        const struct field_desc *f = &t->f[i];
        const char *key;
        if ((f->flags & FF_EXT) && !with_ext)
            continue;
        cJSON *into = holder(into_top, f->key, &key);
        /* Keys are unique within and across the config tables: no lookup. */
        switch (f->type) {
        case FT_INT:
            int_text(buf, sizeof buf, *CAT(obj, f, int64_t));
            cJSON_AddRawToObject(into, key, buf);
            break;
        case FT_DOUBLE:
            py_repr_double(*CAT(obj, f, double), buf, sizeof buf);
            cJSON_AddRawToObject(into, key, buf);
            break;
        case FT_BOOL: cJSON_AddBoolToObject(into, key, *CAT(obj, f, bool)); break;
        case FT_STR: cJSON_AddStringToObject(into, key, CAT(obj, f, char)); break;
        case FT_INT_LIST: {
            const struct int_list *l = CAT(obj, f, struct int_list);
            cJSON *a = cJSON_AddArrayToObject(into, key);
            for (int k = 0; k < l->n; k++) {
                int_text(buf, sizeof buf, l->v[k]);
                cJSON_AddItemToArray(a, cJSON_CreateRaw(buf));
            }
            break;
        }
        case FT_MEM_LEVELS: {
            const struct mem_levels *l = CAT(obj, f, struct mem_levels);
            cJSON *a = cJSON_AddArrayToObject(into, key);
            for (int k = 0; k < l->n; k++) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "name", l->l[k].name);
                py_repr_double(l->l[k].capacity_KiB, buf, sizeof buf);
                cJSON_AddRawToObject(o, "capacity_KiB", buf);
                py_repr_double(l->l[k].fill_GBps, buf, sizeof buf);
                cJSON_AddRawToObject(o, "fill_GBps", buf);
                cJSON_AddItemToArray(a, o);
            }
            break;
        }
        case FT_LAYERS: {
            const struct mlp_layers *l = CAT(obj, f, struct mlp_layers);
            cJSON *a = cJSON_AddArrayToObject(into, key);
            for (int k = 0; k < l->n; k++) {
                cJSON *o = cJSON_CreateObject();
                int_text(buf, sizeof buf, l->l[k].in_features);
                cJSON_AddRawToObject(o, "in_features", buf);
                int_text(buf, sizeof buf, l->l[k].out_features);
                cJSON_AddRawToObject(o, "out_features", buf);
                cJSON_AddItemToArray(a, o);
            }
            break;
        }
        }
    }
}
