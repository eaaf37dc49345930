#!/bin/sh
# Makes the inputs of the bad-input matrix (tests/cli/badinput.txt) in folder B:
#   badinput-fixtures.sh NPUSIM CONFIGS B
# Good files to break (m.json, c.json, ...), broken ones, a small results tree (res/),
# sweep summary shards, and output targets that are not plain files.
set -e
N=$1 CF=$2 B=$3
REPO=$PWD
cd "$B"
cp "$REPO/examples/fleet.json" examples-fleet.json
cp "$CF/models/llama3-8b.json" m.json
cp "$CF/chips/tpuv5p.json" c.json
cp "$CF/systems/system_config.json" s.json
cp "$CF/pg/HW.json" pg.json
# JSON that does not parse, or parses to the wrong thing.
sed '$ s/}$/} trailing/' m.json >trail.json
sed 's/"d_model": *\([0-9]*\),/"d_model": \1, "d_model": 2048,/' m.json >dup.json
: >empty.json
printf '[1, 2, 3]\n' >array.json
printf '{"d_model": 4096,\n "num_heads": }\n' >broken.json
printf '{"d_model": 4\000096}\n' >nul.json
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]" }' >deep.json
sed 's/"d_model"/"frobs": 3, "d_model"/' m.json >unknownkey.json
sed 's/"d_model"/"d_modle"/' m.json >typokey.json
sed 's/"num_layers": *[0-9]*/"num_layers": 4e18/' m.json >hugelayers.json
sed 's/"ICI_topology": *"[A-Z_0-9]*"/"ICI_topology": "MOEBIUS"/' c.json >topo.json
sed 's/"TDP_W"/"frobs": 1, "TDP_W"/' c.json >chipunknown.json
printf '{"PUE": 1.1, "carbon_intensity_kgCO2_per_kWh": 0.5, "frobs": 2}\n' >sysunknown.json
printf '{"PUE": -1, "carbon_intensity_kgCO2_per_kWh": 0.5}\n' >sysneg.json
# System configs with bad carbon defaults (lifetime_years, duty_cycle).
for v in life0:lifetime_years:0 lifeneg:lifetime_years:-3 lifehuge:lifetime_years:1e300 duty15:duty_cycle:1.5 \
         duty0:duty_cycle:0 dutyneg:duty_cycle:-0.5 dutystr:duty_cycle:'"high"'; do
    IFS=: read -r n k x <<EOT
$v
EOT
    printf '{"PUE": 1.1, "carbon_intensity_kgCO2_per_kWh": 0.5, "%s": %s}\n' "$k" "$x" >"sys_$n.json"
