#!/usr/bin/env bash
# Regenerates tests/expected/features/ from the local `perf` (6.1 when
# committed); perf is the oracle, nothing here is typed by hand.
#
# The files: every fixture tests/fixtures/*.data, and every little-endian
# PERFILE2 file of $PV_SHARED/corpus/MANIFEST.tsv that perf reads: a
# file-mode one when `perf report --header-only -I` exits 0 and prints its
# features; a pipe-mode one only when perf reads the whole record stream
# (`perf script -D`), where it learns a pipe's features; one of quipper's fuzz
# reproducers (quipper/corpus/) only when perf reads it all and finds its
# events (`perf evlist -v` prints a sample_type), as tests/gen/perf_oracle.sh
# asks: perf reading a reproducer's header alone proves nothing.  For each,
# <name>.tsv: one "key<TAB>value" line per header line perf prints, as perf
# prints it:
#   source            fixture:<file> or corpus:<path>   (where the test finds the file)
#   hostname osrelease version arch cpudesc cpuid       the text after "# <label> : "
#   nrcpus_online nrcpus_avail                          "# nrcpus online : N", "# nrcpus avail : N"
#   total_mem                                           N of "# total memory : N kB"
#   cmdline                                             "# cmdline : ..." without perf's trailing space
#   pmu_mappings                                        "# pmu mappings: ..."
#   group                                               "# group: ..." (one line per group)
#   sample_time_first sample_time_last                  "# time of first/last sample : S.US"
#   clockid_frequency                                   N of "# clockid frequency: N MHz"
#   missing                                             "# missing features: ..." without the trailing space
#   sibling_sockets sibling_dies sibling_threads        "# sibling <x> : <list>" (one line each)
#   cpu                                                 "N: Core ID .." of "# CPU N: ..."
#   numa                                                "nodeN meminfo  : ..." and "nodeN cpu list : ..."
#   hybrid                                              "<pmu> cpu list : <cpus>"
#   mem_node                                            "N <blocks>" of "#    N [size]: <blocks>"
#   bpf_prog_info                                       N of "# bpf_prog_info N: ..." (one line each)
# and, when `perf buildid-list -i F` exits 0, <name>.buildids: what
# tests/oracle/buildids_expect.py makes of perf's output (buildid-list's, or
# for a file without the BUILD_ID feature the MMAP2 build-ids of perf -D).
#
# Names: fixture fp.data -> fp; corpus a/b/c/perf.data.x -> a__perf.data.x (the
# first folder and the file name, as tests/gen/perf_oracle.sh names them).
#
# A feature perf prints as "(null)" is one it could not decode (the test
# expects NULL there).  Keys perf's output is no evidence for are left out,
# each rule with a "# not compared: <keys>: <why>" line (tests/t_features.sh
# leaves them out of ours too, and ignores other "#" lines):
#  - perf 6.1 stops reading feature sections at a "(null)" one and prints
#    defaults for the later ones: the keys of those;
#  - "# Core ID and Socket ID information is not available": perf 6.1 prints
#    it for sections that hold them (perf.data.weight_struct's): cpu.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
shared=${PV_SHARED:-$root/../shared}
corpus=$shared/corpus
out=$root/tests/expected/features
[ -f "$corpus/MANIFEST.tsv" ] || {
    echo "$0: $corpus/MANIFEST.tsv not found: the expected outputs need the whole corpus (../shared or PV_SHARED); nothing changed" >&2
    exit 1
}

# The keys of each feature perf prints, in feature id order (perf's order of
# reading the sections).
feature_keys=(hostname osrelease version arch "nrcpus_online nrcpus_avail" cpudesc cpuid
    total_mem cmdline "sibling_sockets sibling_dies sibling_threads cpu" numa pmu_mappings
    group "sample_time_first sample_time_last" mem_node clockid_frequency bpf_prog_info hybrid)

# The keys of the features after the first one perf prints as "(null)".
after_null() {  # extracted key<TAB>value lines on stdin
    local failed n keys= seen=
    failed=$(awk -F'\t' '$2 == "(null)" { print $1; exit }')
    [ -n "$failed" ] || return 0
    for n in "${feature_keys[@]}"; do
        [ -n "$seen" ] && keys="$keys${keys:+ }$n"
        case " $n " in *" $failed "*) seen=1 ;; esac
    done
    printf '%s\n' "$keys"
}

# perf reads every record of the file (perf_expect.py's run_dump does the same)
perf_reads_all() {  # path
    perf script -D -F event -i "$1" >/dev/null 2>&1 || perf script -D -i "$1" >/dev/null 2>&1
}

