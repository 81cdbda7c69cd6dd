#!/usr/bin/env bash
# perf_features and perf_build_ids against perf 6.1: the one test of both
# (t_perf_oracle.sh checks the records).
#
# 1. For every tests/expected/features/<name>.tsv (made by
#    tests/gen/features.sh from `perf report --header-only -I`: the
#    fixtures, and the corpus files perf reads, file- and pipe-mode), the
#    header values perf prints: hostname, os release, perf version, arch,
#    nrcpus, cpudesc, cpuid, total memory, cmdline, pmu mappings, groups,
#    sample times, clockid frequency, cpu topology (sibling lists, per-cpu
#    ids), numa nodes, hybrid pmus, memory nodes, bpf program ids and the
#    list of missing features, each rendered from our values the way perf
#    prints it (a NULL string as perf prints one: "(null)", which perf
#    prints for a feature it could not decode); and that we have no value
#    perf prints no line for.  Keys on a "# not compared" line (perf's
#    output is no evidence for them, e.g. after a "(null)" feature perf 6.1
#    reads no more; tests/gen/features.sh says when) are left out on both
#    sides.
# 2. For every <name>.buildids (tests/oracle/buildids_expect.py): the
#    distinct (build_id, filename) pairs of perf_build_ids, as its first
#    line says: equal to `perf buildid-list` (a file with the BUILD_ID
#    feature, or a pipe); equal to the build-ids perf -D prints in MMAP2
#    records (a file without the feature, e.g. --buildid-mmap: perf would
#    list only the DSOs with samples); or, where perf -D refuses such a
#    file, including buildid-list's.
# 3. For every corpus file and fixture: reading value and raw of every
#    feature row, and every perf_build_ids row, raises no error.  Files that
#    do not open at all must be known-bad ones (fuzzer reproducers, files
#    that are not perf.data), refused with a clean "Error:" message.
#
# Env: PV_ROOT, PV_SHARED (../shared), PV_SQLRUN.  Output: ok / not ok lines.
set -u
. "$(dirname "$0")/lib/common.sh"
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
shared=${PV_SHARED:-$root/../shared}
corpus=$shared/corpus
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}
expected=$root/tests/expected/features
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The features perf 6.1 knows, in id order (the names of the SQL contract).
known="tracing_data build_id hostname osrelease version arch nrcpus cpudesc cpuid total_mem
cmdline event_desc cpu_topology numa_topology branch_stack pmu_mappings group_desc auxtrace stat
cache sample_time mem_topology clockid dir_format bpf_prog_info bpf_btf compressed cpu_pmu_caps
clock_data hybrid_topology pmu_caps"

locate() {  # source (fixture:x or corpus:x) -> path
    case $1 in
    fixture:*) printf '%s\n' "$root/tests/fixtures/${1#fixture:}" ;;
    corpus:*)  # else the copy kept in the repository (tests/corpus)
        if [ -f "$corpus/${1#corpus:}" ] || [ ! -f "$root/tests/corpus/${1#corpus:}" ]; then
            printf '%s\n' "$corpus/${1#corpus:}"
        else
            printf '%s\n' "$root/tests/corpus/${1#corpus:}"
        fi ;;
    esac
}

