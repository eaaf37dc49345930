# Sourced by tests/cli/run.sh: `npusim op`, one operator predicted, and its
# --csv measurement files. Expected figures by hand:
#   gemm 4096^3 fp8 on h100: 2 x 4096^3 = 137438953472 FLOPs / 1978.9 TFLOP/s = 69452.2 ns -> 69.453 us
#   the same on a100 (no fp8: runs as bf16 at 312): 440512.0 ns -> 440.513 us (chipsim rounds ns up)
#   gemv n=k=4096 bf16 on h100: 2 x 4096^2 weight bytes + 2 x 8 KiB vectors = 33570816 B / 3350 GB/s
#   = 10021.1 ns -> 10.022 us, memory-bound
# those at the roofline ($ROOFLINE); the shipped h100 (fitted, docs/validation.md) divides the first by
# its 128 x 128 tiles' waves (1024 tiles in 8 waves of 132 SMs: 69453 x 1056 / 1024 = 71623.4 -> 71624 ns)
# and its fp8 GEMM efficiency 0.5968: 120013.4 -> 120.014 us (nanoseconds rounded up at each step); the
# gemv by its memory-bound 0.9626: 10022 / 0.9626 = 10411.4 -> 10.412 us (its launch gap: 0)
OP="$T/op"
mkdir -p "$OP"
opj() { $NPUSIM op --configs $CONFIGS --json "$@"; }
jfield() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p"; }
check "op: gemm fp8 on h100 takes 69.453 us, compute-bound at its fp8 peak" sh -c "
  out=\$($NPUSIM op --configs $CONFIGS --json gemm --m 4096 --n 4096 --k 4096 --dtype fp8 -c h100 $ROOFLINE) &&
  echo \"\$out\" | grep -q '\"time_us\":69.453,' && echo \"\$out\" | grep -q '\"bound\":\"compute\"' &&
  echo \"\$out\" | grep -q '\"ran_as\":\"fp8_e4m3\"'"
check "op: gemm fp8 on a100 runs as bf16 in 440.513 us and says so" sh -c "
  out=\$($NPUSIM op --configs $CONFIGS gemm --m 4096 --n 4096 --k 4096 --dtype fp8 -c a100 $ROOFLINE) &&
  echo \"\$out\" | grep -q 'time          440.513 us' && echo \"\$out\" | grep -q 'fp8_e4m3 ran as bf16'"
check "op: gemv on h100 moves 33570816 bytes in 10.022 us, memory-bound" sh -c "
  out=\$($NPUSIM op --configs $CONFIGS --json gemv --n 4096 --k 4096 -c h100 $ROOFLINE) &&
  echo \"\$out\" | grep -q '\"bytes\":33570816,' && echo \"\$out\" | grep -q '\"time_us\":10.022,' &&
  echo \"\$out\" | grep -q '\"bound\":\"memory\"'"
check "op: the shipped h100 runs that gemm in waves at its fitted fp8 efficiency 0.5968 (120.014 us), the gemv at 0.9626 (10.412 us)" sh -c "
  $NPUSIM op --configs $CONFIGS --json gemm --m 4096 --n 4096 --k 4096 --dtype fp8 -c h100 | grep -q '\"time_us\":120.014,.*\"efficiency\":0.5968' &&
  $NPUSIM op --configs $CONFIGS --json gemv --n 4096 --k 4096 -c h100 | grep -q '\"time_us\":10.412,.*\"efficiency\":0.9626'"
# gemm 8192^3 fp4 on b200: 64 x 64 = 4096 output tiles of 128 x 128 in 28 waves of 148 SMs (4144 tiles):
# 2 x 8192^3 x 4144 / 4096 = 1112396529664 FLOPs / (9000 TFLOP/s x 0.5639) = 219186.0 ns -> 219.188 us,
# bound by the tensor cores, which keep their partial sums (matrix_accumulates), plus the fp4 kernel's
# fixed 8.7 us (fp4_t0_ns): 227.888 us. e 0.5639 and t0 8742 ns are npusim calibrate's fit of the seven
# cuBLASLt shapes in bench/public/ops_b200_fp4.csv (t0 rounded to 100 ns in the preset). With the vector
# units adding each 64-deep K chunk's partial sums instead (chipsim's TPU model) the vector work binds
# it: 389.529 us, slower than the same gemm in fp8 (323.985 us, no fixed time: no fp8 shapes measured).
check "op: gemm 8192^3 fp4 on b200 takes 227.888 us: its fitted fp4 efficiency and fixed time; charged vector accumulation would bind it" sh -c "
  $NPUSIM op --configs $CONFIGS --json gemm --m 8192 --n 8192 --k 8192 --dtype fp4 -c b200 | grep -q '\"time_us\":227.888,' &&
  $NPUSIM op --configs $CONFIGS --json gemm --m 8192 --n 8192 --k 8192 --dtype fp4 -c b200 --set kernel_efficiency.gemm.fp4_t0_ns=0 |
  grep -q '\"time_us\":219.188,' &&
  $NPUSIM op --configs $CONFIGS --json gemm --m 8192 --n 8192 --k 8192 --dtype fp8 -c b200 | grep -q '\"time_us\":323.985,' &&
  $NPUSIM op --configs $CONFIGS --json gemm --m 8192 --n 8192 --k 8192 --dtype fp4 -c b200 --set matrix_accumulates=false |
  grep -q '\"time_us\":389.529,'"