extract() {  # header-only output on stdin -> key<TAB>value lines
    awk '
    function put(k, v) { printf "%s\t%s\n", k, v }
    function after(prefix) { return substr($0, length(prefix) + 1) }
    index($0, "# hostname : ") == 1       { put("hostname", after("# hostname : ")); next }
    index($0, "# os release : ") == 1     { put("osrelease", after("# os release : ")); next }
    index($0, "# perf version : ") == 1   { put("version", after("# perf version : ")); next }
    index($0, "# arch : ") == 1           { put("arch", after("# arch : ")); next }
    index($0, "# nrcpus online : ") == 1  { put("nrcpus_online", after("# nrcpus online : ")); next }
    index($0, "# nrcpus avail : ") == 1   { put("nrcpus_avail", after("# nrcpus avail : ")); next }
    index($0, "# cpudesc : ") == 1        { put("cpudesc", after("# cpudesc : ")); next }
    index($0, "# cpuid : ") == 1          { put("cpuid", after("# cpuid : ")); next }
    index($0, "# total memory : ") == 1   { v = after("# total memory : "); sub(/ kB$/, "", v); put("total_mem", v); next }
    index($0, "# cmdline : ") == 1        { v = after("# cmdline : "); sub(/ $/, "", v); put("cmdline", v); next }
    index($0, "# pmu mappings: ") == 1    { v = after("# pmu mappings: "); if (v != "not available") put("pmu_mappings", v); next }
    index($0, "# group: ") == 1           { put("group", after("# group: ")); next }
    index($0, "# time of first sample : ") == 1 { put("sample_time_first", after("# time of first sample : ")); next }
    index($0, "# time of last sample : ") == 1  { put("sample_time_last", after("# time of last sample : ")); next }
    index($0, "# clockid frequency: ") == 1     { v = after("# clockid frequency: "); sub(/ MHz$/, "", v); put("clockid_frequency", v); next }
    index($0, "# missing features: ") == 1      { v = after("# missing features: "); sub(/ $/, "", v); put("missing", v); next }
    index($0, "# sibling sockets : ") == 1      { put("sibling_sockets", after("# sibling sockets : ")); next }
    index($0, "# sibling dies    : ") == 1      { put("sibling_dies", after("# sibling dies    : ")); next }
    index($0, "# sibling threads : ") == 1      { put("sibling_threads", after("# sibling threads : ")); next }
    /^# CPU [0-9]+: /                           { put("cpu", substr($0, 7)); next }
    /^# node[0-9]+ (meminfo  |cpu list ): /     { put("numa", substr($0, 3)); next }
    /^# [^ ]+ cpu list : /                      { put("hybrid", substr($0, 3)); next }
    /^# +[0-9]+ \[[^]]*\]: /                    { v = substr($0, 3); sub(/^ +/, "", v); sub(/ \[[^]]*\]:/, "", v); put("mem_node", v); next }
    /^# bpf_prog_info [0-9]+:/                  { v = $3; sub(/:$/, "", v); put("bpf_prog_info", v); next }
    '
}

skip() {  # source, why
    printf '%s\t%s\n' "$1" "$2" >>"$out/SKIPPED.tsv"
}

generate() {  # name, source, path, how: file (its header is enough), pipe or reproducer
    local name=$1 source=$2 path=$3 how=$4
    local header extracted left_out cpu_out= rc=0
    if ! header=$(perf report --header-only -I -i "$path" 2>/dev/null); then
        skip "$source" "perf report --header-only fails"
        return
    fi
    if [ "$how" = file ] && ! grep -q '^# hostname\|^# missing features' <<<"$header"; then
        skip "$source" "perf report --header-only fails"
        return
    fi
    if [ "$how" != file ] && ! perf_reads_all "$path"; then
        skip "$source" "perf script -D refuses it"
        return
    fi
    if [ "$how" = reproducer ] && ! perf evlist -v -i "$path" 2>/dev/null | grep -q 'sample_type: '; then
        skip "$source" "perf finds no events in it"
        return
    fi
    extracted=$(extract <<<"$header")
    left_out=$(after_null <<<"$extracted")
    if grep -q '^# Core ID and Socket ID information is not available' <<<"$header" &&
        [[ " $left_out " != *" cpu "* ]]; then
        cpu_out=cpu
    fi
    {
        printf 'source\t%s\n' "$source"
        if [ -n "$left_out" ]; then
            printf '# not compared: %s: %s\n' "$left_out" "perf 6.1 stops reading features at the one it prints as (null) and prints defaults for the sections after it"
        fi
        if [ -n "$cpu_out" ]; then
            printf '# not compared: cpu: %s\n' "perf prints \"Core ID and Socket ID information is not available\", also for sections that hold them"
        fi
        if [ -n "$extracted" ]; then
            awk -F'\t' -v skip=" $left_out $cpu_out " 'index(skip, " " $1 " ") == 0' <<<"$extracted"
        fi
    } >"$out/$name.tsv"
    python3 "$root/tests/oracle/buildids_expect.py" "$path" >"$out/$name.buildids" 2>"$out/.err" || rc=$?
    case $rc in
    0) ;;
    2) rm -f "$out/$name.buildids" ;;   # perf buildid-list fails: nothing to compare
    *) cat "$out/.err" >&2; exit 1 ;;
    esac
}

rm -rf "$out"
mkdir -p "$out"
printf 'file\twhy\n' >"$out/SKIPPED.tsv"
for f in "$root"/tests/fixtures/*.data; do
    [ -f "$f" ] || continue
    base=$(basename "$f")
    generate "${base%.data}" "fixture:$base" "$f" file
done
awk -F'\t' 'NR > 1 && $7 == "PERFILE2" && $9 == "little" { print $8 "\t" $1 }' \
    "$corpus/MANIFEST.tsv" | while IFS=$'\t' read -r mode rel; do
    case $mode/$rel in
    */quipper/corpus/*) how=reproducer ;;
    pipe/*) how=pipe ;;
    *) how=file ;;
    esac
    # perf reads some damaged files' data from stdin: not the list's
    generate "${rel%%/*}__$(basename "$rel")" "corpus:$rel" "$corpus/$rel" "$how" </dev/null
done
rm -f "$out/.err"
ls "$out" | wc -l >&2
