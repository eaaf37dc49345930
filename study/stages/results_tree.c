/* results_tree.c — stats-file discovery and number-preserving JSON reading
 * (see results_tree.h). */
#include "study/stages/results_tree.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/rawjson.h"
#include "base/textfile.h"
#include "base/fastfloat.h"
#include "base/pyfmt.h"
#include "base/strbuf.h"

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
    struct results_file *r = malloc((nn ? nn : 1) * sizeof *r);   /* each entry set whole before use */
    if (!r)
        abort();   /* out of memory, as for the names above */
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

cJSON *results_load_json(const char *path, enum json_numbers numbers, struct npu_err *e)
{
    size_t len;
    char *text = text_read_file(path, &len, e);
    if (!text)
        return NULL;
    cJSON *j = results_parse_json(text, len, path, numbers, e);
    free(text);
    return j;
}

cJSON *results_parse_json(const char *text, size_t len, const char *path, enum json_numbers numbers,
                          struct npu_err *e)
{
    int line = 0;
    cJSON *j = rawjson_parse(text, len, numbers, &line);
    if (!j)
        npu_errf(e, "%s:%d: invalid JSON (expected a statistics object)", path, line);
    else if (!cJSON_IsObject(j)) {
        npu_errf(e, "%s: expected a statistics object, not a JSON %s", path,
                 cJSON_IsArray(j) ? "array" : cJSON_IsString(j) ? "string" : "number, true, false or null");
        cJSON_Delete(j);
        j = NULL;
    }
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
        *v = fast_strtod(s, &end);
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
        struct strbuf kb = STRBUF(key);   /* snprintf("%.*s") without the format machinery */
        strbuf_putn(&kb, path, len);
        o = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
        path += len + (dot != NULL);
    }
    return o;
}

const char *jraw_f64_text(double v, char *buf)
{
    if (isnan(v))
        return "NaN";
    if (isinf(v))
        return v > 0 ? "Infinity" : "-Infinity";
    py_repr_fmt(v, buf);
    return buf;
}

cJSON *jraw_f64(double v)
{
    char b[PY_REPR_MAX];
    return cJSON_CreateRaw(jraw_f64_text(v, b));
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
