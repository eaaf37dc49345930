#!/bin/sh
# Example: Llama inference on TPU chips with npusim (run from the repo root after `make`).
#   1. one configuration with all stages, summary on stdout, four files in out/example
#   2. the same through the three stages piped together
#   3. a small design-space sweep over chips, chip counts and batch sizes
set -e
NPUSIM=${NPUSIM:-build/npusim}
OUT=${OUT:-out/example}

echo "== llama3-70b on 8 TPUv4 chips, tensor parallelism 4 over 2 axes x pipeline 2, batch 8"
$NPUSIM run -m llama3-70b -c tpuv4 --out "$OUT" \
    --set num_chips=8 --set tensor_parallelism_degree=4 --set num_tensor_parallel_axes=2 \
    --set pipeline_parallelism_degree=2 --set num_pipeline_parallel_axes=1 --set microbatch_size_ici=4
ls "$OUT"

echo "== the same stages piped: opsgen | chipsim | power"
$NPUSIM opsgen -m llama3-8b -c tpuv5p | $NPUSIM chipsim -c tpuv5p |
    $NPUSIM power -m llama3-8b -c tpuv5p --out-dir "$OUT/piped"

echo "== sweep: llama3-8b on v5e and v5p, 1 and 4 chips, batch 1 and 16"
$NPUSIM sweep --models llama3-8b --versions 5e,5p --num-chips 1,4 --batch-sizes 1,16 --out "$OUT/sweep"
find "$OUT/sweep" -name '*_decode.json' | head -n 5
