/* config.c — config resolution, merging and loading (see config.h). */
#define _DEFAULT_SOURCE  /* realpath on glibc */
#include "study/run/config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json_strict.h"
#include "base/rawjson.h"
#include "base/textfile.h"
#include "base/version.h"
#include "opsgen/pattern.h"
#include "study/hf/hf.h"

#ifndef NPUSIM_SHARE_DIR
#define NPUSIM_SHARE_DIR "/usr/local/share/npusim"
#endif

static const char *const kind_dir[] = { "models", "chips", "systems" };
static const char *const kind_word[] = { "model", "chip", "system" };

/* Keys the reference's pydantic classes drop silently because they collide
 * with derived properties; known, so they draw no warning. */
static const char *const ignored_keys[] = {
    "static_power_hbm_W",
    /* GLIGEN sub-configs the reference parses but never uses (opsgen.md §1.9) */
    "fourier_embedder_config", "text_embedder_config", "image_embedder_config",
    "spatial_condition_embedder_config",
};

static bool looks_like_path(const char *name)
{
    size_t n = strlen(name);
    return strchr(name, '/') || (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

/* Ends an unknown name's message before the files it looked for, which run
 * to ".json)": config_hide_paths cuts from here to there. */
#define LOOKED_FOR "; looked for "

/* Chip shorthands: "5p" and "v5p" (or "V5P") mean "tpuv5p". */
static void chip_alias(const char *name, char *buf, size_t n)
{
    if (strncasecmp(name, "tpu", 3) != 0 && (name[0] == 'v' || name[0] == 'V' || (name[0] >= '0' && name[0] <= '9')))
        snprintf(buf, n, "tpu%s%s", name[0] == 'v' || name[0] == 'V' ? "" : "v", name);
    else
        snprintf(buf, n, "%s", name);
}

/* The first file NAME.json of a kind in dirs into out (0), else -1 with
 * the paths tried appended to tried (size 4096). */
static int find_config_file(char dirs[][4096], int nd, enum config_kind kind, const char *name, char *out,
                            size_t outlen, char *tried)
{
    for (int i = 0; i < nd; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s/%s.json", dirs[i], kind_dir[kind], name);
        if (path_is_file(p)) {
            snprintf(out, outlen, "%s", p);
            return 0;
        }
        size_t l = strlen(tried);
        snprintf(tried + l, 4096 - l, "%s%s", l ? ", " : "", p);
    }
    return -1;
}

static int search_dirs(const char *configs_dir, bool only_dir, char dirs[CONFIG_DIRS_MAX][4096]);

static int resolve_in(const char *configs_dir, bool only_dir, enum config_kind kind, const char *name, char *out,
                      size_t outlen, struct npu_err *e)
{
    if (!name || !*name)
        return npu_errf(e, "%s: expected a name or a path", kind_word[kind]);
    if (looks_like_path(name)) {
        if (only_dir)   /* a server's request reads the configs folder's files alone */
            return npu_errf(e, "%s: expected a config name (letters, digits, _ - .), not a path", kind_word[kind]);
        /* A folder, FIFO or device is said as such (stat only: a FIFO is never opened). */
        const char *why = path_not_file(name);
        if (why)
            return npu_errf(e, "%s: %s: %s%s", name, kind_word[kind], why,
                            strncmp(why, "is ", 3) ? "" : ", expected a JSON file");
        snprintf(out, outlen, "%s", name);
        return 0;
    }
    char alias[256];
    if (kind == CONFIG_CHIP)
        chip_alias(name, alias, sizeof alias);
    else
        snprintf(alias, sizeof alias, "%s", name);
    char dirs[CONFIG_DIRS_MAX][4096];
    int nd = search_dirs(configs_dir, only_dir, dirs);
    char tried[4096] = "";
    if (find_config_file(dirs, nd, kind, alias, out, outlen, tried) == 0)
        return 0;
    /* Names match without regard to case (-c H100, -m Llama3-8B): the
     * folders' name that differs only in case, else did you mean. */
    char (*names)[CONFIG_NAME_MAX] = calloc(CONFIG_NAMES_MAX, sizeof *names);
    const char *cands[CONFIG_NAMES_MAX];
    char hint[300] = "", unused[4096] = "";
    size_t nn = names ? config_names(configs_dir, only_dir, kind, names, CONFIG_NAMES_MAX) : 0;
    for (size_t i = 0; i < nn; i++)
        if (strcasecmp(names[i], alias) == 0 && find_config_file(dirs, nd, kind, names[i], out, outlen, unused) == 0) {
            free(names);
            return 0;
        }
    for (size_t i = 0; i < nn; i++)
        cands[i] = names[i];
    suggest_hint(hint, sizeof hint, alias, cands, nn);
    char known[480] = "";   /* the names there are, as many as fit */
    for (size_t i = 0, l = 0; i < nn; i++, l = strlen(known))
        if (snprintf(known + l, sizeof known - l, "%s%s", l ? ", " : "", names[i]) >= (int)(sizeof known - l - 4)) {
            snprintf(known + l, sizeof known - l, ", ...");
            break;
        }
    free(names);
    return npu_errf(e, "unknown %s \"%s\"%s: no file found (known %ss: %s" LOOKED_FOR "%s)", kind_word[kind], name,
                    hint, kind_word[kind], nn ? known : "none", tried);
}

int config_resolve(const char *configs_dir, enum config_kind kind, const char *name, char *out,
                   size_t outlen, struct npu_err *e)
{
    return resolve_in(configs_dir, false, kind, name, out, outlen, e);
}

void config_hide_paths(char *msg)
{
    char *from = strstr(msg, LOOKED_FOR), *to = from ? strstr(from, ".json)") : NULL;
    if (to)
        memmove(from, to + 5, strlen(to + 5) + 1);
}

/* Whether a path may start at p: at the start or after a space, quote,
 * bracket, comma or '='. */
static bool token_start(const char *msg, const char *p)
{
    return p == msg || strchr(" \"'(,=[", p[-1]);
}

void config_relative_paths(char *msg, const char *configs_dir)
{
    char dirs[2][PATH_MAX] = { "", "" };   /* the folder as given and as resolved */
    if (configs_dir && *configs_dir) {
        snprintf(dirs[0], sizeof dirs[0], "%s", configs_dir);
        if (!realpath(configs_dir, dirs[1]))
            dirs[1][0] = '\0';
    } else
        config_shipped_dir(dirs[0], sizeof dirs[0]);
    for (int d = 0; d < 2; d++) {
        size_t l = strlen(dirs[d]);
        while (l > 1 && dirs[d][l - 1] == '/')
            dirs[d][--l] = '\0';
    }
    for (char *p = msg; *p; p++) {
        if (!token_start(msg, p))
            continue;
        for (int d = 0; d < 2; d++) {   /* "<configs>/chips/h100.json" -> "chips/h100.json" */
            size_t l = strlen(dirs[d]);
            if (l && !strncmp(p, dirs[d], l) && p[l] == '/') {
                size_t skip = l + strspn(p + l, "/");   /* "cfg//chips/x.json" as --configs cfg/ makes it */
                memmove(p, p + skip, strlen(p + skip) + 1);
            }
        }
        if (*p != '/')
            continue;
        char *end = p + strcspn(p, " \"'),;:"), *last = p;   /* any other absolute path: its file name */
        for (char *q = p + 1; q < end; q++)
            if (*q == '/')
                last = q;
        if (last > p)
            memmove(p, last + 1, strlen(last + 1) + 1);
    }
}

int config_user_dir(char *out, size_t n)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')   /* the XDG rule: a relative value is ignored */
        snprintf(out, n, "%s/npusim", xdg);
    else if (home && home[0] == '/')
        snprintf(out, n, "%s/.local/share/npusim", home);
    else
        return *out = '\0', -1;
    return 0;
}

/* Beside the binary: the share folder of an install (<prefix>/bin/npusim
 * -> <prefix>/share/npusim/configs, which wins over the compiled-in
 * prefix, so an install into another PREFIX still finds its configs), and
 * the configs of the tree it was built in (build/npusim -> configs/), so
 * the in-tree binary works from any folder ("" when /proc/self/exe is not
 * there). */
static void exe_dirs(char exe_share[4096], char exe_tree[4096])
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    *exe_share = *exe_tree = '\0';
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(exe_share, 4096, "%s/../share/npusim/configs", exe);
            snprintf(exe_tree, 4096, "%s/../configs", exe);
        }
    }
}

