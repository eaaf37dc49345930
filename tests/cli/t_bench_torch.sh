# Sourced by tests/cli/run.sh: examples/bench_torch.py on this machine's
# PyTorch (Debian's python3-torch, on the CPU): the quick fp32 sweep writes
# the native CSV, every row checked, and npusim validates it. Skipped, and
# said so, where no python3 imports torch (.ci/run installs python3-torch).
BT="$T/bench_torch"
mkdir -p "$BT"
TORCH_PY=
for py in /usr/bin/python3 python3; do
    if "$py" -c 'import torch' >/dev/null 2>&1; then TORCH_PY=$py; break; fi
done
if [ -n "$TORCH_PY" ]; then
    check "bench_torch.py --quick (CPU, fp32): GEMM, GEMV and row-wise rows in the native CSV" sh -c "
      $TORCH_PY examples/bench_torch.py --quick --device cpu --dtypes fp32 --budget 0.01 -o '$BT/torch.csv' 2>'$BT/err' &&
      head -1 '$BT/torch.csv' | grep -q '^op,dtype,m,n,k,batch,time_us,tflops,GBps,min_us,max_us,reps,device,torch\$' &&
      grep -q '^gemm,fp32,1024,1024,1024,,' '$BT/torch.csv' && grep -q '^gemv,fp32,1,2048,2048,,' '$BT/torch.csv' &&
      grep -q '^softmax,fp32,4096,1024,,,' '$BT/torch.csv' && grep -q '0 failed' '$BT/err'"
    check "bench_torch.py: its rows validate and calibrate on a chip" sh -c "
      $NPUSIM validate --configs $CONFIGS -c a100 '$BT/torch.csv' >/dev/null &&
      $NPUSIM calibrate --configs $CONFIGS -c a100 '$BT/torch.csv' -o '$BT/cal.json' >/dev/null"
    check "bench_torch.py: an unknown format is refused (exit 2), nothing written" sh -c "
      $TORCH_PY examples/bench_torch.py --dtypes fp7 -o '$BT/no.csv' 2>/dev/null; [ \$? -eq 2 ] && test ! -e '$BT/no.csv'"
else
    echo "ok - bench_torch.py: skipped, no python3 here imports torch (apt-get install python3-torch)"
fi
