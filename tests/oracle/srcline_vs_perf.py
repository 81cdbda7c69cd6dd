#!/usr/bin/env python3
"""Compares perfvtab's srcfile/srcline with perf's srcline, live.

    srcline_vs_perf.py SQLRUN ROOT NAME PERF_DATA [--frames] [--sym SYM]...

Runs perf on PERF_DATA now (lines depend on this machine's binaries and
debug files, so expected values cannot be committed) and checks:
  - every sample's srcline (perf script -G -F time,ip,srcline
    --full-source-path) against perf_samples' srcfile:srcline;
  - with --frames: every callchain frame's (perf script -F time,ip,srcline
    --full-source-path, inline frames included) against perf_callchains';
  - perf report --no-children --sort srcline against sql/srcline_profile.sql,
    row by row (label and percent);
  - for each --sym SYM: perf annotate --stdio -l SYM's "Sorted summary"
    against sql/annotate.sql with @sym = SYM.
perf's srcline for an address without line info (??:0, [kernel.kallsyms][addr],
dso[addr]) is expected as NULL.

Where perf names another file than the line table does, the check shows it
is perf that is wrong: binutils' own line-table dump (objdump
--dwarf=decodedline of the debug file) names perfvtab's file at the row
covering the address, on the line both give.  perf 6.1 asks binutils'
addr2line (bfd), which takes a DWARF 5 sequence that sets no file (the file
register's initial value, 1) as the table's entry 0, the unit's own file.
Prints one "ok - ..." or "not ok - ...: why" line per check.
"""
import argparse
import bisect
import os
import re
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("sqlrun")
parser.add_argument("root")
parser.add_argument("name")
parser.add_argument("data")
parser.add_argument("--frames", action="store_true")
parser.add_argument("--sym", action="append", default=[])
opts = parser.parse_args()
sqlrun, root, name, data = opts.sqlrun, opts.root, opts.name, opts.data
failures = 0


def check(cond, what, why=""):
    global failures
    if cond:
        print(f"ok - {name}: {what}")
    else:
        failures += 1
        print(f"not ok - {name}: {what}: {why}")


def perf(*args):
    r = subprocess.run(["perf", *args, "-i", data], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"not ok - {name}: perf {' '.join(args)} failed: {r.stderr.strip()[:300]}")
    return r.stdout


def literal(text):
    return "'" + text.replace("'", "''") + "'"


def sql(query, params=()):
    cmd = [sqlrun]
    r = subprocess.run(cmd + [query.replace("@file", literal(data))],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"not ok - {name}: sqlrun failed: {r.stderr.strip()[:300]}")
    return [line.split("\t") for line in r.stdout.splitlines()]


def sql_file(path, sym=None):
    text = open(path).read()
    text = "\n".join(l for l in text.splitlines() if not l.startswith("--"))
    text = text.replace("@sym", literal(sym) if sym is not None else "NULL")
    return sql(text)


def ns(text):
    sec, frac = text.split(".")
    return int(sec) * 1000000000 + int(frac.ljust(9, "0"))


line_re = re.compile(r"^(.*):(\d+)$")


def perf_line(text):
    """perf's srcline as (file, line), None where perf has no line info."""
    text = text.strip()
    if text.endswith(" (inlined)"):
        text = text[: -len(" (inlined)")]
    m = line_re.match(text)
    if not m or m.group(1) == "??" or m.group(2) == "0":
        return None
    return (m.group(1), int(m.group(2)))


def ours(srcfile, srcline):
    return (srcfile, int(srcline)) if srcline != "" else None


# --- perf is wrong: binutils' own dump of the line table ----------------------
def debug_file(dso):
    """The file holding dso's line table: its build-id debug file, or itself."""
    r = subprocess.run(["readelf", "-n", dso], capture_output=True, text=True)
    m = re.search(r"Build ID: ([0-9a-f]+)", r.stdout)
    if m:
        path = f"/usr/lib/debug/.build-id/{m.group(1)[:2]}/{m.group(1)[2:]}.debug"
        if os.path.exists(path):
            return path
    return dso


decoded = {}


