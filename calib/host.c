/* host.c — this machine's CPU, caches, memory and BLAS (see host.h). Main
 * data structure: struct host_info, filled from /proc and /sys. */
#define _DEFAULT_SOURCE  /* dlopen's RTLD_* and strsep on glibc */
#include "calib/host.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first line of a small file, trimmed; false when it cannot be read. */
static bool read_line(const char *path, char *buf, int len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, len, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\r\n")] = '\0';
    return ok;
}

/* "32K", "32768K", "1M", "512": bytes; -1 when malformed. */
static int64_t size_of(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 0)
        return -1;
    int64_t mult = *end == 'K' ? 1024 : *end == 'M' ? 1024 * 1024 : *end == 'G' ? 1024LL * 1024 * 1024 : 1;
    if (*end && strchr("KMG", *end))
        end++;
    return *end || v > INT64_MAX / mult ? -1 : v * mult;
}

/* "0-1,4,6-7": how many CPUs; 1 when unreadable. */
static int cpu_list_count(const char *s)
{
    int n = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        n += b >= a ? (int)(b - a + 1) : 1;
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s)
            break;
    }
    return n > 0 ? n : 1;
}

int host_caches_read(const char *dir, struct host_info *h, struct npu_err *e)
{
    if (!dir)
        dir = "/sys/devices/system/cpu/cpu0/cache";
    h->n_caches = 0;
    for (int i = 0; i < 16 && h->n_caches < HOST_CACHES_MAX; i++) {
        char p[512], v[64], t[64], sz[64], shared[256] = "";
        snprintf(p, sizeof p, "%s/index%d/level", dir, i);
        if (!read_line(p, v, sizeof v))
            continue;
        snprintf(p, sizeof p, "%s/index%d/type", dir, i);
        if (!read_line(p, t, sizeof t) || !strcmp(t, "Instruction"))
            continue;
        snprintf(p, sizeof p, "%s/index%d/size", dir, i);
        int level = atoi(v);
        int64_t bytes = read_line(p, sz, sizeof sz) ? size_of(sz) : -1;
        if (level < 1 || level > 4 || bytes <= 0)
            return npu_errf(e, "%s/index%d: expected a level 1-4 and a size like 32K, got level '%s' size '%s'",
                            dir, i, v, sz);
        snprintf(p, sizeof p, "%s/index%d/shared_cpu_list", dir, i);
        read_line(p, shared, sizeof shared);
        struct host_cache *c = &h->caches[h->n_caches++];
        c->level = level;
        snprintf(c->type, sizeof c->type, "%s", t);
        c->size_bytes = bytes;
        c->shared_cpus = cpu_list_count(shared);
    }
    if (!h->n_caches)
        return npu_errf(e, "%s: no readable cache (index*/level, type, size)", dir);
    /* innermost first: sysfs lists by index, which is not always by level */
    for (int i = 1; i < h->n_caches; i++)
        for (int j = i; j > 0 && h->caches[j - 1].level > h->caches[j].level; j--) {
            struct host_cache tmp = h->caches[j];
            h->caches[j] = h->caches[j - 1];
            h->caches[j - 1] = tmp;
        }
    return 0;
}

/* A "key : value" line of a /proc file; false when absent. */
static bool proc_field(const char *path, const char *key, char *out, int len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[512];
    bool found = false;
    size_t kl = strlen(key);
    while (!found && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && (line[kl] == ':' || isspace((unsigned char)line[kl]))) {
            char *v = strchr(line, ':');
            if (!v)
                continue;
            for (v++; isspace((unsigned char)*v); v++)
                ;
            v[strcspn(v, "\r\n")] = '\0';
            snprintf(out, len, "%s", v);
            found = true;
        }
    fclose(f);
    return found;
}

