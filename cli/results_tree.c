/* results_tree.c — stats-file discovery and number-preserving JSON reading
 * (see results_tree.h). */
#include "cli/results_tree.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "traces/pyfmt.h"

int results_list(const char *root, const char *model, const char *version, const char *workload,
                 const char *suffix, struct results_file **out, int *n,
                 void (*warn)(const char *msg), struct npu_err *e)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, model);
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return npu_errf(e, "%s: cannot read the results folder (%s)", dir, strerror(errno));
    char **names = NULL;
    size_t nn = 0, cap = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        if (nn == cap) {
            cap = cap ? 2 * cap : 64;
            char **nb = realloc(names, cap * sizeof *names);
            if (!nb)
                abort();
            names = nb;
        }
        names[nn++] = strdup(de->d_name);
    }
    closedir(d);
    /* Folders in readdir order, which is Python's os.listdir order: the
     * reference breaks ties between equally good configurations by it (first
     * wins), so the same tree gives the same choice. */
    struct results_file *r = calloc(nn ? nn : 1, sizeof *r);
    int k = 0;
    for (size_t i = 0; i < nn; i++) {
        struct results_file f;
        memset(&f, 0, sizeof f);
        snprintf(f.pstr, sizeof f.pstr, "%s", names[i]);
        char msg[4400];
        if (slo_parse_pstr(names[i], &f.pc)) {
            snprintf(msg, sizeof msg, "%s/%s: not a parallelism folder (dp..-tp..-pp..-...-bs..); skipped",
                     dir, names[i]);
            if (warn)
                warn(msg);
            continue;
        }
        if (slo_num_chips(model, &f.pc, &f.pstr_chips)) {
            snprintf(msg, sizeof msg, "%s/%s: a DLRM folder needs dp == tp and pp == 1; skipped", dir,
                     names[i]);
            if (warn)
                warn(msg);
            continue;
        }
        snprintf(f.path, sizeof f.path, "%s/%s/%s-v%s%s.json", dir, names[i], workload, version, suffix);
        struct stat st;
        if (stat(f.path, &st) != 0)
            continue;
        /* One entry per (dp, tp, pp, ep, dp_dcn, pp_dcn, bs): a later folder
         * replaces an earlier one in place, as a Python dict does. */
        int j = 0;
        for (; j < k; j++)
            if (slo_same_key(&r[j].pc, &f.pc))
                break;
        r[j] = f;
        if (j == k)
            k++;
    }
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    *out = r;
    *n = k;
    return 0;
}

/* --- number-preserving JSON ------------------------------------------------ */

struct toks {
    char **t;
    size_t n, cap, next;
};

static bool numch(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
           c == '+' || c == '-';
}

/* Copies text into out, recording every number token (Python's NaN,
 * Infinity and -Infinity too, which cJSON cannot parse: they become 0). */
static void scan(const char *s, char *out, struct toks *tk)
{
    size_t o = 0;
    while (*s) {
        if (*s == '"') {
            out[o++] = *s++;
            while (*s && *s != '"') {
                if (*s == '\\' && s[1])
                    out[o++] = *s++;
                out[o++] = *s++;
            }
            if (*s)
                out[o++] = *s++;
            continue;
        }
        if (*s == '-' || (*s >= '0' && *s <= '9') || *s == 'N' || *s == 'I') {
            const char *b = s;
            while (numch(*s))
                s++;
            size_t len = (size_t)(s - b);
            char *t = strndup(b, len);
            if (tk->n == tk->cap) {
                tk->cap = tk->cap ? 2 * tk->cap : 256;
                char **nt = realloc(tk->t, tk->cap * sizeof *nt);
                if (!nt)
                    abort();
                tk->t = nt;
            }
            tk->t[tk->n++] = t;
            if (!strcmp(t, "NaN") || !strcmp(t, "Infinity") || !strcmp(t, "-Infinity"))
                out[o++] = '0';
            else {
                memcpy(out + o, b, len);
                o += len;
            }
            continue;
        }
        out[o++] = *s++;
    }
    out[o] = '\0';
}

static void rawify(cJSON *it, struct toks *tk)
{
    for (cJSON *c = it->child, *next; c; c = next) {
        next = c->next;
        if (cJSON_IsNumber(c) && tk->next < tk->n) {
            cJSON *r = cJSON_CreateRaw(tk->t[tk->next++]);
            /* ReplaceItemViaPointer keeps no key: move it over. */
            r->string = c->string;
            r->type |= c->type & cJSON_StringIsConst;
            c->string = NULL;
            cJSON_ReplaceItemViaPointer(it, c, r);
        } else if (cJSON_IsObject(c) || cJSON_IsArray(c))
            rawify(c, tk);
    }
}

cJSON *results_load_json(const char *path, struct npu_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        npu_errf(e, "%s: cannot open (%s)", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    char buf[65536];
    for (size_t k; (k = fread(buf, 1, sizeof buf, f)) > 0;)
        fwrite(buf, 1, k, m);
    bool rd_err = ferror(f);
    fclose(f);
    fclose(m);
    if (rd_err) {
        free(text);
        npu_errf(e, "%s: read error", path);
        return NULL;
    }
    char *copy = malloc(len + 1);
    struct toks tk = { NULL, 0, 0, 0 };
    scan(text, copy, &tk);
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(copy, &end, 1);
    if (!j || !cJSON_IsObject(j)) {
        int line = 1;
        for (const char *p = copy; end && p < end && *p; p++)
            line += *p == '\n';
        npu_errf(e, "%s:%d: invalid JSON (expected a statistics object)", path, line);
        cJSON_Delete(j);
        j = NULL;
    } else
        rawify(j, &tk);
    for (size_t i = 0; i < tk.n; i++)
        free(tk.t[i]);
    free(tk.t);
    free(copy);
    free(text);
    return j;
}

bool jnum(const cJSON *it, double *v)
{
    if (cJSON_IsNumber(it)) {
        *v = it->valuedouble;
        return true;
    }
    if (!cJSON_IsRaw(it) || !it->valuestring)
        return false;
    const char *s = it->valuestring;
    if (!strcmp(s, "NaN"))
        *v = NAN;
    else if (!strcmp(s, "Infinity"))
        *v = INFINITY;
    else if (!strcmp(s, "-Infinity"))
        *v = -INFINITY;
    else {
        char *end;
        *v = strtod(s, &end);
        return end != s && *end == '\0';
    }
    return true;
}

bool jis_int(const cJSON *it)
{
    if (cJSON_IsNumber(it))
        return it->valuedouble == floor(it->valuedouble);
    if (!cJSON_IsRaw(it) || !it->valuestring || !it->valuestring[0])
        return false;
    return strpbrk(it->valuestring, ".eENI") == NULL;
}

const cJSON *jpath(const cJSON *o, const char *path)
{
    char key[256];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        snprintf(key, sizeof key, "%.*s", (int)len, path);
        o = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
        path += len + (dot != NULL);
    }
    return o;
}

cJSON *jraw_f64(double v)
{
    char b[40];
    if (isnan(v))
        return cJSON_CreateRaw("NaN");
    if (isinf(v))
        return cJSON_CreateRaw(v > 0 ? "Infinity" : "-Infinity");
    return cJSON_CreateRaw(py_repr_double(v, b, sizeof b));
}

cJSON *jraw_i64(int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    return cJSON_CreateRaw(b);
}

void jset(cJSON *o, const char *key, cJSON *item)
{
    if (cJSON_GetObjectItemCaseSensitive(o, key))
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, item);
    else
        cJSON_AddItemToObject(o, key, item);
}
