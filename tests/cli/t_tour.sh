# Sourced by tests/cli/run.sh: the README's five-minute tour runs as written.
# Every ```sh block of its "A five-minute tour" section is run in a scratch
# folder (build/npusim as the binary under test, examples/ from the tree),
# and what it says it writes is there.
TR="$T/tour"
mkdir -p "$TR"
NP_ABS=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
awk '/^## A five-minute tour/ { on = 1; next } /^## / { on = 0 } on && /^```sh/ { code = 1; next }
     on && /^```/ { code = 0; next } on && code' README.md |
    sed -e "s#build/npusim#'$NP_ABS'#g" -e "s# examples/# '$PWD/examples/'#g" >"$TR/tour.sh"
check "README tour: its commands run as written (run, compare, report, sweep, serving, fleet, measure, validate, calibrate)" sh -c "
  test \$(grep -c npusim '$TR/tour.sh') -ge 10 && cd '$TR' && sh -e tour.sh >tour.log 2>&1 &&
  for f in out/llama3-8b_tpuv5p_decode.json run.html sweep.csv sweep.html serving/summary.json serving/requests.csv fleet/fleet.json host.csv validate.html host-cal.json; do
    test -s \"\$f\" || { echo \"missing \$f\"; exit 1; }; done"
