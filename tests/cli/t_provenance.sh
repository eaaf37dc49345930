# Sourced by tests/cli/run.sh: outputs say who made them. A stream trace's
# first line names the npusim version, profile, model, chip and system; a
# stage refuses a trace made for another chip, model, system or profile
# (naming each field that differs) unless --force; the statistics JSON's
# sim_config carries the same names; under --profile neusim the outputs stay
# the reference's bytes (no line, no object).
PV="$T/prov"
mkdir -p "$PV"
check "provenance: opsgen's first line names version, profile, model, chip and system" sh -c "
  $NPUSIM opsgen --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$PV/g.csv' &&
  [ \"\$(head -n 1 '$PV/g.csv')\" = '# npusim {\"version\":\"0.2.0\",\"profile\":\"physical\",\"model\":\"llama3-8b\",\"chip\":\"tpuv5p\",\"system\":\"system_config\"}' ] &&
  sed -n 2p '$PV/g.csv' | grep -q '^Fusion index,Description,'"
check "provenance: none under --profile neusim (the reference's bytes)" sh -c "
  $NPUSIM opsgen --profile neusim --configs $CONFIGS -m llama3-8b -c tpuv5p | head -n 1 | grep -q '^Fusion index,'"
expect_fail "provenance: chipsim refuses a trace made for another chip" \
    'g.csv: the trace was made for another configuration (chip "tpuv5p", not "h100"): --force' \
    $NPUSIM chipsim --configs $CONFIGS -c h100 -i "$PV/g.csv" -o "$PV/t.csv"
check "provenance: nothing written on the refusal" test ! -e "$PV/t.csv"
check "provenance: --force takes it, and the timed trace names the chip it was timed on" sh -c "
  $NPUSIM chipsim --configs $CONFIGS -c h100 -i '$PV/g.csv' -o '$PV/t.csv' --force &&
  head -n 1 '$PV/t.csv' | grep -q '\"model\":\"llama3-8b\",\"chip\":\"h100\"'"
check "provenance: a chipsim trace piped on names its chip; power on the same chip takes it" sh -c "
  $NPUSIM chipsim --configs $CONFIGS -c tpuv5p -i '$PV/g.csv' -o '$PV/t5.csv' &&
  $NPUSIM power --configs $CONFIGS -c tpuv5p -i '$PV/t5.csv' -o '$PV/p5.csv' && head -n 1 '$PV/p5.csv' | grep -q '\"chip\":\"tpuv5p\"'"
expect_fail "provenance: power refuses a trace made for another model (-m), naming both" \
    'model "llama3-8b", not "llama3-70b"' \
    $NPUSIM power --configs $CONFIGS -c tpuv5p -m llama3-70b -i "$PV/t5.csv" -d "$PV/d"
expect_fail "provenance: and one made under another profile" 'profile "physical", not "neusim"' \
    $NPUSIM power --profile neusim --configs $CONFIGS -c tpuv5p -i "$PV/t5.csv" -o "$PV/x.csv"
check "provenance: the statistics JSON's sim_config names them too; not under neusim" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 -o '$PV/run' >/dev/null &&
  python3 -c 'import json,sys; p = json.load(open(sys.argv[1]))[\"sim_config\"][\"provenance\"]; assert p == {\"npusim\": \"0.2.0\", \"profile\": \"physical\", \"model\": \"llama3-8b\", \"chip\": \"h100\", \"system\": \"system_config\"}, p' '$PV/run/llama3-8b_h100_decode.json' &&
  $NPUSIM run --profile neusim --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$PV/runn' >/dev/null &&
  ! grep -q provenance '$PV/runn/llama3-8b_tpuv5p_decode.json'"
check "provenance: readers take a trace with its line (report, export)" sh -c "
  $NPUSIM report --configs $CONFIGS -c tpuv5p '$PV/p5.csv' -o '$PV/r.html' >/dev/null &&
  $NPUSIM export scalesim '$PV/p5.csv' -o '$PV/topo.csv' >/dev/null && test -s '$PV/topo.csv'"
