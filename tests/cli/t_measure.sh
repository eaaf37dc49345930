# Sourced by tests/cli/run.sh: `npusim measure`. The quick sweep on this
# machine, with a short budget: every kernel passes its check (fp8
# block-scaled within 5e-2 of the unquantised product, and within 1e-5 of
# the same quantised inputs), the rows come out as the native CSV and its
# JSON twin, the host chip loads and predicts them, and the loop
# (validate, calibrate, validate) runs on them. A kernel made to fail is
# reported, excluded and exits 1; bad options exit 2 and write nothing.
ME="$T/measure"
mkdir -p "$ME"
NP_ME=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
check "measure --help" sh -c "$NPUSIM measure --help | grep -q 'usage: npusim measure'"
check "measure --check --quick: every kernel PASS or SKIP, fp8 checked twice, the tolerance table" sh -c "
  $NPUSIM measure --check --quick >'$ME/check.txt' || exit 1
  grep -q ' FAIL ' '$ME/check.txt' && exit 1
  grep -q '^gemm *fp8_e4m3 .* PASS *[0-9.e+-]* (5e-02), [0-9.e+-]* (1e-05)' '$ME/check.txt' || exit 1
  grep -q '^gemm *fp8_e5m2 .* PASS *[0-9.e+-]* (1e-01), [0-9.e+-]* (1e-05)' '$ME/check.txt' || exit 1
  grep -q '^gemm *fp32 .* PASS' '$ME/check.txt' || exit 1
  grep -Eq '^gemm *bf16 .* (PASS|SKIP .*cblas_sbgemm)' '$ME/check.txt' || exit 1
  grep -q 'passed, 0 failed' '$ME/check.txt' && ! grep -q median_us '$ME/check.txt'"
check "measure --check --blas gsl: GSL's reference CBLAS, labelled" sh -c "
  $NPUSIM measure --check --quick --blas gsl --threads 1 >'$ME/gsl.txt' &&
  grep -q '^BLAS: gsl-cblas (reference, unoptimised)' '$ME/gsl.txt' && grep -q 'gemm .*gsl-cblas *PASS' '$ME/gsl.txt'"
