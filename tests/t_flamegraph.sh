#!/usr/bin/env bash
# long-running: tests/run.sh starts it first
# perf_folded and perf_flamegraph through SQL (both builds): argument
# handling and errors, then the call stacks of the fixtures.
#
# Expected stacks come from perf: tests/expected/perf_oracle/<f>/samples.tsv holds each
# sample's callchain as `perf script -D` printed it (tests/gen/perf_oracle.sh);
# tests/tools/flamegraph_check.py folds them root first.  perf_folded over
# perf_samples.callchain must give the same stacks and counts, and the SVG
# perf_flamegraph draws from them must parse as XML and have, for every stack
# prefix wide enough to draw, a frame whose title, percentage and width are
# those of the prefix (the check is geometric: see flamegraph_check.py).
# When the build has perf_callchains (symbols), sql/folded_stacks.sql is
# compared with the stacks of `perf script -F comm,ip,sym,dso` as well.
#
# Env: PV_ROOT, PV_SQLRUN, PV_BUILD.
set -u
. "$(dirname "$0")/lib/common.sh"
: "${PV_ROOT:?}" "${PV_SQLRUN:?}" "${PV_BUILD:?}"
check=$PV_ROOT/tests/tools/flamegraph_check.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sql() {  # out-file, SQL...
    local out=$1
    shift
    "$PV_SQLRUN" "$@" >"$out" 2>"$tmp/err"
}

expect_error() {  # what, expected message part, SQL
    if sql "$tmp/out" "$3"; then
        echo "not ok - $1: no error, got $(oneline "$tmp/out")"
    elif grep -qF -- "$2" "$tmp/err"; then
        echo "ok - $1"
    else
        echo "not ok - $1: error was $(oneline "$tmp/err"), want '$2'"
    fi
}

# ok when the file holds every string (fixed strings, not patterns)
file_has() {  # what, file, string...
    local what=$1 file=$2 want
    shift 2
    for want in "$@"; do
        if ! grep -qF -- "$want" "$file"; then
            echo "not ok - $what: no '$want' in $(oneline "$file" | cut -c1-200) $(oneline "$tmp/err")"
            return
        fi
    done
    echo "ok - $what"
}

# ---- arguments and errors ----
rows="(VALUES ('main;foo;bar', 3), ('main;foo', 1), ('main;baz', 4), ('x;y', 2),
              (NULL, 5), ('main;nothing', NULL), ('x;<&>', 2))"
sql "$tmp/small.svg" "SELECT perf_flamegraph(column1, column2, 'small & <test>') FROM $rows"
printf 'main;foo;bar\t3\nmain;foo\t1\nmain;baz\t4\nx;y\t2\nx;<&>\t2\n' >"$tmp/small.folded"
if [ -s "$tmp/small.svg" ]; then
    python3 "$check" svg "small" "$tmp/small.folded" "$tmp/small.svg"
    if grep -q '>small &amp; &lt;test&gt;</text>' "$tmp/small.svg" &&
       grep -q '<title>&lt;&amp;&gt; (2 samples, 16.67%)</title>' "$tmp/small.svg"; then
        echo "ok - the title argument and frame names are XML-escaped"
    else
        echo "not ok - title or frame names not escaped as expected"
    fi
else
    echo "not ok - perf_flamegraph on 7 rows: $(oneline "$tmp/err")"
fi
if sql "$tmp/out" "SELECT perf_flamegraph(column1) FROM (VALUES ('a;b'), ('a;b'), ('a'))" &&
   grep -q '<title>all (3 samples, 100.00%)</title>' "$tmp/out" &&
   grep -q '<title>b (2 samples, 66.67%)</title>' "$tmp/out"; then
    echo "ok - perf_flamegraph(stack) counts each row once"
else
    echo "not ok - perf_flamegraph(stack): $(oneline "$tmp/err")"
fi
if sql "$tmp/out" "SELECT perf_flamegraph(column1, column2, NULL, 'ns') FROM (VALUES ('a', 1500.0))" &&
   grep -q '<title>a (1500 ns, 100.00%)</title>' "$tmp/out" &&
   grep -q '>Flame Graph</text>' "$tmp/out"; then
    echo "ok - the unit argument names the weights; an integral real weight is taken; default title"
