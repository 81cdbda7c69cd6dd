#!/usr/bin/env bash
# One recording in every layout the project can write or perf can turn it
# into gives the same rows: file mode; pipe mode, with the file's features
# (tests/tools/file_to_pipe.py); a stream read from stdin (perf_samples('-'))
# of the file and of the pipe, redirected and through a shell pipe;
# COMPRESSED and COMPRESSED2 containers (tests/tools/make_variants);
# big-endian copies of the file, of the pipe and of the compressed file
# (tests/tools/perf_to_big_endian.py); and perf's own pipe (perf inject -o -)
# of the files and of a perf.data directory (perf record --threads).
#
# The reference is the recording read as the file it is.  Every table that
# holds the records' content is compared, without the columns that name a
# place in the file (record, file_offset, callchains' sample).  perf inject
# writes the features of the machine it runs on (its kernel, no build-ids),
# so its pipes are compared on the columns that do not name symbols; the
# big-endian copies lack the two features the swapping tool drops.
#
# Env: PV_ROOT, PV_SHARED, PV_BUILD, PV_SQLRUN.
. "$(dirname "$0")/lib/common.sh"
set -u
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
PV_SQLRUN=${PV_SQLRUN:-$PV_BUILD/sqlrun}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixtures=$PV_ROOT/tests/fixtures
make_variants=$PV_BUILD/tools/make_variants
to_big_endian="python3 $PV_ROOT/tests/tools/perf_to_big_endian.py"

record_tables="perf_samples perf_callchains perf_mmaps perf_comms perf_tasks perf_profile perf_switches perf_events perf_lost"
header_tables="perf_features perf_build_ids"

# The columns of a table that do not name a place in the file.
columns_of() {
    "$PV_SQLRUN" "SELECT group_concat('\"' || name || '\"', ', ') FROM pragma_table_info('$1')
                  WHERE name NOT IN ('record', 'file_offset', 'sample', 'offset', 'size', 'data')"
}
declare -A columns
for table in $record_tables $header_tables; do
    columns[$table]=$(columns_of "$table")
