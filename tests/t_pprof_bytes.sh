#!/usr/bin/env bash
# perf_pprof's BLOB, byte for byte, is what it was before the profile was
# built in bounded memory (issue 27, item 4): tests/expected/pprof/sha256.txt
# holds the sha256 of every committed recording's profile (each event, and
# one profile of two files) as the implementation before that change made
# them, by
#     PV_SQLRUN=build/sqlrun tests/tools/pprof_digests.sh > tests/expected/pprof/sha256.txt
# run at commit 175eac4 (the last with the protobuf-c encoder).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT" || exit 1
want=tests/expected/pprof/sha256.txt
if [ ! -s "$want" ]; then
    not_ok "pprof digests" "$want is missing"
    exit 0
fi
got=$(tests/tools/pprof_digests.sh)
while IFS=$'\t' read -r path event sha; do
    have=$(awk -F'\t' -v p="$path" -v e="$event" '$1 == p && $2 == e { print $3 }' <<<"$got")
    check "pprof bytes of $path (event $event)" "$have" "$sha"
done <"$want"
check "pprof digests: as many profiles as expected" "$(wc -l <<<"$got")" "$(wc -l <"$want")"
