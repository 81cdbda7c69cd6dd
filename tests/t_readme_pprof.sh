#!/usr/bin/env bash
# plain-only: the example loads the plain build (build/perfvtab.so).
# README's pprof example (the sh block under "## pprof"), run as written from
# a scratch copy of the repository's root (its entries linked, as
# tests/oracle/readme_commands.py does): it writes its profile into a
# temporary directory, so nothing new appears in the root, and go tool
# pprof reads it as the README shows.
#
# Env: PV_ROOT.
set -u
. "$(dirname "$0")/lib/common.sh"
: "${PV_ROOT:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk '/^## pprof/ { on = 1; next } on && /^## / { exit }
     on && /^```sh$/ && !done { code = 1; next } on && code && /^```$/ { code = 0; done = 1; shown = 1; next }
     on && code { print > "'"$tmp/example.sh"'" }
     on && shown == 1 && /^```$/ { shown = 2; next } on && shown == 2 && /^```$/ { exit }
     on && shown == 2 { print > "'"$tmp/shown"'" }' "$PV_ROOT/README.md"
if [ ! -s "$tmp/example.sh" ] || [ ! -s "$tmp/shown" ]; then
    not_ok "README's pprof example" "no sh block and output block under '## pprof'"
    exit 0
fi
mkdir "$tmp/root" "$tmp/home"
for e in "$PV_ROOT"/*; do
    ln -s "$e" "$tmp/root/$(basename "$e")"
done
ls -A "$tmp/root" >"$tmp/before"
(cd "$tmp/root" && HOME=$tmp/home timeout 120 bash "$tmp/example.sh" >"$tmp/out" 2>"$tmp/err" </dev/null)
status=$?
ls -A "$tmp/root" >"$tmp/after"
new=$(comm -13 "$tmp/before" "$tmp/after" | tr '\n' ' ')
check "README's pprof example writes nothing into the repository's root" "${new:-nothing new}" "nothing new"
if ! command -v go >/dev/null 2>&1; then
    ok "README's pprof example prints what the README shows # SKIP go is not installed (golang-go)"
    exit 0
fi
# All of go's lines: the example leaves out the two that count nodes,
# which depend on the kernel symbols the machine has.
sed 's/ *$//' "$tmp/out" >"$tmp/got"
sed 's/ *$//' "$tmp/shown" >"$tmp/want"
if [ "$status" = 0 ] && cmp -s "$tmp/got" "$tmp/want"; then
    ok "README's pprof example runs, and go tool pprof reads the profile it wrote as the README shows ($(tail -n 1 "$tmp/want"))"
else
    not_ok "README's pprof example" "status $status; $(diff "$tmp/want" "$tmp/got" | head -n 6 | tr '\n' ' ') $(oneline "$tmp/err")"
fi