int config_shipped_dir(char *out, size_t n)
{
    char exe_share[4096], exe_tree[4096];
    exe_dirs(exe_share, exe_tree);
    const char *cand[] = { exe_share, exe_tree, NPUSIM_SHARE_DIR "/configs" };
    char real[PATH_MAX];
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
        if (*cand[i] && path_is_dir(cand[i]) && realpath(cand[i], real) && strlen(real) < n) {
            snprintf(out, n, "%s", real);
            return 0;
        }
    if (n)
        *out = '\0';
    return -1;
}

/* The folders of config_search_dirs, or with only_dir configs_dir alone
 * (the shipped folder when it is NULL). */
static int search_dirs(const char *configs_dir, bool only_dir, char dirs[CONFIG_DIRS_MAX][4096])
{
    if (!only_dir)
        return config_search_dirs(configs_dir, dirs);
    if (configs_dir && *configs_dir)
        return snprintf(dirs[0], 4096, "%s", configs_dir), 1;
    return config_shipped_dir(dirs[0], 4096) ? 0 : 1;
}

int config_search_dirs(const char *configs_dir, char dirs[CONFIG_DIRS_MAX][4096])
{
    char exe_share[4096], exe_tree[4096];
    exe_dirs(exe_share, exe_tree);
    /* The user's own configs (npusim measure's host chip) come before any
     * install's, so a fresh measurement is never shadowed by an older copy. */
    char user[4096] = "";
    config_user_dir(user, sizeof user);
    const char *cand[CONFIG_DIRS_MAX] = { configs_dir, getenv("NPUSIM_CONFIGS"), user, exe_share, exe_tree,
                                          NPUSIM_SHARE_DIR "/configs", "configs" };
    int k = 0;
    for (int i = 0; i < CONFIG_DIRS_MAX; i++)
        if (cand[i] && *cand[i])
            snprintf(dirs[k++], 4096, "%s", cand[i]);
    return k;
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

size_t config_names(const char *configs_dir, bool only_dir, enum config_kind kind, char (*names)[CONFIG_NAME_MAX],
                    size_t max)
{
    char dirs[CONFIG_DIRS_MAX][4096];
    int nd = search_dirs(configs_dir, only_dir, dirs);
    size_t n = 0;
    for (int i = 0; i < nd; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", dirs[i], kind_dir[kind]);
        DIR *d = opendir(p);
        for (struct dirent *de; d && (de = readdir(d)) && n < max;) {
            size_t len = strlen(de->d_name);
            if (de->d_name[0] == '.' || len <= 5 || len - 5 >= CONFIG_NAME_MAX || strcmp(de->d_name + len - 5, ".json"))
                continue;
            char name[CONFIG_NAME_MAX];
            snprintf(name, sizeof name, "%.*s", (int)(len - 5), de->d_name);
            bool seen = false;   /* the first folder's file wins, as in resolving */
            for (size_t k = 0; k < n && !seen; k++)
                seen = !strcmp(names[k], name);
            if (!seen)
                snprintf(names[n++], CONFIG_NAME_MAX, "%s", name);
        }
        if (d)
            closedir(d);
    }
    qsort(names, n, sizeof *names, by_name);
    return n;
}

cJSON *config_read_json(const char *path, struct npu_err *e)
{
    cJSON *j = json_read_file_strict(path, e);
    /* a Hugging Face config as Python's json wrote it (Infinity in time_step_limit); e keeps the
     * strict reader's message for anything else */
    return j ? j : hf_read_python(path);
}

static void set_source(cJSON *sources, const char *key, const char *file)
{
    cJSON_DeleteItemFromObjectCaseSensitive(sources, key);
    cJSON_AddStringToObject(sources, key, file);
}

void config_merge(cJSON *dst, cJSON *sources, const cJSON *src, const char *file)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, src) {
        cJSON_DeleteItemFromObjectCaseSensitive(dst, it->string);
        cJSON_AddItemToObject(dst, it->string, cJSON_Duplicate(it, 1));
        set_source(sources, it->string, file);
    }
}

