/* outputs.h — a serving run's files, written all or none (base/atomic.h):
 * in DIR (-o) requests.csv, iterations.csv and summary.json, and the
 * timeline (--timeline FILE, serving/timeline.h); either may be absent.
 *
 * iterations.csv and the timeline stream to their temporaries as the run
 * goes. requests.csv's rows stream to a staging file as the requests end,
 * without their energy: a request's share of the idle gaps' energy is known
 * only at the end (serving/energy.h). The commit copies each staged row with
 * its energy_J appended, writes summary.json, and renames every file into
 * place together.
 *
 * Main data structure: struct serving_files. */
#ifndef NPUSIM_SERVING_OUTPUTS_H
#define NPUSIM_SERVING_OUTPUTS_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/atomic.h"
#include "serving/engine.h"
#include "serving/timeline.h"

struct serving_files {
    const char *dir;                   /* NULL: no DIR files */
    struct atomic_file req, iter;
    FILE *stage;                       /* requests.csv's rows, energy to come */
    bool timeline;                     /* tl is open */
    struct serving_timeline tl;
    bool open;                         /* any file is */
};

/* Every request's and pass's record of a run, kept in memory for a front
 * end that answers with them (the API, Python): records in the order they
 * ended, each request's energy (serving/energy.h) filled at the end. */
struct serving_rows {
    struct serving_record *req;
    double *energy_J;
    size_t nreq, capreq;
    struct serving_pass_record *pass;
    size_t npass, cappass;
};
void serving_rows_free(struct serving_rows *r);
/* {"requests": {column: [...]}, "iterations": {...}}: the columns of
 * requests.csv and iterations.csv (iterations with energy_J too). */
cJSON *serving_rows_json(const struct serving_rows *r);

/* Opens DIR's files (DIR made if missing; NULL: none) and the timeline
 * (NULL: none; title names the run in it); -1 with e, nothing left behind. */
int serving_files_open(struct serving_files *f, const char *dir, const char *timeline, const char *title,
                       struct npu_err *e);
int serving_files_request(struct serving_files *f, const struct serving_record *r, struct npu_err *e);
int serving_files_pass(struct serving_files *f, const struct serving_pass_record *p, struct npu_err *e);
/* Writes requests.csv with row k's energy_J[k] (n rows staged), summary.json,
 * the timeline's tail, and renames every file into place; -1 with e and
 * nothing written. The files are closed either way. */
int serving_files_commit(struct serving_files *f, const double *energy_J, size_t n, const cJSON *summary,
                         struct npu_err *e);
void serving_files_abort(struct serving_files *f);

#endif
