#!/usr/bin/env bash
# long-running: tests/run.sh starts it first
# plain-only
# Renders perf_flamegraph's SVG in headless Chromium (Debian's chromium,
# installed by scripts/install-deps.sh) and checks what the browser made of it:
#  - the .svg opened on its own parses as XML (no parsererror page);
#  - a page embedding it measures every frame (getBBox of its rect, its
#    <title>, getComputedTextLength of its name): counts, percentages and
#    widths equal those of the stacks that went in, the root is at the
#    bottom, siblings in name order, names fit their frames in the font the
#    browser really used (tests/tools/flamegraph_check.py dom);
#  - a screenshot of the .svg is not blank, shows each wide frame's warm fill
#    where its rect is, and the widest frames' pixel runs are as wide as their
#    rects (flamegraph_check.py png, a PNG decoder on zlib);
#  - the same screenshot with scripts off: the static picture is all there;
#  - used through chromedriver (Debian's chromium-driver) with real clicks
#    and keystrokes (tests/tools/flamegraph_interact.py): a click makes a
#    frame span the plot, Reset Zoom restores, a regex search marks exactly
#    the frames whose names match and reads the share they cover; a deep
#    graph's controls stay in view when scrolled.  Skipped without
#    chromedriver.
# An on+off-CPU graph (sql/offcpu_flamegraph.sql on tests/fixtures/offcpu/
# sleeper.data) gets the same checks, its off-CPU frames blue in the
# screenshot.
# A differential graph (sql/diff_flamegraph.sql's perf_flamegraph_diff of
# tests/fixtures/fp.data to example.data) gets the same checks, and its
# colours and base values are checked against both files' folded stacks.
# The stacks are the call chains of tests/fixtures/example.data as `perf
# script -D` printed them (tests/expected/perf_oracle/example/samples.tsv), folded root
# first with hex addresses; once perf_callchains exists, also the named
# stacks of sql/folded_stacks.sql, whose total must be perf's sample count.
#
# Env: PV_ROOT, PV_SQLRUN; CHROMIUM overrides the browser (default chromium),
# CHROMEDRIVER the driver (default chromedriver).
set -u
. "$(dirname "$0")/lib/common.sh"
: "${PV_ROOT:?}" "${PV_SQLRUN:?}"
check=$PV_ROOT/tests/tools/flamegraph_check.py
interact=$PV_ROOT/tests/tools/flamegraph_interact.py
browser=${CHROMIUM:-chromium}
driver=${CHROMEDRIVER:-chromedriver}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v "$browser" >/dev/null 2>&1; then
    echo "not ok - $browser is not installed (scripts/install-deps.sh installs Debian's chromium)"
    exit 0
fi

# One browser run: a fresh profile, nothing from the network, no GPU.
chrome() {
    local profile
    profile=$(mktemp -d "$tmp/profile.XXXXXX")
    HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --disable-extensions --hide-scrollbars --force-device-scale-factor=1 \
        --user-data-dir="$profile" "$@" 2>>"$tmp/chrome.err"
}

# The page: the SVG inline, and a script that measures every frame into
# <pre id="measured"> as JSON for --dump-dom.
page() {  # svg-file, html-file
    {
        printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><style>body { margin: 0 }</style></head><body>\n'
        sed '1{/^<?xml/d}' "$1"
        cat <<'EOF'
<pre id="measured"></pre>
<script>
const frames = [];
for (const g of document.querySelectorAll('svg g.frame')) {
  const rect = g.querySelector('rect'), text = g.querySelector('text');
  const box = rect.getBBox();
  frames.push({
    title: g.querySelector('title').textContent,
    x: box.x, y: box.y, width: box.width, height: box.height,
    fill: rect.getAttribute('fill'),
    text: text ? text.textContent : null,
    textWidth: text ? text.getComputedTextLength() : null,
  });
}
document.getElementById("measured").textContent = JSON.stringify(frames);
</script>
</body></html>
EOF
    } >"$2"
}