int config_set_value(cJSON *merged, cJSON *sources, const char *key, cJSON *v, const char *source,
                     struct npu_err *e)
{
    char k[256];
    if (strlen(key) >= sizeof k) {
        cJSON_Delete(v);
        return npu_errf(e, "%s \"%s\": key too long", source, key);
    }
    snprintf(k, sizeof k, "%s", key);
    /* A dotted key sets a field of a nested object ("unet_config.num_heads"). */
    cJSON *into = merged;
    char *leaf = k;
    for (char *dot; (dot = strchr(leaf, '.')) != NULL; leaf = dot + 1) {
        *dot = '\0';
        cJSON *next = *leaf ? cJSON_GetObjectItemCaseSensitive(into, leaf) : NULL;
        if (!*leaf || (next && !cJSON_IsObject(next))) {
            int rc = *leaf ? npu_errf(e, "%s \"%s\": \"%s\" is not an object", source, key, leaf)
                           : npu_errf(e, "%s \"%s\": empty key part", source, key);
            cJSON_Delete(v);
            return rc;
        }
        if (!next)
            next = cJSON_AddObjectToObject(into, leaf);
        into = next;
        *dot = '.';
    }
    if (!*leaf) {
        cJSON_Delete(v);
        return npu_errf(e, "%s \"%s\": empty key part", source, key);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(into, leaf);
    cJSON_AddItemToObject(into, leaf, v);
    set_source(sources, key, source);
    return 0;
}

/* Applies one "key=value" override (value parsed as JSON when it parses, else a string). */
static int config_apply_set(cJSON *merged, cJSON *sources, const char *kv, struct npu_err *e)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return npu_errf(e, "--set \"%s\": expected key=value", kv);
    char key[256];
    size_t kl = (size_t)(eq - kv);
    if (kl >= sizeof key)
        return npu_errf(e, "--set \"%s\": key too long", kv);
    memcpy(key, kv, kl);
    key[kl] = '\0';
    cJSON *v = rawjson_parse(eq + 1, strlen(eq + 1), JSON_NUMBERS_DOUBLE, NULL);   /* JSON, else text */
    if (!v)
        v = cJSON_CreateString(eq + 1);
    if (config_set_value(merged, sources, key, v, "--set", e)) {
        /* Keep the old message form: --set "k=v": ... */
        char msg[sizeof e->msg];
        const char *rest = strstr(e->msg, "\": ");
        snprintf(msg, sizeof msg, "--set \"%s\": %s", kv, rest ? rest + 3 : e->msg);
        memcpy(e->msg, msg, sizeof msg);
        return -1;
    }
    return 0;
}

