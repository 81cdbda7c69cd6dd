#!/usr/bin/env python3
"""Puts into a symbol directory what a committed recording needs to name its
frames on any machine; run by the fixtures' record scripts, right after they
record, on the machine that recorded.

    fixture_symbols.py SYMDIR PERF_HOME DATA... [--strip-debug]

SYMDIR is laid out as perf's build-id cache (the flat layout
`.build-id/xx/yyyy` that `perf --buildid-dir SYMDIR` and perfvtab's
`perf_symbol_path(NULL, SYMDIR)` both read):
  - every file under /tmp/perfvtab-fixtures/ that the recording names, by
    its build-id (checked against the file's own note), with
    --strip-debug stripped of its debug sections (.symtab stays);
  - the recording's [vdso], from the build-id cache perf record wrote into
    PERF_HOME/.debug;
  - the recorded kernel's symbols, `[kernel.kallsyms]/<build-id>/kallsyms`,
    cut from /proc/kallsyms to the lines the recording's kernel addresses
    need (the symbol holding each address with its aliases, the lines up to
    the next text symbol, which ends it, and the _text/_stext/_etext anchors
    perf relocates by).  The running kernel must be the recorded one.
A file already there is kept, and a kallsyms already there is merged with.
"""
import bisect
import os
import re
import shutil
import struct
import subprocess
import sys

WORKLOADS = "/tmp/perfvtab-fixtures/"
ANCHORS = {"_text", "_stext", "_etext", "_sinittext", "_einittext", "_end"}


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def build_ids(data):
    """(build-id, path) pairs perf buildid-list gives for data."""
    pairs = []
    for line in run("perf", "buildid-list", "-i", data).splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and re.fullmatch(r"[0-9a-f]{2,}", parts[0]):
            pairs.append((parts[0], parts[1].strip()))
    return pairs


def note_build_id(path):
    out = run("readelf", "-n", path)
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None


def ship(src, symdir, build_id, strip):
    dest = os.path.join(symdir, ".build-id", build_id[:2], build_id[2:])
    if os.path.exists(dest):
        return
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    if strip:
        run("strip", "--strip-debug", "-o", dest, src)
    else:
        shutil.copyfile(src, dest)
    os.chmod(dest, 0o755)
    print(f"shipped {src} as {dest}")


def running_kernel_build_id():
    """The GNU build-id note of /sys/kernel/notes (Elf_Nhdr records)."""
    notes = open("/sys/kernel/notes", "rb").read()
    at = 0
    while len(notes) - at >= 12:
        namesz, descsz, kind = struct.unpack_from("=III", notes, at)
        at += 12
        name = notes[at:at + namesz]
        at += (namesz + 3) & ~3
        desc = notes[at:at + descsz]
        at += (descsz + 3) & ~3
        if kind == 3 and name == b"GNU\0":
            return desc.hex()
    return None


def kernel_addresses(data):
    """Every kernel address perf script prints for data: sample ips and
    callchain frames."""
    addrs = set()
    for args in (["-F", "ip"], ["-F", "ip", "-G"]):
        out = run("perf", "script", "-i", data, *args)
        for tok in re.findall(r"\b[0-9a-f]{16}\b", out):
            value = int(tok, 16)
            if value >= 0xffff800000000000:
                addrs.add(value)
    return addrs


def cut_kallsyms(addrs):
    lines = open("/proc/kallsyms").read().splitlines()
    entries = []  # (address, type, line index)
    for i, line in enumerate(lines):
        parts = line.split()
        if len(parts) >= 3:
            entries.append((int(parts[0], 16), parts[1], i))
    if not entries or entries[0][0] == 0 and entries[-1][0] == 0:
        raise SystemExit("fixture_symbols: /proc/kallsyms hides its addresses (kptr_restrict)")
    entries.sort()
    starts = [e[0] for e in entries]
    keep = {i for a, _, i in entries if lines[i].split()[2] in ANCHORS}
    for addr in addrs:
        at = bisect.bisect_right(starts, addr) - 1
        if at < 0:
            continue
        holder = starts[at]
        j = bisect.bisect_left(starts, holder)
        # the holder and its aliases, then everything up to and including
        # the next text symbol's address: that one ends the holder
        seen_text_after = False
        while j < len(entries) and not (seen_text_after and entries[j][0] != entries[j - 1][0]):
            keep.add(entries[j][2])
            if entries[j][0] > holder and entries[j][1] in "tT":
                seen_text_after = True
            j += 1
    return [lines[i] for i in sorted(keep)]


def main():
    args = [a for a in sys.argv[1:] if a != "--strip-debug"]
    strip = "--strip-debug" in sys.argv[1:]
    if len(args) < 3:
        raise SystemExit(__doc__)
    symdir, perf_home, datas = args[0], args[1], args[2:]
    kernel_id = None
    addrs = set()
    for data in datas:
        for build_id, path in build_ids(data):
            if path == "[kernel.kallsyms]":
                if kernel_id not in (None, build_id):
                    raise SystemExit("fixture_symbols: the recordings name two kernels")
                kernel_id = build_id
            elif path == "[vdso]":
                cached = os.path.join(perf_home, ".debug", "[vdso]", build_id, "vdso")
                if not os.path.isfile(cached):
                    raise SystemExit(f"fixture_symbols: no {cached}: perf record's cache is elsewhere")
                ship(cached, symdir, build_id, False)
            elif path.startswith(WORKLOADS):
                if note_build_id(path) != build_id:
                    raise SystemExit(f"fixture_symbols: {path} is not the recorded build {build_id}")
                ship(path, symdir, build_id, strip)
        addrs |= kernel_addresses(data)
    if kernel_id:
        if running_kernel_build_id() != kernel_id:
            raise SystemExit("fixture_symbols: the running kernel is not the recorded one")
        dest = os.path.join(symdir, "[kernel.kallsyms]", kernel_id, "kallsyms")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        old = set(open(dest).read().splitlines()) if os.path.exists(dest) else set()
        new = cut_kallsyms(addrs)
        merged = sorted(old | set(new), key=lambda l: (int(l.split()[0], 16), l))
        with open(dest, "w") as f:
            f.write("\n".join(merged) + "\n")
        print(f"{dest}: {len(merged)} lines for {len(addrs)} kernel addresses")


if __name__ == "__main__":
    main()
