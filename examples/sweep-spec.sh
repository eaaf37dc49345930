#!/bin/sh
# A design-space sweep from a spec: llama3-8b on TPUv5p and TPUv6e, 1/4/16
# chips, batch 1 and 16, HBM bandwidth 1000..8000 GB/s, 4/8/16 systolic arrays
# and 64/128 MB of vector memory (examples/sweep-spec.json, 2 x 90 field
# combinations x every parallelism): one summary row per configuration, no
# per-op files. Then the same sweep in two shards, merged back into the same
# file. Run from the repository root after `make`.
set -e
NPUSIM=${NPUSIM:-build/npusim}
out=${1:-out/sweep-spec}
mkdir -p "$out"
"$NPUSIM" sweep --configs configs --spec examples/sweep-spec.json --summary "$out/summary.csv"
echo "wrote $out/summary.csv ($(($(wc -l <"$out/summary.csv") - 1)) configurations)"
# Two shards (e.g. two machines, or a SLURM array: --shard then comes from
# SLURM_ARRAY_TASK_ID/_COUNT/_MIN), merged:
"$NPUSIM" sweep --configs configs --spec examples/sweep-spec.json --summary "$out/shard1.csv" --shard 1/2
"$NPUSIM" sweep --configs configs --spec examples/sweep-spec.json --summary "$out/shard2.csv" --shard 2/2
"$NPUSIM" merge "$out/merged.csv" "$out/shard1.csv" "$out/shard2.csv"
cmp "$out/summary.csv" "$out/merged.csv" && echo "shards merged: identical to the single run"
# The five configurations with the lowest energy per output token:
echo "lowest energy per token:"
grep ',ok,' "$out/summary.csv" | sort -t, -k20,20g | head -n 5 | cut -d, -f2,4,5,6,7,8,12,20,24-26
