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
