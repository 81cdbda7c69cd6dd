#!/usr/bin/env bash
# perf_offcpu: the intervals threads spent off CPU, against perf.
#  1. The committed recording tests/fixtures/offcpu/sleeper.data (hotspot's
#     command; README there) of sleeper.c, which sleeps 20 x 10 ms in
#     sleep_here: 20 sleeping intervals with sleep_here on the stack, whose
#     durations sum to the time slept (bounds below); the columns agree with
#     each other and join perf_callchains / perf_samples through record.
#  2. The same file through perf at test time: every interval perf script's
#     records give (tests/oracle/offcpu_from_perf.py) is a row, to the ns,
#     with the same prev_state and stack; system.data (-a) against perf
#     sched timehist's per-thread wait time.
#  3. Live recordings made now, the same checks.
# sql/offcpu_flamegraph.sql's on+off-CPU flame graph of sleeper.data: its
# "[off-cpu]" frames (blue, and only they and the frames above them) sum to
# the complete intervals' durations and sleep_here's among them to its
# intervals', the rest to the cpu-clock samples' periods: against
# perfvtab's tables in 1, against perf script's intervals and periods in 2.
# The bounds of the sleep sum, per sleep (nanosleep of NS in sleep_here):
#   - at least NS - 100 us: the timer expires no earlier than NS after it
#     was armed, and the thread leaves the CPU right after arming it (a few
#     us of kernel code; 100 us leaves room for an interrupt in between);
#   - at most the CLOCK_MONOTONIC time the call took, which sleeper
#     measures around it (the off-CPU interval lies inside the call), plus
#     0.1%: perf's clock and CLOCK_MONOTONIC may differ by NTP's slew
#     (at most 500 ppm).
# Neither depends on the machine's speed or load: a slow wake-up makes the
# call longer too.  The timer slack (50 us) and the wake-up latency are
# inside those bounds.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
root=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fix=tests/fixtures/offcpu
# the fixtures' binaries, vdso and kernel symbols (tests/fixtures/symbols),
# for perfvtab and for perf alike
symdir=$root/tests/fixtures/symbols
syms="SELECT perf_symbol_path(NULL, $(sql_quote "$symdir"));"
tool=$root/tests/oracle/offcpu_from_perf.py

