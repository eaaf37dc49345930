/* family.c — the table of model families (see family.h). First match wins. */
#include "study/family.h"

#include <stdio.h>
#include <string.h>

static const struct family *const families[] = {
    &fam_deepseek, &fam_llm_inference, &fam_llm_training, &fam_dlrm, &fam_dit, &fam_gligen,
};
#define NFAM (sizeof families / sizeof families[0])

const struct family *family_find(const struct model_config *m, const char *workload)
{
    for (size_t i = 0; i < NFAM; i++)
        if (families[i]->matches(m, workload))
            return families[i];
    return NULL;
}

const char *families_list(void)
{
    /* Per thread: filled lazily, read by sweep workers' error messages. */
    static _Thread_local char buf[512];
    if (!buf[0])
        for (size_t i = 0; i < NFAM; i++) {
            size_t l = strlen(buf);
            snprintf(buf + l, sizeof buf - l, "%s%s", i ? ", " : "", families[i]->name);
        }
    return buf;
}
