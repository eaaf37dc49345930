/* fam_gligen.c — the gligen inference entry of the family table (placeholder until the
 * generator lands: it matches its models and says it is not supported yet). */
#include <string.h>

#include "cli/cli.h"
#include "cli/family.h"

static bool matches(const struct model_config *m, const char *workload)
{
    return !strcmp(m->model_type, "gligen") && !strcmp(workload, "inference");
}

static int generate(const struct loaded_config *c, const struct profile *prof, struct trace *t,
                    struct npu_err *e)
{
    (void)prof, (void)t;
    return npu_errf(e, "model \"%s\": gligen inference is not supported yet", c->model_name);
}

const struct family fam_gligen = {
    .name = "gligen inference",
    .example = "npusim run -m gligen -c tpuv4",
    .matches = matches,
    .generate = generate,
};
