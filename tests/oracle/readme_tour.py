#!/usr/bin/env python3
"""The README's "A short tour": its sqlite3 sessions, run as a newcomer would.

    readme_tour.py README.md check      exit 1 and print the differences if the
                                        README shows other output than the code prints
    readme_tour.py README.md print      the tour as it runs now (to update README.md)
    readme_tour.py README.md check SECTION   the same for another section's
                                        session ("Off-CPU time")

The tour's code blocks that start with `$ sqlite3` or `sqlite> ` are one
session: each `sqlite> ` line (with its `   ...> ` continuations) is fed to
the sqlite3 shell, every other line is the output the README promises.
Trailing blanks are ignored (`.mode column` pads cells; the README cannot
show that).  Run from the repository root: the tour's paths are relative.
"""
import subprocess
import sys


def tour_blocks(readme, section="A short tour"):
    """The session blocks of the section "## SECTION", as lists of lines."""
    lines = open(readme, encoding="utf-8").read().split("\n")
    start = lines.index("## " + section)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))
    blocks, block = [], None
    for line in lines[start:end]:
        if line.startswith("```"):
            if block is None:
                block = []
            else:
                if block and (block[0].startswith("$ sqlite3") or block[0].startswith("sqlite> ")):
                    blocks.append(block)
                block = None
        elif block is not None:
            block.append(line)
    return blocks


def commands_and_output(blocks):
    commands, shown = [], []
    for block in blocks:
        for line in block:
            if line.startswith("$ "):
                continue
            if line.startswith("sqlite> "):
                commands.append(line[len("sqlite> "):])
            elif line.startswith("   ...> "):
                commands[-1] += "\n" + line[len("   ...> "):]
            else:
                shown.append(line.rstrip())
    return commands, shown


def main():
    readme, mode = sys.argv[1], sys.argv[2]
    blocks = tour_blocks(readme, *sys.argv[3:4])
    commands, shown = commands_and_output(blocks)
    if not commands:
        sys.exit(f"{readme}: no sqlite3 session in its tour")
    marker = "@@readme_tour@@"
    script = commands if mode != "print" else [c for cmd in commands for c in (f".print {marker}", cmd)]
    run = subprocess.run(["sqlite3", "-bail"], input="\n".join(script) + "\n",
                         capture_output=True, text=True, timeout=120)
    printed = [line.rstrip() for line in run.stdout.split("\n")]
    while printed and not printed[-1]:
        printed.pop()
    if mode == "print":
        # each block with its commands' output after them, ready to paste
        outputs = "\n".join(printed).split(marker + "\n")[1:]
        n = 0
        for block in blocks:
            print("```")
            for line in block:
                if line.startswith("$ "):
                    print(line)
                elif line.startswith("sqlite> "):
                    print(line)
                    cont = commands[n].split("\n")[1:]
                    for c in cont:
                        print("   ...> " + c)
                    print(outputs[n].rstrip("\n")) if outputs[n].strip() else None
                    n += 1
            print("```")
        print(run.stderr, end="", file=sys.stderr)
        return
    problems = []
    if run.returncode != 0 or run.stderr:
        problems.append(f"sqlite3 exited {run.returncode}: {run.stderr.strip()[:300]}")
    if printed != shown:
        for i in range(max(len(printed), len(shown))):
            want = shown[i] if i < len(shown) else "(nothing)"
            got = printed[i] if i < len(printed) else "(nothing)"
            if want != got:
                problems.append(f"line {i + 1} of the tour's output: README shows {want!r}, "
                                f"the code prints {got!r}")
                break
        problems.append(f"README shows {len(shown)} output lines, the code prints {len(printed)}")
    if problems:
        print("; ".join(problems))
        sys.exit(1)
    print(f"{len(commands)} commands, {len(shown)} output lines")


if __name__ == "__main__":
    main()
