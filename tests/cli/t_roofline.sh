# Sourced by tests/cli/run.sh: `npusim roofline`, the chip's roofline as SVG.
RO="$T/roofline"
mkdir -p "$RO"
cat >"$RO/m.csv" <<'CSV'
op,dtype,m,n,k,time_us
gemm,bf16,4096,4096,4096,180
gemv,bf16,,8192,8192,45
softmax,bf16,4096,4096,,30
all-reduce,bf16,1048576,8,,50
gemm,fp8,4096,4096,4096,
CSV
check "roofline: an SVG with the HBM slope, h100's ceilings, 4 circles and 3 triangles" sh -c "
  $NPUSIM roofline --configs $CONFIGS -c h100 '$RO/m.csv' -o '$RO/r.svg' 2>'$RO/err' &&
  head -n 2 '$RO/r.svg' | grep -q '<svg xmlns=\"http://www.w3.org/2000/svg\"' && tail -n 1 '$RO/r.svg' | grep -q '^</svg>' &&
  grep -q 'class=\"memory\"' '$RO/r.svg' && grep -q 'matrix bf16, fp16: 989.4 TFLOP/s' '$RO/r.svg' &&
  grep -q 'matrix fp8_e4m3, fp8_e5m2, int8: 1979 TFLOP/s' '$RO/r.svg' &&
  test \$(grep -c '<circle class=\"predicted\"' '$RO/r.svg') -eq 4 &&
  test \$(grep -c '<polygon class=\"measured\"' '$RO/r.svg') -eq 3 &&
  grep -q '1 operators without FLOPs or HBM traffic left out' '$RO/err'"
if command -v xmllint >/dev/null 2>&1; then
    check "roofline: the SVG is well-formed XML" xmllint --noout "$RO/r.svg"
else
    echo "ok - roofline: the SVG is well-formed XML: skipped, no xmllint here (apt-get install libxml2-utils)"
fi
check "roofline: a gemm efficiency below 1 is a dashed line" sh -c "
  $NPUSIM roofline --configs $CONFIGS -c h100 --set kernel_efficiency.gemm.e_max=0.7 -o '$RO/e.svg' &&
  grep -q 'class=\"efficiency\"' '$RO/e.svg' && grep -q 'gemm bf16 at e 0.7' '$RO/e.svg'"
check "roofline: a chip alone, no measurements" $NPUSIM roofline --configs $CONFIGS -c tpuv5p -o "$RO/v5p.svg"
check "roofline: says what it wrote (stdout), or on stderr when the SVG is stdout" sh -c "
  $NPUSIM roofline --configs $CONFIGS -c tpuv5p -o '$RO/w.svg' | grep -qx 'npusim roofline: wrote $RO/w.svg' &&
  $NPUSIM roofline --configs $CONFIGS -c tpuv5p -o - 2>'$RO/w.err' | grep -q '<svg' && grep -qx 'npusim roofline: wrote <stdout>' '$RO/w.err'"
check "roofline --help" sh -c "$NPUSIM roofline --help | grep -q 'usage: npusim roofline'"
expect_fail "roofline: -o is required" 'expected -o roofline.svg' $NPUSIM roofline --configs $CONFIGS -c h100
printf 'op,dtype,m\nconv,bf16,4\n' >"$RO/bad.csv"
expect_fail "roofline: a bad row names its line" 'bad.csv: line 2: column "op"' \
    $NPUSIM roofline --configs $CONFIGS -c h100 "$RO/bad.csv" -o "$RO/bad.svg"
check "roofline: nothing written on a bad row" test ! -e "$RO/bad.svg"
