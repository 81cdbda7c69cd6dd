#!/usr/bin/env bash
# plain-only: perfsql runs the sqlite3 shell, which loads build/perfvtab.so.
# scripts/perfsql as a command-line tool: --help and -h (exit 0, every
# option, examples), --list (every ready query with the purpose and the
# parameters of its header comment), the nearest names for a mistyped query,
# option or format, every option in its short and long form, every query's
# parameters checked (unknown, missing, of the wrong type) before anything
# runs, errors on stderr before any output, and the exit status: 0 the query
# ran, 1 it did not run or failed, 2 bad usage.
#
# Env: PV_ROOT.
set -u
. "$(dirname "$0")/lib/common.sh"
: "${PV_ROOT:?}"
perfsql=$PV_ROOT/scripts/perfsql
fx=$PV_ROOT/tests/fixtures
example=$fx/example.data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset PERFVTAB
if [ ! -f "$PV_ROOT/build/perfvtab.so" ] || [ ! -f "$example" ]; then
    echo "not ok - perfsql: build/perfvtab.so or tests/fixtures/example.data is missing"
    exit 0
fi

# ps ARGS...: perfsql's stdout in $tmp/out, stderr in $tmp/err, status in $rc
ps() {
    "$perfsql" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
}

# fails_with WHAT STATUS TEXT ARGS...: perfsql ARGS exits with STATUS,
# prints nothing on stdout and TEXT on stderr
fails_with() {
    local what=$1 status=$2 text=$3
    shift 3
    ps "$@"
    if [ "$rc" = "$status" ] && [ ! -s "$tmp/out" ] && grep -qF -- "$text" "$tmp/err"; then
        ok "$what: exit $status, nothing on stdout, stderr says '$text'"
    else
        not_ok "$what" "exit $rc (want $status), stdout: '$(oneline "$tmp/out")', stderr: '$(oneline "$tmp/err")' (want '$text')"
    fi
}

