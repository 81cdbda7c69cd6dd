#!/usr/bin/env bash
# Expected stacks of tests/fixtures/lazy_bind/lazy_bind.data, from perf 6.1,
# for tests/t_lazy_binding.sh: perf script with --symfs on the fixture's
# root/ (the recorded binary and ld.so; nothing of this machine), an empty
# HOME (no build-id cache).
#   stacks.tsv  one line per frame: time (ns)<TAB>n<TAB>frame<TAB>dso, n the
#               frame's place in its stack from the leaf (0) counting only
#               frames perf does not print "(inlined)" (those come from
#               debug files the fixture does not hold); frame is sym+0xOFF,
#               or [unknown]
set -euo pipefail
cd "$(dirname "$0")/../.."
fixture=tests/fixtures/lazy_bind
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
HOME=$home perf script --symfs "$fixture/root" -i "$fixture/lazy_bind.data" --ns \
    -F time,ip,sym,symoff,dso 2>/dev/null | python3 -c '
import re, sys
frame_re = re.compile(r"^\s+[0-9a-f]+ (.*) \((.*)\)$")
time, n = None, 0
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line:
        continue
    m = frame_re.match(line)
    if not m:
        secs, ns = line.strip().rstrip(":").split(".")
        time, n = int(secs) * 1000000000 + int(ns), 0
        continue
    sym, dso = m.groups()
    if dso == "inlined":
        continue
    print(f"{time}\t{n}\t{sym}\t{dso}")
    n += 1
' >tests/expected/lazy_binding/stacks.tsv
