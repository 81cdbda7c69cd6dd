# Helpers shared by the tests/t_*.sh scripts.  Source it first thing, before
# any cd, relative to the script:
#   . "$(dirname "$0")/lib/common.sh"
# Each check prints one line of the protocol tests/run.sh counts:
#   ok - what
#   not ok - what: why
# The SQL helpers run $PV_SQLRUN, which each script sets or inherits.

ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1: $2"; }

# check what got want: ok when got equals a non-empty want; a failure shows
# the first 300 bytes of each.
check() {
    if [ "$2" = "$3" ] && [ -n "$3" ]; then
        echo "ok - $1"
    else
        echo "not ok - $1: got '$(head -c 300 <<<"$2")', want '$(head -c 300 <<<"$3")'"
    fi
}

# sqlrun args...: sqlrun's output, stderr included, so that an error becomes
# the "got" of a check.
sqlrun() { "$PV_SQLRUN" "$@" 2>&1; }

# sql_quote text: the text as an SQL string literal, quotes doubled.
sql_quote() { printf "'%s'" "${1//\'/\'\'}"; }

# oneline file: the file's first 300 bytes on one line, for a failure message.
oneline() {
    head -c 300 "$1" | tr '\n\t' '  '
}

# sqlrun_each prefix [-n NULLTEXT] query...: the queries in one sqlrun
# process (one a query is most of a sanitizer pass's time), each one's
# output, stderr included, in prefix.0, prefix.1, ...  An error or a crash
# ends the output there: that query's file holds it, the later ones are
# empty.
sqlrun_each() {
    local prefix=$1 k=0 query
    shift
    local -a options=() args=()
    if [ "${1:-}" = -n ]; then
        options=(-n "$2")
        shift 2
    fi
    for query in "$@"; do
        : >"$prefix.$k"
        args+=("$query" "SELECT '#end of query'")
        k=$((k + 1))
    done
    "$PV_SQLRUN" "${options[@]}" "${args[@]}" 2>&1 |
        awk -v prefix="$prefix" 'BEGIN { k = 0 } $0 == "#end of query" { close(prefix "." k); k++; next } { print >> (prefix "." k) }'
}

# every_nth n item...: the first item and every nth after it (items 0, n,
# 2n, ...), one a line, for mapfile -t: the same ones each run.
every_nth() {
    local n=$1 i=0 item
    shift
    for item in "$@"; do
        if (( i % n == 0 )); then printf '%s\n' "$item"; fi
        i=$((i + 1))
    done
}

# twin_inputs what: sets the array files to every fixture (every other one
# under the sanitizers) and, in the plain flavour, every file of the shared
# corpus, whose absence is a counted skip naming what.  For the twin
# scripts that compare a shortcut with its slow path over all of them.
twin_inputs() {
    local what=$1 all=() f
    for f in tests/fixtures/*.data tests/fixtures/*/*.data tests/fixtures/*/big_endian/*.data \
             tests/fixtures/threads_*dir; do
        [ -e "$f" ] && all+=("$f")
    done
    if [[ $PV_BUILD == */san ]]; then
        # so that make test stays within its 15 minutes
        mapfile -t files < <(every_nth 2 "${all[@]}")
        echo "# sanitized flavour: the corpus twins are the plain flavour's"
        return
    fi
    files=("${all[@]}")
    local corpus=${PV_SHARED:-$PV_ROOT/../shared}/corpus
    if [ -f "$corpus/MANIFEST.tsv" ]; then
        mapfile -t -O "${#files[@]}" files < <(tail -n +2 "$corpus/MANIFEST.tsv" | cut -f1 |
                                               sed "s|^|$corpus/|")
    else
        echo "ok - $what over the shared corpus # SKIP input absent: $corpus/MANIFEST.tsv"
    fi
}
