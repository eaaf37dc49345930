# Sourced by tests/cli/run.sh: one list of Debian packages serves README
# command 1 and CI. README command 1 and .ci/run install .ci/debian.txt (CI
# also .ci/debian-optional.txt) and name no package themselves; every tool
# the tests call has its package in .ci/debian.txt, or, for the optional
# ones, each test that calls it is skipped without it, saying so and naming a
# package of the lists (so CI, which installs both, runs it).
DP="$T/deps"
mkdir -p "$DP"
# The packages of a list: comments and blanks dropped, one a line.
deps_list() { sed 's/#.*//' "$@" | tr -s ' \t' '\n\n' | grep -v '^$'; }
deps_list .ci/debian.txt >"$DP/req.txt"
deps_list .ci/debian.txt .ci/debian-optional.txt >"$DP/all.txt"
# README's first ```sh block: command 1, then command 2.
awk '/^```sh/ { n++; next } /^```/ && n == 1 { exit } n == 1' README.md >"$DP/readme.sh"
check "deps: README command 1 installs .ci/debian.txt, then make run; command 2 is make test" sh -c "
  grep -v '^#' '$DP/readme.sh' | grep -v '^\$' >'$DP/cmds' &&
  sed -n 1p '$DP/cmds' | grep -qF \"apt-get install -y \\\$(sed 's/#.*//' .ci/debian.txt) && make run\" &&
  sed -n 2p '$DP/cmds' | grep -qx 'make test' && ! grep -q -e '-dev' -e curl '$DP/readme.sh'"
check "deps: .ci/run installs .ci/debian.txt and .ci/debian-optional.txt, naming no package itself" sh -c "
  grep -qF \"\\\$(sed 's/#.*//' .ci/debian.txt .ci/debian-optional.txt)\" .ci/run &&
  ! grep -v '^#' .ci/run | grep -q -e '-dev' -e curl -e chromium"

# deps_tools_listed: each tool the tests call (tool:package) is called by
# some test, and its package is in .ci/debian.txt.
deps_tools_listed() {
    for tp in curl:curl python3:python3 pytest:python3-pytest pandas:python3-pandas pip:python3-pip \
              clang:clang pkg-config:pkg-config make:build-essential; do
        tool=${tp%%:*} pkg=${tp#*:}
        grep -qw -- "$tool" tests/cli/*.sh tests/run-tests.sh tests/fuzz/run-fuzz.sh Makefile ||
            { echo "no test calls $tool: drop it from this table"; return 1; }
        grep -qx -- "$pkg" "$DP/req.txt" || { echo "$tool: its package $pkg is not in .ci/debian.txt"; return 1; }
    done
}
check "deps: every tool the tests call has its package in .ci/debian.txt (curl, python3, pytest, pandas, pip, clang)" \
    deps_tools_listed

# deps_skips_named: every "skipped ... (apt-get install PKG...)" line of the
# tests names packages of the lists, and each optional tool's tests say so.
deps_skips_named() {
    ls tests/cli/t_*.sh | grep -v t_deps.sh >"$DP/files.txt"
    grep -ho 'skipped[^"]*apt-get install [^);]*' $(cat "$DP/files.txt") | sed 's/.*apt-get install //' | tr ' ' '\n' |
        grep -v '^$' | sort -u >"$DP/skip-pkgs.txt"
    [ -s "$DP/skip-pkgs.txt" ] || { echo "no skip message names a package"; return 1; }
    while read -r pkg; do
        grep -qx -- "$pkg" "$DP/all.txt" || { echo "a skip names $pkg, in neither list"; return 1; }
    done <"$DP/skip-pkgs.txt"
    # a call of each optional tool, as the tests write it, and its package
    for tp in 'chromium --headless:chromium' 'mpirun --:openmpi-bin' 'xmllint --:libxml2-utils' \
              'bench_torch.py:python3-torch' '-m venv:python3-venv'; do
        tool=${tp%%:*} pkg=${tp#*:}
        grep -qx -- "$pkg" "$DP/all.txt" || { echo "$pkg ($tool) is in neither list"; return 1; }
        for f in $(grep -lF -- "$tool" $(cat "$DP/files.txt")); do
            grep -q "skipped.*apt-get install [^)]*$pkg" "$f" ||
                { echo "$f calls $tool but says nothing when it is absent (apt-get install $pkg)"; return 1; }
        done
    done
}
check "deps: each optional tool's tests are skipped without it, saying so and naming a listed package" deps_skips_named
