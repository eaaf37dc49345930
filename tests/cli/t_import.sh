# Sourced by tests/cli/run.sh: `npusim import`, other formats to the native one.
IM="$T/import"
mkdir -p "$IM"
printf '1024, 1024, 1024, 0.0215ms, 99.9Tflops\n4096,4096,4096, 0.5ms, 274.9Tflops\n# comment\n\n8192, 8192, 8192, 4.1ms, 100Tflops\n2048, 2048\n' >"$IM/pub.csv"
check "import gemm-csv: two rows mapped (M, K, N to m, k, n; ms to us), two listed with their reasons" sh -c "
  $NPUSIM import gemm-csv '$IM/pub.csv' --dtype fp16 -o '$IM/native.csv' 2>'$IM/err' &&
  test \"\$(cat '$IM/native.csv')\" = \"\$(printf 'op,dtype,m,n,k,batch,time_us\ngemm,fp16,1024,1024,1024,,21.5\ngemm,fp16,4096,4096,4096,,500.0')\" &&
  grep -q 'pub.csv: line 5: inconsistent: 2 M N K / time is 268.2 TFLOP/s, the row says 100' '$IM/err' &&
  grep -q 'pub.csv: line 6: expected 5 cells' '$IM/err' && grep -q '4 rows: 2 mapped, 2 not mapped' '$IM/err'"
check "import and export say what they wrote" sh -c "
  $NPUSIM import gemm-csv '$IM/pub.csv' --dtype fp16 -o '$IM/native2.csv' 2>/dev/null | grep -qx 'npusim import: wrote $IM/native2.csv'"
check "import: the native file validates" $NPUSIM validate --configs $CONFIGS -c a100 "$IM/native.csv"
check "import --help" sh -c "$NPUSIM import --help | grep -q 'usage: npusim import'"
expect_fail "import: an unknown format" 'expected a FORMAT (gemm-csv, chrome-trace or nsys-csv)' $NPUSIM import nsys "$IM/pub.csv" --dtype fp16 -o "$IM/x.csv"
expect_fail "import: --dtype is required" '\-\-dtype ""' $NPUSIM import gemm-csv "$IM/pub.csv" -o "$IM/x.csv"
printf 'a,b,c\n' >"$IM/none.csv"
expect_fail "import: no row mapped writes nothing" 'no row could be mapped' $NPUSIM import gemm-csv "$IM/none.csv" --dtype fp16 -o "$IM/y.csv"
check "import: nothing written when no row maps" test ! -e "$IM/y.csv"
# export scalesim: a timed trace's matmuls as SCALE-Sim's M, N, K topology
$NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$IM/run" >/dev/null 2>&1
check "export scalesim: the Q projection and flash attention's two GEMMs, in SCALE-Sim's M, N, K form" sh -c "
  $NPUSIM export scalesim '$IM/run/llama3-8b_tpuv5p_prefill.csv' -o '$IM/topo.csv' 2>/dev/null >'$IM/topo.out' &&
  grep -qx 'npusim export: wrote $IM/topo.csv' '$IM/topo.out' && head -n 1 '$IM/topo.csv' | grep -q '^Layer Name, M, N, K,\$' &&
  grep -q '^Q4MatMulQ x32, 4096, 4096, 4096,\$' '$IM/topo.csv' &&
  grep -q 'FlashAttention QK x32, 131072, 2048, 128,\$' '$IM/topo.csv' &&
  grep -q 'FlashAttention PV x32, 131072, 128, 2048,\$' '$IM/topo.csv'"
check "export --help" sh -c "$NPUSIM export --help | grep -q 'usage: npusim export scalesim'"
$NPUSIM opsgen --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$IM/untimed.csv" >/dev/null 2>&1
expect_fail "export: an untimed trace has nothing to export" 'no timed matmul' \
    $NPUSIM export scalesim "$IM/untimed.csv" -o "$IM/t2.csv"
# Profiler traces (tests/samples/): PyTorch's kineto export with CUDA kernels,
# the JAX profiler's TPU ops, Nsight's kernel summary, Debian's torch 1.13
# CPU export (no shapes in it).
S=tests/samples
check "import chrome-trace (PyTorch, kineto): ops by the name table, their kernels' device time, linear left for its addmm" sh -c "
  $NPUSIM import chrome-trace $S/kineto_cuda.json -o '$IM/k.csv' 2>'$IM/k.err' &&
  test \"\$(cat '$IM/k.csv')\" = \"\$(printf 'op,dtype,m,n,k,batch,time_us,heads,name,source\ngemm,bf16,4096,4096,1024,,120.5,,aten::addmm,device\nsoftmax,bf16,65536,512,,,85.25,,aten::_softmax,device\ngemm,fp32,64,256,128,,30.0,,aten::mm,host\ngelu,bf16,16777216,,,,40.0,,aten::gelu,device\nattention,bf16,512,512,64,8,310.0,16,aten::_scaled_dot_product_flash_attention,device')\" &&
  grep -q 'aten::t (x1): no rule maps this operator' '$IM/k.err' &&
  grep -q 'ncclDevKernel_AllReduce.* (x1): a GPU kernel launched inside no mapped operator' '$IM/k.err' &&
  grep -q '1 operators left out for the mapped operator inside them' '$IM/k.err' &&
  grep -q '9 rows: 5 mapped, 3 not mapped' '$IM/k.err'"
