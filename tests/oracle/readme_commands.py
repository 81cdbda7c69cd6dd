#!/usr/bin/env python3
"""Runs the shell examples of a Markdown file literally and compares what
they print with what the file shows.

    readme_commands.py FILE.md REPO

A code block whose first line starts with `$ ` is an example: each `$ `
line is a command, run with bash in a scratch directory whose entries are
links to REPO's top-level entries (so relative paths work as from the
repository's root, and what a command writes stays out of the repository);
the lines up to the next `$ ` line are its output.  The sqlite3 sessions
(`$ sqlite3`) are tests/oracle/readme_tour.py's.  Trailing blanks are ignored
(column modes pad cells).  Prints one `ok`/`not ok` line per example.
"""
import os
import subprocess
import sys
import tempfile


def examples(path):
    """(line number, [(command, [output lines])]) of each example block."""
    found, block, start = [], None, 0
    for number, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if line.startswith("```"):
            if block is None:
                block, start = [], number + 1
            else:
                if block and block[0].startswith("$ ") and not block[0].startswith("$ sqlite3"):
                    steps = []
                    for text in block:
                        if text.startswith("$ "):
                            steps.append((text[2:], []))
                        elif steps:
                            steps[-1][1].append(text.rstrip())
                    found.append((start, steps))
                block = None
        elif block is not None:
            block.append(line)
    return found


def main():
    doc, repo = sys.argv[1], os.path.abspath(sys.argv[2])
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for entry in os.listdir(repo):
            if not entry.startswith("."):
                os.symlink(os.path.join(repo, entry), os.path.join(scratch, entry))
        for start, steps in examples(doc):
            what = f"{os.path.basename(doc)} line {start}: $ {steps[0][0][:70]}"
            for command, shown in steps:
                r = subprocess.run(["bash", "-c", command], cwd=scratch, capture_output=True,
                                   text=True, timeout=120)
                printed = [l.rstrip() for l in (r.stdout + r.stderr).rstrip("\n").split("\n")]
                if printed != shown:
                    at = next((i for i, (a, b) in enumerate(zip(printed, shown)) if a != b),
                              min(len(printed), len(shown)))
                    print(f"not ok - {what}: `{command[:80]}` prints {len(printed)} lines, the "
                          f"document shows {len(shown)}; line {at + 1}: prints "
                          f"{printed[at] if at < len(printed) else '(nothing)'!r}, shows "
                          f"{shown[at] if at < len(shown) else '(nothing)'!r}")
                    failures += 1
                    break
            else:
                print(f"ok - {what}: its {len(steps)} command(s) print what the document shows")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