else
    echo "not ok - perf_flamegraph with a unit: $(oneline "$tmp/out") $(oneline "$tmp/err")"
fi
if sql "$tmp/out" "SELECT perf_flamegraph(column1, column2) FROM (VALUES ('a', 1)) WHERE 0" &&
   grep -q 'total 0 samples: nothing to draw' "$tmp/out" && grep -q '</svg>' "$tmp/out"; then
    echo "ok - no rows: an SVG saying there is nothing to draw"
else
    echo "not ok - perf_flamegraph over no rows: $(oneline "$tmp/out") $(oneline "$tmp/err")"
fi
expect_error "a negative weight is an error naming the stack" \
    "perf_flamegraph: a weight is negative (stack 'a;b', weight -3)" \
    "SELECT perf_flamegraph('a;b', -3)"
expect_error "a text weight is an error" "perf_flamegraph: weight must be an integer" \
    "SELECT perf_flamegraph('a;b', 'many')"
expect_error "a fractional weight is an error" "perf_flamegraph: weight must be an integer" \
    "SELECT perf_flamegraph('a;b', 1.5)"
expect_error "weights past INT64_MAX in total are an error" \
    "the sum of the weights overflows a 64-bit integer" \
    "SELECT perf_flamegraph(column1, column2) FROM (VALUES ('a', 9223372036854775807), ('b', 1))"
expect_error "perf_folded: a depth that is not an integer is an error" \
    "perf_folded: depth must be an integer" "SELECT perf_folded('f', 'deep')"
if sql "$tmp/out" "SELECT perf_folded(column1, column2) FROM (VALUES ('leaf', 0), ('root', 3),
                   ('mid;x', 1), (NULL, 2), ('main', 2)) UNION ALL
                   SELECT quote(perf_folded('a', 0)) FROM (SELECT 1) WHERE 0" &&
   [ "$(tr '\n' ' ' <"$tmp/out")" = "root;main;mid:x;leaf NULL " ]; then
    echo "ok - perf_folded orders frames by depth, root first, skips NULL, ';' -> ':', NULL on no rows"
else
    echo "not ok - perf_folded: got $(oneline "$tmp/out") $(oneline "$tmp/err")"
fi

# ---- perf_frame_name: stackcollapse-perf.pl's frame names ----
if sql "$tmp/out" "SELECT quote(perf_frame_name(column1, column2, column3)) FROM (VALUES
                       ('f', '/usr/lib/libc.so.6', 1), (NULL, '/usr/lib/libc.so.6', 1),
                       (NULL, '[kernel.kallsyms]', 1), (NULL, 'noslash', 1), (NULL, NULL, -1),
                       (NULL, NULL, 4096), (NULL, NULL, NULL))" &&
   [ "$(tr '\n' ' ' <"$tmp/out")" = "'f' '[libc.so.6]' '[kernel.kallsyms]' '[noslash]' '0xffffffffffffffff' '0x1000' NULL " ]; then
    echo "ok - perf_frame_name: sym, else [base name of dso] or [dso] as perf bracketed it, else 0x<ip>"
else
    echo "not ok - perf_frame_name: got $(oneline "$tmp/out") $(oneline "$tmp/err")"
fi
# the same as the SQL expression sql/*.sql used before it, on the frames of
# fixtures (fp.data's call chains, multi.data's and dwarf.data's samples:
# kernel, user, unsymbolized)
fx=$PV_ROOT/tests/fixtures
if sql "$tmp/out" "SELECT count(*), sum(sym IS NULL), sum(perf_frame_name(sym, dso, ip) IS NOT
                       coalesce(sym, CASE WHEN dso LIKE '[%' THEN dso
                                          WHEN dso IS NOT NULL THEN '[' || substr(dso,
                                              length(rtrim(dso, replace(dso, '/', ''))) + 1) || ']' END,
                                printf('0x%x', ip)))
                   FROM (SELECT sym, dso, ip FROM perf_callchains('$fx/fp.data') UNION ALL
                         SELECT sym, dso, ip FROM perf_samples('$fx/multi.data') UNION ALL
                         SELECT sym, dso, ip FROM perf_samples('$fx/dwarf.data'))" 2>/dev/null; then
    read -r frames unsymbolized differ <<<"$(tr '|\t' '  ' <"$tmp/out")"
    if [ "${frames:-0}" -gt 0 ] && [ "${unsymbolized:-0}" -gt 0 ] && [ "$differ" = 0 ]; then
        echo "ok - perf_frame_name names $frames frames ($unsymbolized without a symbol) as the SQL expression does"
    else
        echo "not ok - perf_frame_name differs from the SQL expression: $(oneline "$tmp/out")"
    fi
