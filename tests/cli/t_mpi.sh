# MPI sweeps (sourced by tests/cli/run.sh). Runs when Open MPI is installed
# (CI installs it): builds <build>-mpi/npusim (build-mpi for build/npusim) with
# `make MPI=1` and checks that `mpirun -n 2` splits a sweep into a summary identical to a single run's.
# Always: a build without MPI that an MPI launcher started as one of several
# ranks (the rank variables in its environment) refuses, naming `make MPI=1`,
# instead of running the whole sweep once per rank.
if ! ldd "$NPUSIM" 2>/dev/null | grep -q libmpi; then
    MPINO="sweep --configs $CONFIGS --models llama3-8b --versions 5p --num-chips 1 --batch-sizes 1"
    expect_fail "mpi: a build without MPI under mpirun (OMPI_COMM_WORLD_SIZE=2) refuses, naming make MPI=1" \
        'built without MPI.*`make MPI=1`' env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 \
        $NPUSIM $MPINO --summary "$T/mpino-s.csv" --out "$T/mpino"
    check "mpi: the refused rank wrote nothing" sh -c "test ! -e '$T/mpino' && test ! -e '$T/mpino-s.csv'"
    expect_fail "mpi: the same under MPICH's launcher (PMI_SIZE=4)" 'started as one of 4 MPI ranks (PMI_SIZE=4)' \
        env PMI_SIZE=4 PMI_RANK=0 $NPUSIM $MPINO --summary "$T/mpino-s.csv" --out "$T/mpino"
    check "mpi: a world of one rank (OMPI_COMM_WORLD_SIZE=1) runs as usual" \
        env OMPI_COMM_WORLD_SIZE=1 $NPUSIM $MPINO --summary "$T/mpione.csv" --out "$T/mpione"
fi
if command -v mpirun >/dev/null 2>&1 && pkg-config --exists ompi-c 2>/dev/null; then
    # A plain build, whatever flags the surrounding make (e.g. make check) passes down.
    MPIB=$(dirname "$NPUSIM")-mpi   # build-mpi for build/npusim, build-check-mpi under make check
    check "mpi: make MPI=1 builds" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u OPT -u CFLAGS -u LDFLAGS -u LDLIBS make -s MPI=1 BUILD="$MPIB"
    MPISW="sweep --configs $CONFIGS --models llama3-8b,llama3-70b --versions 4,5p --num-chips 1,4,8 --batch-sizes 1,16"
    check "mpi: mpirun -n 2 summary equals a single run's" sh -c "
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -n 2 \
        '$MPIB/npusim' $MPISW --summary '$T/mpi.csv' --out '$T/mpi-tree' 2>'$T/mpi.log' &&
      $NPUSIM $MPISW --summary '$T/one.csv' --out '$T/one-tree' 2>/dev/null &&
      cmp '$T/mpi.csv' '$T/one.csv' && test \$(grep -c 'configurations simulated' '$T/mpi.log') -eq 1 &&
      test -z \"\$(ls '$T' | grep 'mpi.csv.rank')\" &&
      test \$(find '$T/mpi-tree' -type f | wc -l) -eq \$(find '$T/one-tree' -type f | wc -l)"
    if ! ldd "$NPUSIM" 2>/dev/null | grep -q libmpi; then
        check "mpi: mpirun -n 2 of the build without MPI fails, each rank naming make MPI=1, and writes nothing" sh -c "
          ! OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -n 2 \
            $NPUSIM $MPISW --summary '$T/mpino2.csv' --out '$T/mpino2' >'$T/mpino2.log' 2>&1 &&
          test \$(grep -c 'built without MPI.*make MPI=1' '$T/mpino2.log') -eq 2 &&
          test ! -e '$T/mpino2.csv' && test ! -e '$T/mpino2'"
    fi
else
    echo "ok - mpi: make MPI=1 and mpirun -n 2 sweeps: skipped, no mpirun or ompi-c here (apt-get install openmpi-bin libopenmpi-dev)"
fi
