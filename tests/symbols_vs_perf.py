#!/usr/bin/env python3
"""Compares perfvtab's symbol columns and profile queries with perf, live.

    symbols_vs_perf.py SQLRUN ROOT NAME PERF_DATA [--frames] [--profiles]

Runs perf report / perf script on PERF_DATA now (symbols depend on this
machine's binaries, so expected values cannot be committed) and checks:
  - every sample's ip, symbol+offset and dso (perf script -G -F ip,sym,symoff,dso)
    and its comm (-F tid,comm) against perf_samples;
  - with --frames: every callchain frame (perf script -F ip,sym,symoff,dso)
    against perf_callchains, sample by sample (frame-pointer callchains:
    perf unwinds DWARF stacks, perfvtab does not yet);
  - with --profiles: perf report --no-children --sort dso,sym's top 20 named
    rows against sql/flat_profile.sql, and perf report --children --sort sym's
    against sql/inclusive_profile.sql, to 0.01 percentage points.
Prints one "ok - ..." or "not ok - ...: why" line per check.
"""
import re
import subprocess
import sys

sqlrun, root, name, data = sys.argv[1:5]
profiles = "--profiles" in sys.argv[5:]
frames_too = "--frames" in sys.argv[5:]
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


def sql(query, path=None):
    if path is not None:
        query = query.replace("?1", literal(path))
    r = subprocess.run([sqlrun, query], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"not ok - {name}: sqlrun failed: {r.stderr.strip()[:300]}")
    return [line.split("\t") for line in r.stdout.splitlines()]


def sql_file(path):
    text = open(path).read().replace("@file", literal(data))
    return sql(text)


def ns(text):
    sec, frac = text.split(".")
    return int(sec) * 1000000000 + int(frac.ljust(9, "0"))


def symstr(sym, off):
    return "[unknown]" if sym == "" else f"{sym}+0x{int(off):x}"


def first_difference(a, b):
    for x, y in zip(a, b):
        if x != y:
            return f"perf {x} vs perfvtab {y}"
    return f"perf has {len(a)} entries, perfvtab {len(b)}"


# --- per sample -----------------------------------------------------------
frame_re = re.compile(r"^\s*([0-9a-f]+) (.*) \((.*)\)$")
sample_re = re.compile(r"^\s*(\d+\.\d+):\s+([0-9a-f]+) (.*) \((.*)\)$")
expected = []
for line in perf("script", "--ns", "-G", "-F", "time,ip,sym,symoff,dso").splitlines():
    m = sample_re.match(line)
    if m:
        expected.append((ns(m.group(1)), m.group(2), m.group(3), m.group(4)))
got = [(int(t), ip, symstr(sym, off), dso or "[unknown]") for t, ip, sym, off, dso in sql(
    "SELECT time, printf('%x', ip), sym, sym_offset, dso FROM perf_samples(?1)", data)]
expected.sort()
got.sort()
check(len(expected) > 0 and expected == got,
      f"ip, sym+off and dso of {len(expected)} samples equal perf script's",
      first_difference(expected, got))

comm_re = re.compile(r"^\s*(.*?)\s+(\d+)\s+(\d+\.\d+):\s*$")
expected = []
for line in perf("script", "--ns", "-G", "-F", "comm,tid,time").splitlines():
    m = comm_re.match(line)
    if m:
        expected.append((ns(m.group(3)), int(m.group(2)), m.group(1)))
got = [(int(t), int(tid), comm) for t, tid, comm in sql(
    "SELECT time, tid, coalesce(comm, ':' || tid) FROM perf_samples(?1)", data)]
expected.sort()
got.sort()
check(len(expected) > 0 and expected == got,
      f"comm of {len(expected)} samples equals perf script's", first_difference(expected, got))

# --- per frame --------------------------------------------------------------
blocks, current = [], None
if not frames_too:
    sys.exit(1 if failures else 0)
for line in perf("script", "--ns", "-F", "time,ip,sym,symoff,dso").splitlines():
    head = re.match(r"^\s*(\d+\.\d+):\s*$", line)
    if head:
        current = (ns(head.group(1)), [])
        blocks.append(current)
        continue
    m = frame_re.match(line)
    if m and current is not None:
        current[1].append((m.group(1), m.group(2), m.group(3)))
expected = sorted((t, tuple(frames)) for t, frames in blocks if frames)
by_sample = {}
for sample, t, addr, sym, off, dso in sql(
        "SELECT sample, time, printf('%x', CASE WHEN dso IS NULL THEN ip ELSE dso_offset END), "
        "sym, sym_offset, dso FROM perf_callchains(?1) ORDER BY sample, depth", data):
    by_sample.setdefault(sample, (int(t), []))[1].append(
        (addr, symstr(sym, off), dso or "[unknown]"))
got = sorted((t, tuple(frames)) for t, frames in by_sample.values())
frames = sum(len(f) for _, f in expected)
check(len(expected) > 0 and expected == got,
      f"{frames} callchain frames of {len(expected)} samples equal perf script's",
      first_difference(expected, got))

# --- profiles ----------------------------------------------------------------
if profiles:
    flat = {}
    for row in sql_file(f"{root}/sql/flat_profile.sql"):
        if len(row) == 7 and row[0] != "event":
            flat[(row[1], row[2])] = float(row[5])
    rows = []
    for line in perf("report", "--no-children", "--sort", "dso,sym", "--stdio", "-q",
                     "-g", "none").splitlines():
        m = re.match(r"^\s*([\d.]+)%\s+(\S+)\s+\[.\]\s+(.*?)\s*$", line)
        if m and not re.match(r"^(0x)?[0-9a-f]{8,}$", m.group(3)):
            rows.append((float(m.group(1)), m.group(2), m.group(3)))
    rows = rows[:20]
    bad = [f"{dso} {sym}: perf {pct:.2f}%, flat_profile {flat.get((dso, sym))}"
           for pct, dso, sym in rows
           if (dso, sym) not in flat or abs(flat[(dso, sym)] - pct) > 0.01]
    check(len(rows) > 0 and not bad,
          f"flat_profile.sql equals perf report --no-children --sort dso,sym on its top {len(rows)} named rows",
          "; ".join(bad[:3]))

    inclusive = {}
    for row in sql_file(f"{root}/sql/inclusive_profile.sql"):
        if len(row) == 6 and row[0] != "event":
            inclusive.setdefault(row[1], []).append((float(row[4]), float(row[5])))
    rows = []
    for line in perf("report", "--children", "--sort", "sym", "--stdio", "-q",
                     "-g", "none").splitlines():
        m = re.match(r"^\s*([\d.]+)%\s+([\d.]+)%\s+\[.\]\s+(.*?)\s*$", line)
        if m and not re.match(r"^(0x)?[0-9a-f]{8,}$", m.group(3)):
            rows.append((float(m.group(1)), float(m.group(2)), m.group(3)))
    rows = rows[:20]
    bad = []
    for children, self_, sym in rows:
        if not any(abs(c - children) <= 0.01 and abs(s - self_) <= 0.01
                   for c, s in inclusive.get(sym, [])):
            bad.append(f"{sym}: perf {children:.2f}%/{self_:.2f}%, inclusive_profile "
                       f"{inclusive.get(sym)}")
    check(len(rows) > 0 and not bad,
          f"inclusive_profile.sql equals perf report --children --sort sym on its top {len(rows)} named rows",
          "; ".join(bad[:3]))

sys.exit(1 if failures else 0)
