#!/bin/sh
# Example: DLRM inference on TPU chips with npusim (run from the repo root after `make`).
#   1. dlrm-s on 4 TPUv5p chips: every chip simulated, the slowest ("straggler")
#      chip's CSV/JSON plus one CSV/JSON per chip and the table placement
#   2. the same through the three stages piped together (one timing group per chip)
#   3. the reference sweep: dp = tp = num_chips for each chip count
set -e
NPUSIM=${NPUSIM:-build/npusim}
OUT=${OUT:-out/dlrm}
FOUR="--set num_chips=4 --set data_parallelism_degree=4 --set tensor_parallelism_degree=4 --batch 64"

echo "== dlrm-s on 4 TPUv5p chips, batch 64"
$NPUSIM run -m dlrm-s -c tpuv5p $FOUR --out "$OUT"
ls "$OUT"

echo "== the same stages piped: opsgen | chipsim | power"
# chipsim alone sees no model: pass DLRM's chip default explicitly.
$NPUSIM opsgen -m dlrm-s -c tpuv5p $FOUR |
    $NPUSIM chipsim -c tpuv5p --set use_vu_for_small_matmul=false |
    $NPUSIM power -m dlrm-s -c tpuv5p $FOUR --out-dir "$OUT/piped" >/dev/null
cmp "$OUT/dlrm-s_tpuv5p.json" "$OUT/piped/dlrm-s_tpuv5p.json" && echo "piped == run"

echo "== sweep: dlrm-s on v4 and v5p, 1 and 4 chips, batch 64"
$NPUSIM sweep --models dlrm-s --versions 4,5p --num-chips 1,4 --batch-sizes 64 --out "$OUT/sweep"
find "$OUT/sweep" -name '*_config_stats.json'
