#!/usr/bin/env bash
# Regenerates tests/expected/features/ from the local `perf` (6.1 when
# committed); perf is the oracle, nothing here is typed by hand.
#
# For every fixture tests/fixtures/*.data and every FILE-mode, little-endian
# file of $PV_SHARED/corpus/MANIFEST.tsv that `perf report --header-only -I`
# reads (exit status 0), writes <name>.tsv: one "key<TAB>value" line per
# header line perf prints, as perf prints it:
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
# and, when `perf buildid-list -i F` exits 0, <name>.buildids with its output.
#
# Names: fixture fp.data -> fp; corpus a/b/c/perf.data.x -> a__perf.data.x (the
# first folder and the file name, as tests/gen/perf_oracle.sh names them).
#
# Values perf itself gets wrong are left out, with a "#" line saying why (the
# list below); tests/t_features.sh ignores "#" lines.
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

# <name> <keys to leave out> <why>
not_compared() {
    case $1 in
    perf_data_converter__perf.data.armv7.perf_3.14-3.8)
        echo "total_mem cmdline pmu_mappings"
        echo "perf 6.1 stops reading features at the empty cpudesc section and prints 0 kB, an empty cmdline and no pmu mappings for the sections after it"
        ;;
    esac
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

generate() {  # name, source, path
    local name=$1 source=$2 path=$3
    local header
    if ! header=$(perf report --header-only -I -i "$path" 2>/dev/null) ||
        ! grep -q '^# hostname\|^# missing features' <<<"$header"; then
        printf '%s\t%s\n' "$source" "perf report --header-only fails" >>"$out/SKIPPED.tsv"
        return
    fi
    local skip why
    skip=$(not_compared "$name" | sed -n 1p)
    why=$(not_compared "$name" | sed -n 2p)
    {
        printf 'source\t%s\n' "$source"
        [ -n "$skip" ] && printf '# not compared: %s: %s\n' "$skip" "$why"
        extract <<<"$header" | awk -F'\t' -v skip=" $skip " 'index(skip, " " $1 " ") == 0'
    } >"$out/$name.tsv"
    local ids
    if ids=$(perf buildid-list -i "$path" 2>/dev/null); then
        printf '%s\n' "$ids" | sed '/^$/d' >"$out/$name.buildids"
    fi
}

rm -rf "$out"
mkdir -p "$out"
printf 'file\twhy\n' >"$out/SKIPPED.tsv"
for f in "$root"/tests/fixtures/*.data; do
    [ -f "$f" ] || continue
    base=$(basename "$f")
    generate "${base%.data}" "fixture:$base" "$f"
done
# The quipper fuzz reproducers (quipper/corpus/) are not candidates: a reader
# must refuse them, perf reading some of their headers proves nothing.
awk -F'\t' 'NR > 1 && $8 == "file" && $9 == "little" && $7 == "PERFILE2" &&
             $1 !~ /quipper\/corpus\// { print $1 }' \
    "$corpus/MANIFEST.tsv" | while read -r rel; do
    name="${rel%%/*}__$(basename "$rel")"
    generate "$name" "corpus:$rel" "$corpus/$rel"
done
ls "$out" | wc -l >&2
