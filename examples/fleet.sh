#!/bin/sh
# Example: annual energy and carbon of a small fleet (examples/fleet.json):
# two chat services, an ads ranker and an image generator, on TPUv5p, v5e and v6e.
set -e
NPUSIM=${NPUSIM:-build/npusim}
OUT=${OUT:-out/fleet}
$NPUSIM fleet examples/fleet.json --out "$OUT"
echo "files: $OUT/fleet.csv $OUT/fleet.json (formulas: docs/fleet.md)"