int config_load_structs(struct loaded_config *c, bool need_model, struct npu_err *e)
{
    chip_config_default(&c->chip);
    system_config_default(&c->sys);
    if (fields_from_json(&chip_fields, &c->chip, c->merged, c->sources, e) ||
        fields_from_json(&system_fields, &c->sys, c->merged, c->sources, e))
        return -1;
    if (need_model && model_config_from_json(&c->model, c->merged, c->sources, e))
        return -1;
    return 0;
}

size_t config_field_keys(const char **out, size_t max)
{
    const struct field_table *t[16];
    int n = model_all_tables(t, 14);
    t[n++] = &chip_fields;
    t[n++] = &system_fields;
    size_t nc = 0;
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < t[i]->n && nc < max; k++)
            if (!strchr(t[i]->f[k].key, '.'))
                out[nc++] = t[i]->f[k].key;
    return nc;
}

/* Every key of the merged config must be a field of some table (or one the
 * reference's own files carry and drop): a typo is an error naming the file
 * (or --set) with the closest known key. */
int config_check_keys(const struct loaded_config *c, struct npu_err *e)
{
    const struct field_table *t[16];
    int n = model_all_tables(t, 14);
    t[n++] = &chip_fields;
    t[n++] = &system_fields;
    const cJSON *it;
    cJSON_ArrayForEach(it, c->merged) {
        bool known = false;
        for (int i = 0; i < n && !known; i++)
            known = fields_has_key(t[i], it->string);
        for (size_t i = 0; i < sizeof ignored_keys / sizeof ignored_keys[0] && !known; i++)
            known = strcmp(ignored_keys[i], it->string) == 0;
        if (known)
            continue;
        const char *cands[1024];
        char hint[300];
        if (hf_config_key(it->string) || cJSON_GetObjectItemCaseSensitive(c->merged, "hidden_size") ||
            cJSON_GetObjectItemCaseSensitive(c->merged, "num_hidden_layers"))   /* a config.json short of its marks */
            snprintf(hint, sizeof hint, " (a Hugging Face config.json? one is read as such when it has "
                                        "\"architectures\", or both \"hidden_size\" and \"num_hidden_layers\")");
        else
            fields_suggest_hint(hint, sizeof hint, it->string, cands, config_field_keys(cands, 1024));
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(c->sources, it->string);
        const char *file = cJSON_IsString(s) ? s->valuestring : "<config>";
        if (strcmp(file, "--set") == 0)
            return npu_errf(e, "--set \"%s\": unknown field%s", it->string, hint);
        return npu_errf(e, "%s: unknown key \"%s\"%s", file, it->string, hint);
    }
    return 0;
}

