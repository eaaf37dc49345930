#!/bin/sh
# Example: DiT-XL/2 image generation (20 diffusion steps) with npusim (run from the repo
# root after `make`).
#   1. one configuration with all stages: summary on stdout, dit-xl_tpuv5p.csv/.json in out/dit
#   2. batch 8 with pipeline parallelism 2 on two TPUv5e chips
#   3. the reference's sweep: v5e and v5p, 1 and 4 chips, batch 1 and 8
set -e
NPUSIM=${NPUSIM:-build/npusim}
OUT=${OUT:-out/dit}

echo "== dit-xl on one TPUv5p chip, batch 1"
$NPUSIM run -m dit-xl -c tpuv5p --out "$OUT"

echo "== dit-xl on two TPUv5e chips, pipeline parallelism 2, batch 8"
$NPUSIM run -m dit-xl -c tpuv5e --set num_chips=2 --set pipeline_parallelism_degree=2 --batch 8 \
    --out "$OUT/pp2"

echo "== sweep: every dp x tp x pp on 1 and 4 chips"
$NPUSIM sweep --models dit-xl --versions 5e,5p --num-chips 1,4 --batch-sizes 1,8 --out "$OUT/sweep"
find "$OUT/sweep" -name '*.json' | head -n 5
