#!/usr/bin/env bash
# A path that is a pattern (ext/path_glob.c): it matches what glob(3) would
# match, and no pattern can crash or hang the host.
#  - On a tree of files with awkward names (leading dots, brackets, spaces,
#    a backslash), every pattern below gives glob(3)'s paths in glob(3)'s
#    order (tests/tools/glob_list.c).
#  - The reproducers of two host crashes: a 3,000-component pattern made
#    glibc's glob overflow the stack (with `ulimit -s 256`, 406 characters
#    were enough), and `/*/*/.../*.nomatch` walked the whole file system
#    for minutes; each is now an error that says which bound it passed.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t=$tmp/t
mkdir -p "$t/a/b" "$t/a/.hid" "$t/c d" "$t/e[1]" "$t/.dot"
for f in "a/1.data" "a/b/2.data" "a/.3.data" "a/.hid/4.data" "c d/5.data" "e[1]/6.data" \
         ".dot/7.data" "x.data" "y*.data" "z\\q.data" "a/b/9.data"; do
    ln -s "$PV_ROOT/tests/fixtures/stat.data" "$t/$f"
done
# each path a perfvtab pattern gives, sorted as it comes
ours() {
    sqlrun "SELECT DISTINCT path FROM perf_features($(sql_quote "$1")) WHERE name IS NOT NULL OR 1"
}
cp -r tests/fixtures/threads_dir "$t/w.perf"
for p in "$t/*.data" "$t/*/*.data" "$t/*/*/*.data" "$t/a/.*.data" "$t/a/.h*/*" "$t/.*/*.data" "$t/[ac]*/*.data" \
         "$t/[!a]*/*.data" "$t/[^a-c]*/*.data" "$t/e\\[1\\]/*" "$t/e[[]1]/*" "$t/?/?.data" \
         "$t/y\\*.data" "$t/z\\\\q*.data" "$t/w*/" "$t/w*" "$t//a/*.data" "$t/a/b/[0-9].data" "$t/c d/*" \
         "$t/*[]]*/*" "$t/a/*/../*.data"; do
    want=$("$PV_BUILD/tools/glob_list" "$p")
    got=$(ours "$p" 2>&1)
    [ -n "$want" ] || want=$(sqlrun "SELECT 1 FROM perf_features($(sql_quote "$p"))" 2>&1)
    check "pattern ${p#$tmp/}: glob(3)'s $(wc -l <<<"$want") paths, in its order" "$got" "$want"
done

# the bounds: errors that say which, never a crash
deep=$(sqlrun "SELECT count(*) FROM perf_samples(replace(printf('%.*c', 3000, 'x'), 'x', '*/') || '*.data')")
check "a 3,000-component pattern is refused for its size" \
    "$(grep -c 'a pattern of 6006 bytes; at most 4096' <<<"$deep")" 1
many=$(sqlrun "SELECT count(*) FROM perf_samples(replace(printf('%.*c', 203, 'x'), 'x', '*/') || '*.data')")
check "a 203-component pattern (406 characters) is refused for its components" \
    "$(grep -c '204 components that have wildcards; at most 64' <<<"$many")" 1
stacked=$( (ulimit -s 256; "$PV_SQLRUN" "SELECT count(*) FROM perf_samples(replace(printf('%.*c', 60, 'x'), 'x', '*/') || '*.data')") 2>&1)
check "with a 256 KiB stack, a 60-component pattern is an answer, not a crash" \
    "$(grep -c 'no such file, and no file matches it as a pattern' <<<"$stacked")" 1
walk=$(timeout 120 "$PV_SQLRUN" "SELECT count(*) FROM perf_samples('/*/*/*/*/*/*/*/*/*/*/*/*.nomatch')" 2>&1)
status=$?
if [ $status -ne 124 ] && grep -q 'the pattern \(matches over 100000 paths at one level\|reads over 1000000 directory entries\)\|no such file' <<<"$walk"; then
    ok "/*/*/.../*.nomatch over the file system ends: $(head -c 160 <<<"$walk")"
else
    not_ok "/*/*/.../*.nomatch over the file system ends" "status $status: $(head -c 300 <<<"$walk")"
fi