# Clicks, reset and search as a person would: the graphs are listed here and
# tests/tools/flamegraph_interact.py goes through them in one browser at the end.
use_it() {  # label, svg-file, folded-file, regex [, window height]
    local IFS=$'\t'
    echo "$*" >>"$tmp/interact.list"
}

render_and_check() {  # label, svg-file, folded-file [, unit]
    local label=$1 svg=$2 folded=$3 unit=${4:-samples}
    chrome --dump-dom "file://$svg" >"$tmp/$label.svgdom"
    if grep -q '<svg' "$tmp/$label.svgdom" && ! grep -qi 'parsererror' "$tmp/$label.svgdom"; then
        echo "ok - $label: Chromium parses the .svg as XML"
    else
        echo "not ok - $label: Chromium did not parse the .svg: $(oneline "$tmp/$label.svgdom") $(oneline "$tmp/chrome.err")"
    fi
    page "$svg" "$tmp/$label.html"
    chrome --dump-dom "file://$tmp/$label.html" >"$tmp/$label.dom"
    python3 "$check" dom "$label (Chromium)" "$folded" "$tmp/$label.dom" "$unit"
    shoot_and_check "$label" "$label (screenshot)" "$svg" "$svg"
    # scripts off: an SVG shown as an <img> runs no script (as where a page
    # embeds it); the picture must be all there without it
    printf '<!DOCTYPE html>\n<html><body style="margin: 0"><img src="file://%s"></body></html>\n' \
        "$svg" >"$tmp/$label.img.html"
    shoot_and_check "$label" "$label (as an <img>, no script)" "$svg" "$tmp/$label.img.html"
}

# A screenshot of a page showing the SVG, against the frames the DOM check measured.
shoot_and_check() {  # label, what, svg-file, page-file
    local label=$1 what=$2 png height
    png=$tmp/$label.$(date +%s%N).png
    height=$(sed -n 's/.*<svg [^>]* height="\([0-9]*\)\.[0-9]*".*/\1/p' "$3" | head -n 1)
    # a window taller than the picture: headless Chromium's viewport is
    # shorter than the window asked for
    chrome --screenshot="$png" --window-size="1200,$((${height:-600} + 200))" "file://$4" >/dev/null
    if [ -s "$png" ]; then
        python3 "$check" png "$what" "$png" "$tmp/$label.dom"
    else
        echo "not ok - $what: no screenshot: $(oneline "$tmp/chrome.err")"
    fi
}

data=$PV_ROOT/tests/fixtures/example.data
samples=$PV_ROOT/tests/expected/perf_oracle/example/samples.tsv
if [ ! -f "$data" ] || [ ! -f "$samples" ]; then
    echo "not ok - example.data or tests/expected/perf_oracle/example/samples.tsv missing"
    exit 0
fi
python3 "$check" folded "$samples" >"$tmp/hex.folded"
if "$PV_SQLRUN" "SELECT perf_flamegraph(coalesce(stack, ''), 1, 'example.data') FROM (
                     SELECT perf_folded(printf('0x%x', c.value), c.key) AS stack
                     FROM perf_samples('$data') AS s LEFT JOIN json_each(s.callchain) AS c
                     GROUP BY s.record)" >"$tmp/hex.svg" 2>"$tmp/err"; then
    render_and_check hex "$tmp/hex.svg" "$tmp/hex.folded"
    # kernel frames: matches nest, each counted once
    use_it hex "$tmp/hex.svg" "$tmp/hex.folded" '^0xffffffff'
else
    echo "not ok - perf_flamegraph on example.data: $(oneline "$tmp/err")"
fi

# Escaping and cutting as the browser sees them: a name with XML specials
# and what looks like an entity (it must show as typed), a non-ASCII name, a
# long name in a narrow frame.
printf 'main;<script>&amp"x"\t40\nmain;caf\xc3\xa9\t30\nmain;a_rather_long_function_name_that_does_not_fit\t10\nother\t20\n' >"$tmp/odd.folded"
if "$PV_SQLRUN" "SELECT perf_flamegraph(column1, column2) FROM (VALUES
                     ('main;<script>&amp\"x\"', 40), ('main;caf' || char(233), 30),
                     ('main;a_rather_long_function_name_that_does_not_fit', 10), ('other', 20))" \
        >"$tmp/odd.svg" 2>"$tmp/err"; then
    render_and_check odd "$tmp/odd.svg" "$tmp/odd.folded"
    if python3 -c '