done
# Model configs from the other families, to break.
cp "$CF/models/dlrm-s.json" dlrm.json
cp "$CF/models/dit-xl.json" dit.json
cp "$CF/models/deepseekv2-236b.json" ds.json
# Power-gating strategies.
# chip configs that start from another ("base"): not a name, a name there is not, a cycle
printf '{"base": 3}\n' >chip_base_num.json
printf '{"base": "nochip"}\n' >chip_base_missing.json
printf '{"base": "chip_cycle_b.json"}\n' >chip_cycle_a.json
printf '{"base": "chip_cycle_a.json"}\n' >chip_cycle_b.json
printf '{"base": "h100", "hbm_bw_GBps": -5}\n' >chip_base_neg.json
printf '{"name": "x", "sa_partition_shapes": [1e300, 128]}\n' >pg_bigshape.json
printf '{"name": "x", "frobs": true}\n' >pg_unknown.json
printf '{"name": "x", "SA_PG_enabled": "maybe"}\n' >pg_badbool.json
printf '{"name": "x", "sa_power_level_factors": [1.0, -0.5]}\n' >pg_negfactor.json
printf '{"name": "x" "SA_PG_enabled": true}\n' >pg_broken.json
printf '{"name": "x", "name": "y"}\n' >pg_dup.json
printf '{"name": "x", "sa_pg_delay_cycles": 1e300}\n' >pg_hugedelay.json
printf '{"name": "x", "sa_partition_shapes": [128.5, 128]}\n' >pg_fracshape.json
# Traces.
"$N" opsgen --configs "$CF" -o t.csv
"$N" chipsim --configs "$CF" -i t.csv -o timed.csv
# A trace that names what it was made for, then the traces without that
# first line: the rows broken below are counted from the header.
cp t.csv prov_t.csv
sed -i '/^# npusim /d' t.csv timed.csv
gzip -c timed.csv >timed.csv.gz
head -c 2000 timed.csv.gz >trunc.csv.gz
{ head -c 100 timed.csv.gz; printf 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX'; tail -c +141 timed.csv.gz; } >corrupt.csv.gz
printf 'not gzip at all' >notgz.csv.gz
gzip -c timed.csv | head -c -8 >nocrc.csv.gz   # whole rows, the gzip trailer cut off
# Row 2 of both traces is the first LayerNorm: ",VPU,<Count>,<Bounded-by>,<Execution time>,".
sed '2 s/,VPU,\([0-9]*\),/,VPU,-3,/' t.csv >negcount.csv
sed '2 s/,VPU,\([0-9]*\),/,VPU,1.5,/' t.csv >fraccount.csv
sed '2 s/,VPU,\([0-9]*\),/,VPU,nan,/' t.csv >nancount.csv
sed '2 s/,VPU,\([0-9]*\),/,VPU,99999999999999999999999,/' t.csv >hugecount.csv
sed '2 s/,VPU,\([0-9]*\),\([A-Za-z]*\),[0-9]*,/,VPU,\1,\2,inf,/' timed.csv >inftime.csv
sed '2 s/,VPU,\([0-9]*\),\([A-Za-z]*\),[0-9]*,/,VPU,\1,\2,-5,/' timed.csv >negtime.csv
awk 'NR==3{print "1,2,3"; next}1' t.csv >ragged.csv
tail -n +2 t.csv >noheader.csv
: >emptytrace.csv
printf 'a,b\n"unterminated\n' >quote.csv
# Sweep specs.
printf '{"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1], "frobs": 1}\n' >spec_unknown.json
printf '{"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1], "fields": {"hbm_bw_GBs": [1]}}\n' >spec_badfield.json
printf '{"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1], "fields": {"hbm_bw_GBps": {"from": 10, "to": 1, "step": 1}}}\n' >spec_badrange.json
printf '{"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1], "fields": {"hbm_bw_GBps": {"from": 1, "to": 10, "step": 0}}}\n' >spec_zerostep.json
printf '{"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [0], "batch_sizes": [1]}\n' >spec_zerochips.json
printf '{"models": [], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1]}\n' >spec_nomodels.json
printf '{"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1]} x\n' >spec_trail.json
printf '{"models": ["llama3-8b"], "models": ["llama3-70b"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1]}\n' >spec_dup.json
printf '{"models": ["nosuchmodel"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1]}\n' >spec_nomodel.json
printf '{"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1]}\n' >spec_ok.json
# Suite files.
: >empty.suite
printf '# only a comment\n' >comment.suite
printf 'sweep llama3-8b inference 5p 1 1\nsweep llama3-8b inference 5p 1 2\nenergy NoPG None\nsweep llama3-8b inference 5p 1 4\nfrobnicate x\n' >badline5.suite
printf 'sweep llama3-8b inference 5p 1 1\nsweep nosuchmodel inference 5p 1 1\n' >badmodel.suite
printf 'sweep llama3-8b inference 5p 1 1\ncarbon Full None -1 0.6 1\n' >badci.suite
printf 'sweep llama3-8b inference 5p 1 1\nenergy Turbo None\n' >badpg.suite
printf 'sweep llama3-8b inference 9z 1 1\n' >badversion.suite
printf 'sweep llama3-8b inference 5p 1\n' >short.suite
# Fleet files.
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p", "frobs": 1}]}\n' >fleet_unknown.json
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p"}], "frobs": 1}\n' >fleet_topunknown.json
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p", "replicas": -2}]}\n' >fleet_negrep.json
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p", "num_chips": 1e30}]}\n' >fleet_hugechips.json
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p"}]} x\n' >fleet_trail.json
printf '{"deployments": [{"model": "nosuch", "chip": "tpuv5p"}]}\n' >fleet_nomodel.json
printf '{"deployments": {"model": "llama3-8b"}}\n' >fleet_notlist.json
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p", "load": {"token_per_sec": 5}}]}\n' >fleet_loadkey.json
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p", "parallelism": {"tp": 1, "xp": 2}}]}\n' >fleet_parkey.json
printf '{"defaults": {"pue": 1.2, "carbon": 1}, "deployments": [{"model": "llama3-8b", "chip": "tpuv5p"}]}\n' >fleet_defkey.json
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p"}, {"model": "llama3-8b", "chip": "tpuv5p", "pue": 0.5}]}\n' >fleet_second.json
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p", "lifetime_years": 0}]}\n' >fleet_zerolife.json
printf '{"defaults": {"lifetime_years": 0}, "deployments": [{"model": "llama3-8b", "chip": "tpuv5p"}]}\n' >fleet_zerolifedef.json
printf 'energy NoPG None\nsweep llama3-8b inference 5p 1 1\n' >nosweep.suite
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p", "lifetime_years": 1e300}]}\n' >fleet_lifehuge.json
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p", "duty_cycle": 1.5}]}\n' >fleet_duty15.json
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p", "parallelism": {"tp": 0}}]}\n' >fleet_tp0.json
printf 'sweep llama3-8b inference 5p 1 1\ncarbon Full None 1e308 0.6 1\n' >bigci.suite
printf 'sweep llama3-8b inference 5p 1 1\ncarbon Full None 0.5 0.6 1,1000\n' >biglife.suite
# A small results tree: raw, raw_None, carbon_Full.
printf 'sweep llama3-8b inference 5p 1 1\nenergy NoPG,Full None\ncarbon Full None 0.1352 0.6 1\n' >tree.suite
"$N" suite tree.suite res --configs "$CF" -j 1 2>/dev/null
mkdir -p hole/raw_None/llama3-8b
# Sweep summary shards and broken copies.
"$N" sweep --configs "$CF" --spec spec_ok.json --models llama3-8b --versions 5p --num-chips 1,4 --batch-sizes 1,4 --summary sh1.csv --shard 1/2 2>/dev/null
"$N" sweep --configs "$CF" --spec spec_ok.json --models llama3-8b --versions 5p --num-chips 1,4 --batch-sizes 1,4 --summary sh2.csv --shard 2/2 2>/dev/null
sed '$d' sh2.csv >sh2_lost.csv
{ sed '$d' sh2.csv | sed '$d'; tail -n 1 sh2.csv; } >sh2_lastrow.csv   # its last row lost, the closing line kept
awk -F, 'NR==2{NF=NF-2}1' OFS=, sh2.csv >sh2_ragged.csv
sed '1 s/TTFT_s/TTFT_x/' sh2.csv >sh2_header.csv
# The validation loop: measurement files, traces and name rules, good and bad.
printf 'op,dtype,m,n,k,time_us\ngemm,bf16,64,64,64,5\n' >meas_ok.csv
printf 'op,dtype,m,n,k,time_us\ngemm,bf17,64,64,64,5\n' >meas_dtype.csv
printf 'op,dtype,m,n,k,time_us\nmatmul,bf16,64,64,64,5\n' >meas_op.csv
printf 'op,dtype,m,n,k,time_us\ngemm,bf16,64,64,64,-1\n' >meas_time.csv
printf 'op,dtype,m,n,k\ngemm,bf16,64,64,64\n' >meas_notime.csv
printf 'op,dtype,m,n,k,time_us\ngemm,bf16,64,64,64,1e308\n' >meas_hugetime.csv
printf 'op,dtype,m,n,k,time_us\ngemm,bf16,64,64,64,1e-300\n' >meas_tinytime.csv
printf '[{"op": "gemm", "dtype": "bf16", "m": 64, "n": 64, "k": 64, "time_us": 1e300}]' >meas_hugetime.json
printf '[{"op": "gemm", "dtype": "bf16", "m": [64]}]' >meas_twin.json
printf '[{"op": "gemm", ' >meas_cut.json
printf '{"traceEvents": 3}' >trace_not.json
printf '[{"ph": "X", "name": ' >trace_cut.json
printf 'x,y\n1,2\n' >nsys_bad.csv
printf 'pattern,op,m,n,k,batch\nbad(,gemm,$1,,,\n' >names_bad.csv
printf 'pattern,op,m,n,k,batch\ngemm,matmul,,,,\n' >names_op.csv
printf '"Name","Med (ns)"\n"k","10"\n' >nsys_ok.csv
# Output targets.
mkfifo fifo
mknod dev c 1 3 2>/dev/null || ln -s /dev/null dev
mknod full c 1 7 2>/dev/null || ln -s /dev/full full
echo 'keep me' >real.csv
ln -s real.csv link.csv
mkdir ro
chmod 555 ro
mkdir adir
mkfifo cfifo      # a config path that is a FIFO
cp c.json unread.json && chmod 000 unread.json   # a config nobody may read (rows run as nobody)
mkdir cdir.json   # and a folder named like a config
# Set the clock back on everything, so that a rewrite in the same second still shows.
find . -exec touch -h -d '2001-01-01 00:00:00' {} +
# npusim report PATH: runs read back, broken.
mkdir -p rep_none rep_badchip rep_badcsv
printf '{"TTFT_sec": 1, "sim_config": {"name": "x", "num_sa": -3}}\n' >rep_badchip/r_prefill.json
cp res/raw/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p_prefill.json rep_badcsv/r_prefill.json
printf 'Fusion index,Description,Config\n1,2\n' >rep_badcsv/r_prefill.csv
cp res/raw/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p_prefill.csv trace_alone.csv