static void basename_noext(const char *path, char *out, size_t n)
{
    snprintf(out, n, "%s", path_base(path));
    size_t l = strlen(out);
    if (l > 5 && strcmp(out + l - 5, ".json") == 0)
        out[l - 5] = '\0';
}

/* A chip config may start from another: "base": NAME (what -c takes, a name
 * or a path) merges that chip's fields first and the file's own over them,
 * each top-level field replacing the base's whole (a kernel_efficiency given
 * is the whole table). The base may have its own base; a chain longer than
 * CHIP_BASE_DEPTH, a cycle among them, is refused. "base" is then dropped
 * from j, so no later check sees it. */
#define CHIP_BASE_DEPTH 8
static int merge_chip_base(struct loaded_config *c, const struct config_request *r, cJSON *j, const char *file,
                           int depth, struct npu_err *e)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "base");
    if (!b)
        return 0;
    if (!cJSON_IsString(b) || !*b->valuestring)
        return npu_errf(e, "%s: field \"base\": expected the name of the chip config it starts from", file);
    if (depth >= CHIP_BASE_DEPTH)
        return npu_errf(e, "%s: field \"base\": a chain of more than %d chip bases (a cycle?)", file,
                        CHIP_BASE_DEPTH);
    char path[4096];
    struct npu_err re;
    if (resolve_in(r->configs_dir, r->only_dir, CONFIG_CHIP, b->valuestring, path, sizeof path, &re))
        return npu_errf(e, "%s: field \"base\": %s", file, re.msg);
    cJSON *bj = config_read_json(path, e);
    if (!bj)
        return -1;
    char shown[PATH_MAX];   /* as merge_file names a file: without "bin/../" */
    if (!strstr(path, "/../") || !realpath(path, shown))
        snprintf(shown, sizeof shown, "%s", path);
    int rc = merge_chip_base(c, r, bj, shown, depth + 1, e);
    if (!rc)
        config_merge(c->merged, c->sources, bj, shown);
    cJSON_Delete(bj);
    cJSON_DeleteItemFromObjectCaseSensitive(j, "base");
    return rc;
}

static int merge_file(struct loaded_config *c, const struct config_request *r, enum config_kind kind,
                      const char *name, char *base, size_t baselen, struct npu_err *e)
{
    char path[4096];
    if (resolve_in(r->configs_dir, r->only_dir, kind, name, path, sizeof path, e))
        return -1;
    cJSON *j = config_read_json(path, e);
    if (!j)
        return -1;
    bool hf = kind == CONFIG_MODEL && hf_config_is(j);
    if (hf) {   /* a Hugging Face config.json: npusim's fields from its keys (study/hf/hf.h) */
        cJSON *m = hf_config_model(j, path, c->hf_ignored, sizeof c->hf_ignored, e);
        cJSON_Delete(j);
        if (!(j = m))
            return -1;
    }
    if (!realpath(path, c->files[kind]))   /* the file said as found, without "bin/../" */
        snprintf(c->files[kind], sizeof c->files[kind], "%s", path);
    /* Messages name a field's file as the user would find it: as given, or
     * resolved when the search made it "bin/../configs/...". */
    const char *shown = strstr(path, "/../") ? c->files[kind] : path;
    if (kind == CONFIG_CHIP && merge_chip_base(c, r, j, shown, 0, e)) {
        cJSON_Delete(j);
        return -1;
    }
    config_merge(c->merged, c->sources, j, shown);
    cJSON_Delete(j);
    if (base)
        basename_noext(path, base, baselen);
    if (base && hf && !strcmp(base, "config")) {   /* .../Llama-3.1-8B/config.json: the folder names it */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", c->files[kind]);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = '\0';
            snprintf(base, baselen, "%s", path_base(dir));
        }
    }
    return 0;
}

