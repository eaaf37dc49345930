/* fit_hint.c — options that make an out-of-memory run fit (see fit_hint.h). */
#include "study/run/fit_hint.h"

#include <string.h>

/* Training's own levers, tried before more chips: ZeRO stages shard the
 * optimizer states, gradients and weights over the data-parallel replicas;
 * full rematerialisation keeps one layer's activations. */
static const struct { int64_t zero; bool remat; } train_levers[] = {
    { 1, false }, { 2, false }, { 3, false }, { 0, true }, { 1, true }, { 2, true }, { 3, true },
};

double fit_mem_one(const struct model_config *m, const struct profile *prof, const void *arg, char *desc, size_t n)
{
    double gib = (double)((const struct fit_bytes *)arg)->fn(m, prof) / 1073741824.0;
    snprintf(desc, n, "%.2f GiB", gib);
    return gib;
}

/* Does x fit? Prints its line if so. edits: the options that make x from c. */
static bool try_fit(const struct loaded_config *c, const struct profile *prof, fit_mem_fn mem, const void *arg,
                    const struct model_config *x, const char *edits, FILE *out)
{
    char desc[160];
    if (mem(x, prof, arg, desc, sizeof desc) > (double)c->chip.hbm_size_GB)
        return false;
    fprintf(out, "  to fit        %s (%s per chip)\n", edits, desc);
    return true;
}

void fit_hint(const struct loaded_config *c, const struct profile *prof, fit_mem_fn mem, const void *arg,
              bool training, FILE *out)
{
    const struct model_config *m = &c->model;
    char edits[256];
    bool remat = strcmp(m->remat, "full") == 0;
    for (size_t i = 0; training && i < sizeof train_levers / sizeof train_levers[0]; i++) {
        struct model_config x = *m;
        if (train_levers[i].zero < m->zero_stage || (train_levers[i].remat && remat) ||
            (train_levers[i].zero == m->zero_stage && !train_levers[i].remat))
            continue;   /* not a change, or a step back */
        x.zero_stage = train_levers[i].zero;
        if (train_levers[i].remat)
            snprintf(x.remat, sizeof x.remat, "full");
        int k = 0;
        edits[0] = '\0';
        if (x.zero_stage != m->zero_stage)
            k += snprintf(edits + k, sizeof edits - (size_t)k, "--set zero_stage=%lld", (long long)x.zero_stage);
        if (train_levers[i].remat)
            snprintf(edits + k, sizeof edits - (size_t)k, "%s--set remat=full", k ? " " : "");
        if ((x.data_parallelism_degree > 1 || x.zero_stage == m->zero_stage) && try_fit(c, prof, mem, arg, &x, edits, out))
            return;
    }
    for (int64_t k = 2; k <= 64; k *= 2) {
        struct model_config x = *m;
        x.tensor_parallelism_degree = m->tensor_parallelism_degree * k;
        x.num_chips = m->num_chips * k;
        if (x.num_heads % x.tensor_parallelism_degree)
            break;   /* heads split evenly, or not at all */
        snprintf(edits, sizeof edits, "--set num_chips=%lld --set tensor_parallelism_degree=%lld",
                 (long long)x.num_chips, (long long)x.tensor_parallelism_degree);
        if (try_fit(c, prof, mem, arg, &x, edits, out))
            return;
    }
    fprintf(out, "  to fit        more chips (pipeline_parallelism_degree, tensor_parallelism_degree), a smaller "
                 "batch or sequence, or a chip with more HBM\n");
}
