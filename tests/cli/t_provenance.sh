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
# Paths in a results tree are relative to its root (absolute_output_paths
# under neusim keeps the reference's joined ones): sweep, energy, carbon and
# SLO outputs from an absolute -o hold no absolute path, and the SLO stage's
# stats_file names the file it read under --results.
PT="$PV/tree"
check "provenance: a results tree's JSONs name files relative to its root" sh -c "
  $NPUSIM sweep --configs $CONFIGS -m llama3-8b -c 5p --num-chips 1 -b 1,8 -o '$PT/raw' -q >/dev/null &&
  $NPUSIM energy --configs $CONFIGS --results '$PT/raw' -m llama3-8b -c 5p --pg NoPG,Full -q >/dev/null &&
  $NPUSIM carbon --configs $CONFIGS --results '$PT/raw_None' -m llama3-8b -c 5p --pg Full --ci 0.2 --util 0.5 -q >/dev/null &&
  $NPUSIM slo --configs $CONFIGS --results '$PT/carbon_Full/dvfs_None/CI0.2/UTIL0.5' -o '$PT/slo' -m llama3-8b -c 5p >/dev/null &&
  ! grep -rq '\"$PT' '$PT' &&
  grep -q '\"output_file_path\": \"llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs8/inference-v5p.csv\"' '$PT/raw/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs8/inference-v5p_decode.json' &&
  grep -q '\"out_stats_file_path\": \"llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs8/inference-v5p_decode.json\"' '$PT/raw_None/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs8/inference-v5p_decode.json' &&
  f=\$(sed -n 's/.*\"optimal_stats_file\": \"\\([^\"]*\\)\".*/\\1/p' '$PT/slo/llama3-8b/inference-decode.json' | head -n 1) &&
  test -n \"\$f\" && test -f '$PT/carbon_Full/dvfs_None/CI0.2/UTIL0.5/'\"\$f\""
check "provenance: under neusim the tree keeps the reference's joined paths" sh -c "
  $NPUSIM sweep --profile neusim --configs $CONFIGS -m llama3-8b -c 5p --num-chips 1 -b 1 -o '$PT/rawn' >/dev/null &&
  grep -q '\"output_file_path\": \"$PT/rawn/llama3-8b/' '$PT/rawn/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p_decode.json'"
# Every JSON output says who made it: names, never paths.
check "provenance: the SLO stage's JSON names npusim, the profile, the model and the chips" sh -c "
  python3 -c 'import json,sys; p = json.load(open(sys.argv[1]))[\"provenance\"]; assert p == {\"npusim\": \"0.2.0\", \"profile\": \"physical\", \"model\": \"llama3-8b\", \"chips\": [\"5p\"]}, p' '$PT/slo/llama3-8b/inference-decode.json'"
check "provenance: fleet.json, validate --json and a --timeline say who made them" sh -c "
  $NPUSIM fleet --configs $CONFIGS -o '$PV/fl' examples/fleet.json >/dev/null &&
  python3 -c 'import json,sys; p = json.load(open(sys.argv[1]))[\"provenance\"]; assert p == {\"npusim\": \"0.2.0\", \"profile\": \"physical\", \"fleet\": \"fleet.json\"}, p' '$PV/fl/fleet.json' &&
  printf 'op,dtype,m,n,k,time_us\ngemm,bf16,1024,1024,1024,10\n' >'$PV/meas.csv' &&
  $NPUSIM validate --configs $CONFIGS -c a100 '$PV/meas.csv' --json '$PV/v.json' >/dev/null &&
  python3 -c 'import json,sys; p = json.load(open(sys.argv[1]))[\"provenance\"]; assert p == {\"npusim\": \"0.2.0\", \"profile\": \"physical\", \"chip\": \"a100\", \"measurements\": [\"meas.csv\"]}, p' '$PV/v.json' &&
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p --timeline '$PV/tl.json' -o '$PV/tlr' >/dev/null &&
  python3 -c 'import json,sys; p = json.load(open(sys.argv[1]))[\"metadata\"][\"provenance\"]; assert p[\"model\"] == \"llama3-8b\" and p[\"chip\"] == \"tpuv5p\" and p[\"profile\"] == \"physical\", p' '$PV/tl.json' &&
  $NPUSIM calibrate --configs $CONFIGS -c a100 '$PV/meas.csv' '$PV/meas.csv' -o '$PV/cal.json' >/dev/null 2>&1 &&
  python3 -c 'import json,sys; s = json.load(open(sys.argv[1]))[\"calibration_source\"]; assert s == \"npusim 0.2.0 calibrate (profile physical) of a100 on meas.csv meas.csv\", s' '$PV/cal.json'"
