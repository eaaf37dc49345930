/* results.c — a results tree in memory (see results.h). Main data
 * structure: an open-addressing index of struct result by key (FNV-1a,
 * linear probing, at most half full). */
#include "study/run/results.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/rawjson.h"

void results_init(struct results *r, size_t budget_bytes)
{
    memset(r, 0, sizeof *r);
    r->budget_bytes = budget_bytes;
    pthread_mutex_init(&r->mu, NULL);
}

/* What an entry holds, roughly: its ops and their texts, its tree's nodes
 * and texts. */
static size_t tree_bytes(const cJSON *j)
{
    size_t n = 0;
    for (; j; j = j->next)
        n += sizeof *j + (j->string ? strlen(j->string) + 1 : 0) +
             (j->valuestring ? strlen(j->valuestring) + 1 : 0) + tree_bytes(j->child);
    return n;
}

static size_t result_bytes(const struct result *res)
{
    size_t n = sizeof *res + strlen(res->key) + 1 + tree_bytes(res->stats) +
               (size_t)res->nenergy * sizeof *res->energy + (res->config ? sizeof *res->config : 0) +
               res->ops.n * sizeof *res->ops.ops;
    for (size_t i = 0; i < res->ops.n; i++) {
        const struct op *op = &res->ops.ops[i];
        const char *s[] = { op->description, op->config, op->name, op->opcode, op->in_shapes,
                            op->out_shape, op->parsed_op_type, op->dim_labels, op->tile_shapes };
        for (size_t k = 0; k < sizeof s / sizeof s[0]; k++)
            n += strlen(s[k]) + 1;
    }
    return n;
}

static void result_free(struct result *res)
{
    if (!res)
        return;
    free(res->key);
    cJSON_Delete(res->stats);
    trace_free(&res->ops);
    free(res->energy);
    free(res->config);
    free(res);
}

void results_clear(struct results *r)
{
    for (size_t i = 0; i < r->cap; i++)
        result_free(r->slot[i]);
    free(r->slot);
    r->slot = NULL;
    r->n = r->cap = r->bytes = 0;
}

void results_free(struct results *r)
{
    results_clear(r);
    pthread_mutex_destroy(&r->mu);
}

void results_begin(struct results *r, const char *root, const char *write_root)
{
    if (strcmp(r->root, root) != 0)
        results_clear(r);
    snprintf(r->root, sizeof r->root, "%s", root);
    snprintf(r->write_root, sizeof r->write_root, "%s", write_root ? write_root : "");
}