else
    echo "ok - perf_frame_name against perf_callchains # SKIP this build has no perf_callchains"
fi

# ---- perf_flamegraph_diff ----
sql "$tmp/diff.svg" "SELECT perf_flamegraph_diff(column1, column2, column3) FROM (VALUES
                         ('main;x', 90, 40), ('main;y', 30, 40), ('main;z', 40, 20),
                         ('main;w', 40, NULL), ('main;gone', NULL, 7), (NULL, 5, 5))"
printf 'main;x\t90\nmain;y\t30\nmain;z\t40\nmain;w\t40\n' >"$tmp/new.folded"
printf 'main;x\t40\nmain;y\t40\nmain;z\t20\nmain;gone\t7\n' >"$tmp/base.folded"
if [ -s "$tmp/diff.svg" ]; then
    python3 "$check" diff "diff" "$tmp/new.folded" "$tmp/base.folded" "$tmp/diff.svg"
    file_has "perf_flamegraph_diff: NULL weights count 0, default title, both totals" \
        "$tmp/diff.svg" '>Differential Flame Graph</text>' 'total 200 samples, base 107 samples' \
        '1 frames only in the base not drawn'
else
    echo "not ok - perf_flamegraph_diff on 6 rows: $(oneline "$tmp/err")"
fi
sql "$tmp/out" "SELECT perf_flamegraph_diff('a', 3, 1, 'before -> after', 'ns')"
file_has "perf_flamegraph_diff takes a title and a unit" "$tmp/out" \
    '<title>a (3 ns, 100.00%; base 1 ns, 100.00%; 0.00 points, self 0.00 points)</title>' \
    '>before -&gt; after</text>'
expect_error "perf_flamegraph_diff: a negative base weight is an error naming the stack" \
    "perf_flamegraph_diff: a weight is negative (stack 'a;b', weight 1, base -3)" \
    "SELECT perf_flamegraph_diff('a;b', 1, -3)"
expect_error "perf_flamegraph_diff: a text weight is an error" \
    "perf_flamegraph_diff: weight must be an integer" "SELECT perf_flamegraph_diff('a', 1, 'x')"
expect_error "perf_flamegraph_diff: base weights past INT64_MAX in total are an error" \
    "the sum of the base weights overflows a 64-bit integer" \
    "SELECT perf_flamegraph_diff(column1, 1, column2) FROM (VALUES ('a', 9223372036854775807), ('b', 1))"

# ---- off-CPU frames: "[off-cpu]" and the frames above it are blue ----
printf 'p;[off-cpu];main;sleep\t2500000\np;main;work\t1500000\nq;[off-cpu]\t700\nq;x;y\t300\n' \
    >"$tmp/hotcold.folded"
if sql "$tmp/hotcold.svg" "SELECT perf_flamegraph(column1, column2, 'hot/cold', 'ns') FROM (VALUES
                               ('p;[off-cpu];main;sleep', 2500000), ('p;main;work', 1500000),
                               ('q;[off-cpu]', 700), ('q;x;y', 300))"; then
    python3 "$check" hotcold "hot/cold" "$tmp/hotcold.folded" "$tmp/hotcold.svg" 2500700 1500300 \
        sleep=2500000
    file_has "hot/cold: ns from 1 ms on read in ms too" "$tmp/hotcold.svg" \
        '<title>main (2500000 ns = 2.50 ms, 62.48%)</title>' '<title>[off-cpu] (700 ns, 0.02%)</title>' \
        'total 4001000 ns = 4.00 ms; off-CPU (blue) 2500700 ns = 2.50 ms, 62.50%'
else
    echo "not ok - perf_flamegraph with off-CPU frames: $(oneline "$tmp/err")"
fi