def table_rows_at(dso, addr):
    """(file name, line) of the rows of objdump's decoded line table at the
    highest address <= addr."""
    if dso not in decoded:
        r = subprocess.run(["objdump", "--dwarf=decodedline", debug_file(dso)],
                           capture_output=True, text=True)
        rows = []
        for line in r.stdout.splitlines():
            m = re.match(r"^(\S+)\s+(\d+)\s+(0x[0-9a-f]+)", line)
            if m:
                rows.append((int(m.group(3), 16), m.group(1), int(m.group(2))))
        rows.sort()
        decoded[dso] = (rows, [a for a, _, _ in rows])
    rows, addresses = decoded[dso]
    # the rows of the highest address <= addr: they end just before the
    # first row above addr (libc's table has a million rows: bisect)
    end = bisect.bisect_right(addresses, addr)
    if end == 0:
        return set()
    best = addresses[end - 1]
    start = bisect.bisect_left(addresses, best)
    return {(f, l) for _, f, l in rows[start:end]}


perf_wrong = []     # (dso, addr, perf's, ours) proven


def perf_is_wrong(dso, addr, want, got):
    """perf and perfvtab agree on the line, and binutils' dump of the line
    table names perfvtab's file, not perf's, at the address."""
    if not want or not got or want[1] != got[1] or not dso or addr is None:
        return False
    rows = table_rows_at(dso, addr)
    ok = (os.path.basename(got[0]), got[1]) in rows and \
        (os.path.basename(want[0]), want[1]) not in rows
    if ok:
        perf_wrong.append((dso, addr, want, got))
    return ok


def same_rows(want, got):
    """The same labels in the same order, percents within 0.01 points: perf
    prints each with %.2f, summed (annotate) or not, and perfvtab's are
    rounded from other sums, so the last digit may differ by one."""
    return len(want) == len(got) and all(
        w[0] == g[0] and abs(float(w[1]) - float(g[1])) <= 0.0100001 for w, g in zip(want, got))


def first_difference(a, b):
    for x, y in zip(a, b):
        if x != y:
            return f"perf {x} vs perfvtab {y}"
    return f"perf has {len(a)} entries, perfvtab {len(b)}"


def first_row_difference(want, got):
    """Where same_rows fails: the first pair whose labels differ or whose
    percents are more than 0.01 apart, or the counts; then both lists."""
    for w, g in zip(want, got):
        if w[0] != g[0] or abs(float(w[1]) - float(g[1])) > 0.0100001:
            return f"perf {w} vs perfvtab {g}; perf {want}; perfvtab {got}"
    return f"perf has {len(want)} rows, perfvtab {len(got)}: perf {want}; perfvtab {got}"


# --- frames -------------------------------------------------------------------
if opts.frames:
    # A frame is its address line, then its srcline line when perf has one:
    # an address in no map (a frame-pointer chain run into zeros, as a page
    # fault in code without frame pointers leaves it) has none, and is a
    # frame all the same.
    blocks, current, pending = [], None, None

    def flush():
        global pending
        if current is not None and pending is not None:
            current[1].append((pending, None))
        pending = None

    for line in perf("script", "--ns", "-F", "time,ip,srcline", "--full-source-path").splitlines():
        head = re.match(r"^\s*(\d+\.\d+):\s*$", line)
        if head:
            flush()
            current = (ns(head.group(1)), [])
            blocks.append(current)
            continue
        addr = re.match(r"^\s+([0-9a-f]+)$", line)
        if addr:
            flush()
            pending = int(addr.group(1), 16)
            continue
        if current is not None and pending is not None and line.startswith("  "):
            current[1].append((pending, perf_line(line)))
            pending = None
    flush()
    by_sample = {}
    for sample, t, dso, srcfile, srcline in sql(
            "SELECT sample, time, dso, srcfile, srcline FROM perf_callchains(@file) "
            "ORDER BY sample, depth"):
        by_sample.setdefault(sample, (int(t), []))[1].append((dso, ours(srcfile, srcline)))
    got_blocks = sorted(by_sample.values())
    want_blocks = sorted(b for b in blocks if b[1])
    frames = lines = wrong = 0
    bad = None
    if len(got_blocks) != len(want_blocks):
        bad = f"perf has {len(want_blocks)} samples with frames, perfvtab {len(got_blocks)}"
    for (t, want), (t2, got) in zip(want_blocks, got_blocks):
        if bad:
            break
        if t != t2 or len(want) != len(got):
            bad = f"sample at {t}: perf has {len(want)} frames, perfvtab {len(got)} (time {t2})"
            break
        for (addr, w), (dso, g) in zip(want, got):
            frames += 1
            if w == g:
                lines += w is not None
            elif perf_is_wrong(dso, addr, w, g):
                lines += 1
                wrong += 1
            else:
                bad = f"sample at {t}, frame {addr:x}: perf {w} vs perfvtab {g}"
                break
    check(not bad and lines > 0,
          f"srcline of {frames} callchain frames equals perf script's "
          f"({lines} with a line, {wrong} where perf names the wrong file)", bad or "no line info")

