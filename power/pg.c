/* pg.c — strategy lookup and DVFS policy names (see pg.h).
 * Placeholder: NoPG and DVFS None only, until the strategy files land. */
#include "power/pg.h"

#include <stdio.h>
#include <string.h>

#include "power/energy.h"

int pg_strategy_lookup(const char *name, const char *configs_dir, struct pg_strategy *out,
                       struct npu_err *e)
{
    (void)configs_dir;
    memset(out, 0, sizeof *out);
    if (strcmp(name, "NoPG") && strcmp(name, "disabled"))
        return npu_errf(e, "power-gating strategy \"%s\": not supported yet", name);
    snprintf(out->name, sizeof out->name, "NoPG");
    return 0;
}

int dvfs_policy_parse(const char *s, enum dvfs_policy *out, struct npu_err *e)
{
    if (!strcmp(s, "None")) {
        *out = DVFS_NONE;
        return 0;
    }
    return npu_errf(e, "DVFS policy \"%s\": not supported yet (None)", s);
}

const char *dvfs_policy_name(enum dvfs_policy p) { return p == DVFS_IDEAL ? "Ideal" : "None"; }

int power_energy_pass(struct trace *t, const struct chip_config *chip, const struct pg_strategy *pg,
                      int dvfs_policy, const struct profile *prof, struct npu_err *e)
{
    if (strcmp(pg->name, "NoPG") || dvfs_policy != DVFS_NONE)
        return npu_errf(e, "energy pass: only NoPG without DVFS so far");
    return power_default_pass(t, chip, prof, e);
}