# ---- many rows: memory is per distinct prefix ----
n=1000000
case $PV_BUILD in */san) n=200000 ;; esac
start=$(date +%s)
if sql "$tmp/out" "WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k + 1 < $n)
                   SELECT perf_flamegraph('main;f' || (k % 10) || ';g' || (k % 1000), 1) FROM i" &&
   grep -q "<title>all ($n samples, 100.00%)</title>" "$tmp/out" &&
   grep -q "<title>f0 ($((n / 10)) samples, 10.00%)</title>" "$tmp/out"; then
    echo "ok - $n rows over 1000 stacks in $(( $(date +%s) - start )) s, counts right"
else
    echo "not ok - $n rows: $(oneline "$tmp/err")"
fi

# ---- the fixtures' call stacks, as perf printed them ----
for name in example fp dwarf; do
    data=$PV_ROOT/tests/fixtures/$name.data
    samples=$PV_ROOT/tests/expected/perf_oracle/$name/samples.tsv
    if [ ! -f "$data" ] || [ ! -f "$samples" ]; then
        echo "not ok - $name: fixture or tests/expected/perf_oracle/$name/samples.tsv missing"
        continue
    fi
    python3 "$check" folded "$samples" >"$tmp/$name.want"
    folded_sql="SELECT stack, count(*) FROM (
                    SELECT coalesce(perf_folded(printf('0x%x', c.value), c.key), '') AS stack
                    FROM perf_samples('$data') AS s LEFT JOIN json_each(s.callchain) AS c
                    GROUP BY s.record)
                GROUP BY stack ORDER BY stack"
    if ! sql "$tmp/$name.got" "$folded_sql"; then
        echo "not ok - $name: folding perf_samples.callchain failed: $(oneline "$tmp/err")"
        continue
    fi
    LC_ALL=C sort "$tmp/$name.want" >"$tmp/a"
    LC_ALL=C sort "$tmp/$name.got" >"$tmp/b"
    if cmp -s "$tmp/a" "$tmp/b"; then
        echo "ok - $name: perf_folded over perf_samples.callchain gives perf script's $(wc -l <"$tmp/a") stacks, $(awk -F'\t' '{ n += $2 } END { print n }' "$tmp/a") samples"
    else
        echo "not ok - $name: folded stacks differ from perf's: $(diff "$tmp/a" "$tmp/b" | grep '^[<>]' | head -n 2 | cut -c1-150 | tr '\n\t' '  ')"
    fi
    if sql "$tmp/$name.svg" "SELECT perf_flamegraph(stack, n, '$name') FROM (
                                 SELECT coalesce(perf_folded(printf('0x%x', c.value), c.key), '')
                                            AS stack, 1 AS n
                                 FROM perf_samples('$data') AS s LEFT JOIN json_each(s.callchain) AS c
                                 GROUP BY s.record)"; then
        python3 "$check" svg "$name" "$tmp/$name.want" "$tmp/$name.svg"
    else
        echo "not ok - $name: perf_flamegraph failed: $(oneline "$tmp/err")"
    fi
done

# ---- sql/folded_stacks.sql, once perf_callchains exists ----
if ! sql "$tmp/out" "SELECT 1 FROM pragma_module_list WHERE name = 'perf_callchains'" ||
   [ ! -s "$tmp/out" ]; then
    echo "# sql/folded_stacks.sql not compared with perf script: no perf_callchains in this build"
    exit 0
fi
for name in example fp; do
    data=$PV_ROOT/tests/fixtures/$name.data
    # perf script's stacks, folded as stackcollapse-perf.pl does (one event,
    # comm first, leaf last): the same naming rules as folded_stacks.sql
    perf script -i "$data" -F comm,ip,sym,dso 2>/dev/null | python3 -c '
import re, sys
stacks, comm, frames = {}, None, []
def flush():
    global comm, frames
    if comm is not None:
        s = ";".join([comm] + frames[::-1])
        stacks[s] = stacks.get(s, 0) + 1
    comm, frames = None, []
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line.strip():
        flush()
    elif not line[0].isspace():
        flush()
        comm = line.strip().replace(" ", "_").replace(";", ":")
    else:
        m = re.match(r"^\s*([0-9a-f]+) (.*) \((.*)\)$", line)
        ip, sym, dso = m.group(1), m.group(2), m.group(3)
        sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
        if sym == "[unknown]":
            if dso == "[unknown]":
                sym = "0x" + ip
            elif dso.startswith("["):
                sym = dso
            else:
                sym = "[" + dso.rsplit("/", 1)[-1] + "]"
        frames.append(sym.replace(";", ":"))
