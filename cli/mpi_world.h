/* mpi_world.h — the few MPI calls the sweep needs, and no-ops without MPI.
 *
 * Built with `make MPI=1` (Open MPI from Debian, NPUSIM_MPI defined), `mpirun
 * -n R build/npusim sweep ...` splits the configurations across the R ranks
 * the way --shard K/R does, and rank 0 merges the ranks' summaries. In a
 * normal build every call is a single-process no-op (rank 0 of 1), and
 * mpi_world_init refuses (-1, having said why and that `make MPI=1` builds
 * it) when an MPI launcher started the process as one of several ranks. */
#ifndef NPUSIM_MPI_WORLD_H
#define NPUSIM_MPI_WORLD_H

int mpi_world_init(int *argc, char ***argv);
void mpi_world_finalize(void);
int mpi_world_rank(void);
int mpi_world_size(void);
/* Sum / maximum over all ranks; every rank gets the result. */
long mpi_world_sum(long v);
int mpi_world_max(int v);

#endif
