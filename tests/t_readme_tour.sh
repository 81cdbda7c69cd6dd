#!/usr/bin/env bash
# plain-only
# The README's tour prints what the README shows, as on a fresh machine: its
# sqlite3 session runs from the repository root with an empty HOME (no
# ~/.debug build-id cache), so the workload's symbols can only come from the
# copy shipped in tests/fixtures/symbols/ (tests/oracle/readme_tour.py).  The tour's
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
if out=$(HOME=$tmp/home timeout 120 python3 tests/oracle/readme_tour.py README.md check 2>&1); then
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

# The "Bad input" block: its files made as the README says, its session run
# in the sqlite3 shell interactively (as shown), every line compared.
python3 - "$tmp" <<'PY'
import struct, sys
d = bytearray(open('tests/fixtures/example.data', 'rb').read())
struct.pack_into('<H', d, 0x210 + 6, 4)    # the record header's size field
open(sys.argv[1] + '/bad.data', 'wb').write(d)
open(sys.argv[1] + '/trunc.data', 'wb').write(open('tests/fixtures/example.data', 'rb').read()[:30000])
PY
cp tests/fixtures/killed/killed.data "$tmp/killed.data"
awk '/^## Bad input/ { on = 1; next } on && /^## / { exit }
     on && /^```/ { if (inblock) exit; inblock = 1; next } on && inblock' README.md >"$tmp/bad_shown"
grep '^sqlite> ' "$tmp/bad_shown" | sed 's/^sqlite> //' >"$tmp/bad.sql"
(cd "$tmp" && HOME=$tmp/home timeout 60 sqlite3 -interactive -cmd ".load $PV_ROOT/build/perfvtab" \
    <bad.sql 2>&1 | grep -v '^SQLite version\|^Enter "\|^Connected to\|^Use "\.open' |
    sed 's/^sqlite> //; /^$/d' | grep -vxF -f bad.sql >bad_got)
grep -v '^sqlite> ' "$tmp/bad_shown" >"$tmp/bad_want"
if [ ! -s "$tmp/bad_want" ]; then
    echo "not ok - README's Bad input block: not found"
elif diff -q "$tmp/bad_want" "$tmp/bad_got" >/dev/null; then
    echo "ok - README's Bad input block prints what it shows ($(wc -l <"$tmp/bad_want") output lines)"
else
    echo "not ok - README's Bad input block: $(diff "$tmp/bad_want" "$tmp/bad_got" | head -c 400 | tr '\n' ' ')"
fi
