#!/usr/bin/env bash
# --call-graph lbr stacks.  This machine cannot record LBR, so frame-pointer
# recordings made now are rewritten into LBR call-stack files by
# tests/tools/fp_to_lbr.py (its docstring and tests/fixtures/README.md say
# how), and perf 6.1 on those files is the oracle:
#  - perf_callchains gives perf script's frames, sample for sample (the
#    kernel part of the callchain, then the branch stack's user frames),
#    perf_profile's children, perf_callchains with repeated = 0 and
#    perf_sum_by give perf report --children's (symbols_vs_perf.py);
#  - origin says where each frame came from: 'lbr' for the user frames,
#    'callchain' for the kernel's, 'dwarf' on a DWARF recording;
#  - a stack deeper than the LBR keeps its innermost calls (entry 0's to,
#    then one frame per entry), never the callchain's left-out user entries;
#  - an empty branch stack: perf 6.1 reads "entry 0" past the stack, in the
#    record after the sample (its ip), and shows that as the leaf; perfvtab
#    shows the callchain's user entry (the sample's own user ip).
#  - perf 6.1 is wrong in caller order (perf report --children's default):
#    it resolves the kernel part of an LBR stack from the USER marker on, as
#    user addresses, so kernel frames come out as [.] 0xffffffff... rows.
# Env: PV_ROOT, PV_SQLRUN.  Output: "ok - ..." / "not ok - ..." / "ok - ... # SKIP ...".
. "$(dirname "$0")/lib/common.sh"
set -u
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
PV_SQLRUN=${PV_SQLRUN:-$root/build/sqlrun}
rewrite=$root/tests/tools/fp_to_lbr.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the columns on committed fixtures: never constant across files
check "fp.data: every frame's origin is 'callchain'" \
    "$(sqlrun "SELECT group_concat(DISTINCT origin) FROM perf_callchains($(sql_quote "$root/tests/fixtures/fp.data"))")" \
    "callchain"
check "dwarf.data: kernel frames from the callchain, user frames unwound ('dwarf')" \
    "$(sqlrun "SELECT group_concat(o, ' ') FROM (SELECT DISTINCT cpumode || ':' || origin o
               FROM perf_callchains($(sql_quote "$root/tests/fixtures/dwarf.data")) ORDER BY o)")" \
    "kernel:callchain user:dwarf"

if ! command -v perf >/dev/null || ! command -v cc >/dev/null; then
    echo "ok - LBR stacks # SKIP perf or cc is not installed"
    exit 0
fi
cd "$tmp" || exit 1
if ! cc -O1 -fno-omit-frame-pointer -g -o deep_stack "$root/tests/fixtures/deep_stack.c" ||
    ! cc -O1 -fno-omit-frame-pointer -g -o workload "$root/tests/fixtures/workload.c"; then
    echo "not ok - LBR stacks: the workloads do not build"
    exit 0
fi
if ! timeout 120 perf record -q -g -F 999 -o deep_fp.data -- ./deep_stack >record.log 2>&1 ||
    ! timeout 120 perf record -q -g -F 999 -o work_fp.data -- ./workload 10 >>record.log 2>&1; then
    echo "ok - LBR stacks # SKIP perf record could not record here: $(oneline record.log)"
    exit 0
fi

# rewrite NAME FP_FILE ARGS...: the LBR file NAME.data; its counts in NAME.counts
rewrite() {
    local name=$1 fp=$2
    shift 2
    if python3 "$rewrite" "$@" "$fp" "$name.data" >"$name.counts" 2>"$name.err"; then
        return 0
    fi
    not_ok "$name: fp_to_lbr.py $*" "$(oneline "$name.err")"
    return 1
}

# compare NAME: perf script's frames and perf report --children, sample for sample
compare() {
    python3 "$root/tests/oracle/symbols_vs_perf.py" "$PV_SQLRUN" "$root" "$1" "$tmp/$1.data" \
        --frames --profiles --report-g callee
}

q() { sql_quote "$tmp/$1.data"; }

# 32-entry LBR (Skylake), hw_idx: a 20..59-deep recursion
if rewrite deep32 deep_fp.data; then
    read -r samples deeper empty dropped <deep32.counts
    compare deep32
    check "deep32: kernel frames come from the callchain, user frames from the branch stack" \
        "$(sqlrun "SELECT group_concat(o, ' ') FROM (SELECT DISTINCT cpumode || ':' || origin o
                   FROM perf_callchains($(q deep32)) ORDER BY o)")" "kernel:callchain user:lbr"
    if [ "$deeper" -gt 0 ]; then
        # those and the ones exactly 32 calls deep fill the LBR
        check "deep32: the $deeper samples deeper than the LBR have 33 user frames (to, 32 froms)" \
            "$(sqlrun "SELECT count(*) >= $deeper, min(n), max(n) FROM (SELECT count(*) n FROM perf_callchains($(q deep32))
                       WHERE origin = 'lbr' GROUP BY sample HAVING n > 32)")" "1	33	33"
    else
        echo "ok - deep32 # SKIP no sample deeper than the LBR was recorded"
    fi
    # the shallower ones: the frame-pointer recording's frames, address for
    # address (matched by tid and time: the rewrite leaves some samples out)
    check "deep32: samples within the LBR's depth have the frame-pointer recording's frames" \
        "$(sqlrun "WITH lbr AS (SELECT tid, time, group_concat(ip) s, sum(origin = 'lbr') n FROM
                     (SELECT * FROM perf_callchains($(q deep32)) ORDER BY sample, depth) GROUP BY sample),
                   fp AS (SELECT tid, time, group_concat(ip) s FROM
                     (SELECT * FROM perf_callchains($(q deep_fp)) ORDER BY sample, depth) GROUP BY sample)
                   SELECT count(*) > 0, sum(lbr.s = fp.s) = count(*) FROM lbr JOIN fp USING (tid, time)
                   WHERE lbr.n <= 32")" "1	1"
