#!/usr/bin/env bash
# One query over many files: a path with wildcards that names no file is a
# glob; the files it matches are read one after another (one open at a
# time beyond the connection's cache), the hidden path column says which
# file a row came from, and pushed-down constraints apply to each file.
# A JSON list of paths works through json_each.  Expected values: the
# same queries run file by file.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
names=(example fp multi tracepoint datasrc buildid_mmap dwarf)
# more files than the connection's cache holds (8)
for i in 0 1; do
    for n in "${names[@]}"; do cp "tests/fixtures/$n.data" "$tmp/$i-$n.data"; done
done
cp -r tests/fixtures/threads_dir "$tmp/z-threads.data"
files=$(cd "$tmp" && ls -d *.data)
nfiles=$(wc -l <<<"$files")

per_file() {  # a query with @f, run per file, prefixed by the path
    local q=$1 f
    for f in $files; do
        sqlrun "${q//@f/\'$tmp/$f\'}" | sed "s|^|$tmp/$f\t|"
    done
}
want=$(per_file "SELECT count(*), total(period), min(time), max(time) FROM perf_samples(@f)")
got=$(sqlrun "SELECT path, count(*), total(period), min(time), max(time) FROM perf_samples('$tmp/*.data') GROUP BY path ORDER BY path")
check "a glob over $nfiles files (one a --threads directory) gives each file's samples" "$got" "$want"

mid=$(sqlrun "SELECT min(time) + 10000 FROM perf_samples('$tmp/0-multi.data') WHERE event = 'page-faults'")
want=$(per_file "SELECT count(*), total(record) FROM perf_samples(@f) WHERE time > $mid AND event = 'page-faults'" | awk -F'\t' '$2 > 0')
got=$(sqlrun "SELECT path, count(*), total(record) FROM perf_samples('$tmp/*.data') WHERE time > $mid AND event = 'page-faults' GROUP BY path ORDER BY path")
check "pushed-down time and event constraints apply to every file of a glob" "$got" "$want"

want=$(per_file "SELECT count(*) FROM perf_records(@f)")
got=$(sqlrun "SELECT path, count(*) FROM perf_records('$tmp/*.data') GROUP BY path ORDER BY path")
check "perf_records over a glob" "$got" "$want"
want=$(per_file "SELECT value FROM perf_features(@f) WHERE name = 'hostname'")
got=$(sqlrun "SELECT path, value FROM perf_features('$tmp/*.data') WHERE name = 'hostname' ORDER BY path")
check "perf_features over a glob" "$got" "$want"

got=$(sqlrun "SELECT count(*) FROM perf_samples('$tmp/1-*.data')")
want=$(for n in "${names[@]}"; do sqlrun "SELECT count(*) FROM perf_samples('$tmp/1-$n.data')"; done | awk '{s += $1} END {print s}')
check "a narrower glob reads only its files" "$got" "$want"

got=$(sqlrun "SELECT j.value, count(*) FROM json_each('[\"$tmp/0-fp.data\", \"$tmp/1-multi.data\"]') j, perf_samples(j.value) GROUP BY 1 ORDER BY 1")
want=$(printf '%s\t%s\n%s\t%s' "$tmp/0-fp.data" "$(sqlrun "SELECT count(*) FROM perf_samples('$tmp/0-fp.data')")" \
    "$tmp/1-multi.data" "$(sqlrun "SELECT count(*) FROM perf_samples('$tmp/1-multi.data')")")
check "a JSON list of paths through json_each" "$got" "$want"

# An OR in WHERE: SQLite weighs each of its terms alone, without the path
# (found by fuzz_sql: "no query solution").
list="[\"$tmp/0-fp.data\", \"$tmp/1-multi.data\"]"
for table in perf_samples perf_records; do
    got=$(sqlrun "SELECT j.value, count(*) FROM json_each('$list') j, $table(j.value) t WHERE t.pid = 0 OR t.tid = 5 GROUP BY 1 ORDER BY 1")
    want=$(for f in 0-fp 1-multi; do sqlrun "SELECT '$tmp/$f.data', count(*) FROM $table('$tmp/$f.data') WHERE pid = 0 OR tid = 5"; done | awk -F'\t' '$2 > 0')
    check "$table over a JSON path list with an OR of pushed-down terms" "$got" "$want"
done
got=$(sqlrun "SELECT count(*) FROM json_each('$list') j, perf_samples(j.value) t WHERE t.pid = 5 OR t.tid = 6")
want=$(sqlrun "SELECT count(*) FROM perf_samples('$tmp/0-fp.data') WHERE pid = 5 OR tid = 6")
want=$((want + $(sqlrun "SELECT count(*) FROM perf_samples('$tmp/1-multi.data') WHERE pid = 5 OR tid = 6")))
check "count(*) over a JSON path list WHERE pid = 5 OR tid = 6" "$got" "$want"
got=$(sqlrun "SELECT count(*) FROM json_each('$list') j, perf_samples(j.value) t WHERE t.path = 'elsewhere' OR t.cpu = -1")
check "an OR naming another path gives no row" "$got" "0"

got=$(sqlrun "SELECT count(*) FROM perf_samples('$tmp/*.nothing')")
[[ $got == Error:*"$tmp/*.nothing"*"no file matches"* ]] && echo "ok - a glob that matches nothing is an error naming it" \
    || echo "not ok - a glob that matches nothing: $got"
printf 'not a profile' >"$tmp/5-bad.data"
got=$(sqlrun "SELECT count(*) FROM perf_samples('$tmp/*.data')")
[[ $got == Error:*"$tmp/5-bad.data"*"offset 0x0"* ]] && echo "ok - a bad file in a glob is an error naming that file" \
    || echo "not ok - a bad file in a glob: $got"
# A file whose name has glob characters is read as that file.
cp tests/fixtures/fp.data "$tmp/odd[1].data"
got=$(sqlrun "SELECT count(*) FROM perf_samples('$tmp/odd[1].data')")
check "a file named with glob characters is read as itself" "$got" "$(sqlrun "SELECT count(*) FROM perf_samples('tests/fixtures/fp.data')")"