void host_info_read(struct host_info *h, char *warn, int warn_len)
{
    memset(h, 0, sizeof *h);
    warn[0] = '\0';
    char v[128];
    if (!proc_field("/proc/cpuinfo", "model name", h->cpu_model, sizeof h->cpu_model))
        snprintf(h->cpu_model, sizeof h->cpu_model, "unknown CPU");
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    h->cpus = n > 0 && n < 1 << 20 ? (int)n : 1;
    if (proc_field("/proc/meminfo", "MemTotal", v, sizeof v))
        h->mem_bytes = (int64_t)strtoll(v, NULL, 10) * 1024;
    if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", v, sizeof v))
        h->freq_GHz = strtod(v, NULL) / 1e6;
    else if (proc_field("/proc/cpuinfo", "cpu MHz", v, sizeof v))
        h->freq_GHz = strtod(v, NULL) / 1e3;
    struct npu_err e = { 0 };
    if (host_caches_read(NULL, h, &e) < 0) {
        static const struct host_cache assumed[] = { { 1, "Data", 32 << 10, 1 }, { 2, "Unified", 1 << 20, 1 },
                                                     { 3, "Unified", 32 << 20, 1 << 20 } };
        h->n_caches = 3;
        memcpy(h->caches, assumed, sizeof assumed);
        snprintf(warn, warn_len, "%s; assumed L1 32 KiB, L2 1 MiB per CPU, L3 32 MiB shared", e.msg);
    }
}

int64_t host_level_bytes(const struct host_info *h, int level, int n_threads)
{
    for (int i = 0; i < h->n_caches; i++)
        if (h->caches[i].level == level) {
            int sh = h->caches[i].shared_cpus > 0 ? h->caches[i].shared_cpus : 1;
            int inst = (n_threads + sh - 1) / sh;
            return h->caches[i].size_bytes * (inst > 0 ? inst : 1);
        }
    return 0;
}

/* ---- the BLAS ---- */

static void use_gsl(struct host_blas *b)
{
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "gsl-cblas (reference, unoptimised)");
    b->threads = 1;
    b->dgemm = cblas_dgemm;
    b->sgemm = cblas_sgemm;
    b->dgemv = cblas_dgemv;
    b->sgemv = cblas_sgemv;
}

static void *sym(void *h, const char *name) { return dlsym(h, name); }

static int use_openblas(struct host_blas *b, int threads, struct npu_err *e)
{
    static const char *const libs[] = { "libopenblas.so.0", "libopenblas.so" };
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof libs / sizeof libs[0]; i++)
        h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return npu_errf(e, "openblas: cannot open libopenblas.so.0 (Debian: apt-get install libopenblas0)");
    memset(b, 0, sizeof *b);
    b->handle = h;
    b->optimized = true;
    b->dgemm = (blas_dgemm_fn)sym(h, "cblas_dgemm");
    b->sgemm = (blas_sgemm_fn)sym(h, "cblas_sgemm");
    b->dgemv = (blas_dgemv_fn)sym(h, "cblas_dgemv");
    b->sgemv = (blas_sgemv_fn)sym(h, "cblas_sgemv");
    b->sbgemm = (blas_sbgemm_fn)sym(h, "cblas_sbgemm");
    if (!b->dgemm || !b->sgemm || !b->dgemv || !b->sgemv) {
        dlclose(h);
        return npu_errf(e, "openblas: libopenblas.so.0 lacks cblas_dgemm, cblas_sgemm, cblas_dgemv or cblas_sgemv");
    }
    void (*set_threads)(int) = (void (*)(int))sym(h, "openblas_set_num_threads");
    int (*get_threads)(void) = (int (*)(void))sym(h, "openblas_get_num_threads");
    char *(*get_config)(void) = (char *(*)(void))sym(h, "openblas_get_config");
    if (set_threads && threads > 0)
        set_threads(threads);
    b->threads = get_threads ? get_threads() : 0;
    snprintf(b->name, sizeof b->name, "openblas %s", get_config ? get_config() : "");
    b->name[strcspn(b->name, "\n")] = '\0';
    return 0;
}

int host_blas_open(const char *which, int threads, struct host_blas *b, struct npu_err *e)
{
    if (!strcmp(which, "gsl")) {
        use_gsl(b);
        return 0;
    }
    if (!strcmp(which, "openblas"))
        return use_openblas(b, threads, e);
    if (strcmp(which, "auto"))
        return npu_errf(e, "--blas: expected auto, openblas or gsl, got '%s'", which);
    struct npu_err ignored = { 0 };
    if (use_openblas(b, threads, &ignored) < 0)
        use_gsl(b);
    return 0;
}

void host_blas_close(struct host_blas *b)
{
    if (b->handle)
        dlclose(b->handle);
    b->handle = NULL;
}
