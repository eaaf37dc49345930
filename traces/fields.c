/* fields.c — generic loader/dumper over struct field_table (see fields.h). */
#include "traces/fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/pyfmt.h"

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
        case FT_INT_LIST: AT(obj, f, struct int_list)->n = 0; break;
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

bool fields_has_key(const struct field_table *t, const char *key)
{
    return fields_find(t, key) != NULL;
}

/* A JSON value as a number: numbers, and numeric strings (lax coercion). */
static bool as_number(const cJSON *v, double *out)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return true;
    }
    if (cJSON_IsString(v) && v->valuestring[0]) {
        char *end;
        *out = strtod(v->valuestring, &end);
        return *end == '\0';
    }
    return false;
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
            if (!as_number(x, &d) || d != floor(d))
                return npu_errf(e, "%s: %s field \"%s\": expected a list of integers",
                                file, t->what, f->key);
            l->v[l->n++] = (int64_t)d;
        }
        break;
    }
    }
    return 0;
}

static int check_one(const struct field_table *t, const struct field_desc *f, const void *obj,
                     const char *file, struct npu_err *e)
{
    double d;
    if (f->type == FT_INT)
        d = (double)*CAT(obj, f, int64_t);
    else if (f->type == FT_DOUBLE)
        d = *CAT(obj, f, double);
    else if (f->type == FT_INT_LIST) {
        const struct int_list *l = CAT(obj, f, struct int_list);
        if ((f->flags & (FF_POSITIVE | FF_REQUIRED)) && l->n == 0)
            return npu_errf(e, "%s: %s field \"%s\": expected a non-empty list", file, t->what, f->key);
        for (int i = 0; i < l->n; i++)
            if ((f->flags & FF_POSITIVE) && l->v[i] <= 0)
                return npu_errf(e, "%s: %s field \"%s\": expected positive integers, got %lld",
                                file, t->what, f->key, (long long)l->v[i]);
        return 0;
    } else
        return 0;
    if ((f->flags & FF_POSITIVE) && !(d > 0))
        return npu_errf(e, "%s: %s field \"%s\": expected a positive value, got %.17g",
                        file, t->what, f->key, d);
    if ((f->flags & FF_NONNEG) && !(d >= 0))
        return npu_errf(e, "%s: %s field \"%s\": expected a value >= 0, got %.17g",
                        file, t->what, f->key, d);
    return 0;
}

int fields_from_json(const struct field_table *t, void *obj, const cJSON *json,
                     field_sources *src, struct npu_err *e)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct field_desc *f = &t->f[i];
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, f->key);
        const char *file = source_of(src, f->key);
        if (!v || cJSON_IsNull(v)) {
            if (f->flags & FF_REQUIRED)
                return npu_errf(e, "%s: %s field \"%s\" is missing", file, t->what, f->key);
            continue;
        }
        if (load_one(t, f, obj, v, file, e) || check_one(t, f, obj, file, e))
            return -1;
    }
    return 0;
}

void fields_to_json(const struct field_table *t, const void *obj, cJSON *into)
{
    char buf[64];
    for (size_t i = 0; i < t->n; i++) {
        const struct field_desc *f = &t->f[i];
        /* Keys are unique within and across the config tables: no lookup. */
        switch (f->type) {
        case FT_INT:
            snprintf(buf, sizeof buf, "%lld", (long long)*CAT(obj, f, int64_t));
            cJSON_AddRawToObject(into, f->key, buf);
            break;
        case FT_DOUBLE:
            py_repr_double(*CAT(obj, f, double), buf, sizeof buf);
            cJSON_AddRawToObject(into, f->key, buf);
            break;
        case FT_BOOL: cJSON_AddBoolToObject(into, f->key, *CAT(obj, f, bool)); break;
        case FT_STR: cJSON_AddStringToObject(into, f->key, CAT(obj, f, char)); break;
        case FT_INT_LIST: {
            const struct int_list *l = CAT(obj, f, struct int_list);
            cJSON *a = cJSON_AddArrayToObject(into, f->key);
            for (int k = 0; k < l->n; k++) {
                snprintf(buf, sizeof buf, "%lld", (long long)l->v[k]);
                cJSON_AddItemToArray(a, cJSON_CreateRaw(buf));
            }
            break;
        }
        }
    }
}
