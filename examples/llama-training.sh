#!/bin/sh
# Example: one Llama training step on TPU chips with npusim (run from the repo root after `make`).
#   1. llama3-8b on 64 TPUv5p chips (data parallelism 8 x tensor parallelism 8), global batch 32:
#      one CSV of every op (forward, backward, weight update) and the statistics JSON
#   2. the reference's verified point (tp 2 x dp 2 on 4 chips): 170.9 GiB per chip, so a sweep
#      skips it, but `run` simulates it and reports the footprint
#   3. a training sweep over every parallelism of 4 and 64 chips (4 chips: all out of memory)
set -e
NPUSIM=${NPUSIM:-build/npusim}
OUT=${OUT:-out/example-training}

echo "== llama3-8b training, 64 TPUv5p chips, dp 8 x tp 8, global batch 32"
$NPUSIM run -m llama3-8b -c tpuv5p --workload training --batch 32 --out "$OUT" \
    --set num_chips=64 --set data_parallelism_degree=8 --set tensor_parallelism_degree=8
ls "$OUT"

echo "== llama3-8b training, 4 chips, dp 2 x tp 2 (exceeds one chip's HBM)"
$NPUSIM run -m llama3-8b -c tpuv5p --workload training --batch 32 --out "$OUT/tp2dp2" \
    --set num_chips=4 --set data_parallelism_degree=2 --set tensor_parallelism_degree=2

echo "== sweep: llama3-8b training on v5p, 4 and 64 chips, global batch 32"
$NPUSIM sweep --models llama3-8b --workload training --versions 5p --num-chips 4,64 --batch-sizes 32 \
    --out "$OUT/sweep"
find "$OUT/sweep" -name 'training-v5p.json' | sort | head -n 5
