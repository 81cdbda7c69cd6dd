#!/usr/bin/env bash
# perf_pprof takes the same paths as the tables (ext/path_args.c, which both
# use): a pattern is every file it matches, a JSON list of paths every file
# it names (each a path or a pattern), and one profile holds them all; a
# pattern that matches nothing and an empty list are errors that say so, as
# the tables' are.  A list works for the tables too.  The profile of two
# files is checked with go tool pprof against perf_samples' counts.
#
# Env: PV_ROOT, PV_SQLRUN.
set -u
. "$(dirname "$0")/lib/common.sh"
: "${PV_ROOT:?}"
fx=$PV_ROOT/tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in fp.data example.data multi.data; do
    if [ ! -f "$fx/$f" ]; then
        echo "not ok - tests/fixtures/$f is missing"
        exit 0
    fi
done
mkdir "$tmp/runs"
cp "$fx/fp.data" "$tmp/runs/a.data"
cp "$fx/example.data" "$tmp/runs/b.data"
pattern=$(sql_quote "$tmp/runs/*.data")
list=$(sql_quote "[\"$tmp/runs/a.data\",\"$tmp/runs/b.data\"]")
mixed=$(sql_quote "[\"$tmp/runs/a.data\",\"$tmp/runs/b*.data\"]")

check "pprof over a pattern: a gzip BLOB" \
    "$(sqlrun "SELECT typeof(perf_pprof($pattern)), hex(substr(perf_pprof($pattern), 1, 3))")" \
    "blob	1F8B08"
check "pprof over a pattern of two files is not the profile of either" \
    "$(sqlrun "SELECT perf_pprof($pattern) IN (perf_pprof($(sql_quote "$tmp/runs/a.data")),
                                               perf_pprof($(sql_quote "$tmp/runs/b.data")))")" 0
check "pprof over a JSON list of the same files in the same order is the same profile" \
    "$(sqlrun "SELECT perf_pprof($pattern) = perf_pprof($list)")" 1
check "pprof over a list of a path and a pattern is the same profile" \
    "$(sqlrun "SELECT perf_pprof($pattern) = perf_pprof($mixed)")" 1
check "pprof over a list of one file is that file's profile" \
    "$(sqlrun "SELECT perf_pprof($(sql_quote "[\"$fx/fp.data\"]")) = perf_pprof($(sql_quote "$fx/fp.data"))")" 1
check "pprof over a pattern that matches nothing: an error that says so" \
    "$(sqlrun "SELECT perf_pprof($(sql_quote "$tmp/none/*.data"))")" \
    "Error: perf_pprof: $tmp/none/*.data: no such file, and no file matches it as a pattern"
check "pprof over a pattern that matches nothing: the tables' error" \
    "$(sqlrun "SELECT count(*) FROM perf_samples($(sql_quote "$tmp/none/*.data"))")" \
    "Error: $tmp/none/*.data: no such file, and no file matches it as a pattern"
check "pprof over an empty list: an error" \
    "$(sqlrun "SELECT perf_pprof('[]')")" "Error: perf_pprof: []: an empty list of paths"
check "pprof over a list holding a number: an error" \
    "$(sqlrun "SELECT perf_pprof('[1]')")" \
    "Error: perf_pprof: [1]: a list of paths holds strings, and its element 1 is not one (or is empty)"
check "pprof over a list with a missing file: the open error naming it" \
    "$(sqlrun "SELECT perf_pprof($(sql_quote "[\"$tmp/runs/a.data\",\"$tmp/missing.data\"]"))")" \
    "Error: $tmp/missing.data: cannot open: No such file or directory"
check "pprof over files without a common event: an error naming the file and its events" \
    "$(sqlrun "SELECT perf_pprof($(sql_quote "[\"$fx/fp.data\",\"$fx/multi.data\"]"))")" \
    "Error: perf_pprof: $fx/multi.data has no event 'cpu-clock:ppp', the first file's, which a profile of several files holds alone (its events: cpu-clock, page-faults, dummy:HG)"
check "pprof over a list, an event only the first file has: an error naming the second" \
    "$(sqlrun "SELECT perf_pprof($(sql_quote "[\"$fx/multi.data\",\"$fx/fp.data\"]"), 'page-faults')")" \
    "Error: perf_pprof: $fx/fp.data has no event 'page-faults' (its events: cpu-clock:ppp)"

# The tables take the same list.
want=$(sqlrun "SELECT (SELECT count(*) FROM perf_samples($(sql_quote "$tmp/runs/a.data"))) +
                      (SELECT count(*) FROM perf_samples($(sql_quote "$tmp/runs/b.data")))")
check "perf_samples over a JSON list reads each file" \
    "$(sqlrun "SELECT count(*) || ' ' || count(DISTINCT path) FROM perf_samples($list)")" "$want 2"
check "perf_samples over a list gives each row's file in path" \
    "$(sqlrun "SELECT group_concat(path, ' ') FROM (SELECT DISTINCT path FROM perf_samples($list))")" \
    "$tmp/runs/a.data $tmp/runs/b.data"
check "a file named like a list is that file" \
    "$(cp "$fx/fp.data" "$tmp/[1]" && sqlrun "SELECT count(*) FROM perf_samples($(sql_quote "$tmp/[1]"))")" \
    "$(sqlrun "SELECT count(*) FROM perf_samples($(sql_quote "$fx/fp.data"))")"

# go tool pprof reads the profile of two files as one: its samples are the
# two files' samples.
if ! command -v go >/dev/null 2>&1; then
    ok "pprof over a pattern read by go tool pprof # SKIP go is not installed (golang-go)"
    exit 0
fi
sqlrun "SELECT writefile($(sql_quote "$tmp/two.pb.gz"), perf_pprof($pattern))" >/dev/null
total=$(HOME=$tmp go tool pprof -sample_index=samples -top -nodecount=1 "$tmp/two.pb.gz" 2>&1 |
        sed -n 's/.*Total samples = \([0-9]*\).*/\1/p')
check "go tool pprof: the profile over a pattern has both files' samples" "$total" "$want"
