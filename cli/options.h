/* options.h — the one table of the options that mean the same in every
 * command that takes them: --configs, --profile, -j/--jobs, -q/--quiet and
 * --set. A command lists the ones it takes (a mask of SHARED_*), puts their
 * getopt_long entries in its own table with SHARED_LONGOPT_*, hands every
 * option its loop meets to shared_opt first, and prints their help lines
 * with shared_help, so the name, the value checks, the default and the
 * words are the same everywhere.
 *
 * Main data structure: struct shared_opts, the values they set. */
#ifndef NPUSIM_CLI_OPTIONS_H
#define NPUSIM_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/err.h"
#include "traces/profile.h"

#define SHARED_MAX_SETS 64
#define SHARED_MAX_JOBS 4096

struct shared_opts {
    const char *configs;                       /* --configs DIR: where names are looked up first */
    const struct profile *prof;                /* --profile NAME (default: physical) */
    const char *profile_name;                  /* as given, NULL when not given */
    long jobs;                                 /* -j N: threads (default: every core) */
    bool jobs_given;
    bool quiet;                                /* -q: no progress line */
    const char *sets[SHARED_MAX_SETS];         /* --set KEY=VALUE, in order */
    int nsets;
};

/* Which shared options a command takes. */
enum {
    SHARED_CONFIGS = 1 << 0,
    SHARED_PROFILE = 1 << 1,
    SHARED_JOBS = 1 << 2,
    SHARED_QUIET = 1 << 3,
    SHARED_SET = 1 << 4,
};

/* The getopt_long codes of the table's rows: a command gives none of them
 * another meaning. */
enum { SHARED_CODE_CONFIGS = 'C', SHARED_CODE_PROFILE = 'P', SHARED_CODE_JOBS = 'j', SHARED_CODE_QUIET = 'q',
       SHARED_CODE_SET = 'S' };
#define SHARED_LONGOPT_CONFIGS { "configs", required_argument, 0, SHARED_CODE_CONFIGS }
#define SHARED_LONGOPT_PROFILE { "profile", required_argument, 0, SHARED_CODE_PROFILE }
#define SHARED_LONGOPT_JOBS { "jobs", required_argument, 0, SHARED_CODE_JOBS }
#define SHARED_LONGOPT_QUIET { "quiet", no_argument, 0, SHARED_CODE_QUIET }
#define SHARED_LONGOPT_SET { "set", required_argument, 0, SHARED_CODE_SET }

/* The defaults: every core, the default profile, nothing else given. */
void shared_opts_init(struct shared_opts *s);
/* Takes option ch (with its value arg) when it is one of mask's: 1 taken,
 * 0 not a shared option of mask, or -1 with e naming the option and what
 * it expects. */
int shared_take(unsigned mask, struct shared_opts *s, int ch, const char *arg, struct npu_err *e);
/* shared_take for a command's own loop: -1 after printing the usage error
 * (the caller returns EXIT_USAGE). */
int shared_opt(const char *cmd, unsigned mask, struct shared_opts *s, int ch, const char *arg);
/* The help lines of mask's options, in the table's order. */
void shared_help(unsigned mask, FILE *f);
/* The help line of one option (its SHARED_* bit), for a help text that
 * says more than the table (NULL for an unknown bit). */
const char *shared_help_line(unsigned bit);

#endif