static uint64_t hash_key(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot holding key, or the empty slot where it would go (cap > 0). */
static size_t slot_of(const struct results *r, const char *key)
{
    size_t i = (size_t)hash_key(key) & (r->cap - 1);
    while (r->slot[i] && strcmp(r->slot[i]->key, key) != 0)
        i = (i + 1) & (r->cap - 1);
    return i;
}

/* Takes the entry in slot i out of the index. */
static struct result *remove_at(struct results *r, size_t i)
{
    struct result *res = r->slot[i];
    r->bytes -= res->bytes;
    r->slot[i] = NULL;
    r->n--;
    /* Linear probing: the entries after the hole move up to stay findable. */
    for (size_t k = (i + 1) & (r->cap - 1); r->slot[k]; k = (k + 1) & (r->cap - 1)) {
        struct result *m = r->slot[k];
        r->slot[k] = NULL;
        r->slot[slot_of(r, m->key)] = m;
    }
    return res;
}

static int grow(struct results *r)
{
    size_t cap = r->cap ? 2 * r->cap : 256;
    struct result **old = r->slot;
    size_t old_cap = r->cap;
    if (!(r->slot = calloc(cap, sizeof *r->slot))) {
        r->slot = old;
        return -1;
    }
    r->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            r->slot[slot_of(r, old[i]->key)] = old[i];
    free(old);
    return 0;
}

/* The key of path: what follows "<prefix>/", without ".json"; NULL if path
 * does not lie there. */
static char *key_of(const char *prefix, const char *path)
{
    size_t n = strlen(prefix), len = strlen(path);
    if (!n || strncmp(path, prefix, n) != 0 || path[n] != '/' || len < n + 6 ||
        strcmp(path + len - 5, ".json") != 0)
        return NULL;
    return strndup(path + n + 1, len - n - 6);
}

/* A new entry (key copied; stats taken); NULL when out of memory. */
static struct result *result_new(const char *key, cJSON *stats, const struct trace *ops,
                                 const struct trace_csv_opts *o, const struct result_energy *energy, int n,
                                 const struct result_config *config)
{
    struct result *res = calloc(1, sizeof *res);
    if (!res)
        return NULL;
    res->stats = stats;
    trace_init(&res->ops);
    res->key = strdup(key);
    res->energy = n > 0 ? malloc((size_t)n * sizeof *energy) : NULL;
    if (!res->key || (n > 0 && !res->energy)) {
        result_free(res);
        return NULL;
    }
    if (n > 0)
        memcpy(res->energy, energy, (size_t)n * sizeof *energy);
    if (config && (res->config = malloc(sizeof *config)))
        *res->config = *config;   /* no memory: the carbon stage reads sim_config */
    res->nenergy = n;
    if (ops) {
        trace_csv_readback(&res->ops, ops, o);
        res->has_ops = true;
    }
    return res;
}

int results_put(struct results *r, const char *path, cJSON *stats, const struct trace *ops,
                const struct trace_csv_opts *o, const struct result_energy *energy, int n,
                struct npu_err *e)
{
    char *key = key_of(r->write_root[0] ? r->write_root : r->root, path);
    if (!key && r->write_root[0])
        key = key_of(r->root, path);
    if (!key) {
        cJSON_Delete(stats);
        return npu_errf(e, "%s: not a statistics file under %s (out of memory?)", path, r->root);
    }
    int rc = results_put_key(r, key, stats, ops, o, energy, n, NULL, e);
    free(key);
    return rc;
}

int results_put_key(struct results *r, const char *key, cJSON *stats, const struct trace *ops,
                    const struct trace_csv_opts *o, const struct result_energy *energy, int n,
                    const struct result_config *config, struct npu_err *e)
{
    struct result *res = result_new(key, stats, ops, o, energy, n, config);
    if (!res) {
        cJSON_Delete(stats);
        return npu_errf(e, "%s: out of memory", key);
    }
    res->bytes = result_bytes(res);   /* outside the lock: it walks every op string */
    pthread_mutex_lock(&r->mu);
    int rc = 0;
    if (2 * (r->n + 1) > r->cap && grow(r))
        rc = -1;
    if (!rc) {
        size_t i = slot_of(r, res->key);
        if (r->slot[i])   /* the file was written again: the newer one, or none */
            result_free(remove_at(r, i));
        if (r->bytes + res->bytes <= r->budget_bytes) {
            r->slot[slot_of(r, res->key)] = res;
            r->bytes += res->bytes;
            r->n++;
            res = NULL;
        }
    }
    pthread_mutex_unlock(&r->mu);
    result_free(res);
    return rc ? npu_errf(e, "%s: out of memory", key) : 0;
}

const struct result *results_find(struct results *r, const char *root, const char *key)
{
    if (!r)
        return NULL;
    pthread_mutex_lock(&r->mu);
    const struct result *res = r->cap && !strcmp(r->root, root) ? r->slot[slot_of(r, key)] : NULL;
    if (res)
        r->found++;
    else
        r->missed++;
    pthread_mutex_unlock(&r->mu);
    return res;
}

/* j with its members printed as raw object text parsed into trees; NULL
 * (j freed) when one does not parse. */
static cJSON *raw_objects_parsed(cJSON *j)
{
    for (cJSON *it = j ? j->child : NULL, *next; it; it = next) {
        next = it->next;
        if (!cJSON_IsRaw(it) || it->valuestring[0] != '{')
            continue;
        int line;
        cJSON *v = rawjson_parse(it->valuestring, strlen(it->valuestring), JSON_NUMBERS_PYTHON, &line);
        if (!v || !cJSON_ReplaceItemInObjectCaseSensitive(j, it->string, v)) {
            cJSON_Delete(v);
            cJSON_Delete(j);
            return NULL;
        }
    }
    return j;
}

bool results_take(struct results *r, const char *root, const char *key, cJSON **stats, struct trace *ops)
{
    if (!r)
        return false;
    pthread_mutex_lock(&r->mu);
    struct result *res = r->cap && !strcmp(r->root, root) ? r->slot[slot_of(r, key)] : NULL;
    if (res && !res->has_ops)
        res = NULL;
    bool copy = r->takers > 1;
    if (res && !copy)
        remove_at(r, slot_of(r, key));
    if (res)
        r->found++;
    else
        r->missed++;
    pthread_mutex_unlock(&r->mu);
    if (!res)
        return false;
    /* A copy reads the entry while other workers take other entries: the
     * index may move, the entry does not (only a taker frees it, and the
     * takers of one stage take distinct keys). */
    *stats = raw_objects_parsed(copy ? cJSON_Duplicate(res->stats, 1) : res->stats);
    bool ok = *stats != NULL;
    if (copy) {
        ok = ok && trace_append(ops, &res->ops) == 0;
        if (!ok) {
            cJSON_Delete(*stats);
            trace_free(ops);
            trace_init(ops);
        }
        return ok;
    }
    res->stats = NULL;
    if (ok) {
        *ops = res->ops;   /* moved whole, as the trace owns its ops and strings */
        trace_init(&res->ops);
    }
    result_free(res);
    return ok;   /* false: out of memory, the caller reads the files instead */
}
