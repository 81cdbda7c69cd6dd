#!/usr/bin/env bash
# Perf oracle: compares the records the extension returns for each fixture
# and corpus file (samples, their fixed fields alone, mmaps, comms, record
# counts: 5 checks a file) with what Linux perf 6.1 printed for it
# (tests/expected/perf_oracle/<name>/, made by tests/gen/perf_oracle.sh from
# `perf script -D` and `perf report --stats`).  Header features and
# build-ids are tests/t_features.sh's.
#
# Env: PV_ROOT (repo root), PV_SHARED (../shared, holds corpus/), PV_SQLRUN
# (runs one SQL statement, prints rows tab-separated, NULL as an empty cell).
# Prints "ok - <file> <what>" / "not ok - <file> <what>: <reason>" per check
# and one "# <source>: N files, M checks" line per source.
#
# Notes on the comparisons:
#  - samples: each sample's time, pid, tid, comm (the thread's name at the
#    sample, as perf names the sample's thread; NULL where perf has only its
#    ":<tid>" placeholder), cpu (where the event samples it), ip, period and
#    callchain, in file order (tests/oracle/perf_expect.py says how each is read
#    from perf's output); comm is read first, so that the rest comes from
#    the decoded sample, and "samples' fixed fields alone" reads the fixed
#    fields without comm or callchain (one word each, where the event's
#    samples hold it).
#  - mmaps and comms: with the time and cpu of their sample_id trailer.
#  - callchain is passed through json() (minified) so only the JSON value,
#    not its spacing, is compared.
#  - stats: every name perf lists must be in perf_records with the same
#    count.  perf_records may have extra names only for record types perf 6.1
#    does not know (and so never counts, e.g. simpleperf's own records); an
#    extra name perf knows means perf saw none of it and we did: a failure.
set -u
. "$(dirname "$0")/lib/common.sh"
: "${PV_ROOT:?}" "${PV_SHARED:?}" "${PV_SQLRUN:?}"
exp_root=$PV_ROOT/tests/expected/perf_oracle
corpus=$PV_SHARED/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Record names perf 6.1 knows (its --stats counts every record of these).
PERF_KNOWN=" MMAP LOST COMM EXIT THROTTLE UNTHROTTLE FORK READ SAMPLE MMAP2 AUX
ITRACE_START LOST_SAMPLES SWITCH SWITCH_CPU_WIDE NAMESPACES KSYMBOL BPF_EVENT
CGROUP TEXT_POKE AUX_OUTPUT_HW_ID HEADER_ATTR HEADER_EVENT_TYPE
HEADER_TRACING_DATA HEADER_BUILD_ID FINISHED_ROUND ID_INDEX AUXTRACE_INFO
AUXTRACE AUXTRACE_ERROR THREAD_MAP CPU_MAP STAT_CONFIG STAT STAT_ROUND
EVENT_UPDATE TIME_CONV HEADER_FEATURE COMPRESSED FINISHED_INIT "

declare -A nfiles=() nchecks=()
order=()

# run_sql <out> <sql>: returns 0 and fills <out>, or 1 with the error in $tmp/err
run_sql() {
    timeout 120 "$PV_SQLRUN" "$2" >"$1" 2>"$tmp/err"
}

report_diff() {  # label what expected actual
    local label=$1 what=$2 e=$3 a=$4
    local ne na first
    ne=$(wc -l <"$e")
    na=$(wc -l <"$a")
    first=$(diff "$e" "$a" | awk '/^[0-9]/{print $1; exit}')
    local line=${first%%[acd,]*}
    echo "not ok - $label $what: differs from perf (expected $ne rows, got $na; first difference at line ${line:-?}: expected '$(sed -n "${line:-1}p" "$e" | cut -c1-200)' got '$(sed -n "${line:-1}p" "$a" | cut -c1-200)')"
    diff "$e" "$a" | head -n 8 | sed 's/^/    /'
}

check_exact() {  # label what expected sql
    local label=$1 what=$2 e=$3 sql=$4
    if ! run_sql "$tmp/act" "$sql"; then
        echo "not ok - $label $what: SQL error: $(head -c 300 "$tmp/err" | tr '\n' ' ')"
        return
    fi
    if cmp -s "$e" "$tmp/act"; then
        echo "ok - $label $what"
    else
        report_diff "$label" "$what" "$e" "$tmp/act"
    fi
}