flush()
for s in sorted(stacks):
    print("%s\t%d" % (s, stacks[s]))
' >"$tmp/want" || { echo "not ok - $name: perf script failed"; continue; }
    # sqlrun binds no parameters: the file's path goes in as a literal
    if sql "$tmp/got" "$(sed "s|@file|'$data'|g; s|@event|NULL|g" "$PV_ROOT/sql/folded_stacks.sql")"; then
        LC_ALL=C sort "$tmp/want" >"$tmp/a"
        LC_ALL=C sort "$tmp/got" >"$tmp/b"
        if cmp -s "$tmp/a" "$tmp/b"; then
            echo "ok - $name: sql/folded_stacks.sql equals perf script's stacks folded ($(wc -l <"$tmp/a") stacks)"
        else
            echo "not ok - $name: sql/folded_stacks.sql differs from perf script: $(diff "$tmp/a" "$tmp/b" | grep '^[<>]' | head -n 2 | cut -c1-150 | tr '\n\t' '  ')"
        fi
    else
        echo "not ok - $name: sql/folded_stacks.sql failed: $(oneline "$tmp/err")"
    fi
done

# ---- perf_folded_stacks against its slow twin (tests/lib/folded_twins.sh) ----
# sql/folded_stacks.sql and sql/flamegraph.sql read their stacks from
# perf_folded_stacks, one walk in C; the SQL they ran before (grouping
# perf_callchains by sample, joining perf_samples) must give the same bytes
# on every fixture with samples and every file of the shared corpus, the
# flame graphs too where the file has callchains.  (Inlined frames: the
# --call-graph dwarf recordings of tests/t_frame_names.sh.)
. "$PV_ROOT/tests/lib/folded_twins.sh"
twin_files=()
for f in "$PV_ROOT"/tests/fixtures/*.data "$PV_ROOT"/tests/fixtures/*/*.data \
         "$PV_ROOT"/tests/fixtures/*/big_endian/*.data "$PV_ROOT"/tests/fixtures/threads_*dir; do
    [ -e "$f" ] && twin_files+=("$f")
done
corpus=${PV_SHARED:-$PV_ROOT/../shared}/corpus
if [[ $PV_BUILD == */san ]]; then
    # the slow twin over the corpus is the plain flavour's, so that make
    # test stays within its 15 minutes; the sanitizers take the fixtures
    echo "# sanitized flavour: the corpus twins are the plain flavour's"
elif [ -f "$corpus/MANIFEST.tsv" ]; then
    mapfile -t -O "${#twin_files[@]}" twin_files < <(tail -n +2 "$corpus/MANIFEST.tsv" | cut -f1 |
                                                     sed "s|^|$corpus/|")
else
    echo "ok - perf_folded_stacks twins over the shared corpus # SKIP input absent: $corpus/MANIFEST.tsv"
fi
# Under the sanitizers the old flame-graph query (four runs a file) is what
# costs: there the corpus files are compared on their folded stacks only,
# and the plain flavour compares their flame graphs too, so that make test
# stays within its 15 minutes.
svg_corpus=1
case $PV_BUILD in */san) svg_corpus=0 ;; esac
with_chains=0
for f in "${twin_files[@]}"; do
    has=$("$PV_SQLRUN" "SELECT count(*) > 0 FROM perf_events('$f') WHERE sample_type LIKE '%CALLCHAIN%'
                        AND EXISTS (SELECT 1 FROM perf_samples('$f'))" 2>/dev/null)
    if [ "$has" = 1 ] && [ "$svg_corpus" = 0 ] && [[ $f == "$corpus"/* ]]; then
        with_chains=$((with_chains + 1))
        folded_twins "${f#"$PV_ROOT"/}" "$f"
    elif [ "$has" = 1 ]; then
        with_chains=$((with_chains + 1))
        folded_twins "${f#"$PV_ROOT"/}" "$f" flamegraphs
    else
        folded_twins "${f#"$PV_ROOT"/}" "$f"
    fi
done
if [ "$with_chains" -ge 10 ]; then
    echo "ok - perf_folded_stacks twins: $with_chains of ${#twin_files[@]} files have callchains"
else
    echo "not ok - perf_folded_stacks twins: only $with_chains of ${#twin_files[@]} files have callchains"
fi