# ---- --help, -h ----
for h in --help -h; do
    ps "$h"
    if [ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && grep -q '^Usage: perfsql ' "$tmp/out"; then
        ok "perfsql $h exits 0 with the usage on stdout"
    else
        not_ok "perfsql $h" "exit $rc, stderr: $(oneline "$tmp/err")"
    fi
done
missing=
for o in '-p, --param NAME=VALUE' '-m, --format FORMAT' '-s, --symbols SYMDIR' \
         '-x, --extension EXT' '-l, --list' '-h, --help'; do
    grep -qF -- "$o" "$tmp/out" || missing+=" [$o]"
done
check "perfsql --help lists every option" "${missing:-none missing}" "none missing"
examples=$(awk '/^Examples:/ { on = 1; next } on && /^  perfsql / { n++ } on && /^$/ { exit } END { print n + 0 }' "$tmp/out")
if [ "$examples" -ge 5 ]; then
    ok "perfsql --help ends its Examples with $examples example commands"
else
    not_ok "perfsql --help's Examples" "$examples example lines after 'Examples:'"
fi
if grep -q '^Exit status: 0 ' "$tmp/out"; then
    ok "perfsql --help says what the exit status means"
else
    not_ok "perfsql --help" "no 'Exit status:' paragraph"
fi

# ---- --list, -l: every query, with its header's purpose and parameters ----
for l in --list -l; do
    ps "$l"
    if [ "$rc" != 0 ] || [ -s "$tmp/err" ]; then
        not_ok "perfsql $l" "exit $rc, stderr: $(oneline "$tmp/err")"
        continue
    fi
    bad=
    for q in "$PV_ROOT"/sql/*.sql; do
        name=$(basename "$q" .sql)
        purpose=$(head -n 1 "$q" | sed "s/^-- $name\\.sql: //")
        grep -qE "^  $name +$(printf '%s' "$purpose" | sed 's/[][\.*^$/()|+?{}]/\\&/g')\$" "$tmp/out" ||
            bad+=" $name(purpose)"
        while read -r _ _ pname ptype presence text; do
            grep -qF -- "-p $pname=" "$tmp/out" || bad+=" $name(@$pname)"
        done < <(grep '^-- @param ' "$q")
    done
    nq=$(ls "$PV_ROOT"/sql/*.sql | wc -l)
    check "perfsql $l shows all $nq queries with their header's purpose and parameters" \
        "${bad:-all there}" "all there"
done
check "perfsql --list shows diff's required @base as PATH" \
    "$(grep -c -- '-p base=PATH *required: ' "$tmp/out")" 1

# ---- mistyped names ----
fails_with "a mistyped query name (overveiw)" 2 "did you mean overview?" "$example" overveiw
fails_with "a mistyped query name (flat_profle)" 2 "did you mean flat_profile?" "$example" flat_profle
fails_with "a name near no query" 2 "the ready queries: annotate " "$example" zzzz
fails_with "a mistyped long option" 2 "did you mean --format?" --fromat csv "$example" overview
fails_with "an unknown short option" 2 "unknown option '-q'" -q "$example" overview
fails_with "a mistyped format" 2 "did you mean json?" -m jsn "$example" overview
fails_with "no FILE" 2 "no FILE given"
fails_with "three arguments" 2 "too many arguments" "$example" overview extra

# ---- errors before any output, and the exit status ----
fails_with "a missing FILE (overview prints no section first)" 1 \
    "perfsql: nope.data: cannot open: No such file or directory" nope.data overview
fails_with "a FILE that is not a perf.data file" 1 "bad magic" /etc/passwd overview
fails_with "an extension that does not load (-x)" 1 "cannot load the extension '/nonexistent/perfvtab'" \
    -x /nonexistent/perfvtab "$example" overview
fails_with "a symbol directory that is not there (-s)" 1 "/nonexistent: no such directory" \
    -s /nonexistent "$example" overview
ps "$example" "SELECT nonsense FROM perf_samples(@file)"
if [ "$rc" = 1 ] && grep -q 'no such column: nonsense' "$tmp/err"; then
    ok "SQL text with an error: exit 1, the shell's error on stderr"
else
    not_ok "SQL text with an error" "exit $rc, stderr: $(oneline "$tmp/err")"
fi
ps "$fx/stat.data" flat_profile
if [ "$rc" = 0 ] && grep -q 'perf stat record' "$tmp/out"; then
    ok "a query with nothing to show: exit 0 and the note why"
else
    not_ok "flat_profile on stat.data" "exit $rc, stdout: $(oneline "$tmp/out")"
fi

# ---- every query with bad parameters ----
for q in "$PV_ROOT"/sql/*.sql; do
    name=$(basename "$q" .sql)
    fails_with "$name: an unknown parameter" 2 "no_such_parameter" -p no_such_parameter=1 "$example" "$name"
    while read -r _ _ pname ptype presence text; do
        case $ptype in
            integer) fails_with "$name: @$pname not an integer" 2 "$pname must be an integer, not 'abc'" \
                         -p "$pname=abc" "$example" "$name" ;;
            path) fails_with "$name: @$pname a file that is not there" 1 "@$pname: nope.data: cannot open" \
                      -p "$pname=nope.data" "$example" "$name" ;;
            *'|'*) fails_with "$name: @$pname not one of ${ptype//|/, }" 2 "$pname must be one of ${ptype//|/, }" \
                       -p "$pname=nonsense" "$example" "$name" ;;
            text) ;;  # any text is a text
            *) not_ok "$name: @$pname" "an unknown type '$ptype' in its header" ;;
        esac
        if [ "$presence" = required ]; then
            fails_with "$name: @$pname missing" 2 "$name needs -p $pname=" "$example" "$name"
        fi
    done < <(grep '^-- @param ' "$q")
done
fails_with "-p file=...: @file is FILE" 2 "@file is FILE" -p file=x.data "$example" overview
fails_with "-p without NAME=" 2 "wants NAME=VALUE" -p 42 "$example" overview

# ---- every option, short and long ----
# -p/--param: @pid binds (process_mappings lists only that process), in
# both forms, with --param=NAME=VALUE too
pid=$("$perfsql" -m tsv "$example" "SELECT pid FROM perf_samples(@file) LIMIT 1" 2>/dev/null | tail -n 1)
for form in "-p pid=$pid" "--param pid=$pid" "--param=pid=$pid"; do
    # shellcheck disable=SC2086
    ps -m tsv $form "$example" process_mappings
    pids=$(awk -F'\t' 'NR > 1 { print $1 }' "$tmp/out" | sort -u)
    check "$form binds @pid: process_mappings lists only that process" "$rc $pids" "0 $pid"
done
# text without quotes, and quoted: main's callees are outer (workload.c)
for v in "sym=main" "sym='main'"; do
    ps -m tsv -s "$fx/symbols" -p "$v" "$example" callers_callees
    check "-p $v: @sym is the text main (its callee is outer)" \
        "$rc $(awk -F'\t' '$1 == "callee" { print $2 }' "$tmp/out" | sort -u | tr '\n' ' ')" "0 outer "
done
# -m/--format/--mode: each format, and what marks its output
while read -r format mark; do
    for o in -m --format --mode; do
        ps "$o" "$format" "$example" "SELECT 1 AS one, 'a,b' AS two"
        if [ "$rc" = 0 ] && grep -qF -- "$mark" "$tmp/out"; then
            ok "$o $format: its output has '$mark'"
        else
            not_ok "$o $format" "exit $rc, output '$(oneline "$tmp/out")' has no '$mark' $(oneline "$tmp/err")"
        fi
    done
done <<'EOF'
column one  two
table +-----+-----+
box ┌─────┬─────┐
markdown |-----|-----|
csv 1,"a,b"
tsv 1	a,b
tabs 1	a,b
json [{"one":1,"two":"a,b"}]
line one = 1
list 1|a,b
html <TD>a,b</TD>
insert INSERT INTO "table"(one,two) VALUES(1,'a,b');
quote 1,'a,b'
EOF
ps -m ascii "$example" "SELECT 1 AS one, 2 AS two"
check "-m ascii: fields apart by the unit separator" "$rc $(tr '\037\036' ',;' <"$tmp/out")" "0 one,two;1,2;"
# columns stay unwrapped in column mode (a long cmdline is one line)
ps "$example" "SELECT printf('%.200c', 'x') AS wide"
check "column mode does not wrap a 200-character value" "$(sed -n 3p "$tmp/out" | tr -d ' ' | wc -c)" 201
# -s/--symbols: the fixtures' build-id directory names the workload's functions
for o in -s --symbols; do
    ps -m tsv "$o" "$fx/symbols" "$example" \
        "SELECT count(*) FROM perf_samples(@file) WHERE dso GLOB '*/workload' AND sym IS NOT NULL"
    named=$(tail -n 1 "$tmp/out")
    if [ "$rc" = 0 ] && [ "${named:-0}" -gt 0 ]; then
        ok "$o SYMDIR: $named of the workload's samples named from the fixtures' symbols"
    else
        not_ok "$o SYMDIR" "exit $rc, named $named: $(oneline "$tmp/err")"
    fi
done
ps -m tsv "$example" "SELECT count(*) FROM perf_samples(@file) WHERE dso GLOB '*/workload' AND sym IS NOT NULL"
check "without -s, the workload's functions have no names (the binary is not at its path)" \
    "$(tail -n 1 "$tmp/out")" 0
# -x/--extension, and $PERFVTAB
for o in -x --extension; do
    ps "$o" "$PV_ROOT/build/perfvtab" -m tsv "$example" "SELECT count(*) FROM perf_samples(@file)"
    check "$o EXT loads that extension" "$rc $(tail -n 1 "$tmp/out")" "0 $(wc -l <"$PV_ROOT/tests/expected/perf_oracle/example/samples.tsv")"
done
PERFVTAB=/nonexistent/perfvtab ps "$example" overview
check "\$PERFVTAB names the extension (one that is not there fails)" "$rc $(grep -c '/nonexistent/perfvtab' "$tmp/err")" "1 1"
# --: what follows is FILE and QUERY
ps -m tsv -- "$example" "SELECT count(*) FROM perf_events(@file)"
check "-- ends the options" "$rc $(tail -n 1 "$tmp/out")" "0 1"
# a .sql file by path, and SQL text
echo "SELECT count(*) AS events FROM perf_events(@file);" >"$tmp/mine.sql"
ps -m tsv "$example" "$tmp/mine.sql"
check "QUERY as the path of a .sql file" "$rc $(tail -n 1 "$tmp/out")" "0 1"
# without QUERY, the SQL read from stdin
out=$(echo "SELECT count(*) FROM perf_events(@file);" | "$perfsql" -m tsv "$example" 2>&1)
check "without QUERY: the SQL read from stdin, @file set" "$(tail -n 1 <<<"$out")" 1
# a pattern as FILE: every file it matches
mkdir "$tmp/runs"
cp "$fx/fp.data" "$example" "$tmp/runs/"
ps -m tsv "$tmp/runs/*.data" "SELECT count(DISTINCT path) FROM perf_samples(@file)"
check "FILE as a pattern reads each file it matches" "$rc $(tail -n 1 "$tmp/out")" "0 2"
# at a terminal (script(1) gives it one), an error does not end the session;
# from a pipe it does, with exit 1
printf 'SELECT nonsense;\nSELECT 40 + 2 AS answer;\n.quit\n' >"$tmp/session.sql"
if command -v script >/dev/null 2>&1; then
    script -qec "$perfsql -m tsv $example" /dev/null <"$tmp/session.sql" >"$tmp/out" 2>&1
    if grep -q '^42' "$tmp/out" && grep -q 'no such column: nonsense' "$tmp/out"; then
        ok "interactive at a terminal: the session goes on after an error"
    else
        not_ok "interactive at a terminal" "$(oneline "$tmp/out")"
    fi
else
    ok "interactive at a terminal # SKIP script(1) is not installed (util-linux)"
fi
"$perfsql" -m tsv "$example" <"$tmp/session.sql" >"$tmp/out" 2>"$tmp/err"
check "SQL from a pipe stops at the first error, exit 1" "$? $(grep -c '^42' "$tmp/out")" "1 0"
# through a symbolic link to the clone, a ready query is still checked
ln -s "$PV_ROOT" "$tmp/link"
perfsql=$tmp/link/scripts/perfsql fails_with "a clone reached through a symlink: an unknown parameter" 2 \
    "overview takes no parameter" -p nope=1 "$example" overview
# FILE '-': the recording on stdin, read once (the checks that open FILE in a
# process of their own skip it), every scan of a ready query from the spool
"$perfsql" -m tsv "$example" flat_profile >"$tmp/want" 2>&1
"$perfsql" -m tsv - flat_profile <"$example" >"$tmp/out" 2>&1
check "FILE '-': flat_profile of the recording on stdin equals the file's" \
    "$? $(md5sum <"$tmp/out")" "0 $(md5sum <"$tmp/want")"
"$perfsql" -m tsv "$example" overview >"$tmp/want" 2>&1
cat "$example" | "$perfsql" -m tsv - overview >"$tmp/out" 2>&1
# the same but for the path ('-') and the stream's info row (stream_spooled)
check "FILE '-' through a shell pipe: overview equals the file's" \
    "$? $(sed 's/^-\t/PATH\t/; s/ (1 info rows in perf_diagnostics)$//' "$tmp/out" | md5sum)" \
    "0 $(sed "s|^$example\t|PATH\t|" "$tmp/want" | md5sum)"
fails_with "FILE '-' without QUERY (stdin carries the recording, not SQL)" 2 "is a stream: give a QUERY" - </dev/null
