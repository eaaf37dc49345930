/* import_internal.h — between the operator-name rules (name_rules.c: the
 * table, a user's rules file, the sizes each rule finds) and the trace
 * importers (import_trace.c). Private to calib/.
 *
 * Main data structures: struct name_rule (one row of the table) and struct
 * sizes (what a match found). */
#ifndef NPUSIM_IMPORT_INTERNAL_H
#define NPUSIM_IMPORT_INTERNAL_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "calib/importers.h"

/* How a rule finds the sizes. */
enum shape_rule {
    SH_MM,        /* PyTorch Input Dims [[m,k],[k,n]] */
    SH_ADDMM,     /* [[bias],[m,k],[k,n]] */
    SH_BMM,       /* [[b,m,k],[b,k,n]] (baddbmm: the last two) */
    SH_LINEAR,    /* [[..., k], [n, k], ...]: m = the product of the leading dims */
    SH_ROWS,      /* [[..., n]]: m rows = the product of the leading dims */
    SH_ELEMS,     /* [[dims]]: m = all elements */
    SH_SDPA,      /* [[b, h, s_q, d], [b, h, s_kv, d], ...] */
    SH_HLO_DOT,   /* XLA: out T[..., m, n] dot(T[..., m, k], ...) */
    SH_NAME,      /* the name's capture groups ($1..$9) or literals */
};

struct name_rule {
    const char *pattern;          /* POSIX ERE, case-insensitive */
    const char *op;
    enum shape_rule shape;
    const char *m, *n, *k, *batch; /* SH_NAME: "$1".."$9", a number, or "" */
    bool on_hlo;                  /* match the event's HLO text (args.long_name) */
};

struct compiled_rule { struct name_rule r; regex_t re; };
struct name_rules {
    struct compiled_rule *rule;
    int n;
    char *text;                   /* the user's file, which the user rules point into */
};

struct sizes { int64_t m, n, k, batch, heads; };

/* The number format of a PyTorch type name or an HLO element type; NULL. */
const char *format_of_type(const char *t);

/* The first rule that matches name (or, for HLO rules, hlo); its sizes from
 * dims (PyTorch's Input Dims), the HLO text or the name, or *why there are
 * none; *fmt the HLO's format. NULL: no rule matches. */
const struct compiled_rule *match(const struct name_rules *rs, const char *name, const char *hlo,
                                  const cJSON *dims, struct sizes *s, const char **fmt, const char **why);

#endif