fi

# 16-entry LBR, no hw_idx (kernels before 5.7), the callchain's user
# entries kept (a frame-pointer binary): perf reads none of them
if rewrite deep16 deep_fp.data --depth 16 --no-hw-idx --keep-user; then
    read -r samples deeper empty dropped <deep16.counts
    compare deep16
    check "deep16: no user frame from the callchain's kept user entries" \
        "$(sqlrun "SELECT count(*) FROM perf_callchains($(q deep16)) WHERE cpumode = 'user' AND origin <> 'lbr';
                   SELECT max(n) FROM (SELECT count(*) n FROM perf_callchains($(q deep16)) WHERE origin = 'lbr' GROUP BY sample)")" \
        "0
17"
    check "deep16: perf_samples.branch_hw_idx is NULL, deep32's is known" \
        "$(sqlrun "SELECT count(branch_hw_idx) FROM perf_samples($(q deep16));
                   SELECT count(branch_hw_idx) = count(*) FROM perf_samples($(q deep32))")" \
        "0
1"
fi

# the workload of the other fixtures: page faults and file I/O in libc
if rewrite work32 work_fp.data; then
    compare work32
fi

# perf 6.1 in caller order (perf report --children's default): the kernel
# part of an LBR stack is resolved from the USER marker on, as user
# addresses, so each kernel frame is a "[.] 0xffffffff..." row
if [ -f deep32.data ]; then
    kernel=$(sqlrun "SELECT count(*) FROM perf_samples($(q deep32)) WHERE cpumode = 'kernel'")
    if [ "${kernel:-0}" -gt 0 ] 2>/dev/null; then
        perf report -i deep32.data --children --sort sym --stdio -q -g caller >caller.txt 2>/dev/null
        perf report -i deep_fp.data --children --sort sym --stdio -q -g caller >caller_fp.txt 2>/dev/null
        bad=$(grep -cE '%\s+\[\.\] 0xffffffff[0-9a-f]{8}\s*$' caller.txt)
        bad_fp=$(grep -cE '%\s+\[\.\] 0xffffffff[0-9a-f]{8}\s*$' caller_fp.txt)
        if [ "$bad" -gt 0 ] && [ "$bad_fp" -eq 0 ]; then
            ok "deep32: perf 6.1 is wrong in caller order (documented): $bad kernel addresses as unresolved user rows in perf report --children -g caller, none on the frame-pointer original"
        else
            not_ok "deep32: perf report -g caller on an LBR file" "$bad kernel rows as user ($bad_fp on the original)"
        fi
    else
        echo "ok - deep32 # SKIP no kernel sample was recorded"
    fi
fi

# an empty branch stack (--depth 0: no call recorded).  perf reads entry 0
# past the stack: with hw_idx its `to` is the 8 bytes after the next
# record's header, the next sample's ip when IP is its first field.
if rewrite empty work_fp.data --depth 0; then
    perf script -i empty.data -F ip,sym,dso >empty.perf 2>/dev/null
    python3 - "$PV_SQLRUN" "$tmp/empty.data" "$tmp/empty.perf" <<'PY'
import re, subprocess, sys
sqlrun, data, perf_out = sys.argv[1:]
def sql(q):
    r = subprocess.run([sqlrun, q], capture_output=True, text=True)
    return [l.split("\t") for l in r.stdout.splitlines() if l]
lit = "'" + data.replace("'", "''") + "'"
# perf's user leaf of each sample, in time order as perf prints
blocks = [b for b in open(perf_out).read().split("\n\n") if b.strip()]
perf_leaf = []
for b in blocks:
    users = [l for l in b.splitlines() if l.strip() and not re.search(r"\(\[kernel", l)]
    perf_leaf.append(users[0].split()[0] if users else None)
# perfvtab: each sample's user frames, and the ip of the record after it
rows = sql(f"""SELECT s.record, s.time,
  (SELECT group_concat(printf('%x', dso_offset) || ':' || origin) FROM perf_callchains({lit}) c
   WHERE c.sample = s.record AND c.cpumode = 'user'),
  (SELECT printf('%x', n.dso_offset) FROM perf_samples({lit}) n WHERE n.record = s.record + 1
   AND n.pid = s.pid AND n.cpumode = 'user')
  FROM perf_samples({lit}) s ORDER BY s.time, s.record""")
if len(rows) != len(perf_leaf) or not rows:
    print(f"not ok - empty: {len(rows)} samples, perf printed {len(perf_leaf)}")
    sys.exit(0)
ours_ok = all(r[2] and r[2].count(":") == 1 and r[2].endswith(":callchain") for r in rows)
print(("ok" if ours_ok else "not ok") +
      " - empty: with an empty branch stack each sample has one user frame, from the callchain")
compared = [(r, p) for r, p in zip(rows, perf_leaf) if r[3]]
past = sum(1 for r, p in compared if p == r[3])
if compared and past == len(compared):
    print(f"ok - empty: perf 6.1 reads past the empty branch stack (documented): the leaf it shows "
          f"for {past} samples is the next record's ip")
else:
    print(f"not ok - empty: perf's leaf is the next record's ip for {past} of {len(compared)} samples")
PY
fi
