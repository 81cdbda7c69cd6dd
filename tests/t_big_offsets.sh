#!/usr/bin/env bash
# Files over 4 GiB: the fixture rewritten with a 4 GiB hole before its data
# section (tests/tools/sparse_big.py: a sparse file, a few kB on disk) must
# give every table's rows unchanged, file offsets moved by exactly the hole,
# features read from past 4 GiB, and a time range through the time index.
# perf itself reads the copy: its record count is compared too.
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shift_bytes=$(( (1 << 32) + 4096 ))
for name in multi fp; do
    orig=tests/fixtures/$name.data
    big=$tmp/$name.big.data
    if ! python3 tests/tools/sparse_big.py "$orig" "$big" "$shift_bytes"; then
        echo "not ok - $name: cannot make the sparse copy"
        continue
    fi
    size=$(stat -c %s "$big")
    if [ "$size" -le $((1 << 32)) ]; then
        echo "not ok - $name: the copy is only $size bytes"
        continue
    fi
    for q in \
        "SELECT record, event, time, pid, tid, cpu, ip, addr, period, id, cpumode, callchain, hex(raw), branch_stack, weight, data_src, regs_user, hex(stack_user), read, file_offset - @shift FROM perf_samples(@f)" \
        "SELECT record, type, name, misc, size, time, pid, tid, cpu, fields, hex(data), file_offset - @shift FROM perf_records(@f)" \
        "SELECT * FROM perf_mmaps(@f)" \
        "SELECT * FROM perf_comms(@f)" \
        "SELECT id, name, value, offset - @shift, size, hex(raw) FROM perf_features(@f)" \
        "SELECT * FROM perf_build_ids(@f)" \
        "SELECT * FROM perf_events(@f)" \
        "SELECT count(*), total(period) FROM perf_samples(@f) WHERE time BETWEEN (SELECT min(time) FROM perf_samples(@f)) + 1000000 AND (SELECT max(time) FROM perf_samples(@f)) - 1000000"; do
        on_orig=${q//@f/\'$orig\'}
        on_big=${q//@f/\'$big\'}
        want=$(sqlrun "${on_orig//@shift/0}" | sed "s|$orig|FILE|g")
        got=$(sqlrun "${on_big//@shift/$shift_bytes}" | sed "s|$big|FILE|g")
        if [ -n "$want" ] && [ "$got" = "$want" ]; then
            echo "ok - $name past 4 GiB: ${q:0:60}"
        else
            echo "not ok - $name past 4 GiB: $q: $(diff <(echo "$want") <(echo "$got") | head -5 | tr '\n' ' ')"
        fi
    done
    min_offset=$(sqlrun "SELECT min(file_offset) FROM perf_records('$big')")
    if [ "$min_offset" -gt $((1 << 32)) ]; then
        echo "ok - $name: records are read from offsets past 4 GiB ($min_offset)"
    else
        echo "not ok - $name: first record offset $min_offset"
    fi
    perf_count=$(perf report --stats -i "$big" 2>/dev/null | awk '/TOTAL events:/ {print $3; exit}')
    ours=$(sqlrun "SELECT count(*) FROM perf_records('$big')")
    if [ -n "$perf_count" ] && [ "$perf_count" = "$ours" ]; then
        echo "ok - $name: perf report --stats counts $perf_count events on the copy, as we do"
    else
        echo "not ok - $name: perf report --stats says '$perf_count' events, we count '$ours'"
    fi
done