check "import chrome-trace: the same rows from .json.gz" sh -c "
  gzip -c $S/kineto_cuda.json >'$IM/k.json.gz' && $NPUSIM import chrome-trace '$IM/k.json.gz' -o '$IM/kz.csv' 2>/dev/null &&
  cmp '$IM/k.csv' '$IM/kz.csv'"
check "import chrome-trace (JAX/XProf): XLA dots from their HLO text, batched included; a fusion listed" sh -c "
  $NPUSIM import chrome-trace $S/xprof_tpu.json -o '$IM/x.csv' 2>'$IM/x.err' &&
  grep -q '^gemm,bf16,1024,4096,512,,25.25,,dot.3,device\$' '$IM/x.csv' &&
  grep -q '^gemm,fp32,128,64,256,8,8.5,,dot.7,device\$' '$IM/x.csv' && grep -q 'fusion.2 (x1): no rule' '$IM/x.err'"
check "import: imported trace rows validate (heads and the extra columns carried)" sh -c "
  $NPUSIM validate --configs $CONFIGS -c h100 '$IM/k.csv' --csv '$IM/kv.csv' >/dev/null &&
  grep -q ',6,attention,bf16,512,512,64,8,16,,310.0,aten::_scaled_dot_product_flash_attention,device,' '$IM/kv.csv'"
expect_fail "import chrome-trace: torch 1.13's export has no shapes: every op listed, nothing written" 'no row could be mapped' \
    $NPUSIM import chrome-trace $S/torch113_cpu_legacy.json -o "$IM/legacy.csv"
check "import chrome-trace: the reason is named (record_shapes)" sh -c "
  grep -q 'aten::mm (x1): no Input Dims (profile with record_shapes=True)' '$T/err' && test ! -e '$IM/legacy.csv'"
check "import nsys-csv: a --names rule gives a kernel its sizes; names without sizes are listed" sh -c "
  $NPUSIM import nsys-csv $S/nsys_cuda_gpu_kern_sum.csv --dtype bf16 --names $S/names.csv -o '$IM/n.csv' 2>'$IM/n.err' &&
  test \"\$(tail -n +2 '$IM/n.csv')\" = 'gemm,bf16,4096,4096,1024,,23.95,,bench_gemm_m4096_n4096_k1024,device' &&
  grep -q 'sm90_xmma_gemm.* (x1): no sizes in the kernel name (add a --names rule with capture groups)' '$IM/n.err' &&
  grep -q '4 rows: 1 mapped, 3 not mapped' '$IM/n.err'"
printf 'pattern,op,m,n,k,batch\nbad(,gemm,$1,,,\n' >"$IM/badnames.csv"
expect_fail "import: a names rule that does not compile names its line" 'badnames.csv: line 2: pattern "bad("' \
    $NPUSIM import nsys-csv $S/nsys_cuda_gpu_kern_sum.csv --dtype bf16 --names "$IM/badnames.csv" -o "$IM/z.csv"
printf 'pattern,op,m,n,k,batch\ngemm,matmul,$1,,,\n' >"$IM/badop.csv"
expect_fail "import: a names rule with an unknown op" 'expected an op of gemm|gemv' \
    $NPUSIM import nsys-csv $S/nsys_cuda_gpu_kern_sum.csv --dtype bf16 --names "$IM/badop.csv" -o "$IM/z.csv"
printf '{"traceEvents": 3}' >"$IM/notrace.json"
expect_fail "import chrome-trace: not a trace" 'expected a trace-event list' $NPUSIM import chrome-trace "$IM/notrace.json" -o "$IM/z.csv"
printf '[{"ph": "X", ' >"$IM/cut.json"
expect_fail "import chrome-trace: cut JSON names the byte" 'not JSON (at byte' $NPUSIM import chrome-trace "$IM/cut.json" -o "$IM/z.csv"
expect_fail "import nsys-csv: not a kernel summary" 'expected a header with "Name"' $NPUSIM import nsys-csv "$IM/pub.csv" --dtype bf16 -o "$IM/z.csv"
check "import: nothing written on those" test ! -e "$IM/z.csv"