/* The model's parallelism degrees, in the order of the chip count's product. */
static const char *const degree_keys[] = {
    "data_parallelism_degree", "tensor_parallelism_degree", "pipeline_parallelism_degree",
    "data_parallel_degree_dcn", "tensor_parallel_degree_dcn", "pipeline_parallel_degree_dcn",
    "expert_parallelism_degree", "expert_parallel_degree_dcn",
};

static bool source_is_set(const cJSON *sources, const char *key)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(sources, key);
    return cJSON_IsString(s) && strcmp(s->valuestring, "--set") == 0;
}

/* num_chips becomes n, derived from the degrees (the summary says so). */
static void take_num_chips(struct loaded_config *c, int64_t n)
{
    c->model.num_chips = n;
    c->num_chips_derived = true;
    cJSON_DeleteItemFromObjectCaseSensitive(c->merged, "num_chips");
    cJSON_AddNumberToObject(c->merged, "num_chips", (double)n);
    set_source(c->sources, "num_chips", "--set");
}

/* DLRM's degrees are its chip count (dp = tp = num_chips: each chip holds a
 * share of the batch and of the tables), so a degree given with --set or
 * --dp/--tp without num_chips makes the chips as many as the larger (before:
 * run -m dlrm-s --dp 4 --tp 4 simulated one chip with a quarter of the work).
 * A num_chips given is the user's; the generator checks it. */
static void derive_dlrm_chips(struct loaded_config *c)
{
    const struct model_config *m = &c->model;
    int64_t need = m->data_parallelism_degree > m->tensor_parallelism_degree ? m->data_parallelism_degree
                                                                             : m->tensor_parallelism_degree;
    bool by_set = source_is_set(c->sources, "data_parallelism_degree") ||
                  source_is_set(c->sources, "tensor_parallelism_degree");
    if (by_set && !source_is_set(c->sources, "num_chips") && m->num_chips < need)
        take_num_chips(c, need);
}

/* num_chips from the parallelism degrees (study/run/config.h). The chips a
 * configuration occupies are dp x tp x pp x ep within a pod times the DCN
 * degrees, the count npusim sweep enumerates for a MoE model (expert
 * parallelism multiplies the chips there: the reference's opsgen Q33, which
 * both profiles keep, so that a run and a sweep point of the same degrees
 * are the same chips; ffn_type "moe", npusim's own, is dp x tp x pp: its
 * experts share those chips); the generators require num_chips >= dp x tp x pp. When --set
 * changed a degree but not num_chips and the file's num_chips is too small
 * (the shipped models say 1), num_chips becomes that product; an invocation
 * that passed before keeps its num_chips. A num_chips given with --set is
 * the user's: too small for the degrees is an error naming both. DLRM's
 * degrees are its chip count itself (derive_dlrm_chips). */
