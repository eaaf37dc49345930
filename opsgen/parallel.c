/* parallel.c — prime factorisation, degree-to-axes split, bisection bandwidth
 * (see parallel.h; opsgen.md §4.1, §3.10). */
#include "opsgen/parallel.h"

#include <stdlib.h>
#include <string.h>

int prime_factorize(int64_t n, int64_t out[PAR_MAX_FACTORS])
{
    int k = 0;
    while (n > 1 && n % 2 == 0) {
        out[k++] = 2;
        n /= 2;
    }
    for (int64_t d = 3; d * d <= n; d += 2)
        while (n % d == 0) {
            out[k++] = d;
            n /= d;
        }
    if (n > 2)
        out[k++] = n;
    return k;
}

int split_parallelism_degree(int64_t p, int n_axes, bool drop_missing,
                             int64_t out[PAR_MAX_FACTORS])
{
    if (n_axes <= 0)
        return 0;
    if (n_axes == 1) {
        out[0] = p;
        return 1;
    }
    if (n_axes > PAR_MAX_FACTORS)
        n_axes = PAR_MAX_FACTORS;
    int64_t f[PAR_MAX_FACTORS];
    int nf = prime_factorize(p, f);
    int n = nf < n_axes ? nf : n_axes;
    for (int i = 0; i < n; i++)
        out[i] = f[i];
    for (int i = n; i < nf; i++) {
        int m = 0;
        for (int j = 1; j < n; j++)
            if (out[j] < out[m]) m = j;
        out[m] *= f[i];
    }
    if (!drop_missing)   /* corrected opsgen Q12: keep the requested axis count */
        while (n < n_axes) out[n++] = 1;
    return n;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

double bisection_bw_per_chip_GBps(int64_t num_chips, const char *ici_topology,
                                  double ici_bw_GBps, bool drop_missing)
{
    int64_t topo[PAR_MAX_FACTORS];
    int n = split_parallelism_degree(num_chips, strstr(ici_topology, "2D") ? 2 : 3,
                                     drop_missing, topo);
    if (n == 1)
        return ici_bw_GBps / (double)num_chips;
    /* Cut across the largest dimension; an empty topology (1 chip on 3 axes)
     * gives the reference's negative bandwidth. */
    qsort(topo, (size_t)n, sizeof topo[0], cmp64);
    int64_t surface = 1;
    for (int i = 0; i + 1 < n; i++)
        surface *= topo[i];
    return ici_bw_GBps * (double)surface / (double)num_chips * (double)(n - 1);
}