check_stats() {  # label expected sql
    local label=$1 e=$2 sql=$3
    if ! run_sql "$tmp/act" "$sql"; then
        echo "not ok - $label stats: SQL error: $(head -c 300 "$tmp/err" | tr '\n' ' ')"
        return
    fi
    local res
    res=$(awk -F'\t' -v known="$PERF_KNOWN" '
        BEGIN { gsub(/\n/, " ", known); known = " " known " " }
        FNR == NR { want[$1] = $2; next }
        {
            got[$1] = $2
            if ($1 in want) {
                if (want[$1] != $2) bad = bad sprintf("%s: perf %s, ours %s; ", $1, want[$1], $2)
            } else if (index(known, " " $1 " ")) {
                bad = bad sprintf("%s: perf 0, ours %s; ", $1, $2)
            }
        }
        END {
            for (k in want) if (!(k in got)) bad = bad sprintf("%s: perf %s, ours 0; ", k, want[k])
            printf "%s", bad
        }' "$e" "$tmp/act")
    if [ -z "$res" ]; then
        echo "ok - $label stats"
    else
        echo "not ok - $label stats: record counts differ from perf report --stats: $res"
    fi
}

for dir in "$exp_root"/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    [ -f "$dir/meta.tsv" ] || continue
    src=$(awk -F'\t' '$1 == "source" { print $2 }' "$dir/meta.tsv")
    case $src in
        fixture:*)
            file=$PV_ROOT/tests/fixtures/${src#fixture:}
            group=fixtures
            ;;
        corpus:*)
            rel=${src#corpus:}
            file=$corpus/$rel
            # the copy kept in the repository, where ../shared is absent
            [ -f "$file" ] || [ ! -f "$PV_ROOT/tests/corpus/$rel" ] || file=$PV_ROOT/tests/corpus/$rel
            group="corpus ${rel%%/*}"
            ;;
        *)
            echo "not ok - $name meta: unknown source '$src'"
            continue
            ;;
    esac
    if [ -z "${nfiles[$group]+x}" ]; then
        order+=("$group")
        nfiles[$group]=0
        nchecks[$group]=0
    fi
    if [ ! -f "$file" ]; then
        case $src in
        corpus:*) echo "ok - $name: samples, samples' fixed fields, mmaps, comms, stats as perf (5 checks) # SKIP input absent: $file" ;;
        *) echo "not ok - $name open: $file is missing" ;;
        esac
        continue
    fi
    nfiles[$group]=$((nfiles[$group] + 1))
    f=$(sql_quote "$file")

    # comm first: reading it decodes the sample, and the columns after it
    # are read from the decoded sample; alone, the fixed fields are read
    # one word each from where the event's samples hold them
    awk -F'\t' -v OFS='\t' '{ print $4, $1, $2, $3, $5, $6, $7, $8 }' "$dir/samples.tsv" >"$tmp/samples.tsv"
    check_exact "$name" samples "$tmp/samples.tsv" \
        "SELECT comm, time, pid, tid, cpu, ip, period, json(callchain) FROM perf_samples($f) ORDER BY record"
    cut -f1-3,5-7 "$dir/samples.tsv" >"$tmp/fixed.tsv"
    check_exact "$name" "samples' fixed fields alone" "$tmp/fixed.tsv" \
        "SELECT time, pid, tid, cpu, ip, period FROM perf_samples($f) ORDER BY record"
    check_exact "$name" mmaps "$dir/mmaps.tsv" \
        "SELECT pid, tid, start, len, pgoff, filename, time, cpu FROM perf_mmaps($f) ORDER BY record"
    check_exact "$name" comms "$dir/comms.tsv" \
        "SELECT pid, tid, comm, time, cpu FROM perf_comms($f) ORDER BY record"
    check_stats "$name" "$dir/stats.tsv" \
        "SELECT name, count(*) FROM perf_records($f) GROUP BY name ORDER BY name"
    nchecks[$group]=$((nchecks[$group] + 5))
done

for g in "${order[@]}"; do
    echo "# $g: ${nfiles[$g]} files, ${nchecks[$g]} checks"
done
