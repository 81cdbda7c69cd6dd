#!/usr/bin/env bash
# pprof_digests.sh: the sha256 of perf_pprof's BLOB for every committed
# recording with samples (tests/fixtures), one line per profile:
#     <path under tests/fixtures>  <event or "-">  <sha256, or "error">
# for t_pprof_bytes.sh, which compares them with tests/expected/pprof_sha256.txt.
# Symbols come from tests/fixtures/symbols alone (a sysroot that does not
# exist, and an empty HOME: no ~/.debug), so the digests do not depend on
# the machine's own files.
# Run from the repo root:  PV_SQLRUN=build/sqlrun tests/tools/pprof_digests.sh
set -u
: "${PV_SQLRUN:?}"
PV_SQLRUN=$(realpath "$PV_SQLRUN")
root=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home
mkdir "$HOME"
syms="SELECT perf_symbol_path('$root/tests/fixtures/no-such-sysroot', '$root/tests/fixtures/symbols');"
digest() {      # path event(or empty)
    local arg="'$1'"
    [ -n "$2" ] && arg="'$1', '$2'"
    rm -f "$tmp/p.pb.gz"
    if "$PV_SQLRUN" "$syms" "SELECT writefile('$tmp/p.pb.gz', perf_pprof($arg))" \
        >/dev/null 2>&1 && [ -s "$tmp/p.pb.gz" ]; then
        sha256sum "$tmp/p.pb.gz" | cut -d' ' -f1
    else
        echo error
    fi
}
cd tests/fixtures || exit 1
{ find . -name '*.data' -type f; echo ./threads_dir; echo ./threads_zdir; } | LC_ALL=C sort |
while read -r f; do
    f=${f#./}
    echo "$f	-	$(digest "$root/tests/fixtures/$f" "")"
    # every event with samples, by name, when the file has more than one
    "$PV_SQLRUN" "SELECT DISTINCT e.name FROM perf_events('$root/tests/fixtures/$f') e
                  WHERE (SELECT count(DISTINCT name) FROM perf_events('$root/tests/fixtures/$f')) > 1
                  ORDER BY e.name" 2>/dev/null |
    while read -r ev; do
        echo "$f	$ev	$(digest "$root/tests/fixtures/$f" "$ev")"
    done
done
# a profile of several files
echo "fp.data+example.data	-	$(digest "[\"$root/tests/fixtures/fp.data\",\"$root/tests/fixtures/example.data\"]" "")"