static int derive_num_chips(struct loaded_config *c, struct npu_err *e)
{
    struct model_config *m = &c->model;
    if (!strcmp(m->model_type, "dlrm"))
        return derive_dlrm_chips(c), 0;
    /* npusim's own mixtures over standard attention spread their experts
     * over the dp x tp chips, as the generator lays them out: not the
     * reference's opsgen Q33 */
    bool moe_std = pattern_is_moe(m);
    const int64_t deg[] = { m->data_parallelism_degree, m->tensor_parallelism_degree,
                            m->pipeline_parallelism_degree, m->data_parallel_degree_dcn,
                            m->tensor_parallel_degree_dcn, m->pipeline_parallel_degree_dcn,
                            m->expert_parallelism_degree > 0 && !moe_std ? m->expert_parallelism_degree : 1,
                            m->expert_parallel_degree_dcn > 0 && !moe_std ? m->expert_parallel_degree_dcn : 1 };
    int64_t ici = 1, all = 1;
    bool by_set = false, overflow = false;
    for (size_t i = 0; i < sizeof degree_keys / sizeof degree_keys[0]; i++)
        by_set |= source_is_set(c->sources, degree_keys[i]);
    for (size_t i = 0; i < sizeof deg / sizeof deg[0]; i++) {
        if (deg[i] < 1)
            return 0;   /* the generator's own check names the field */
        overflow |= __builtin_mul_overflow(all, deg[i], &all);
        if (i < 3)
            overflow |= __builtin_mul_overflow(ici, deg[i], &ici);
    }
    bool chips_by_set = source_is_set(c->sources, "num_chips");
    if ((!by_set && !chips_by_set) || (!overflow && m->num_chips >= ici))
        return 0;
    double chips_lo, chips_max;
    fields_range(fields_find(&model_base_fields, "num_chips"), &chips_lo, &chips_max);
    char what[200];
    snprintf(what, sizeof what, "dp %lld x tp %lld x pp %lld", (long long)deg[0], (long long)deg[1],
             (long long)deg[2]);
    for (int i = 3; i < (int)(sizeof deg / sizeof deg[0]); i++)
        if (deg[i] > 1) {
            size_t l = strlen(what);
            snprintf(what + l, sizeof what - l, " x %s %lld", degree_keys[i], (long long)deg[i]);
        }
    if (overflow || (!chips_by_set && (double)all > chips_max))
        return npu_errf(e, "--set: the parallelism degrees multiply to more than %.0f chips (%s)", chips_max,
                        what);
    if (chips_by_set)
        return npu_errf(e, "--set \"num_chips=%lld\": fewer chips than the parallelism degrees need "
                           "(%s: at least %lld); leave num_chips out and it follows from them",
                        (long long)m->num_chips, what, (long long)ici);
    take_num_chips(c, all);
    return 0;
}

/* A field --set gives that no table of the loaded model has (another
 * family's: --ep on a dense LLM, --seqlen on DLRM) would be ignored, the run
 * answering for a configuration not asked for. */
static int check_set_applies(const struct loaded_config *c, struct npu_err *e)
{
    /* Fields a family's tables share but its generator overrides (model.c:
     * DiT's tokens follow from its image and patch sizes). */
    static const struct { const char *model_type, *key, *why; } overridden[] = {
        { "dit", "input_seqlen", "DiT's tokens follow from its image and patch sizes" },
        { "dit", "output_seqlen", "DiT's tokens follow from its image and patch sizes" },
    };
    for (size_t i = 0; i < sizeof overridden / sizeof overridden[0]; i++)
        if (!strcmp(c->model.model_type, overridden[i].model_type) && source_is_set(c->sources, overridden[i].key))
            return npu_errf(e, "--set \"%s\": not used by %s (%s)", overridden[i].key, c->model_name,
                            overridden[i].why);
    const struct field_table *t[12];
    int n = model_tables(&c->model, t, 10);
    t[n++] = &chip_fields;
    t[n++] = &system_fields;
    const cJSON *s;
    cJSON_ArrayForEach(s, c->sources) {
        if (!cJSON_IsString(s) || strcmp(s->valuestring, "--set") != 0)
            continue;
        bool known = false;
        for (int i = 0; i < n && !known; i++)
            known = fields_has_key(t[i], s->string);
        for (size_t i = 0; i < sizeof ignored_keys / sizeof ignored_keys[0] && !known; i++)
            known = strcmp(ignored_keys[i], s->string) == 0;
        if (!known)
            return npu_errf(e, "--set \"%s\": not a field of %s (model_type \"%s\"): it belongs to another "
                               "model family", s->string, c->model_name, c->model.model_type);
    }
    return 0;
}

int config_load(const struct config_request *r, struct loaded_config *c, struct npu_err *e)
{
    memset(c, 0, sizeof *c);
    c->merged = cJSON_CreateObject();
    c->sources = cJSON_CreateObject();
    if (r->model && merge_file(c, r, CONFIG_MODEL, r->model, c->model_name,
                               sizeof c->model_name, e))
        return -1;
    if (merge_file(c, r, CONFIG_CHIP, r->chip ? r->chip : "tpuv5p", c->chip_name,
                   sizeof c->chip_name, e))
        return -1;
    if (merge_file(c, r, CONFIG_SYSTEM, r->system ? r->system : "system_config", c->system_name,
                   sizeof c->system_name, e))
        return -1;
    for (int i = 0; i < r->nsets; i++)
        if (config_apply_set(c->merged, c->sources, r->sets[i], e))
            return -1;
    if (config_check_keys(c, e))
        return -1;
    if (config_load_structs(c, r->model != NULL, e))
        return -1;
    if (r->model && check_set_applies(c, e))
        return -1;
    return r->model ? derive_num_chips(c, e) : 0;
}

