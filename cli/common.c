/* common.c — the options every command shares, loading the configs they
 * name, and the messages the commands print (usage and input errors). */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chipsim/chipsim.h"
#include "base/json_strict.h"
#include "base/lists.h"
#include "study/run/run.h"
#include "opsgen/builders.h"
#include "opsgen/opsgen.h"
#include "opsgen/sweep.h"
#include "power/energy.h"
#include "power/invariants.h"
#include "power/powercap.h"
#include "power/system.h"
#include "base/atomic.h"
#include "traces/trace_csv.h"

void common_opts_init(struct common_opts *o)
{
    memset(o, 0, sizeof *o);
    shared_opts_init(&o->sh);
    o->workload = "inference";
}

int parse_seqlen(const char *s, int64_t *in, int64_t *out)
{
    const char *us = strchr(s, '_');
    char first[32];
    if (!us || (size_t)(us - s) >= sizeof first)
        return -1;
    memcpy(first, s, (size_t)(us - s));
    first[us - s] = '\0';
    return parse_i64_strict(first, in) || *in <= 0 || *in > (int64_t)FIELD_INT_MAX ||
           parse_i64_strict(us + 1, out) || *out <= 0 || *out > (int64_t)FIELD_INT_MAX ? -1 : 0;
}

/* The largest value a system config field takes (power/system.c): the carbon
 * options (--ci, --lifetime) stop where a system file does, so an intensity of
 * 1e308 cannot reach a statistics JSON as Infinity. */
double system_field_max(const char *key)
{
    double lo, hi;
    fields_range(fields_find(&system_fields, key), &lo, &hi);
    return hi;
}

/* Appends a --set text the option stands for (fields of study/run/config.h's
 * --set, so they name "--set" in errors and num_chips follows from them). */
static int made_set(struct common_opts *o, const char *key, int64_t v, struct npu_err *e)
{
    struct shared_opts *sh = &o->sh;
    if (sh->nsets == SHARED_MAX_SETS)
        return npu_errf(e, "--set: at most %d overrides", SHARED_MAX_SETS);
    snprintf(o->made_sets[sh->nsets], sizeof o->made_sets[sh->nsets], "%s=%lld", key, (long long)v);
    sh->sets[sh->nsets] = o->made_sets[sh->nsets];
    sh->nsets++;
    return 1;
}

/* --tp, --dp, --pp, --ep: the field each sets. */
static const struct { int code; const char *flag, *key; } degree_opts[] = {
    { CO_TP, "--tp", "tensor_parallelism_degree" }, { CO_DP, "--dp", "data_parallelism_degree" },
    { CO_PP, "--pp", "pipeline_parallelism_degree" }, { CO_EP, "--ep", "expert_parallelism_degree" },
};

static int parallel_opt(struct common_opts *o, int c, const char *arg, struct npu_err *e)
{
    int64_t in, out;
    if (c == CO_SEQLEN) {
        if (parse_seqlen(arg, &in, &out))
            return npu_errf(e, "--seqlen \"%s\": expected IN_OUT, e.g. 4096_512", arg);
        return made_set(o, "input_seqlen", in, e) < 0 ? -1 : made_set(o, "output_seqlen", out, e);
    }
    for (size_t i = 0; i < sizeof degree_opts / sizeof degree_opts[0]; i++)
        if (degree_opts[i].code == c) {
            if (parse_i64_strict(arg, &in) || in < 1 || in > (int64_t)FIELD_INT_MAX)
                return npu_errf(e, "%s \"%s\": expected a positive integer of at most %.0f", degree_opts[i].flag,
                                arg, FIELD_INT_MAX);
            return made_set(o, degree_opts[i].key, in, e);
        }
    return 0;
}

/* The shared options common_refuse can name, by their short letters. */
static const struct { char letter; const char *name; } refusable[] = {
    { 'm', "model" }, { 's', "system" }, { 'b', "batch" }, { 'w', "workload" },
};

int common_refuse(const char *cmd, const struct common_opts *o, const char *letters, const char *why)
{
    for (size_t i = 0; i < sizeof refusable / sizeof refusable[0]; i++)
        if (strchr(letters, refusable[i].letter) && strchr(o->given, refusable[i].letter))
            return usage_error(cmd, "-%c/--%s does not apply to npusim %s (%s)", refusable[i].letter,
                               refusable[i].name, cmd, why);
    return 0;
}

int common_opt(struct common_opts *o, int c, const char *arg, struct npu_err *e)
{
    if (c >= CO_TP && c <= CO_SEQLEN)
        return parallel_opt(o, c, arg, e);
    char letter = c == 'W' ? 'w' : c == 'B' ? 'b' : c > 0 && c < 128 ? (char)c : 0;
    size_t ng = strlen(o->given);
    if (letter && strchr("msbw", letter) && !strchr(o->given, letter) && ng + 1 < sizeof o->given) {
        o->given[ng] = letter;   /* common_opts_init zeroed the rest */
    }
    int r = shared_take(SHARED_CONFIGS | SHARED_PROFILE | SHARED_SET, &o->sh, c, arg, e);
    if (r)
        return r;
    switch (c) {
    case 'm': o->model = arg; return 1;
    case 'c': o->chip = arg; return 1;
    case 's': o->system = arg; return 1;
    case 'w':   /* -w, --workload */
    case 'W':
        if (strcmp(arg, "inference") && strcmp(arg, "training"))
            return npu_errf(e, "--workload \"%s\": expected inference or training", arg);
        o->workload = arg;
        return 1;
    case 'b':   /* -b, --batch */
    case 'B': {
        char *end;
        errno = 0;
        o->batch = strtoll(arg, &end, 10);
        if (*end || end == arg || errno || o->batch <= 0 || o->batch > (long long)FIELD_INT_MAX)
            return npu_errf(e, "--batch \"%s\": expected a positive integer of at most %.0f", arg,
                            FIELD_INT_MAX);
        return 1;
    }
    }
    return 0;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "npusim %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'npusim %s --help')\n", cmd);
    return EXIT_USAGE;
}

