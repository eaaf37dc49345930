/* family.c — the table of model families (see family.h). First match wins. */
#include "study/run/family.h"

#include <stdio.h>
#include <pthread.h>
#include <string.h>

#include "opsgen/sweep.h"

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

static char families_text[512];

static void fill_families_list(void)
{
    for (size_t i = 0; i < NFAM; i++) {
        size_t l = strlen(families_text);
        snprintf(families_text + l, sizeof families_text - l, "%s%s", i ? ", " : "", families[i]->name);
    }
}

const char *families_list(void)
{
    /* Made once (sweep workers' error messages read it on any thread). */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fill_families_list);
    return families_text;
}

void family_apply_batch(struct loaded_config *c, const struct family *fam, int64_t batch)
{
    struct model_config *m = &c->model;
    if (batch > 0) {
        struct parallel_cfg p = { m->num_chips, m->data_parallelism_degree, m->tensor_parallelism_degree,
                                  m->pipeline_parallelism_degree, m->expert_parallelism_degree,
                                  m->data_parallel_degree_dcn, m->tensor_parallel_degree_dcn,
                                  m->pipeline_parallel_degree_dcn, m->expert_parallel_degree_dcn };
        sweep_apply_parallel(m, &p, batch);
    }
    if (fam->adjust)
        fam->adjust(c);
}
