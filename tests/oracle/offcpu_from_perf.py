#!/usr/bin/env python3
"""perf's own view of off-CPU time, for tests/t_offcpu.sh.

  offcpu_from_perf.py intervals < perf script --ns --show-switch-events -F tid,time,event,trace,ip,sym
      One line per off-CPU interval perf's decoding gives, in start order:
        tid start end prev_state frame;frame;...
      paired as perf_offcpu documents: the sched:sched_switch sample whose
      prev_pid is the thread starts it (its stack, its prev_state), the
      first after it of the thread's PERF_RECORD_SWITCH(_CPU_WIDE) IN or a
      sched_switch whose next_pid is the thread ends it.  Intervals without
      an end are left out.  A record's tid is -1 (as the kernel writes it)
      for a thread being reaped: the line is still a record, not a frame.  prev_state is the print fmt's letters in
      words, as perf_offcpu names them (the kernel's task states,
      fs/proc/array.c); frames perf prints as [unknown] stay so.

  offcpu_from_perf.py timehist OURS LOST < perf sched timehist
      Compares timehist's "wait time" column with perf_offcpu.  A timehist
      line is a thread's switch-out at time T; its wait, the time since the
      thread last left the CPU up to the previous sched_switch on that CPU,
      which timehist takes for the one that switched the thread in (msec
      with three decimals: the wait truncated to a microsecond).  OURS has
      "tid T_us wait_us how start_us" per perf_offcpu interval followed by
      another switch-out of its thread at T: wait_us its duration, how
      "sample" when a sched_switch sample ended it, "record" when a SWITCH
      record did, "missing" when none was recorded (outside = 'missing'),
      "reaped" when the next switch-out's sample has the kernel's tid -1
      (a thread being reaped: timehist files that line under -1; skipped).
      Every timehist line must be one of ours with the same wait
      ("sample"), or one whose switch-in has no sched_switch sample
      ("record", "missing": timehist then measures to an unrelated
      switch), or the thread's first (wait 0); every "sample" interval
      must be a line.  LOST has the times (ns) of the file's LOST records:
      a line or interval whose span (from the switch-out before it to T)
      holds one is left out, since the records timehist pairs may be
      among those lost.  Prints "ok MATCHED RECORD_ENDED MISSING NEAR_LOST"
      or "bad: why".
"""
import re
import sys

TIME = r"(\d+)\.(\d{9})"


WORDS = {"R": "running", "S": "sleeping", "D": "disk", "T": "stopped", "t": "traced",
         "X": "dead", "Z": "zombie", "P": "parked", "I": "idle"}


def state_words(letters):
    if letters == "R+":
        return "preempted"
    return "|".join(WORDS.get(part, part) for part in letters.split("|"))


def ns(sec, frac):
    return int(sec) * 1000000000 + int(frac)


def intervals(lines):
    head = re.compile(r"^\s*(-?\d+)\s+" + TIME + r":\s+(.*)$")
    pending = {}     # tid -> [start, state, frames]
    closed = []
    current = None   # frames list of the sched_switch being read
    for line in lines:
        m = head.match(line)
        if not m:
            frame = line.strip()
            if current is not None and frame:
                parts = frame.split(None, 1)
                current.append(parts[1] if len(parts) > 1 else "[unknown]")
            continue
        current = None
        tid, t, rest = int(m.group(1)), ns(m.group(2), m.group(3)), m.group(4)
        if rest.startswith("sched:sched_switch:"):
            prev = int(re.search(r"prev_pid=(\d+)", rest).group(1))
            state = state_words(re.search(r"prev_state=(\S+)", rest).group(1))
            nxt = int(re.search(r"next_pid=(\d+)", rest).group(1))
            if nxt in pending:
                closed.append((nxt, *pending.pop(nxt), t))
            if prev != 0:
                frames = []
                pending[prev] = [t, state, frames]
                current = frames
        elif re.match(r"PERF_RECORD_SWITCH(_CPU_WIDE)? IN", rest):
            if tid in pending:
                closed.append((tid, *pending.pop(tid), t))
    closed.sort(key=lambda c: (c[1], c[0]))
    for tid, start, state, frames, end in closed:
        print(tid, start, end, state, ";".join(frames))


def timehist(lines, ours_path, lost_path):
    row = re.compile(r"^\s*(\d+)\.(\d{6})\s+\[\d+\]\s+.*?\[(\d+)(?:/\d+)?\]"
                     r"\s+(\d+)\.(\d{3})\s+(\d+)\.(\d{3})\s+(\d+)\.(\d{3})\s")
    ours = {}
    with open(ours_path) as f:
        for line in f:
            tid, t_us, wait_us, how, start_us = line.split()
            ours[(int(tid), int(t_us))] = (int(wait_us), how, int(start_us))
    with open(lost_path) as f:
        lost_us = sorted(int(line) // 1000 for line in f if line.strip())

    def near_lost(first, last):
        return any(first <= t <= last for t in lost_us)

    counts = {"sample": 0, "record": 0, "missing": 0, "near_lost": 0, "reaped": 0}
    seen = set()
    for line in lines:
        m = row.match(line)
        if not m:
            continue
        key = (int(m.group(3)), int(m.group(1)) * 1000000 + int(m.group(2)))
        wait = int(m.group(4)) * 1000 + int(m.group(5))
        delay = int(m.group(6)) * 1000 + int(m.group(7))
        run = int(m.group(8)) * 1000 + int(m.group(9))
        span_start = ours[key][2] if key in ours else key[1] - run - delay - wait - 1
        if near_lost(span_start, key[1]):
            counts["near_lost"] += 1
            seen.add(key)
            continue
        if key not in ours:
            if wait != 0:
                print("bad: timehist line tid %d at %d us waits %d us; no such interval" % (key + (wait,)))
                return
            continue
        seen.add(key)
        want, how, _ = ours[key]
        if how == "sample" and want != wait:
            print("bad: tid %d at %d us: timehist %d us, perf_offcpu %d us" % (key + (wait, want)))
            return
        counts[how] += 1
    missing = [k for k, v in ours.items()
               if v[1] == "sample" and k not in seen and not near_lost(v[2], k[1])]
    if missing:
        print("bad: %d intervals are no timehist line, e.g. tid %d at %d us" % ((len(missing),) + missing[0]))
        return
    print("ok", counts["sample"], counts["record"], counts["missing"], counts["near_lost"])


if __name__ == "__main__":
    if sys.argv[1] == "intervals":
        intervals(sys.stdin)
    else:
        timehist(sys.stdin, sys.argv[2], sys.argv[3])