done
# the tables and sample columns that do not depend on naming symbols
unsymbolized_tables="perf_samples perf_mmaps perf_comms perf_tasks perf_switches perf_events perf_lost"
sample_columns=${columns[perf_samples]}
unsymbolized_sample_columns=$("$PV_SQLRUN" "SELECT group_concat('\"' || name || '\"', ', ') FROM pragma_table_info('perf_samples')
    WHERE name NOT IN ('record', 'file_offset', 'sym', 'sym_offset', 'sym_status', 'srcfile', 'srcline')")

# queries_for tables...: one query a table, then the kernel records' fields
# (perf's own records differ between layouts: a pipe has HEADER_ATTR, a
# compressed file its containers).
queries_for() {
    local table
    for table in "$@"; do
        echo "SELECT ${columns[$table]} FROM $table(@)"
    done
    echo "SELECT type, misc, size, time, pid, tid, cpu, id, fields FROM perf_records(@) WHERE type < 64"
}

# read_layout out_prefix path|- tables...: every query of the tables on one
# connection, out_prefix.0, .1, ...  With '-' the bytes come on stdin and
# every query after the first reads what the first spooled.
read_layout() {
    local prefix=$1 path=$2 query
    shift 2
    local -a queries=()
    while IFS= read -r query; do
        queries+=("${query//@/$(sql_quote "$path")}")
    done < <(queries_for "$@")
    sqlrun_each "$prefix" "${queries[@]}"
}

# compare what reference_prefix got_prefix tables...
compare() {
    local what=$1 want=$2 got=$3 k=0 table failed=
    shift 3
    for table in "$@" perf_records; do
        if [ "$table" = perf_profile ]; then  # its rows come in no defined order
            sort -o "$want.$k" "$want.$k"
            sort -o "$got.$k" "$got.$k"
        fi
        if ! cmp -s "$want.$k" "$got.$k"; then
            failed+=" $table ($(diff "$want.$k" "$got.$k" | head -3 | cut -c1-160 | tr '\n\t' '  '))"
        elif [ ! -s "$want.$k" ] && [ "$table" = perf_samples ]; then
            failed+=" $table (no rows in the reference)"
        fi
        k=$((k + 1))
    done
    if [ -n "$failed" ]; then
        not_ok "$what" "differs in$failed"
    else
        ok "$what ($(cat "$want".* | wc -l) rows in $(($# + 1)) tables)"
    fi
}

# make what command...: a variant made by a tool; a failure is a failed check.
make_variant() {
    local what=$1
    shift
    if ! "$@" >"$tmp/tool.out" 2>&1; then
        not_ok "make $what" "$(oneline "$tmp/tool.out")"
        return 1
    fi
}

perf_pipe() {  # in out: perf's own rewrite of a recording as a pipe stream
    timeout 60 perf inject -i "$1" -o - >"$2" 2>"$tmp/perf.err"
}

for base in fp multi datasrc; do
    file=$fixtures/$base.data
    ref=$tmp/$base.ref
    read_layout "$ref" "$file" $record_tables $header_tables

    # layouts that keep the file's header and features
    declare -A file_layouts=()
    make_variant "$base COMPRESSED" "$make_variants" compress "$file" "$tmp/$base.z81" &&
        file_layouts[COMPRESSED]=$tmp/$base.z81
    make_variant "$base COMPRESSED2" "$make_variants" twin "$file" 1 4099 83 "$tmp/$base.plain" "$tmp/$base.z83" &&
        file_layouts[COMPRESSED2]=$tmp/$base.z83
    make_variant "$base big-endian" $to_big_endian "$file" "$tmp/$base.be" &&
        file_layouts[big-endian]=$tmp/$base.be
    [ -n "${file_layouts[COMPRESSED]:-}" ] &&
        make_variant "$base big-endian COMPRESSED" $to_big_endian "$tmp/$base.z81" "$tmp/$base.bez81" &&
        file_layouts[big-endian COMPRESSED]=$tmp/$base.bez81
    for layout in "${!file_layouts[@]}"; do
        path=${file_layouts[$layout]}
        read_layout "$tmp/got" "$path" $record_tables $header_tables
        # big-endian features drop the two perf's tool cannot swap
        tables="$record_tables $header_tables"
        case $layout in big-endian*) tables="$record_tables perf_build_ids" ;; esac
        if [ "$tables" != "$record_tables $header_tables" ]; then
            read_layout "$tmp/want" "$file" $tables
            read_layout "$tmp/got" "$path" $tables
            compare "$base.data as $layout: the file's rows" "$tmp/want" "$tmp/got" $tables
        else
            compare "$base.data as $layout: the file's rows" "$ref" "$tmp/got" $tables
        fi
    done

    # the file itself as a stream on stdin
    read_layout "$tmp/got" - $record_tables $header_tables <"$file"
    compare "$base.data streamed on stdin: the file's rows, every query after the first from the spool" \
        "$ref" "$tmp/got" $record_tables $header_tables

    # pipe mode with the file's features (tests/tools/file_to_pipe.py): every
    # table, as a file, a stream, through a shell pipe and big-endian
    if make_variant "$base as a pipe" python3 "$PV_ROOT/tests/tools/file_to_pipe.py" "$file" "$tmp/$base.pipe"; then
        read_layout "$tmp/got" "$tmp/$base.pipe" $record_tables $header_tables
        compare "$base.data as a pipe-mode file: the file's rows, features too" "$ref" "$tmp/got" $record_tables $header_tables
        read_layout "$tmp/got" - $record_tables $header_tables <"$tmp/$base.pipe"
        compare "$base.data as a pipe stream on stdin: the file's rows" "$ref" "$tmp/got" $record_tables $header_tables
        read_layout "$tmp/got" - $record_tables $header_tables < <(cat "$tmp/$base.pipe")
        compare "$base.data as a pipe stream through a shell pipe: the file's rows" "$ref" "$tmp/got" $record_tables $header_tables
        read_layout "$tmp/want" "$file" $record_tables perf_build_ids
        if make_variant "$base big-endian pipe" $to_big_endian "$tmp/$base.pipe" "$tmp/$base.bepipe"; then
            read_layout "$tmp/got" "$tmp/$base.bepipe" $record_tables perf_build_ids
            compare "$base.data as a big-endian pipe: the file's rows" "$tmp/want" "$tmp/got" $record_tables perf_build_ids
            read_layout "$tmp/got" - $record_tables perf_build_ids <"$tmp/$base.bepipe"
            compare "$base.data as a big-endian pipe stream on stdin: the file's rows" "$tmp/want" "$tmp/got" $record_tables perf_build_ids
        fi
    fi

    # perf's own pipe (perf inject -o -) carries the features of the machine
    # perf inject ran on, not the recording's: its kernel is this machine's,
    # so kernel frames are named differently.  The records themselves match.
    if ! perf_pipe "$file" "$tmp/$base.perfpipe"; then
        not_ok "perf inject -o - of $base.data" "$(oneline "$tmp/perf.err")"
        continue
    fi
    columns[perf_samples]=$unsymbolized_sample_columns
    read_layout "$tmp/want" "$file" $unsymbolized_tables
    read_layout "$tmp/got" - $unsymbolized_tables <"$tmp/$base.perfpipe"
    compare "$base.data as perf inject's pipe stream on stdin: the file's records" "$tmp/want" "$tmp/got" $unsymbolized_tables
    columns[perf_samples]=$sample_columns
done

# A perf.data directory (data + data.N) against perf's pipe of it (perf
# inject's features: the records only, as above).
dir=$fixtures/threads_dir
columns[perf_samples]=$unsymbolized_sample_columns
read_layout "$tmp/want" "$dir" $unsymbolized_tables
if perf_pipe "$dir" "$tmp/dir.pipe"; then
    read_layout "$tmp/got" "$tmp/dir.pipe" $unsymbolized_tables
    compare "threads_dir (a directory) as perf inject's pipe-mode file: the directory's records" "$tmp/want" "$tmp/got" $unsymbolized_tables
    read_layout "$tmp/got" - $unsymbolized_tables <"$tmp/dir.pipe"
    compare "threads_dir as perf inject's pipe stream on stdin: the directory's records" "$tmp/want" "$tmp/got" $unsymbolized_tables
else
    not_ok "perf inject -o - of threads_dir" "$(oneline "$tmp/perf.err")"
fi