# Our values, one "key<TAB>value" line each, formatted as perf prints them.
ours() {  # path
    local F
    F=$(sql_quote "$1")
    local known_values=""
    local i=1
    for n in $known; do
        known_values+="${known_values:+,}($i,'$n')"
        i=$((i + 1))
    done
    "$sqlrun" "
WITH f AS (SELECT id, name, value FROM perf_features($F)),
     known(id, name) AS (VALUES $known_values)
SELECT 'hostname', coalesce(value, '(null)') FROM f WHERE name = 'hostname'
UNION ALL SELECT 'osrelease', coalesce(value, '(null)') FROM f WHERE name = 'osrelease'
UNION ALL SELECT 'version', coalesce(value, '(null)') FROM f WHERE name = 'version'
UNION ALL SELECT 'arch', coalesce(value, '(null)') FROM f WHERE name = 'arch'
UNION ALL SELECT 'nrcpus_online', json_extract(value, '\$.online') FROM f WHERE name = 'nrcpus'
UNION ALL SELECT 'nrcpus_avail', json_extract(value, '\$.available') FROM f WHERE name = 'nrcpus'
UNION ALL SELECT 'cpudesc', coalesce(value, '(null)') FROM f WHERE name = 'cpudesc'
UNION ALL SELECT 'cpuid', coalesce(value, '(null)') FROM f WHERE name = 'cpuid'
UNION ALL SELECT 'total_mem', value FROM f WHERE name = 'total_mem'
UNION ALL SELECT 'cmdline', (SELECT group_concat(a, ' ') FROM
        (SELECT replace(j.value, '''', '\\''') AS a FROM json_each(f.value) j ORDER BY j.key))
    FROM f WHERE name = 'cmdline'
UNION ALL SELECT 'pmu_mappings', (SELECT group_concat(m, ', ') FROM
        (SELECT json_extract(j.value, '\$.name') || ' = ' || json_extract(j.value, '\$.type') AS m
         FROM json_each(f.value) j ORDER BY j.key))
    FROM f WHERE name = 'pmu_mappings'
UNION ALL SELECT 'group', * FROM (
    SELECT (CASE json_extract(g.value, '\$.name') WHEN '{anon_group}' THEN ''
            ELSE json_extract(g.value, '\$.name') END) || '{' ||
           (SELECT group_concat(name, ',') FROM (SELECT name FROM perf_events($F)
             WHERE idx >= json_extract(g.value, '\$.leader_idx')
               AND idx < json_extract(g.value, '\$.leader_idx') + json_extract(g.value, '\$.nr_members')
             ORDER BY idx)) || '}'
    FROM f, json_each(f.value) g
    WHERE f.name = 'group_desc' AND json_extract(g.value, '\$.nr_members') > 1 ORDER BY g.key)
UNION ALL SELECT 'sample_time_first', printf('%d.%06d', json_extract(value, '\$.first') / 1000000000,
        json_extract(value, '\$.first') / 1000 % 1000000) FROM f WHERE name = 'sample_time'
UNION ALL SELECT 'sample_time_last', printf('%d.%06d', json_extract(value, '\$.last') / 1000000000,
        json_extract(value, '\$.last') / 1000 % 1000000) FROM f WHERE name = 'sample_time'
UNION ALL SELECT 'clockid_frequency', value * 1000 FROM f WHERE name = 'clockid'
UNION ALL SELECT 'sibling_sockets', j.value FROM f CROSS JOIN json_each(f.value, '\$.cores') j
    WHERE f.name = 'cpu_topology'
UNION ALL SELECT 'sibling_dies', j.value FROM f CROSS JOIN json_each(f.value, '\$.dies') j
    WHERE f.name = 'cpu_topology'
UNION ALL SELECT 'sibling_threads', j.value FROM f CROSS JOIN json_each(f.value, '\$.threads') j
    WHERE f.name = 'cpu_topology'
UNION ALL SELECT 'cpu', j.key || ': Core ID ' || json_extract(j.value, '\$.core_id') ||
        coalesce(', Die ID ' || json_extract(j.value, '\$.die_id'), '') ||
        ', Socket ID ' || json_extract(j.value, '\$.socket_id')
    FROM f CROSS JOIN json_each(f.value, '\$.cpus') j WHERE f.name = 'cpu_topology'
UNION ALL SELECT 'numa', 'node' || json_extract(j.value, '\$.node') || CASE t.s
        WHEN 0 THEN ' meminfo  : total = ' || json_extract(j.value, '\$.mem_total') ||
                    ' kB, free = ' || json_extract(j.value, '\$.mem_free') || ' kB'
        ELSE ' cpu list : ' || json_extract(j.value, '\$.cpus') END
    FROM f CROSS JOIN json_each(f.value) j CROSS JOIN (SELECT 0 AS s UNION ALL SELECT 1) t
    WHERE f.name = 'numa_topology'
UNION ALL SELECT 'hybrid', json_extract(j.value, '\$.pmu_name') || ' cpu list : ' ||
        json_extract(j.value, '\$.cpus')
    FROM f CROSS JOIN json_each(f.value) j WHERE f.name = 'hybrid_topology'
UNION ALL SELECT 'mem_node', json_extract(j.value, '\$.node') || ' ' || json_extract(j.value, '\$.set')
    FROM f CROSS JOIN json_each(f.value, '\$.nodes') j WHERE f.name = 'mem_topology'
UNION ALL SELECT 'bpf_prog_info', json_extract(j.value, '\$.id')
    FROM f CROSS JOIN json_each(f.value) j WHERE f.name = 'bpf_prog_info'
UNION ALL SELECT 'missing', (SELECT group_concat(upper(k.name), ' ') FROM
        (SELECT name FROM known WHERE name NOT IN (SELECT name FROM f WHERE name IS NOT NULL)
         ORDER BY id) k)
"
}

