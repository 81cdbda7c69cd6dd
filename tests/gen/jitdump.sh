#!/usr/bin/env bash
# Regenerates tests/expected/jitdump/report.txt: perf report's samples per
# dso and symbol after `perf inject --jit` on tests/fixtures/jit/node.data,
# compared with perfvtab's reading of the recording as it is by
# tests/t_jitdump.sh.  perf inject reads the jitdump where the recording
# names it (/tmp/perfvtab-jit/, see tests/fixtures/jit/record.sh) and
# writes a jitted-PID-N.so per code load beside it, which perf report
# reads; both are put there for the run and removed after it.
set -euo pipefail
cd "$(dirname "$0")/../.."
fixture=tests/fixtures/jit
dump=$(cd "$fixture" && ls jit-*.dump.xz)
work=/tmp/perfvtab-jit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rm -f "$work"/jitted-*.so' EXIT
mkdir -p "$work" tests/expected/jitdump
xz -dc "$fixture/$dump" >"$work/${dump%.xz}"
HOME=$tmp perf inject --jit -i "$fixture/node.data" -o "$tmp/injected.data"
HOME=$tmp perf report -i "$tmp/injected.data" --stdio --no-children -g none --sort dso,sym \
    -F sample,dso,sym 2>/dev/null | grep -v '^#' | grep . | sed 's/ *$//' \
    >tests/expected/jitdump/report.txt
echo "report.txt: $(wc -l <tests/expected/jitdump/report.txt) rows" >&2
