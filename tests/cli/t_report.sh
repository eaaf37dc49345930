# Sourced by tests/cli/run.sh: `npusim report`, a run as one self-contained
# HTML page. Its time table adds up to the run's CSVs, its energy to the
# run's energy per token times the tokens, each figure is also a valid SVG
# on its own, the page needs nothing from the network, and (where Debian's
# chromium is installed, as .ci/run does) a headless browser renders it: the
# DOM holds the four figures and the tables, and a screenshot is taken.
RP="$T/report"
mkdir -p "$RP"
check "report: the page and its four figures" sh -c "
  $NPUSIM report --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$RP/r.html' --svg-dir '$RP/svg' >/dev/null &&
  for f in time_by_op_type roofline energy_by_component power_gating; do
    python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert r.tag.endswith(\"svg\")' \"$RP/svg/\$f.svg\" || exit 1
  done"
check "report: the time per operator type adds up to the run's CSVs; energy to the run's per-token figures" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$RP/run' >'$RP/run.txt' &&
  python3 - '$RP/r.html' '$RP/run' '$RP/run.txt' <<'PY'
import csv, re, sys
html = open(sys.argv[1]).read()
totals = re.findall(r'<tr><th>total</th><th>([0-9.e+-]+)</th><th>100.0</th><th>([0-9.e+-]+)</th>', html)
assert len(totals) == 2, totals
for i, phase in enumerate(('prefill', 'decode')):
    rows = list(csv.DictReader(open(sys.argv[2] + '/llama3-8b_tpuv5p_%s.csv' % phase)))
    want = sum(int(r['Execution time']) * int(r['Count']) for r in rows) / 1e9
    got = float(totals[0][i])
    assert abs(got - want) <= 1e-5 * want, (phase, got, want)
run = open(sys.argv[3]).read()
pj, dj = (float(x) for x in re.search(r'energy/token +prefill ([0-9.e+-]+) J, decode ([0-9.e+-]+) J', run).groups())
assert abs(float(totals[1][0]) - pj * 4096) <= 1e-4 * pj * 4096, (totals[1][0], pj * 4096)
assert abs(float(totals[1][1]) - dj * 512) <= 1e-4 * dj * 512, (totals[1][1], dj * 512)
assert 'http://' not in html.replace('http://www.w3.org/2000/svg', '') and 'https://' not in html
assert html.count('<svg') == 4 and '<tr><td>NoPG</td>' in html and '<tr><td>Ideal</td>' in html
PY"
check "report --no-energy: no energy sections, no power gating" sh -c "
  $NPUSIM report --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$RP/ne.html' --no-energy >/dev/null &&
  grep -q 'No energy pass ran' '$RP/ne.html' && test \"\$(grep -c '<svg' '$RP/ne.html')\" -eq 2"
if command -v chromium >/dev/null 2>&1; then
    check "report in headless chromium: the DOM holds the figures and tables, no console error, a screenshot" sh -c "
      timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --dump-dom \
        'file://$RP/r.html' >'$RP/dom.html' 2>'$RP/console.log' &&
      python3 - '$RP/dom.html' <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.tags = {}
    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
p = P(); p.feed(open(sys.argv[1]).read())
assert p.tags.get('svg') == 4 and p.tags.get('table', 0) >= 3 and p.tags.get('rect', 0) > 20, p.tags
PY
      ! grep -E 'CONSOLE.*(Error|Uncaught)' '$RP/console.log' &&
      timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,2600 \
        --screenshot='$RP/shot.png' 'file://$RP/r.html' >/dev/null 2>&1 && test -s '$RP/shot.png'"
else
    echo "ok - report in headless chromium: skipped, no chromium here (apt-get install chromium)"
fi
expect_fail "report: -o is required" 'expected -o REPORT.html' $NPUSIM report --configs $CONFIGS -m llama3-8b
expect_fail "report: an unknown strategy names it, nothing written" 'strategy "Nope": unknown' \
    $NPUSIM report --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$RP/x.html" --pg NoPG,Nope
check "report: nothing written on a bad strategy" test ! -e "$RP/x.html"
# --sweep: a sweep's summary as a page. The Pareto front's rows are exactly
# the configurations no other beats on both time per token and throughput
# per chip (checked against the summary in Python); the SLO colours them.
check "report --sweep: throughput against batch and the Pareto front, as the summary says" sh -c "
  $NPUSIM sweep --configs $CONFIGS --models llama3-8b --versions 5p,6e --num-chips 1,4 --batch-sizes 1,8,32 \
    --summary '$RP/s.csv' >/dev/null 2>&1 &&
  $NPUSIM report --sweep '$RP/s.csv' --slo-tpot-ms 5 -o '$RP/sw.html' --svg-dir '$RP/swsvg' >/dev/null &&
  test -s '$RP/swsvg/throughput_vs_batch.svg' && test -s '$RP/swsvg/pareto.svg' &&
  python3 - '$RP/s.csv' '$RP/sw.html' <<'PY'
import csv, re, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['status'] == 'ok']
pts = [(float(r['TPOT_ms']), float(r['throughput']) / int(r['num_chips'])) for r in rows]
front = sorted(p for p in pts if not any(q[0] < p[0] and q[1] >= p[1] or q[0] <= p[0] and q[1] > p[1] for q in pts))
h = open(sys.argv[2]).read()
got = [(float(a), float(b)) for a, b in re.findall(r'<td class=\"(?:meets|misses)\">([0-9.e+-]+)</td><td>([0-9.e+-]+)</td>', h)]
assert len(got) == len(front), (got, front)
for (a, b), (c, d) in zip(got, front):
    assert abs(a - c) <= 1e-3 * c and abs(b - d) <= 1e-5 * d, (a, b, c, d)
assert h.count('class=\"slo\"') == 1 and h.count('<svg') == 2
PY"
printf 'a,b\n1,2\n' >"$RP/notsummary.csv"
expect_fail "report --sweep: not a summary names what it expects" 'expected the columns of npusim sweep --summary' \
    $NPUSIM report --sweep "$RP/notsummary.csv" -o "$RP/y.html"
check "report --sweep: nothing written on a bad summary" test ! -e "$RP/y.html"
