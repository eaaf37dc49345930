#!/bin/sh
# Golden tests: reruns the sweeps of tests/golden/*.suite and compares each
# reference output kept under tests/golden/raw/ (gzip) with npusim's, byte for
# byte (CSV rows and JSON statistics, sim_config included). One ok/not ok line
# per reference file. Chips come from tests/golden/configs/chips/ (the
# reference's, as first released; configs/chips/ holds corrected presets).
NPUSIM=$(cd "$(dirname "${NPUSIM:-build/npusim}")" && pwd)/$(basename "${NPUSIM:-build/npusim}")
root=$(pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# suite lines: MODEL VERSIONS NUM_CHIPS BATCH_SIZES [WORKLOAD]
cat tests/golden/*.suite | grep -v '^#' | while read -r model versions chips batches workload; do
    [ -n "$model" ] || continue
    (cd "$T" && NPUSIM_CONFIGS="$root/configs" "$NPUSIM" sweep --profile neusim --configs "$root/tests/golden/configs" --out raw --models "$model" \
        --workload "${workload:-inference}" --versions "$versions" --num-chips "$chips" \
        --batch-sizes "$batches" 2>/dev/null) ||
        echo "not ok - golden sweep $model $versions $chips $batches failed"
done
find tests/golden/raw -name '*.gz' | sort | while read -r ref; do
    rel=${ref#tests/golden/}; rel=${rel%.gz}
    if [ ! -f "$T/$rel" ]; then echo "not ok - golden $rel: not produced"
    elif gzip -dc "$ref" | cmp -s - "$T/$rel"; then echo "ok - golden $rel"
    else echo "not ok - golden $rel differs"; gzip -dc "$ref" | diff - "$T/$rel" | head -n 4 | sed 's/^/    /'; fi
done