# --- samples ------------------------------------------------------------------
want = []
lines = iter(perf("script", "--ns", "-G", "-F", "time,ip,srcline", "--full-source-path").splitlines())
for line in lines:
    m = re.match(r"^\s*(\d+\.\d+):\s+([0-9a-f]+)\s*$", line)
    if m:
        want.append((ns(m.group(1)), int(m.group(2), 16), perf_line(next(lines, ""))))
got = [(int(t), int(ip) & (2**64 - 1), ours(f, l)) for t, ip, f, l in
       sql("SELECT time, ip, srcfile, srcline FROM perf_samples(@file)")]
want.sort()
got.sort()
proven = {(w, g) for _, _, w, g in perf_wrong}
mismatch = [(w, g) for w, g in zip(want, got) if w != g and (w[2], g[2]) not in proven]
with_line = sum(1 for w in want if w[2])
check(len(want) == len(got) and not mismatch and with_line > 0,
      f"srcfile:srcline of {len(want)} samples equals perf script's ({with_line} with a line)",
      first_difference(*zip(*mismatch)) if mismatch else
      f"perf {len(want)} samples, perfvtab {len(got)}, {with_line} with a line")
for dso, addr, w, g in perf_wrong[:1]:
    print(f"# perf names {w[0]}:{w[1]} at {os.path.basename(dso)}+{addr:#x}; the line table "
          f"(objdump --dwarf=decodedline) names {os.path.basename(g[0])}, as perfvtab does")

# --- perf report --sort srcline -----------------------------------------------
report = []
for line in perf("report", "--no-children", "--sort", "srcline", "--stdio", "-q",
                 "-g", "none").splitlines():
    m = re.match(r"^\s+(\d+\.\d+)%\s+(.*?)\s*$", line)
    if m:
        report.append((m.group(2), m.group(1)))
profile = [(loc, pct) for _, loc, _, _, pct, _, _ in
           sql_file(os.path.join(root, "sql/srcline_profile.sql"))]
check(report and same_rows(sorted(report), sorted(profile)),
      f"sql/srcline_profile.sql gives perf report --sort srcline's {len(report)} rows, "
      f"label and percent (to 0.01)", first_row_difference(sorted(report), sorted(profile)))

# --- perf annotate's line summary -------------------------------------------
for sym in opts.sym:
    summary, inside = [], False
    for line in perf("annotate", "--stdio", "-l", sym).splitlines():
        if line.startswith("Sorted summary"):
            inside = True
            continue
        m = re.match(r"^\s+(\d+\.\d+)\s+(\S+:\d+)\s*$", line)
        if inside and m:
            summary.append((m.group(2), m.group(1)))
        elif inside and summary and not line.strip():
            break
        elif inside and "Percent" in line:
            break
    rows = sql_file(os.path.join(root, "sql/annotate.sql"), sym)
    shown = sorted(((loc, perf_pct) for _, _, loc, _, _, _, perf_pct, _, _, _
                    in rows if loc and float(perf_pct) > 0), key=lambda r: -float(r[1]))
    check(summary and same_rows(sorted(summary), sorted(shown)),
          f"sql/annotate.sql for {sym} gives perf annotate -l's {len(summary)} lines and "
          f"percents (perf_percent, to 0.01)", first_row_difference(sorted(summary), sorted(shown)))
    total = sum(float(r[5]) for r in rows)
    check(abs(total - 100) < 0.01 and all(int(r[3]) > 0 for r in rows),
          f"sql/annotate.sql for {sym}: every sample of it counted, percents sum to 100",
          f"sum {total}")

sys.exit(1 if failures else 0)
