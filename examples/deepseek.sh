#!/bin/sh
# Example: DeepSeek inference (MLA attention + mixture of experts) with npusim
# (run from the repo root after `make`).
#   1. deepseekv2-236b on 16 TPUv5p chips: tensor parallelism 4, expert parallelism 4
#      (experts spread over the 4 TP chips, in the reference's chip count), batch 8
#   2. deepseekv3-671b on one chip: runs, but the summary flags it out of memory
#   3. the reference's MoE sweep: 16 chips, batch 8, every (tp, pp, ep) it keeps
set -e
NPUSIM=${NPUSIM:-build/npusim}
OUT=${OUT:-out/deepseek}

echo "== deepseekv2-236b on 16 TPUv5p chips, tp 4 x ep 4, batch 8"
$NPUSIM run -m deepseekv2-236b -c tpuv5p --out "$OUT" \
    --set num_chips=16 --set tensor_parallelism_degree=4 --set expert_parallelism_degree=4 --batch 8
ls "$OUT"

echo "== deepseekv3-671b on one TPUv5p chip"
$NPUSIM run -m deepseekv3-671b -c tpuv5p --out "$OUT/v3"

echo "== sweep: deepseekv2-236b, 16 v5p chips, batch 8 (run names carry ep: dp1-tp4-pp1-ep4-...)"
$NPUSIM sweep --models deepseekv2-236b --versions 5p --num-chips 16 --batch-sizes 8 --out "$OUT/sweep"
ls "$OUT/sweep/deepseekv2-236b"