# Picks the values of key (all lines, joined) from a key<TAB>value file.
values() {  # file key
    awk -F'\t' -v k="$2" '$1 == k { sub(/^[^\t]*\t/, ""); print }' "$1"
}

# 1 and 2: the perf oracle
for exp in "$expected"/*.tsv; do
    [ -f "$exp" ] || continue
    name=$(basename "$exp" .tsv)
    [ "$name" = SKIPPED ] && continue
    source=$(values "$exp" source)
    path=$(locate "$source")
    keys=$(grep -v '^#' "$exp" | cut -f1 | grep -vx source | sort -u)
    if [ ! -f "$path" ]; then
        case $source in
        corpus:*)
            echo "ok - $name: $(wc -w <<<"$keys") header values, the set of them, and build-ids as perf prints them # SKIP input absent: $path" ;;
        *) echo "not ok - $name: file of $source not found at $path" ;;
        esac
        continue
    fi
    if ! ours "$path" >"$tmp/ours" 2>"$tmp/err"; then
        echo "not ok - $name: perf_features fails: $(head -c 400 "$tmp/err")"
        continue
    fi
    for key in $keys; do
        want=$(values "$exp" "$key")
        got=$(values "$tmp/ours" "$key")
        if [ "$want" = "$got" ]; then
            echo "ok - $name: $key"
        else
            echo "not ok - $name: $key: perf prints [$want], perf_features gives [$got]"
        fi
    done
    # Our values perf prints no line for: none (a pipe, where perf lists no
    # missing features, has only this check for it).  "missing" is compared
    # above where perf prints it; the keys perf did not really read are left
    # out on both sides.
    left_out=" missing $(sed -n 's/^# not compared: \([^:]*\):.*/\1/p' "$exp" | tr '\n' ' ') "
    extra=$(cut -f1 "$tmp/ours" | sort -u | comm -13 <(printf '%s\n' $keys) - |
        while read -r k; do case $left_out in *" $k "*) ;; *) printf '%s ' "$k" ;; esac; done)
    if [ -z "$extra" ]; then
        echo "ok - $name: no header value perf does not print"
    else
        echo "not ok - $name: perf_features has values perf prints no line for: $extra"
    fi

    ids=$expected/$name.buildids
    [ -f "$ids" ] || continue
    if ! "$sqlrun" "SELECT build_id || ' ' || filename FROM
            (SELECT DISTINCT build_id, filename FROM perf_build_ids($(sql_quote "$path")))" \
            2>"$tmp/err" | sort -u >"$tmp/ids"; then
        echo "not ok - $name: perf_build_ids fails: $(head -c 400 "$tmp/err")"
        continue
    fi
    if [ -s "$tmp/err" ]; then
        echo "not ok - $name: perf_build_ids fails: $(head -c 400 "$tmp/err")"
        continue
    fi
    # the first line says how to compare and with what (buildids_expect.py);
    # a line with no id (spaces, then the name): perf knows the DSO but no
    # build-id for it: nothing to find
    how=$(sed -n '1s/^# //p' "$ids")
    sed 1d "$ids" | grep -v '^ ' | sort -u >"$tmp/perf_ids"
    case $how in
    exact:*)
        if cmp -s "$tmp/perf_ids" "$tmp/ids"; then
            echo "ok - $name: build-ids equal ${how#exact: }"
        else
            echo "not ok - $name: build-ids differ from ${how#exact: }: $(diff "$tmp/perf_ids" "$tmp/ids" | head -5 | tr '\n' ' ')"
        fi ;;
    subset:*)
        missing=$(comm -23 "$tmp/perf_ids" "$tmp/ids")
        if [ -z "$missing" ]; then
            echo "ok - $name: build-ids include ${how#subset: }"
        else
            echo "not ok - $name: build-ids lack what ${how#subset: } prints: $(head -3 <<<"$missing" | tr '\n' ' ')"
        fi ;;
    *) echo "not ok - $name: $ids: its first line says neither exact nor subset" ;;
    esac
