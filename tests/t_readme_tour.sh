#!/usr/bin/env bash
# plain-only
# The README's tour prints what the README shows, as on a fresh machine: its
# sqlite3 session runs from the repository root with an empty HOME (no
# ~/.debug build-id cache), so the workload's symbols can only come from the
# copy shipped in tests/fixtures/symbols/ (tests/readme_tour.py).  The tour's
# excerpt of `make demo` must be what scripts/demo.sh prints.
#
# Env: PV_ROOT.  The tour loads build/perfvtab, as the README says.
set -u
: "${PV_ROOT:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$PV_ROOT" || exit 1
if [ ! -f build/perfvtab.so ]; then
    echo "not ok - README tour: build/perfvtab.so is not built"
    exit 0
fi
mkdir "$tmp/home"
if out=$(HOME=$tmp/home timeout 120 python3 tests/readme_tour.py README.md check 2>&1); then
    echo "ok - README tour prints what the README shows ($out)"
else
    echo "not ok - README tour: $out"
fi

# the demo's output quoted in the tour: a block of lines starting with "== "
awk '/^## A short tour/ { on = 1; next } on && /^## / { on = 0 }
     on && /^```/ { inblock = !inblock; if (!inblock && quoted) exit; next }
     on && inblock && /^== / { quoted = 1 } on && inblock && quoted' README.md >"$tmp/quoted"
HOME=$tmp/home timeout 60 bash scripts/demo.sh </dev/null 2>&1 | sed 's/ *$//' >"$tmp/demo"
if [ ! -s "$tmp/quoted" ]; then
    echo "not ok - README tour: no excerpt of make demo's output (a block starting with '== ')"
elif python3 -c 'import sys; q, d = (open(f).read() for f in sys.argv[1:]); sys.exit(q not in d)' \
        "$tmp/quoted" "$tmp/demo"; then
    echo "ok - README tour's excerpt of make demo ($(head -n 1 "$tmp/quoted")) is what scripts/demo.sh prints"
else
    echo "not ok - README tour's excerpt of make demo is not in scripts/demo.sh's output: $(head -c 300 "$tmp/quoted" | tr '\n' ' ')"
fi