/* cli_short_options: the optstring of the command line being parsed. */
static const char *short_options;

void cli_short_options(const char *shortopts) { short_options = shortopts; }

int command_opt(const char *cmd, const char *help, int argc, char **argv, const char *shortopts,
                const struct option *longopts, struct common_opts *o, int *rc)
{
    cli_short_options(shortopts);
    for (int c; (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1;) {
        struct npu_err e;
        int r = c == 'h' ? 0 : common_opt(o, c, optarg, &e);
        if (c == 'h') {
            fputs(help, stdout);
            *rc = 0;
        } else if (r < 0) {
            *rc = report_error(cmd, &e);
        } else if (r) {
            continue;
        } else {
            return c;
        }
        return OPT_EXIT;
    }
    return -1;
}

int bad_option(const char *cmd, const char *arg, const struct option *longopts)
{
    const char *name = arg;
    while (*name == '-')
        name++;
    size_t n = strcspn(name, "=");
    /* "-m" alone: a short option (its letter returned by a long one) that
     * getopt refused because its value is missing (commands' short options
     * are lowercase letters; upper-case vals are long-only codes). */
    bool is_short = arg[0] == '-' && arg[1] != '-' && arg[1] >= 'a' && arg[1] <= 'z' && !arg[2] &&
                    (!short_options || strchr(short_options, arg[1]));
    const char *cands[128];
    size_t nc = 0;
    for (const struct option *o = longopts; o && o->name && nc < 128; o++) {
        if (o->has_arg == required_argument &&
            (is_short ? o->val == arg[1] : strlen(o->name) == n && !strncmp(o->name, name, n) && !name[n])) {
            char shortname[8] = "";
            if (o->val >= 'a' && o->val <= 'z')
                snprintf(shortname, sizeof shortname, "-%c/", o->val);
            return usage_error(cmd, "option %s--%s needs a value", shortname, o->name);
        }
        cands[nc++] = o->name;
    }
    char key[128], hint[200] = "";
    snprintf(key, sizeof key, "%.*s", (int)(n < 127 ? n : 127), name);
    const char *best = arg[0] == '-' && arg[1] == '-' ? suggest_closest(key, cands, nc) : NULL;
    if (best)   /* a long option, named with its dashes */
        snprintf(hint, sizeof hint, " (did you mean \"--%s\"?)", best);
    return usage_error(cmd, "unknown option \"%s\"%s", arg, hint);
}

int stdout_flushed(const char *cmd)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    int err = errno;
    clearerr(stdout);   /* reported here, not again at exit */
    fprintf(stderr, "npusim%s%s: <stdout>: write failed: %s\n", cmd ? " " : "", cmd ? cmd : "",
            err ? strerror(err) : "stream error");
    return EXIT_USAGE;
}

int report_error(const char *cmd, const struct npu_err *e)
{
    fprintf(stderr, "npusim %s: %s\n", cmd, e->msg);
    return EXIT_USAGE;
}

int load_common(const char *cmd, const struct common_opts *o, bool need_model, struct loaded_config *c,
                const struct family **fam)
{
    struct config_request r = { o->sh.configs, need_model ? (o->model ? o->model : CONFIG_DEFAULT_MODEL) : NULL,
                                o->chip, o->system, o->sh.sets, o->sh.nsets, false };
    struct npu_err e;
    if (config_load(&r, c, &e)) {
        config_free(c);
        return report_error(cmd, &e);
    }
    c->strict = true;
    if (!need_model)
        return 0;
    if (c->hf_ignored[0])   /* listed once: what a Hugging Face config said that npusim does not use */
        fprintf(stderr, "npusim %s: %s: a Hugging Face config; keys ignored (no effect on what npusim models): %s\n",
                cmd, c->files[CONFIG_MODEL], c->hf_ignored);
    *fam = family_find(&c->model, o->workload);
    if (!*fam) {
        fprintf(stderr, "npusim %s: model \"%s\" (model_type \"%s\"): no model family simulates its %s "
                        "(families: %s)\n", cmd, c->model_name, c->model.model_type, o->workload,
                families_list());
        config_free(c);
        return EXIT_USAGE;
    }
    family_apply_batch(c, *fam, o->batch);
    return 0;
}

void cli_print_wrote_to(FILE *to, const char *cmd, const struct output *o, int n)
{
    fprintf(to, "npusim %s: wrote", cmd);
    for (int i = 0; i < n; i++)
        fprintf(to, "%s%s", i == 0 ? " " : i + 1 < n ? ", " : " and ",
                strcmp(o[i].path, "-") ? o[i].path : "<stdout>");
    fputc('\n', to);
}

bool cli_is_stdout(const char *path)
{
    if (!path || !strcmp(path, "-"))
        return true;
    /* /dev/stdout, /proc/self/fd/1, or the file stdout is redirected to */
    struct stat a, b;
    return fstat(STDOUT_FILENO, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void cli_print_wrote(const char *cmd, const struct output *o, int n)
{
    FILE *to = stdout;
    for (int i = 0; i < n; i++)
        if (cli_is_stdout(o[i].path))
            to = stderr;
    cli_print_wrote_to(to, cmd, o, n);
}