check "measure --quick: the rows (native CSV), the JSON twin and the host chip" sh -c "
  $NPUSIM measure --quick --budget 0.01 -o '$ME/host.csv' --chip-out '$ME/chips/host.json' >'$ME/quick.txt' 2>'$ME/quick.err' || exit 1
  head -1 '$ME/host.csv' | grep -q '^op,dtype,m,n,k,batch,time_us,tflops,GBps,min_us,max_us,iqr_pct,reps,threads,backend,rel_err$' || exit 1
  grep -q '^gemm,fp32,1024,1024,1024,,' '$ME/host.csv' && grep -q '^add,fp32,[0-9]*,,,,' '$ME/host.csv' || exit 1
  grep -q '^triad,fp64,' '$ME/host.csv' && ! grep -q '^fma,' '$ME/host.csv' || exit 1
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); n=sum(1 for _ in open(sys.argv[2]))-1; assert len(r)==n and r[0][\"op\"]==\"gemm\" and r[0][\"time_us\"]>0' '$ME/host.json' '$ME/host.csv' || exit 1
  grep -q '\"hardware_source\":.*npusim measure on' '$ME/chips/host.json' && grep -q 'median_us' '$ME/quick.txt'"
check "measure: the host chip predicts its rows (npusim op --csv) and validates them" sh -c "
  $NPUSIM op --configs $CONFIGS --csv '$ME/host.csv' -c '$ME/chips/host.json' >'$ME/op.txt' &&
  $NPUSIM validate --configs $CONFIGS -c '$ME/chips/host.json' '$ME/host.csv' --json '$ME/v0.json' >/dev/null &&
  python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))[\"overall\"][\"count\"] > 20' '$ME/v0.json'"
check "measure: calibrate, then validate with the calibrated host (held-out table printed)" sh -c "
  $NPUSIM calibrate --configs $CONFIGS -c '$ME/chips/host.json' '$ME/host.csv' -o '$ME/host-cal.json' >'$ME/cal.txt' &&
  grep -q '^held out' '$ME/cal.txt' && grep -q '^gemm  *fp32 ' '$ME/cal.txt' &&
  $NPUSIM validate --configs $CONFIGS -c '$ME/host-cal.json' '$ME/host.csv' >/dev/null"
check "measure: a kernel that fails its check is reported, excluded from the rows, exit 1" sh -c "
  NPUSIM_MEASURE_FAULT=add:fp32 $NPUSIM measure --quick --budget 0.01 -o '$ME/f.csv' --chip-out '$ME/f-chip.json' >'$ME/f.txt' 2>/dev/null
  [ \$? -eq 1 ] || exit 1
  grep -q '^add  *fp32 .* FAIL .*against the fp64 reference' '$ME/f.txt' && ! grep -q '^add,' '$ME/f.csv' && grep -q '^mul,' '$ME/f.csv'"
expect_fail "measure: --threads 0" 'expected a whole number 1-256' $NPUSIM measure --check --threads 0
expect_fail "measure: --blas of another name" 'expected auto, openblas or gsl' $NPUSIM measure --check --blas mkl
expect_fail "measure: --budget not a time" 'expected seconds' $NPUSIM measure --quick --budget -1 -o "$ME/no.csv"
expect_fail "measure: --check writes nothing" '--check times nothing' $NPUSIM measure --check -o "$ME/no.csv"
expect_fail "measure: an argument it does not take" 'unexpected argument' $NPUSIM measure extra
check "measure: nothing written on bad options" test ! -e "$ME/no.csv"
# The host chip lives in the user's folder ($XDG_DATA_HOME/npusim, else
# ~/.local/share/npusim), outside any install: -c host finds it from any
# folder, before an installed copy (an old `make install` copied a measured
# configs/chips/host.json into share/), and the run says which file it used;
# `make install` never installs one and removes such a copy.
ME_REAL=$(cd "$ME" && pwd -P)
mkdir -p "$ME/cwd" "$ME/p/bin" "$ME/p/share/npusim/configs/chips"
check "measure: the host chip goes to \$XDG_DATA_HOME/npusim/chips/host.json, said, nothing under the current folder" sh -c "
  cd '$ME/cwd' && XDG_DATA_HOME='$ME/xdg' $NP_ME measure --quick --budget 0.01 -o '$ME/u.csv' >/dev/null 2>'$ME/u.err' &&
  grep -q 'the host chip $ME/xdg/npusim/chips/host.json (-c host finds it)' '$ME/u.err' &&
  grep -q '\"hardware_source\":.*npusim measure on' '$ME/xdg/npusim/chips/host.json' && [ -z \"\$(ls -A '$ME/cwd')\" ]"
cp "$NP_ME" "$ME/p/bin/npusim"
sed 's/"hbm_bw_GBps": *[0-9.e+]*/"hbm_bw_GBps": 1234/' "$CONFIGS/chips/tpuv5p.json" >"$ME/p/share/npusim/configs/chips/host.json"
check "measure: an installed host.json does not shadow the measured one; the run names the file it used" sh -c "
  cd / && XDG_DATA_HOME='$ME/xdg' '$ME/p/bin/npusim' run --configs $CONFIGS -c host -o '$ME/uo' >'$ME/uo.txt' 2>/dev/null &&
  grep -q '^  configs       .*/models/llama3-8b.json, $ME_REAL/xdg/npusim/chips/host.json, .*/systems/system_config.json\$' '$ME/uo.txt'"
check "measure: without a measurement, -c host is the installed copy, named" sh -c "
  cd / && XDG_DATA_HOME='$ME/none' '$ME/p/bin/npusim' run --configs $CONFIGS -c host -o '$ME/uo2' 2>/dev/null |
  grep -q '^  configs       .*, $ME_REAL/p/share/npusim/configs/chips/host.json, '"
check "measure: make install installs no host.json and removes an older install's copy" sh -c "
  make -s --no-print-directory -o '$NP_ME' install BUILD='$(dirname "$NP_ME")' PREFIX='$ME/p' >/dev/null &&
  test -s '$ME/p/share/npusim/configs/chips/h100.json' && test ! -e '$ME/p/share/npusim/configs/chips/host.json'"
