/* fam_dlrm.c — the dlrm inference entry of the family table (placeholder until the
 * generator lands: it matches its models and says it is not supported yet). */
#include <string.h>

#include "cli/cli.h"
#include "cli/family.h"

static bool matches(const struct model_config *m, const char *workload)
{
    return !strcmp(m->model_type, "dlrm") && !strcmp(workload, "inference");
}

static int generate(const struct loaded_config *c, const struct profile *prof, struct trace *t,
                    struct npu_err *e)
{
    (void)prof, (void)t;
    return npu_errf(e, "model \"%s\": dlrm inference is not supported yet", c->model_name);
}

const struct family fam_dlrm = {
    .name = "dlrm inference",
    .example = "npusim run -m dlrm-s -c tpuv5p",
    .matches = matches,
    .generate = generate,
};
