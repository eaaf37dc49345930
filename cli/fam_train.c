/* fam_train.c — the llama training entry of the family table (placeholder until the
 * generator lands: it matches its models and says it is not supported yet). */
#include <string.h>

#include "cli/cli.h"
#include "cli/family.h"

static bool matches(const struct model_config *m, const char *workload)
{
    return !strcmp(m->model_type, "llm") && strcmp(m->ffn_type, "deepseek_moe") != 0 && !strcmp(workload, "training");
}

static int generate(const struct loaded_config *c, const struct profile *prof, struct trace *t,
                    struct npu_err *e)
{
    (void)prof, (void)t;
    return npu_errf(e, "model \"%s\": llama training is not supported yet", c->model_name);
}

const struct family fam_llm_training = {
    .name = "llama training",
    .example = "npusim run -m llama3-8b -c tpuv5p --workload training",
    .matches = matches,
    .generate = generate,
};