import html, json, re, sys
dump = open(sys.argv[1], encoding="utf-8").read()
raw = re.search(r"<pre id=\"measured\">(.*?)</pre>", dump, re.S).group(1)
raw = html.unescape(raw)
texts = [f["text"] for f in json.loads(raw)]
sys.exit(0 if "<script>&amp\"x\"" in texts and "caf\u00e9" in texts and
         any(t and t.startswith("a_rather") and t.endswith("..") for t in texts) else 1)
' "$tmp/odd.dom"; then
        echo "ok - odd: the browser shows '<script>&amp\"x\"' and 'café' as text, and the long name cut with '..'"
    else
        echo "not ok - odd: names not shown as given: $(grep -o '<pre id="measured">.\{0,300\}' "$tmp/odd.dom")"
    fi
else
    echo "not ok - perf_flamegraph on odd names: $(oneline "$tmp/err")"
fi

# Named stacks from sql/folded_stacks.sql (needs perf_callchains).
if "$PV_SQLRUN" "SELECT 1 FROM pragma_module_list WHERE name = 'perf_callchains'" 2>/dev/null |
        grep -q 1; then
    if "$PV_SQLRUN" "$(sed "s|@file|'$data'|g; s|@event|NULL|g" "$PV_ROOT/sql/folded_stacks.sql")" \
            >"$tmp/named.folded" 2>"$tmp/err" &&
       "$PV_SQLRUN" "SELECT perf_flamegraph(stack, samples, 'example.data') FROM (
                         $(sed -n '/^WITH/,$p' "$PV_ROOT/sql/folded_stacks.sql" |
                           sed "s|@file|'$data'|g; s|@event|NULL|g; /^--/d; s/;$//"))" \
            >"$tmp/named.svg" 2>>"$tmp/err"; then
        want=$(wc -l <"$samples")
        got=$(awk -F'\t' '{ n += $2 } END { print n + 0 }' "$tmp/named.folded")
        if [ "$got" = "$want" ]; then
            echo "ok - named: sql/folded_stacks.sql counts perf's $want samples"
        else
            echo "not ok - named: sql/folded_stacks.sql counts $got samples, perf $want"
        fi
        render_and_check named "$tmp/named.svg" "$tmp/named.folded"
        use_it named "$tmp/named.svg" "$tmp/named.folded" 'write|read'
    else
        echo "not ok - named stacks of sql/folded_stacks.sql: $(oneline "$tmp/err")"
    fi
else
    echo "# the named-stack rendering waits for perf_callchains (not in this build)"
fi

# A differential graph: fp.data (workload 30) to example.data (workload 40),
# through sql/diff_flamegraph.sql.
base=$PV_ROOT/tests/fixtures/fp.data
if [ -s "$tmp/named.folded" ] && [ -f "$base" ]; then
    if "$PV_SQLRUN" "$(sed "s|@file|'$base'|g; s|@event|NULL|g" "$PV_ROOT/sql/folded_stacks.sql")" \
            >"$tmp/base.folded" 2>"$tmp/err" &&
       (cd "$tmp" && sqlite3 -bail -batch -cmd ".load $PV_ROOT/build/perfvtab" \
            -cmd ".param set @base '$base'" -cmd ".param set @file '$data'" :memory: \
            ".read $PV_ROOT/sql/diff_flamegraph.sql" >"$tmp/diff.out" 2>"$tmp/err" </dev/null) &&
       [ -s "$tmp/diff.svg" ]; then
        python3 "$check" diff diff "$tmp/named.folded" "$tmp/base.folded" "$tmp/diff.svg"
        page "$tmp/diff.svg" "$tmp/diff.html"
        chrome --dump-dom "file://$tmp/diff.html" >"$tmp/diff.dom"
        python3 "$check" dom "diff (Chromium)" "$tmp/named.folded" "$tmp/diff.dom"
        use_it diff "$tmp/diff.svg" "$tmp/named.folded" 'write|read'
    else
        echo "not ok - sql/diff_flamegraph.sql on fp.data and example.data: $(oneline "$tmp/err")"
    fi
