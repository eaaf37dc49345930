# Sourced by tests/cli/run.sh: `npusim import`, other formats to the native one.
IM="$T/import"
mkdir -p "$IM"
printf '1024, 1024, 1024, 0.0215ms, 99.9Tflops\n4096,4096,4096, 0.5ms, 274.9Tflops\n# comment\n\n8192, 8192, 8192, 4.1ms, 100Tflops\n2048, 2048\n' >"$IM/pub.csv"
check "import gemm-csv: two rows mapped (M, K, N to m, k, n; ms to us), two listed with their reasons" sh -c "
  $NPUSIM import gemm-csv '$IM/pub.csv' --dtype fp16 -o '$IM/native.csv' 2>'$IM/err' &&
  test \"\$(cat '$IM/native.csv')\" = \"\$(printf 'op,dtype,m,n,k,batch,time_us\ngemm,fp16,1024,1024,1024,,21.5\ngemm,fp16,4096,4096,4096,,500.0')\" &&
  grep -q 'pub.csv: line 5: inconsistent: 2 M N K / time is 268.2 TFLOP/s, the row says 100' '$IM/err' &&
  grep -q 'pub.csv: line 6: expected 5 cells' '$IM/err' && grep -q '4 rows: 2 mapped, 2 not mapped' '$IM/err'"
check "import: the native file validates" $NPUSIM validate --configs $CONFIGS -c a100 "$IM/native.csv"
check "import --help" sh -c "$NPUSIM import --help | grep -q 'usage: npusim import'"
expect_fail "import: an unknown format" 'expected a FORMAT (gemm-csv)' $NPUSIM import nsys "$IM/pub.csv" --dtype fp16 -o "$IM/x.csv"
expect_fail "import: --dtype is required" '\-\-dtype ""' $NPUSIM import gemm-csv "$IM/pub.csv" -o "$IM/x.csv"
printf 'a,b,c\n' >"$IM/none.csv"
expect_fail "import: no row mapped writes nothing" 'no row could be mapped' $NPUSIM import gemm-csv "$IM/none.csv" --dtype fp16 -o "$IM/y.csv"
check "import: nothing written when no row maps" test ! -e "$IM/y.csv"
# export scalesim: a timed trace's matmuls as SCALE-Sim's M, N, K topology
$NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$IM/run" >/dev/null 2>&1
check "export scalesim: the Q projection and flash attention's two GEMMs, in SCALE-Sim's M, N, K form" sh -c "
  $NPUSIM export scalesim '$IM/run/llama3-8b_tpuv5p_prefill.csv' -o '$IM/topo.csv' 2>/dev/null &&
  head -n 1 '$IM/topo.csv' | grep -q '^Layer Name, M, N, K,\$' &&
  grep -q '^Q4MatMulQ x32, 4096, 4096, 4096,\$' '$IM/topo.csv' &&
  grep -q 'FlashAttention QK x32, 131072, 2048, 128,\$' '$IM/topo.csv' &&
  grep -q 'FlashAttention PV x32, 131072, 128, 2048,\$' '$IM/topo.csv'"
check "export --help" sh -c "$NPUSIM export --help | grep -q 'usage: npusim export scalesim'"
$NPUSIM opsgen --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$IM/untimed.csv" >/dev/null 2>&1
expect_fail "export: an untimed trace has nothing to export" 'no timed matmul' \
    $NPUSIM export scalesim "$IM/untimed.csv" -o "$IM/t2.csv"
