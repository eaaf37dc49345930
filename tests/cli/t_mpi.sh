# MPI sweeps (sourced by tests/cli/run.sh). Runs when Open MPI is installed
# (CI installs it): builds build-mpi/npusim with `make MPI=1` and checks that
# `mpirun -n 2` splits a sweep into a summary identical to a single run's.
if command -v mpirun >/dev/null 2>&1 && pkg-config --exists ompi-c 2>/dev/null; then
    # A plain build, whatever flags the surrounding make (e.g. make check) passes down.
    check "mpi: make MPI=1 builds" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u OPT -u CFLAGS -u LDFLAGS -u LDLIBS make -s MPI=1 BUILD=build-mpi
    MPISW="sweep --configs $CONFIGS --models llama3-8b,llama3-70b --versions 4,5p --num-chips 1,4,8 --batch-sizes 1,16"
    check "mpi: mpirun -n 2 summary equals a single run's" sh -c "
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -n 2 \
        build-mpi/npusim $MPISW --summary '$T/mpi.csv' --out '$T/mpi-tree' 2>'$T/mpi.log' &&
      $NPUSIM $MPISW --summary '$T/one.csv' --out '$T/one-tree' 2>/dev/null &&
      cmp '$T/mpi.csv' '$T/one.csv' && test \$(grep -c 'configurations simulated' '$T/mpi.log') -eq 1 &&
      test -z \"\$(ls '$T' | grep 'mpi.csv.rank')\" &&
      test \$(find '$T/mpi-tree' -type f | wc -l) -eq \$(find '$T/one-tree' -type f | wc -l)"
fi
