# Sourced by tests/cli/run.sh: the Python package (python/npusim) over the C
# library. pytest runs python/tests against this build's libnpusim.so (next
# to the binary), and `pip install --no-build-isolation ./python` into a
# scratch folder gives a package that runs from anywhere with its library
# and configs inside; setup.py builds in a venv that sees none of the
# system's Python packages (what a build-isolated `pip install ./python`
# on another Python gives it), and with NPUSIM_WHEELS (a folder holding
# setuptools and wheel wheels, as pip's isolated build fetches them) a
# build-isolated install runs too. The builds use this build's folder
# (NPUSIM_BUILD). Skipped, saying why, without python3-pytest or with a
# sanitizer build (python cannot load an ASan library without preloading).
PYD="$T/python"
mkdir -p "$PYD"
PY=python3
$PY -c 'import pytest' 2>/dev/null || PY=/usr/bin/python3
NP_ABS=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
SO="$(dirname "$NP_ABS")/libnpusim.so"
export NPUSIM_BUILD="$(dirname "$NP_ABS")"   # setup.py's make builds this folder, not build/
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
    if $PY -c "import ensurepip, venv" 2>/dev/null; then
        check "python package: setup.py builds with the standard library and setuptools alone (a venv without the system's packages)" sh -c "
          $PY -m venv '$PYD/venv' && '$PYD/venv/bin/python' -c 'import sys; assert sys.prefix != sys.base_prefix' &&
          ! '$PYD/venv/bin/python' -c 'import pandas' 2>/dev/null &&
          cd python && '$PYD/venv/bin/python' setup.py -q build_py -d '$PYD/venvlib' >'$PYD/venv.txt' 2>&1 &&
          test -f '$PYD/venvlib/npusim/libnpusim.so' && test -f '$PYD/venvlib/npusim/configs/chips/h100.json' &&
          cd / && env -u NPUSIM_LIB PYTHONPATH='$PYD/venvlib' '$PYD/venv/bin/python' -c 'import npusim; r = npusim.run(chip=\"h100\", tp=2, pg=[]); assert \"tp 2\" in r[\"summary\"]
try:
    npusim.ops_frame(r)
    raise SystemExit(\"ops_frame without pandas did not raise\")
except npusim.Error as e:
    assert \"needs pandas\" in str(e), e'"
    else
        echo "ok - python package: the venv build skipped, no venv module here (apt-get install python3-venv)"
    fi
    if [ -n "$NPUSIM_WHEELS" ]; then
        check "python package: pip install ./python with build isolation (setuptools and wheel from NPUSIM_WHEELS)" sh -c "
          PIP_NO_INDEX=1 PIP_FIND_LINKS='$NPUSIM_WHEELS' $PY -m pip install -q --no-deps --target '$PYD/isolated' ./python >'$PYD/pip-iso.txt' 2>&1 &&
          cd / && env -u NPUSIM_LIB PYTHONPATH='$PYD/isolated' $PY -c 'import npusim; assert npusim.run(pg=[])[\"summary\"]'"
    else
        echo "ok - python package: the build-isolated pip install skipped offline (NPUSIM_WHEELS=DIR with setuptools and wheel wheels runs it)"
    fi
fi
