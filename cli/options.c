/* options.c — the one table of shared options (cli/options.h): each row
 * its name, getopt code, help line and the function that checks its value.
 * Main data structure: the table shared_options[]. */
#include "cli/options.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/lists.h"
#include "cli/cli.h"

static int take_configs(struct shared_opts *s, const char *arg, struct npu_err *e)
{
    (void)e;
    s->configs = arg;
    return 0;
}

static int take_profile(struct shared_opts *s, const char *arg, struct npu_err *e)
{
    const struct profile *p = profile_by_name(arg);
    if (!p)
        return npu_errf(e, "--profile \"%s\": unknown profile (known: %s)", arg, profile_names());
    s->prof = p;
    s->profile_name = arg;
    return 0;
}

static int take_jobs(struct shared_opts *s, const char *arg, struct npu_err *e)
{
    int64_t v;
    if (parse_i64_strict(arg, &v) || v < 1 || v > SHARED_MAX_JOBS)
        return npu_errf(e, "-j \"%s\": expected a thread count from 1 to %d", arg, SHARED_MAX_JOBS);
    s->jobs = (long)v;
    s->jobs_given = true;
    return 0;
}

static int take_quiet(struct shared_opts *s, const char *arg, struct npu_err *e)
{
    (void)arg, (void)e;
    s->quiet = true;
    return 0;
}

static int take_set(struct shared_opts *s, const char *arg, struct npu_err *e)
{
    if (s->nsets == SHARED_MAX_SETS)
        return npu_errf(e, "--set: at most %d overrides", SHARED_MAX_SETS);
    s->sets[s->nsets++] = arg;
    return 0;
}

static const struct shared_option {
    unsigned bit;
    int code;
    int (*take)(struct shared_opts *s, const char *arg, struct npu_err *e);
    const char *help;
} shared_options[] = {
    { SHARED_SET, SHARED_CODE_SET, take_set,
      "      --set KEY=VALUE     override one config field (repeatable; VALUE is JSON or text)\n" },
    { SHARED_CONFIGS, SHARED_CODE_CONFIGS, take_configs,
      "      --configs DIR       where to look for configs first (then $NPUSIM_CONFIGS,\n"
      "                          ~/.local/share/npusim, the installed share folder, ./configs)\n" },
    { SHARED_PROFILE, SHARED_CODE_PROFILE, take_profile,
      "      --profile NAME      behaviour profile: physical (default; docs/physics.md) or\n"
      "                          neusim (reproduce the reference exactly)\n" },
    { SHARED_JOBS, SHARED_CODE_JOBS, take_jobs,
      "  -j, --jobs N            threads (default: all cores); outputs are identical for every N\n" },
    { SHARED_QUIET, SHARED_CODE_QUIET, take_quiet,
      "  -q, --quiet             no progress line (drawn only on a terminal anyway)\n" },
};
#define NSHARED (sizeof shared_options / sizeof shared_options[0])

void shared_opts_init(struct shared_opts *s)
{
    memset(s, 0, sizeof *s);
    s->prof = profile_default();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    s->jobs = cores > 0 ? cores : 1;
}

int shared_take(unsigned mask, struct shared_opts *s, int ch, const char *arg, struct npu_err *e)
{
    for (size_t i = 0; i < NSHARED; i++)
        if ((mask & shared_options[i].bit) && shared_options[i].code == ch)
            return shared_options[i].take(s, arg, e) ? -1 : 1;
    return 0;
}

int shared_opt(const char *cmd, unsigned mask, struct shared_opts *s, int ch, const char *arg)
{
    struct npu_err e;
    int r = shared_take(mask, s, ch, arg, &e);
    if (r < 0)
        usage_error(cmd, "%s", e.msg);
    return r;
}

void shared_help(unsigned mask, FILE *f)
{
    for (size_t i = 0; i < NSHARED; i++)
        if (mask & shared_options[i].bit)
            fputs(shared_options[i].help, f);
}

const char *shared_help_line(unsigned bit)
{
    for (size_t i = 0; i < NSHARED; i++)
        if (shared_options[i].bit == bit)
            return shared_options[i].help;
    return NULL;
}
