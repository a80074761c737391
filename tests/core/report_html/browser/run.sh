#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium (Debian's, installed if missing) driven by
# playwright-core, the page opened from file:// with the network off.
#   1. analyses the example (examples/kws: the DS-CNN measured with ExecuTorch) and writes its
#      report with `perfline report ... --html` (sources through the example's path map);
#   2. takes the expected line labels from `perfline annotate --json` (the editor's code path);
#   3. drive.mjs checks that the source lines come before the summary and that the summary cards
#      give their values room, the line 26 figure and its operators, line 41's (x = self.blocks(x)) figure
#      marked "(calls 24-27)": it calls DSBlock.forward's lines, zoom on click and back, hover,
#      table sorting both ways, every operator's figure and share as core/figure_text writes
#      them (the page formats no number itself), that no request leaves the
#      page, that no script error occurs, and that a 5,000-chain NX result opens with its chart
#      folding siblings narrower than a pixel;
#   4. the compare view: a generated baseline and new run of the example (tests/support/compare_pair.py:
#      the operators of dscnn.py:26 25% slower, every other line the same durations redrawn) through
#      `perfline compare BASE NEW --html`; the verdicts expected come from `perfline compare --json`
#      (the text report's code path): the regressed line is coloured as regressed in the source, the
#      chart and the table, a line that changed within the noise is not, the call line 41 (its change
#      line 26's, counted there) is not either and says "inclusive", no request leaves the page;
#      and an NX-shaped result against the same with 10 more chains lists what only the new run has.
# Screenshots go to tests/core/report_html/browser/screenshots/ (gitignored).
# Exit code 0 only if all passed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../../.." && pwd)
WS=$REPO/examples/kws
PY=${PERFLINE_PYTHON:-$REPO/.venv/bin/python}
[ -x "$PY" ] || PY=$(command -v python3)
SHOTS=$HERE/screenshots
WORK=$(mktemp -d "${TMPDIR:-/tmp}/perfline-html-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

step() { printf '\n== %s\n' "$*"; }

step "checks"
"$PY" -c 'import perfline.core.report_html' || { echo "$PY cannot import perfline (pip install -e . first)"; exit 2; }
echo "python $PY ($(cd / && "$PY" -m perfline --version))"

step "chromium"
# shellcheck source=../../../../scripts/chromium.sh
. "$REPO/scripts/chromium.sh"
ensure_chromium
test_tool_env

step "playwright-core (pinned, tests/core/report_html/browser/package-lock.json)"
(cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error)

step "the example's report"
(cd "$WS" && "$PY" -m perfline analyze dscnn_portable.etrecord dscnn_portable.etdump \
  --output-dir "$WORK" --json) > "$WORK/document.json"
"$PY" -m perfline report "$WORK/document.json" --html "$WORK/report.html" \
  --config "$WS/perfline.toml" --output-dir "$WORK" > /dev/null
ls -l "$WORK/report.html"
(cd "$WS" && "$PY" -m perfline annotate --json dscnn.py) > "$WORK/expected.json"
# What each operator's figure and share must read: core/figure_text's text of the values the
# page data holds (the page formats no number itself).
"$PY" - "$WORK/report.html" "$WORK/formats.json" <<'PYTHON'
import json, sys
from perfline.core.figure_text import format_number, format_share
page = open(sys.argv[1], encoding="utf-8").read()
data = json.loads(page.split('id="perfline-data">', 1)[1].split("</script>", 1)[0])
view = data["views"][0]
names, ids = view["entities"]["names"], view["entities"]["ids"]
unit, total = view["table"]["columns"][0]["unit"], view["metric"]["total"]
cells = {}
for row in view["table"]["rows"]:
    value = row[5]
    figure = "\u2014" if value is None else format_number(value, unit)
    share = "" if value is None else format_share(value, total) or ""
    cells[names[row[0]] or ids[row[0]]] = [figure, share]
json.dump(cells, open(sys.argv[2], "w", encoding="utf-8"))
PYTHON

step "a large result (NX-shaped, 5,000 chains, benchmarks/core_pipeline.py)"
(cd "$REPO" && "$PY" - "$WORK/nx.json" <<'PYTHON'
import json, sys
from tests.support.documents import nx_document
json.dump(nx_document(5000), open(sys.argv[1], "w"))
PYTHON
)
"$PY" -m perfline report "$WORK/nx.json" --html "$WORK/nx.html" --output-dir "$WORK" > /dev/null
ls -l "$WORK/nx.html"

step "the compare view (a generated pair: dscnn.py:26 slowed by 25%)"
(cd "$REPO" && "$PY" -m tests.support.compare_pair "$WORK/pair" --runs 30) > "$WORK/pair.txt"
BASE=$(sed -n 1p "$WORK/pair.txt"); NEW=$(sed -n 2p "$WORK/pair.txt")
(cd "$WS" && "$PY" -m perfline compare "$BASE" "$NEW" --html "$WORK/compare.html") > "$WORK/compare.txt"
(cd "$WS" && "$PY" -m perfline compare "$BASE" "$NEW" --json) > "$WORK/compare.json"
ls -l "$WORK/compare.html"
# Entities in one run only: the NX-shaped result of 200 chains against the same with 10 more.
(cd "$REPO" && "$PY" - "$WORK/nx200.json" "$WORK/nx210.json" <<'PYTHON'
import json, sys
from tests.support.documents import nx_document
json.dump(nx_document(200), open(sys.argv[1], "w"))
json.dump(nx_document(210), open(sys.argv[2], "w"))
PYTHON
)
"$PY" -m perfline compare "$WORK/nx200.json" "$WORK/nx210.json" --html "$WORK/nx-added.html" > /dev/null 2>&1
"$PY" -m perfline compare "$WORK/nx200.json" "$WORK/nx210.json" --json > "$WORK/nx-added.json" 2>/dev/null

step "drive the page in headless chromium"
mkdir -p "$SHOTS"
rm -f "$SHOTS"/*.png
env "${TOOL_ENV[@]}" node "$HERE/drive.mjs" --html "$WORK/report.html" --chromium "$CHROMIUM" \
  --expected "$WORK/expected.json" --file dscnn.py --line 26 --zoom blocks --shots "$SHOTS" \
  --call-line 41 --calls 24-27 \
  --formats "$WORK/formats.json" --aggregate "$WORK/nx.html" \
  --compare "$WORK/compare.html" --compare-json "$WORK/compare.json" --regressed 26 --noise 40 \
  --changes "$WORK/nx-added.html" --changes-json "$WORK/nx-added.json"
echo "screenshots: $SHOTS"; ls -1 "$SHOTS"