done

# 3: every feature of every file decodes
known_bad() {  # path: files a reader must refuse
    case $1 in
    */quipper/corpus/*) return 0 ;;     # fuzzer reproducers
    */invalid_perf.data) return 0 ;;    # simpleperf's deliberately invalid file
    *.corrupted.zero_size_sample-3.2) return 0 ;;   # a SAMPLE of size 0 (quipper must refuse it)
    esac
    return 1
}

if [ ! -f "$corpus/MANIFEST.tsv" ]; then
    echo "ok - corpus files: every feature decodes, perf_build_ids reads # SKIP input absent: $corpus/MANIFEST.tsv"
fi
{
    [ -f "$corpus/MANIFEST.tsv" ] && awk -F'\t' -v c="$corpus" 'NR > 1 { print c "/" $1 }' "$corpus/MANIFEST.tsv"
    ls "$root"/tests/fixtures/*.data "$root"/tests/fixtures/perf7/*.data \
        "$root"/tests/fixtures/perf7/big_endian/*.data 2>/dev/null
} >"$tmp/files"
while read -r path; do
    label=${path#"$corpus"/}
    label=${label#"$root"/}
    F=$(sql_quote "$path")
    if ! "$sqlrun" "SELECT count(*) FROM perf_features($F)" >/dev/null 2>"$tmp/err"; then
        if known_bad "$path" && grep -q '^Error: ' "$tmp/err"; then
            echo "ok - $label: refused cleanly"
        else
            echo "not ok - $label: does not open: $(head -c 300 "$tmp/err")"
        fi
        continue
    fi
    if "$sqlrun" "SELECT count(typeof(value)), count(raw) FROM perf_features($F)" >/dev/null 2>"$tmp/err"; then
        echo "ok - $label: every feature decodes"
    else
        echo "not ok - $label: a feature fails to decode: $(head -c 300 "$tmp/err")"
    fi
    if "$sqlrun" "SELECT count(*), count(build_id), count(filename) FROM perf_build_ids($F)" >/dev/null 2>"$tmp/err"; then
        echo "ok - $label: perf_build_ids reads"
    elif known_bad "$path" && grep -q '^Error: ' "$tmp/err"; then
        echo "ok - $label: perf_build_ids refuses a bad record stream cleanly"
    else
        echo "not ok - $label: perf_build_ids fails: $(head -c 300 "$tmp/err")"
    fi
done <"$tmp/files"
exit 0
