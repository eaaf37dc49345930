/* fuzz_merge.c — `npusim merge` over shard summaries.
 *
 * The input is up to three shard files separated by a line "@@"; they are
 * written to a scratch folder and merged into a file there (removed after).
 * Seeds: the shards of a small sharded sweep. */
#include "fuzz_common.h"

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char paths[3][128];
    const char *pp[3];
    char out[128];
    snprintf(out, sizeof out, "%s/merged.csv", fuzz_dir());
    int n = 0;
    const uint8_t *p = data, *end = data + size;
    while (n < 3) {
        const uint8_t *sep = NULL;
        for (const uint8_t *q = p; q + 3 <= end && !sep; q++)
            if (q[0] == '@' && q[1] == '@' && q[2] == '\n' && (q == data || q[-1] == '\n'))
                sep = q;
        const uint8_t *stop = sep ? sep : end;
        snprintf(paths[n], sizeof paths[n], "%s/shard%d.csv", fuzz_dir(), n);
        fuzz_write(paths[n], p, (size_t)(stop - p));
        pp[n] = paths[n];
        n++;
        if (!sep)
            break;
        p = sep + 3;
    }
    struct npu_err e;
    (void)summary_merge(out, pp, n, &e);
    unlink(out);
    return 0;
}
