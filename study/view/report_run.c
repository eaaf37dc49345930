/* report_run.c — one configuration simulated for a report (see
 * report_run.h): the timed trace with its energies, the summary text the
 * command line prints, and the energy of each power-gating strategy. */
#define _DEFAULT_SOURCE  /* open_memstream */
#include "study/view/report_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opsgen/dlrm.h"
#include "power/energy.h"
#include "power/pg.h"
#include "study/run/run.h"
#include "base/lists.h"

void report_run_init(struct report_run *r)
{
    memset(r, 0, sizeof *r);
    trace_init(&r->t);
    r->in.t = &r->t;
    r->in.title = r->title;
}

void report_run_free(struct report_run *r)
{
    trace_free(&r->t);
    free(r->summary);
    report_run_init(r);
}

void report_trace_energy(const struct trace *t, double energy_J[2])
{
    for (size_t i = 0; i < t->n; i++) {   /* the fields are one execution's */
        const struct op *op = &t->ops[i];
        energy_J[op->phase == PHASE_DECODE] +=
            (op_static_energy_J(op) + op_dynamic_energy_J(op)) * (double)(op->count > 0 ? op->count : 1);
    }
}

int report_pg_energy(const char *strategy, const struct trace *timed, const struct chip_config *chip,
                     const char *configs, const struct profile *prof, double energy_J[2], struct npu_err *e)
{
    struct pg_strategy pg;
    enum dvfs_policy dv;
    struct trace t;
    trace_init(&t);
    int rc = pg_strategy_lookup(strategy, configs, prof, &pg, e) || dvfs_policy_parse("None", &dv, e) ||
             trace_append(&t, timed);
    if (!rc) {
        power_reclassify_ops(&t);
        rc = power_energy_pass(&t, chip, &pg, dv, prof, e);
    }
    energy_J[0] = energy_J[1] = 0;
    if (!rc)
        report_trace_energy(&t, energy_J);
    trace_free(&t);
    return rc ? -1 : 0;
}

/* The strategies of list, each on a copy of a trace timed without the
 * default energy pass. */
static int pg_compare(const char *list, const struct family *fam, const struct loaded_config *c,
                      const struct profile *prof, const char *configs, struct report_run *r, struct npu_err *e)
{
    char *item[REPORT_PG_MAX];
    snprintf(r->pg_names, sizeof r->pg_names, "%s", list);
    int n = split_inplace(r->pg_names, item, REPORT_PG_MAX);
    if (n < 1 || n > REPORT_PG_MAX)
        return npu_errf(e, "--pg: expected 1 to %d strategies, comma-separated", REPORT_PG_MAX);
    struct trace timed;
    trace_init(&timed);
    int rc = pipeline_run(fam, c, prof, false, &timed, e);
    for (int s = 0; !rc && s < n; s++) {
        rc = report_pg_energy(item[s], &timed, &c->chip, configs, prof, r->in.pg_energy_J[s], e);
        r->in.pg_name[s] = item[s];
    }
    trace_free(&timed);
    r->in.n_pg = rc ? 0 : n;
    return rc;
}

/* A trace of several chips' ops (op->group, DLRM): how many, and the
 * straggler the summary reports, whose times the page shows; the chips of
 * the configuration. */
static void chips_of(struct report_run *r, const struct loaded_config *c)
{
    int32_t top = 0;
    for (size_t i = 0; i < r->t.n; i++)
        top = r->t.ops[i].group > top ? r->t.ops[i].group : top;
    r->in.n_chips = (int64_t)top + 1;
    r->in.shown_chip = top > 0 ? dlrm_straggler(&r->t, r->in.n_chips) : 0;
    r->in.config_chips = c->model.num_chips;
}

int report_run_simulate(const struct family *fam, const struct loaded_config *c, const struct profile *prof,
                        bool energy, const char *pg_list, const char *configs, struct report_run *r,
                        struct npu_err *e)
{
    snprintf(r->title, sizeof r->title, "%s on %s", c->model_name, c->chip_name);
    r->in.chip = &c->chip;
    r->in.chip_name = c->chip_name;
    bool compare = energy && pg_list && strcmp(pg_list, "none");
    if (pipeline_run(fam, c, prof, energy, &r->t, e) || (compare && pg_compare(pg_list, fam, c, prof, configs, r, e)))
        return -1;
    chips_of(r, c);
    size_t len = 0;
    FILE *mem = open_memstream(&r->summary, &len);
    if (!mem)
        return npu_errf(e, "report: out of memory");
    fam->summary(c, prof, &r->t, mem);
    run_notes_print(c, prof, energy ? "NoPG" : NULL, NULL, &r->t, mem);   /* the run's own energy pass */
    fclose(mem);
    r->in.summary = r->summary;
    return 0;
}