fi

# An on+off-CPU graph: sql/offcpu_flamegraph.sql on the off-CPU fixture
# (sleeper.data), blue frames above "[off-cpu]", weights in ns.
hc=$PV_ROOT/tests/fixtures/offcpu
if [ -f "$hc/sleeper.data" ] &&
   (cd "$tmp" && sqlite3 -bail -batch -cmd ".load $PV_ROOT/build/perfvtab" \
        -cmd "SELECT perf_symbol_path(NULL, '$PV_ROOT/tests/fixtures/symbols') IS NULL" \
        -cmd ".param set @file '$hc/sleeper.data'" :memory: \
        ".read $PV_ROOT/sql/offcpu_flamegraph.sql" >"$tmp/hotcold.out" 2>"$tmp/err" </dev/null) &&
   [ -s "$tmp/oncpu_offcpu.svg" ] &&
   "$PV_SQLRUN" "SELECT perf_symbol_path(NULL, '$PV_ROOT/tests/fixtures/symbols');" \
       "$(sed "/^SELECT coalesce(@svg/,\$d; s|@file|'$hc/sleeper.data'|g; s|@event|NULL|g" \
              "$PV_ROOT/sql/offcpu_flamegraph.sql") SELECT stack, ns FROM folded" 2>>"$tmp/err" |
       tail -n +2 >"$tmp/hotcold.folded" && [ -s "$tmp/hotcold.folded" ]; then
    render_and_check hotcold "$tmp/oncpu_offcpu.svg" "$tmp/hotcold.folded" ns
    use_it hotcold "$tmp/oncpu_offcpu.svg" "$tmp/hotcold.folded" 'nanosleep$'
else
    echo "not ok - sql/offcpu_flamegraph.sql on tests/fixtures/offcpu/sleeper.data: $(oneline "$tmp/err")"
fi

# A deep graph: 130 levels under a 40-level fork, as a python3 interpreter's
# stacks are.  Lower levels; controls in view when scrolled to the root.
deep="WITH RECURSIVE level(n, stack) AS (
          SELECT 1, 'python3' UNION ALL
          SELECT n + 1, stack || ';_PyEval_EvalFrameDefault_' || n FROM level WHERE n < 130),
      folded(stack, weight) AS (
          SELECT stack, n % 7 + 1 FROM level WHERE n IN (40, 90, 130)
          UNION ALL SELECT 'python3;main;run_' || n, 5 FROM level WHERE n <= 3)"
"$PV_SQLRUN" "$deep SELECT stack || char(9) || weight FROM folded" >"$tmp/deep.folded" 2>"$tmp/err"
if "$PV_SQLRUN" "$deep SELECT perf_flamegraph(stack, weight, 'deep') FROM folded" \
        >"$tmp/deep.svg" 2>>"$tmp/err"; then
    height=$(sed -n 's/.*<svg [^>]* height="\([0-9]*\)\.[0-9]*".*/\1/p' "$tmp/deep.svg" | head -n 1)
    if [ "${height:-0}" -gt 0 ] && [ "$height" -le $((56 + 131 * 12 + 10)) ]; then
        echo "ok - deep: 131 levels make a $height-px SVG (12-px levels, not 16)"
    else
        echo "not ok - deep: 131 levels make a ${height:-?}-px SVG"
    fi
    use_it deep "$tmp/deep.svg" "$tmp/deep.folded" 'EvalFrame.*_1[0-9]$' 700
else
    echo "not ok - perf_flamegraph on a deep stack: $(oneline "$tmp/err")"
fi

if [ ! -s "$tmp/interact.list" ]; then
    echo "not ok - no graph to click, zoom and search"
elif command -v "$driver" >/dev/null 2>&1; then
    python3 "$interact" "$tmp/interact.list"
else
    echo "ok - zoom, reset and search in Chromium # SKIP $driver absent (scripts/install-deps.sh installs chromium-driver)"
fi
