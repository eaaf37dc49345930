/* mpi_world.c — MPI wrappers for the sweep (see mpi_world.h). */
#include "cli/mpi_world.h"

#ifdef NPUSIM_MPI
#include <mpi.h>

void mpi_world_init(int *argc, char ***argv) { MPI_Init(argc, argv); }
void mpi_world_finalize(void) { MPI_Finalize(); }

int mpi_world_rank(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int mpi_world_size(void)
{
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}


long mpi_world_sum(long v)
{
    long s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

int mpi_world_max(int v)
{
    int m = 0;
    MPI_Allreduce(&v, &m, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return m;
}
#else
void mpi_world_init(int *argc, char ***argv) { (void)argc, (void)argv; }
void mpi_world_finalize(void) {}
int mpi_world_rank(void) { return 0; }
int mpi_world_size(void) { return 1; }
long mpi_world_sum(long v) { return v; }
int mpi_world_max(int v) { return v; }
#endif
