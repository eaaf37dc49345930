/* mpi_world.c — MPI wrappers for the sweep (see mpi_world.h). */
#include "cli/mpi_world.h"

#ifdef NPUSIM_MPI
#include <mpi.h>

int mpi_world_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    return 0;
}
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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* The world size the MPI launchers give each rank they start: Open MPI's
 * mpirun, MPICH's and Intel MPI's Hydra (PMI), MVAPICH2. */
static const char *const world_size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE" };

/* Without MPI every rank would run the whole command and write the same
 * files: started as one of several ranks, refuse. */
int mpi_world_init(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    for (size_t i = 0; i < sizeof world_size_vars / sizeof world_size_vars[0]; i++) {
        const char *v = getenv(world_size_vars[i]);
        /* strtol, not atol: a size past long (atol's undefined behaviour) is
         * several ranks, not LONG_MAX; text that is no number is no launcher's. */
        errno = 0;
        long n = v ? strtol(v, NULL, 10) : 0;
        if (n <= 1)
            continue;
        char count[32] = "several";
        if (errno != ERANGE)
            snprintf(count, sizeof count, "%ld", n);
        fprintf(stderr,
                "npusim: started as one of %s MPI ranks (%s=%s), but this npusim was built without MPI: "
                "each rank would run the whole command and write the same files. Build it with `make MPI=1` "
                "(then `mpirun -n R npusim sweep ...` splits the sweep across the ranks), or run it without mpirun\n",
                count, world_size_vars[i], v);
        return -1;
    }
    return 0;
}
void mpi_world_finalize(void) {}
int mpi_world_rank(void) { return 0; }
int mpi_world_size(void) { return 1; }
long mpi_world_sum(long v) { return v; }
int mpi_world_max(int v) { return v; }
#endif
