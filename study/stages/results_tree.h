/* results_tree.h — reading a results tree for the carbon and SLO stages.
 *
 * A results tree holds <root>/<model>/<pstr>/<workload>-v<V>[_phase].json
 * (power.md §9). results_list() finds the stats files of one (model, version,
 * workload, phase) as the reference does (one entry per parallelism key,
 * folders in readdir = os.listdir order, which decides ties); results_load_json() reads a stats file keeping
 * every number's text (as cJSON raw items), so a stage that adds keys writes
 * the rest of the file back byte for byte, ints stay ints and NaN/Infinity
 * survive. The j* helpers read such numbers. */
#ifndef NPUSIM_RESULTS_TREE_H
#define NPUSIM_RESULTS_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "power/slo.h"
#include "base/rawjson.h"
#include "base/err.h"

struct results_file {
    char path[4096];
    char pstr[256];
    struct slo_pconfig pc;
    int64_t pstr_chips;          /* chips from the pstr (DLRM: dp*dp_dcn) */
};

/* The stats files of model/version under root. suffix: "" or "_prefill" /
 * "_decode". Folders whose names are not a pstr are skipped with a warning
 * (warn may be NULL). A missing <root>/<model> folder is an error. *out is
 * malloc'ed (free it). */
int results_list(const char *root, const char *model, const char *version, const char *workload,
                 const char *suffix, struct results_file **out, int *n,
                 void (*warn)(const char *msg), struct npu_err *e);

/* Reads a JSON object, numbers as raw items with their text (base/rawjson.h).
 * Errors name the file. */
cJSON *results_load_json(const char *path, enum json_numbers numbers, struct npu_err *e);
/* The same from the file's text (len bytes), read already. */
cJSON *results_parse_json(const char *text, size_t len, const char *path, enum json_numbers numbers,
                          struct npu_err *e);

/* A number (raw or plain) as double; false if it is not a number. */
bool jnum(const cJSON *it, double *v);
/* True if the number's text is an integer literal (Python int). */
bool jis_int(const cJSON *it);
/* Member lookup by a '.'-separated path ("sim_config.num_chips"). */
const cJSON *jpath(const cJSON *o, const char *path);
/* A raw number item: Python repr of a double (NaN/Infinity as Python's json) / an int. */
cJSON *jraw_f64(double v);
/* Its text, in buf (PY_REPR_MAX bytes) or a constant. */
const char *jraw_f64_text(double v, char *buf);
cJSON *jraw_i64(int64_t v);
/* Sets key in o, replacing an existing member in place (as a Python dict). */
void jset(cJSON *o, const char *key, cJSON *item);

#endif