# The preset's fp4 GEMM terms are what npusim calibrate fits on the published shapes: refitting
# bench/public/ops_b200_fp4.csv from the shipped b200 gives e 0.5639 and t0 8.742 us again.
check "op: b200's fp4 GEMM efficiency and fixed time are calibrate's fit of bench/public/ops_b200_fp4.csv" sh -c "
  $NPUSIM calibrate --configs $CONFIGS -c b200 bench/public/ops_b200_fp4.csv -o '$T/b200-fp4.json' |
  grep -Eq '^gemm +fp4 +7 +0\.5639 +8\.742 ' &&
  python3 -c 'import json,sys; g = json.load(open(sys.argv[1]))[\"kernel_efficiency\"][\"gemm\"]; sys.exit(not (abs(g[\"fp4\"] - 0.5639) < 5e-5))' '$T/b200-fp4.json'"
check "op: int4 weights cut a gemv's bytes to 8404992" sh -c "
  $NPUSIM op --configs $CONFIGS --json gemv --n 4096 --k 4096 -c h100 --weight-dtype int4 | grep -q '\"bytes\":8404992,'"
# A decode step's attention over the cache: 64 sequences x 8 KV heads x 4 query rows over 4096
# positions of d_head 128: 4 x 64 x 8 x 4 x 4096 x 128 = 4294967296 FLOPs; K and V 64 x 8192 x 8 x
# 128 x 2 B = 1073741824, Q 524288 and the scores 64 x 4 x 8192 x 8 x 2 = 33554432 bytes; at h100's
# 3350 GB/s over gemv's 0.9626 (the class undeclared) 1107820544 / 3350 / 0.9626 = 343.542 us;
# declared 0.5, 661.386 us (1107820544 / 3350 / 0.5, rounded up to the ns); gemv's own efficiency does not move it then
check "op: decode-attention is the decode_attention class, on gemv's curve until the chip declares its own" sh -c "
  $NPUSIM op --configs $CONFIGS --json decode-attention -b 64 --heads 8 -m 4 -n 4096 -k 128 -c h100 >'$T/da.json' &&
  grep -q '\"flops\":4294967296,\"bytes\":1107820544,\"bound\":\"memory\",\"efficiency\":0.9626,\"kernel_class\":\"decode_attention\"' '$T/da.json' &&
  grep -q '\"time_us\":343.542,' '$T/da.json' &&
  $NPUSIM op --configs $CONFIGS --json decode-attention -b 64 --heads 8 -m 4 -n 4096 -k 128 -c h100 \
    --set kernel_efficiency.decode_attention.e_max=0.5 --set kernel_efficiency.gemv.e_max=0.9 | grep -q '\"time_us\":661.386,'"
