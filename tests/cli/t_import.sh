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