# is_fixture FILE: FILE is a committed recording, whose symbols are in
# $symdir.  Live recordings are read without it: its kallsyms is cut to the
# fixtures' addresses, and would misname others of the same kernel.
is_fixture() { [[ $1 == "$root/tests/fixtures/"* || $1 == tests/fixtures/* ]]; }

# q FILE SQL: the query's rows with @file set to FILE (and the fixtures'
# symbols for a fixture)
q() {
    local file=$1 sql=$2 paths="SELECT NULL;"
    is_fixture "$file" && paths=$syms
    sqlrun "$paths" "${sql//@file/$(sql_quote "$file")}" | tail -n +2
}

# perf_on FILE args...: perf, with the fixtures' symbols for a fixture
perf_on() {
    local file=$1
    shift
    if is_fixture "$file"; then
        perf --buildid-dir "$symdir" "$@"
    else
        perf "$@"
    fi
}

# Our intervals in offcpu_from_perf.py's "tid start end state frames" form
# (frames without a symbol, "dso+0xoffset", written [unknown] as perf prints them).
ours() {
    q "$1" "SELECT tid || ' ' || start || ' ' || \"end\" || ' ' || prev_state || ' ' ||
                   coalesce((SELECT group_concat(CASE WHEN value GLOB '*+0x*'
                                                      THEN '[unknown]' ELSE value END, ';')
                             FROM json_each(stack)), '')
            FROM perf_offcpu(@file) WHERE outside IS NULL ORDER BY start, tid"
}

# sleep_checks NAME FILE COUNT REQUESTED MEASURED
sleep_checks() {
    local name=$1 f=$2 count=$3 requested=$4 measured=$5
    local got n sum
    got=$(q "$f" "SELECT count(*) || ' ' || coalesce(sum(duration), 0) FROM perf_offcpu(@file)
                  WHERE prev_state = 'sleeping' AND stack LIKE '%\"sleep_here\"%'")
    read -r n sum <<<"$got"
    check "$name: $count sleeping intervals with sleep_here on the stack" "$n" "$count"
    local low=$((requested - count * 100000)) high=$((measured + measured / 1000))
    if [ -n "$sum" ] && [ "$sum" -ge "$low" ] 2>/dev/null && [ "$sum" -le "$high" ]; then
        ok "$name: their durations sum to $sum ns: within [$low, $high] (slept $requested ns, the calls took $measured ns)"
    else
        not_ok "$name: sum of sleep_here's durations" "got '$got', want a sum in [$low, $high]"
    fi
}

# perf_checks NAME FILE: our intervals equal those perf script's records give
perf_checks() {
    local name=$1 f=$2
    perf_on "$f" script -i "$f" --ns --show-switch-events -F tid,time,event,trace,ip,sym \
        >"$tmp/script" 2>"$tmp/script.err"
    python3 "$tool" intervals <"$tmp/script" >"$tmp/perf_intervals"
    ours "$f" >"$tmp/our_intervals"
    local n
    n=$(wc -l <"$tmp/perf_intervals")
    if [ "$n" -gt 0 ] && cmp -s "$tmp/perf_intervals" "$tmp/our_intervals"; then
        ok "$name: all $n intervals perf script's records give, to the ns, with prev_state and stack"
    else
        not_ok "$name: intervals differ from perf script's ($n)" \
            "$(diff "$tmp/perf_intervals" "$tmp/our_intervals" | head -4 | tr '\n\t' '  ')"
    fi
}

# timehist_checks NAME FILE: perf sched timehist's "wait time" per line
# (tests/oracle/offcpu_from_perf.py says how they are paired): a line is a
# thread's switch-out, its wait the interval before that run.  Where
# records were lost (a loaded machine) the lines around them are left out.
timehist_checks() {
    local name=$1 f=$2
    perf_on "$f" sched timehist -i "$f" >"$tmp/timehist" 2>"$tmp/timehist.err"
    # each interval with the thread's next switch-out; timehist files that
    # line under the sample's tid, which the kernel writes -1 for a thread
    # being reaped ("reaped": no line to compare)
    q "$f" "CREATE TEMP TABLE o AS SELECT * FROM perf_offcpu(@file);
            CREATE TEMP TABLE tp AS SELECT record, tid FROM perf_samples(@file) WHERE event = 'sched:sched_switch';
            SELECT o.tid || ' ' || (nx.start / 1000) || ' ' || coalesce(o.duration / 1000, 0) || ' ' ||
                   CASE WHEN tp_next.tid != o.tid THEN 'reaped'
                        WHEN o.outside = 'missing' THEN 'missing'
                        WHEN o.end_record IN (SELECT record FROM tp) THEN 'sample' ELSE 'record' END ||
                   ' ' || (o.start / 1000)
            FROM o
            JOIN o AS nx ON nx.record = (SELECT later.record FROM o AS later
                                         WHERE later.tid = o.tid AND later.start > coalesce(o.\"end\", o.start)
                                         ORDER BY later.start LIMIT 1)
            JOIN tp AS tp_next ON tp_next.record = nx.record
            WHERE o.duration IS NOT NULL OR o.outside = 'missing'" >"$tmp/our_waits"
    q "$f" "SELECT time FROM perf_lost(@file) WHERE kind = 'LOST'" >"$tmp/lost"
    local verdict
    verdict=$(python3 "$tool" timehist "$tmp/our_waits" "$tmp/lost" <"$tmp/timehist")
    case $verdict in
    ok\ *)
        read -r _ matched record_ended missing near_lost <<<"$verdict"
        ok "$name: perf sched timehist's wait time, line by line: $matched equal to the us; $record_ended more where no sched_switch sample switched the thread in (timehist measures to the CPU's previous sched_switch; ours end at the SWITCH record), $missing where no switch-in was recorded (outside = 'missing'), $near_lost left out around LOST records"
        ;;
    *) not_ok "$name: perf sched timehist" "$verdict" ;;
    esac
}

# hotcold_checks NAME FILE OFF_NS ON_NS SLEEP_NS [totals]: sql/offcpu_flamegraph.sql
# on FILE (through sqlrun, whose writefile is the shell's), its picture against
# the totals (tests/tools/flamegraph_check.py hotcold); the stacks it drew are
# those of the query's `folded` (its text up to the final SELECT).  With
# "totals", only the totals.
hotcold_checks() {
    local name=$1 f=$2 off=$3 on=$4 sleep=$5 query out
    query=$(sed "s|@svg|$(sql_quote "$tmp/hotcold.svg")|g; s|@event|NULL|g; s|@title|NULL|g" \
                sql/offcpu_flamegraph.sql)
    out=$(q "$f" "$query" | tr '\t' ' ')
    check "$name: sql/offcpu_flamegraph.sql prints the file, its size, on- and off-CPU ns and the cut intervals" \
        "$(cut -d' ' -f1,3- <<<"$out")" "$tmp/hotcold.svg $on $off 0"
    local folded=-
    if [ "${6:-}" != totals ]; then
        folded=$tmp/hotcold.folded
        q "$f" "$(sed '/^SELECT coalesce(@svg/,$d; s|@event|NULL|g' sql/offcpu_flamegraph.sql)
                SELECT stack, ns FROM folded" >"$folded"
    fi
    python3 "$root/tests/tools/flamegraph_check.py" hotcold "$name: sql/offcpu_flamegraph.sql" \
        "$folded" "$tmp/hotcold.svg" "$off" "$on" "sleep_here=$sleep"
}

# --- 1. the committed recording
f=$fix/sleeper.data
read -r requested measured <"$fix/sleeper.out"
sleep_checks "sleeper.data" "$f" 20 "$requested" "$measured"
check "sleeper.data: duration is end - start, NULL exactly when outside is set" \
    "$(q "$f" "SELECT count(*) FROM perf_offcpu(@file)
               WHERE (duration IS NULL) != (outside IS NOT NULL)
                  OR duration != \"end\" - start OR duration < 0
                  OR (outside = 'start') != (start IS NULL)
                  OR (outside IN ('end', 'exit', 'missing')) != (\"end\" IS NULL)")" "0"
check "sleeper.data: record is the sched_switch sample, and its callchain (perf_callchains) holds sleep_here" \
    "$(q "$f" "SELECT count(*) FROM perf_offcpu(@file) o
               JOIN perf_samples(@file) s ON s.record = o.record
               WHERE s.event = 'sched:sched_switch' AND s.tid = o.tid AND s.time = o.start
                 AND o.stack LIKE '%\"sleep_here\"%'
                 AND EXISTS (SELECT 1 FROM perf_callchains(@file) c
                             WHERE c.sample = o.record AND c.sym = 'sleep_here')")" "20"
check "sleeper.data: comm and pid of the workload" \
    "$(q "$f" "SELECT DISTINCT comm || ' ' || (pid = tid) FROM perf_offcpu(@file) WHERE stack LIKE '%sleep_here%'")" \
    "sleeper 1"
check "sql/offcpu.sql: sleep_here's off-CPU time and count are the table's" \
    "$(q "$f" "$(cat sql/offcpu.sql)" | awk -F'\t' '$1 == "sleep_here" { print $2 " " $3 }')" \
    "$(q "$f" "SELECT sum(duration) || ' ' || count(*) FROM perf_offcpu(@file)
               WHERE duration IS NOT NULL AND stack LIKE '%\"sleep_here\"%'")"
hotcold_checks "sleeper.data" "$f" \
    "$(q "$f" "SELECT sum(duration) FROM perf_offcpu(@file) WHERE outside IS NULL")" \
    "$(q "$f" "SELECT sum(period) FROM perf_samples(@file) WHERE event = 'cpu-clock'")" \
    "$(q "$f" "SELECT sum(duration) FROM perf_offcpu(@file) WHERE outside IS NULL AND stack LIKE '%\"sleep_here\"%'")"
# kernel frames come from the symbol dir's [kernel.kallsyms]/<build-id>/kallsyms
# (perf's build-id cache layout): a copy whose names are all prefixed names
# every kernel frame so
cp -r "$symdir" "$tmp/prefixed"
for k in "$tmp"/prefixed/\[kernel.kallsyms\]/*/kallsyms; do
    awk '{ $3 = "x_" $3; print }' "$k" >"$k.new" && mv "$k.new" "$k"
done
check "sleeper.data: its kernel frames are named from the symbol dir's kallsyms" \
    "$(sqlrun "SELECT perf_symbol_path(NULL, $(sql_quote "$tmp/prefixed"));" \
              "SELECT count(*) || ' ' || count(CASE WHEN sym GLOB 'x_*' THEN 1 END)
               FROM perf_callchains($(sql_quote "$fix/sleeper.data")) WHERE cpumode = 'kernel'" | tail -n 1)" \
    "$(q "$f" "SELECT count(*) || ' ' || count(*) FROM perf_callchains(@file) WHERE cpumode = 'kernel' AND sym IS NOT NULL")"
# ... and from perf's build-id cache (~/.debug, the same layout) when the
# symbol dir has none
mkdir -p "$tmp/cachehome" "$tmp/nokernel"
cp -r "$tmp/prefixed" "$tmp/cachehome/.debug"
cp -r "$symdir/.build-id" "$tmp/nokernel/"
check "sleeper.data: without them in the symbol dir, its kernel frames are named from ~/.debug's kallsyms" \
    "$(HOME=$tmp/cachehome sqlrun "SELECT perf_symbol_path(NULL, $(sql_quote "$tmp/nokernel"));" \
              "SELECT count(*) || ' ' || count(CASE WHEN sym GLOB 'x_*' THEN 1 END)
               FROM perf_callchains($(sql_quote "$fix/sleeper.data")) WHERE cpumode = 'kernel'" | tail -n 1)" \
    "$(q "$f" "SELECT count(*) || ' ' || count(*) FROM perf_callchains(@file) WHERE cpumode = 'kernel' AND sym IS NOT NULL")"
check "system.data (-a): outside names each cut interval: an exit's is dead or zombie" \
    "$(q "$fix/system.data" "SELECT group_concat(k, ' ') FROM (SELECT DISTINCT outside || ':' ||
                             CASE outside WHEN 'exit' THEN prev_state ELSE '' END AS k
                             FROM perf_offcpu(@file) WHERE outside IS NOT NULL ORDER BY 1)")" \
    "end: exit:zombie start:"
# The README's session prints what it shows, with this build's sqlite3
# shell extension: every frame, the kernel's too, is named from
# tests/fixtures/symbols, on any machine.
if [ ! -f build/perfvtab.so ] || ! command -v sqlite3 >/dev/null; then
    not_ok "README's Off-CPU time session" "build/perfvtab.so or sqlite3 is missing"
else
    mkdir -p "$tmp/home"
    if out=$(HOME=$tmp/home timeout 60 python3 tests/oracle/readme_tour.py README.md check "Off-CPU time" 2>&1); then
        ok "README's Off-CPU time session prints what the README shows ($out)"
    else
        not_ok "README's Off-CPU time session" "$out"
    fi
fi

# The README's offcpu_flamegraph example (t_readme_commands runs it as
# written): the SVG its command writes holds the hover text and subtitle the
# README quotes.
example=$(awk '/^\$ scripts\/perfsql -s tests\/fixtures\/symbols .*offcpu_flamegraph$/ { on = 1; next }
               on && /^```$/ { exit } on' README.md)
if [ -z "$example" ]; then
    not_ok "README's offcpu_flamegraph example" "no '\$ scripts/perfsql -s tests/fixtures/symbols ... offcpu_flamegraph' block"
else
    mkdir -p "$tmp/example"
    (cd "$tmp/example" && timeout 60 "$root/scripts/perfsql" -s "$symdir" \
         "$root/$fix/sleeper.data" offcpu_flamegraph >/dev/null 2>&1)
    # the paragraph after the block quotes them: `... ns = ...`
    awk '/^\$ scripts\/perfsql -s tests\/fixtures\/symbols .*offcpu_flamegraph$/ { on = 1 }
         on && /^```$/ { after = 1; next }
         after && /^$/ { if (n) exit; next } after { n++; print }' README.md |
        tr '\n' ' ' | grep -o '`[^`]*ns = [^`]*`' | tr -d '`' >"$tmp/example/quoted"
    check "README's offcpu_flamegraph example quotes the hover text and the subtitle" \
        "$(wc -l <"$tmp/example/quoted")" 2
    while read -r text; do
        if grep -qF "$text" "$tmp/example/oncpu_offcpu.svg" 2>/dev/null; then
            ok "README's offcpu_flamegraph example: the SVG reads '$text'"
        else
            not_ok "README's offcpu_flamegraph example" "the SVG does not read '$text'"
        fi
    done <"$tmp/example/quoted"
fi

# --- 2. the same files through perf, now
if ! command -v perf >/dev/null; then
    ok "perf's view of the fixtures # SKIP perf is not installed"
    exit 0
fi
perf_checks "sleeper.data" "$f"
# the same picture against perf's numbers: the intervals perf script's
# records give (all complete in sleeper.data), and cpu-clock's periods
hotcold_checks "sleeper.data (perf's totals)" "$f" \
    "$(awk '{ n += $3 - $2 } END { print n }' "$tmp/perf_intervals")" \
    "$(perf_on "$f" script -i "$f" -F event,period 2>/dev/null | awk '$2 == "cpu-clock:" { n += $1 } END { print n }')" \
    "$(awk '$5 ~ /(^|;)sleep_here(;|$)/ { n += $3 - $2 } END { print n }' "$tmp/perf_intervals")" totals
perf_checks "system.data" "$fix/system.data"
timehist_checks "system.data" "$fix/system.data"

# --- 3. live recordings
if ! command -v cc >/dev/null || ! cc -O1 -fno-omit-frame-pointer -g -o "$tmp/sleeper" "$fix/sleeper.c"; then
    not_ok "live recordings" "tests/fixtures/offcpu/sleeper.c does not build"
    exit 0
fi
# tracepoints need tracefs, and root or a low perf_event_paranoid
if ! timeout 20 perf record -q -e sched:sched_switch -o "$tmp/probe.data" -- true >"$tmp/probe.log" 2>&1; then
    ok "live recordings # SKIP perf record -e sched:sched_switch is refused here: $(oneline "$tmp/probe.log")"
    exit 0
fi
live=$tmp/live.data
if timeout 20 perf record -q -g -e cpu-clock -e sched:sched_switch --switch-events -o "$live" \
        -- "$tmp/sleeper" 20 10000000 >"$tmp/live.out" 2>"$tmp/live.log"; then
    read -r requested measured <"$tmp/live.out"
    sleep_checks "live (hotspot's command)" "$live" 20 "$requested" "$measured"
    perf_checks "live (hotspot's command)" "$live"
else
    not_ok "live (hotspot's command)" "perf record failed: $(oneline "$tmp/live.log")"
fi
wide=$tmp/wide.data
if timeout 20 perf record -q -a -g -e sched:sched_switch --switch-events -o "$wide" \
        -- "$tmp/sleeper" 5 10000000 >"$tmp/wide.out" 2>"$tmp/wide.log"; then
    read -r requested measured <"$tmp/wide.out"
    sleep_checks "live -a" "$wide" 5 "$requested" "$measured"
    timehist_checks "live -a" "$wide"
    perf_checks "live -a" "$wide"
else
    ok "live -a # SKIP perf record -a failed: $(oneline "$tmp/wide.log")"
fi
