#!/bin/sh
# Example: GLIGEN (grounded latent diffusion UNet, one of 40 denoising steps per trace) with
# npusim (run from the repo root after `make`).
#   1. one configuration with all stages: summary on stdout, gligen_tpuv4.csv/.json in out/gligen
#   2. tensor parallelism 2 x data parallelism 2 on four chips, batch 4
#   3. the trace alone (untimed ops) through the opsgen stage
#   4. the reference's sweep (pipeline parallelism is not supported: pp stays 1)
set -e
NPUSIM=${NPUSIM:-build/npusim}
OUT=${OUT:-out/gligen}

echo "== gligen on one TPUv4 chip, batch 1"
$NPUSIM run -m gligen -c tpuv4 --out "$OUT"

echo "== gligen on four TPUv4 chips: tp 2 x dp 2, batch 4"
$NPUSIM run -m gligen -c tpuv4 --set num_chips=4 --set tensor_parallelism_degree=2 \
    --set data_parallelism_degree=2 --batch 4 --out "$OUT/tp2dp2"

echo "== the untimed trace of the UNet"
$NPUSIM opsgen -m gligen -c tpuv4 -o "$OUT/gligen-ops.csv.gz"

echo "== sweep: 1 and 4 TPUv4 chips"
$NPUSIM sweep --models gligen --versions 4 --num-chips 1,4 --batch-sizes 1 --out "$OUT/sweep"
find "$OUT/sweep" -name '*.json'