# calibrate fits it from measured decode kernels: 1.8 x the roofline (330.693 and 82.712 us) gives e 0.5556
printf 'op,dtype,m,n,k,batch,heads,time_us\ndecode-attention,bf16,4,4096,128,64,8,595.25\ndecode-attention,bf16,4,2048,128,32,8,148.88\n' >"$T/da.csv"
check "calibrate: measured decode-attention rows fit kernel_efficiency.decode_attention" sh -c "
  $NPUSIM calibrate --configs $CONFIGS -c h100 '$T/da.csv' -o '$T/da-cal.json' | grep -Eq '^decode_attention +bf16 +2 +0\.555' &&
  python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))[\"kernel_efficiency\"]; sys.exit(not (abs(e[\"decode_attention\"][\"bf16\"] - 0.5556) < 1e-3 and e[\"gemv\"][\"bf16\"] == 0))' '$T/da-cal.json'"
for k in attention decode-attention add mul gelu silu relu softmax layernorm rmsnorm all-reduce all-gather reduce-scatter all-to-all; do
    check "op: $k predicts (json with time_us, tflops, bound, efficiency)" sh -c "
      $NPUSIM op --configs $CONFIGS --json $k --m 1024 --n 512 --k 128 -c h100 |
      grep '\"time_us\":' | grep '\"tflops\":' | grep '\"bound\":' | grep -q '\"efficiency\":'"
done
cat >"$OP/meas.csv" <<'CSV'
op,dtype,m,n,k,batch,time_us,source
gemm,bf16,4096,4096,4096,,150.2,cublas
gemv,fp8,1,8192,8192,,25,x
attention,bf16,1,4096,128,256,,y
CSV
check "op --csv: one JSON object per row, the measured time, error and extra columns carried" sh -c "
  $NPUSIM op --configs $CONFIGS --csv '$OP/meas.csv' -c h100 --json >'$OP/out.jsonl' &&
  test \$(wc -l <'$OP/out.jsonl') -eq 3 && grep -q '\"measured_us\":150.2,\"error_pct\":' '$OP/out.jsonl' &&
  grep -q '\"source\":\"cublas\"' '$OP/out.jsonl' && grep -q '\"line\":4' '$OP/out.jsonl'"
check "op --csv: a table with the error column" sh -c "
  $NPUSIM op --configs $CONFIGS --csv '$OP/meas.csv' -c h100 $ROOFLINE | grep -q '^gemm .* 150.200 *-7.5$'"
check "op --help" sh -c "$NPUSIM op --help | grep -q 'usage: npusim op KIND'"
# bad input: exit 2 naming the field (and the file's line)
expect_fail "op: an unknown kind is refused" 'KIND "gemmm"' $NPUSIM op --configs $CONFIGS gemmm --m 1
expect_fail "op: a missing size is named" 'expected k' $NPUSIM op --configs $CONFIGS gemm --m 4 --n 4
expect_fail "op: a bad format is named" '\-\-dtype "fp9"' $NPUSIM op --configs $CONFIGS gemm --m 4 --n 4 --k 4 --dtype fp9
expect_fail "op: a non-positive size is refused" '\-\-m "0"' $NPUSIM op --configs $CONFIGS gemm --m 0 --n 4 --k 4
expect_fail "op: a size past 2^31 is refused" 'expected m from 1 to' $NPUSIM op --configs $CONFIGS gemm --m 4294967296 --n 4 --k 4
expect_fail "op: an unknown chip is refused" 'nochip' $NPUSIM op --configs $CONFIGS gemm --m 4 --n 4 --k 4 -c nochip
printf 'op,m\ngemm,4\n' >"$OP/nodtype.csv"
expect_fail "op --csv: a header without dtype is refused" 'nodtype.csv: line 1: expected a header naming at least op and dtype' \
    $NPUSIM op --configs $CONFIGS --csv "$OP/nodtype.csv"
printf 'op,dtype,m,n,k\ngemm,bf16,4,4,4\ngemm,bf16,4,x,4\n' >"$OP/badnum.csv"
expect_fail "op --csv: a bad number names its line and column" 'badnum.csv: line 3: column "n": expected a positive integer, got "x"' \
    $NPUSIM op --configs $CONFIGS --csv "$OP/badnum.csv"
printf 'op,dtype,m\nconv,bf16,4\n' >"$OP/badop.csv"
expect_fail "op --csv: an unknown op names its line" 'badop.csv: line 2: column "op"' $NPUSIM op --configs $CONFIGS --csv "$OP/badop.csv"
printf 'op,dtype,m,n\ngemm,bf16,4,4\n' >"$OP/nok.csv"
expect_fail "op --csv: a row the op cannot take names its line" 'nok.csv: line 2: gemm: expected k' $NPUSIM op --configs $CONFIGS --csv "$OP/nok.csv"
printf 'op,dtype,m\ngemm,bf16\n' >"$OP/short.csv"
expect_fail "op --csv: a short row is refused" 'expected 3 cells as the header, got 2' $NPUSIM op --configs $CONFIGS --csv "$OP/short.csv"
expect_fail "op --csv: a missing file is named" 'nofile.csv' $NPUSIM op --configs $CONFIGS --csv "$OP/nofile.csv"
printf '\357\273\277op,dtype,m,n,k\r\ngemm,bf16,64,64,64\r\n' >"$OP/bom.csv"
check "op --csv: a UTF-8 byte-order mark and CRLF line ends are read" sh -c "
  $NPUSIM op --configs $CONFIGS --csv '$OP/bom.csv' -c h100 | grep -q '^gemm '"
