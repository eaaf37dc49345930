/* parallel.h — parallelism degrees to physical axes (opsgen.md §4.1, §3.10).
 *
 * A parallelism degree p spread over n torus axes becomes a list of per-axis
 * degrees whose product is p; collectives then stage their traffic axis by
 * axis and sum one link bandwidth per axis. Lists are small fixed arrays. */
#ifndef NPUSIM_PARALLEL_H
#define NPUSIM_PARALLEL_H

#include <stdbool.h>
#include <stdint.h>

#define PAR_MAX_FACTORS 64

/* Prime factors of n ascending; returns their count (0 for n <= 1). */
int prime_factorize(int64_t n, int64_t out[PAR_MAX_FACTORS]);

/* Splits p over n_axes axes: the first n_axes primes seed the axes and each
 * further prime multiplies the currently smallest axis (first on ties).
 * drop_missing (quirk opsgen Q12) returns fewer axes when p has fewer prime factors;
 * otherwise the list is padded with 1s to n_axes. Returns the axis count. */
int split_parallelism_degree(int64_t p, int n_axes, bool drop_missing,
                             int64_t out[PAR_MAX_FACTORS]);

/* Per-chip bisection bandwidth of a num_chips torus (2 axes when the topology
 * string contains "2D", else 3); used by all-to-all. */
double bisection_bw_per_chip_GBps(int64_t num_chips, const char *ici_topology,
                                  double ici_bw_GBps, bool drop_missing);

#endif