void config_free(struct loaded_config *c)
{
    cJSON_Delete(c->merged);
    cJSON_Delete(c->sources);
    c->merged = c->sources = NULL;
}

/* snprintf(dst, size, "%s", src) without the format machinery (per point). */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void config_links(const struct chip_config *chip, struct opsgen_links *l)
{
    memset(l, 0, sizeof *l);
    copy_text(l->chip_name, sizeof l->chip_name, chip->name);
    l->ici_bw_GBps = chip->ici_bw_GBps;
    l->dcn_bw_GBps = chip->dcn_bw_GBps;
    l->pcie_bw_GBps = chip->pcie_bw_GBps;
    l->ici_latency_ns = chip->ici_latency_ns;
    l->dcn_latency_ns = chip->dcn_latency_ns;
    l->pcie_latency_ns = chip->pcie_latency_ns;
    l->hbm_size_GB = chip->hbm_size_GB;
    l->link_domain_chips = chip_link_domain(chip);
    copy_text(l->ICI_topology, sizeof l->ICI_topology, chip->ICI_topology);
    l->collective_algorithm = coll_algorithm_of(chip->collective_algorithm);
    l->collective_base_ns = chip->collective_base_ns;
    l->collective_direct_max_bytes = chip->collective_direct_max_bytes;
}

cJSON *config_dump(const struct loaded_config *c, const struct profile *prof)
{
    cJSON *o = cJSON_CreateObject();
    bool ext = !prof->sim_config_reference_keys;
    fields_to_json(&system_fields, &c->sys, o, ext);
    fields_to_json(&chip_fields, &c->chip, o, ext);
    const struct field_table *t[8];
    int n = model_tables(&c->model, t, 8);
    for (int i = 0; i < n; i++)
        fields_to_json(t[i], &c->model, o, ext);
    cJSON *p = config_provenance(prof, c);
    if (p)
        cJSON_AddItemToObject(o, "provenance", p);
    return o;
}

cJSON *config_provenance(const struct profile *prof, const struct loaded_config *c)
{
    if (prof->no_provenance)
        return NULL;
    cJSON *p = cJSON_CreateObject();   /* who made it: names, never paths */
    cJSON_AddStringToObject(p, "npusim", NPUSIM_VERSION);
    cJSON_AddStringToObject(p, "profile", prof->name);
    if (c) {
        cJSON_AddStringToObject(p, "model", c->model_name);
        cJSON_AddStringToObject(p, "chip", c->chip_name);
        cJSON_AddStringToObject(p, "system", c->system_name);
    }
    return p;
}

int config_name_source(const struct loaded_config *c, struct npu_err *e)
{
    /* Generators name a field as `model field "KEY"` (or chip field); the
     * file comes from the merged config's sources (for a key left at its
     * default: the file that set model_type). Messages that already start
     * with a file name are left alone. */
    if (strncmp(e->msg, "model field \"", 13) != 0 && strncmp(e->msg, "chip field \"", 12) != 0)
        return -1;
    const char *p = strchr(e->msg, '"') + 1;
    char key[128];
    size_t k = 0;
    for (; *p && *p != '"' && k + 1 < sizeof key; p++)
        key[k++] = *p;
    key[k] = '\0';
    /* A nested key set by --set has its own source; else its top-level object's. */
    const cJSON *s = c->sources ? cJSON_GetObjectItemCaseSensitive(c->sources, key) : NULL;
    if (!cJSON_IsString(s) && c->sources) {
        key[strcspn(key, ".")] = '\0';
        s = cJSON_GetObjectItemCaseSensitive(c->sources, key);
    }
    if (!cJSON_IsString(s) && c->sources)
        s = cJSON_GetObjectItemCaseSensitive(c->sources, e->msg[0] == 'm' ? "model_type" : "num_sa");
    if (!cJSON_IsString(s))
        return -1;
    char msg[sizeof e->msg];
    snprintf(msg, sizeof msg, "%s: %s", s->valuestring, e->msg);
    memcpy(e->msg, msg, sizeof msg);
    return -1;
}
