# Sourced by tests/cli/run.sh: the Python package (python/npusim) over the C
# library. pytest runs python/tests against this build's libnpusim.so (next
# to the binary), and `pip install --no-build-isolation ./python` into a
# scratch folder gives a package that runs from anywhere with its library
# and configs inside. Skipped, saying why, without python3-pytest or with a
# sanitizer build (python cannot load an ASan library without preloading).
PYD="$T/python"
mkdir -p "$PYD"
PY=python3
$PY -c 'import pytest' 2>/dev/null || PY=/usr/bin/python3
NP_ABS=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
SO="$(dirname "$NP_ABS")/libnpusim.so"
if ! $PY -c 'import pytest' 2>/dev/null; then
    echo "ok - python package: skipped, no pytest here (apt-get install python3-pytest python3-pandas)"
elif [ ! -f "$SO" ]; then
    echo "ok - python package: skipped, no $SO (make $(dirname "$NPUSIM")/libnpusim.so)"
elif ldd "$SO" 2>/dev/null | grep -q 'libasan\|libubsan'; then
    echo "ok - python package: skipped, a sanitizer build ($SO) does not load into python"
else
    check "python package: pytest over libnpusim.so (run, op, sweep, validate, configs as dicts, errors)" sh -c "
      NPUSIM_LIB='$SO' NPUSIM='$NP_ABS' PYTHONPATH='$PWD/python' $PY -m pytest -q -p no:cacheprovider python/tests >'$PYD/pytest.txt' 2>&1 ||
      { cat '$PYD/pytest.txt'; exit 1; }"
    check "python package: examples/python_tour.py runs cell by cell to the end" sh -c "
      cd '$PYD' && NPUSIM_LIB='$SO' PYTHONPATH='$PWD/python' $PY '$PWD/examples/python_tour.py' >tour.txt 2>&1 &&
      grep -q '^  to fit        --set num_chips=2' tour.txt && grep -q 'kernels, MAPE' tour.txt && test -s pareto.svg"
    awk '/^## A five-minute tour/ { on = 1; next } /^## / { on = 0 } on && /^```python/ { code = 1; next }
         on && /^```/ { code = 0; next } on && code' README.md >"$PYD/readme_tour.py"
    check "python package: the README tour's Python block runs as written" sh -c "
      test -s '$PYD/readme_tour.py' && cd '$PYD' && NPUSIM_LIB='$SO' PYTHONPATH='$PWD/python' $PY readme_tour.py >readme.txt 2>&1 ||
      { cat '$PYD/readme.txt'; exit 1; }"
    check "python package: pip install --no-build-isolation ./python gives a package that runs from anywhere" sh -c "
      $PY -m pip install -q --no-build-isolation --no-deps --target '$PYD/site' ./python >'$PYD/pip.txt' 2>&1 &&
      test -f '$PYD/site/npusim/libnpusim.so' && test -f '$PYD/site/npusim/configs/chips/h100.json' &&
      cd / && env -u NPUSIM_LIB -u NPUSIM_CONFIGS PYTHONPATH='$PYD/site' $PY -c 'import npusim; r = npusim.run(chip=\"h100\"); assert r[\"summary\"].startswith(\"llama3-8b on h100\")'"
fi
