#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a test VM's console log into one result line per test case.

kselftest: run_kselftest.sh prints TAP; each program's own KTAP (the
kselftest_harness cases) is nested under it with a "# " prefix.  A case
line counts; a program that printed no case lines counts by its own line.
KUnit: built-in suites print KTAP to the boot log ("    ok 1 case").
Output lines: "PASS|FAIL|SKIP <kind> <name>".
"""
import re
import sys

RESULT = re.compile(r"^(not ok|ok) (\d+) (?:- )?([^#]*?)\s*(?:#\s*(\w+)\s*(.*))?$")


def verdict(status, directive):
    if directive and directive.upper() == "SKIP":
        return "SKIP"
    if directive and directive.upper() in ("TODO", "XFAIL"):
        return "SKIP"
    return "PASS" if status == "ok" else "FAIL"


def kselftest(lines):
    out, cases, prog = [], [], None
    for raw in lines:
        line = raw.rstrip("\n")
        if line.startswith("# selftests: "):
            prog, cases = line[len("# selftests: "):].strip(), []
            continue
        if prog is None:
            continue
        m = RESULT.match(line[2:]) if line.startswith("# ") else None
        if m:   # a harness case of the current program
            cases.append((verdict(m.group(1), m.group(4)), m.group(3)))
            continue
        m = RESULT.match(line)
        if m and "selftests: " in m.group(3):   # the program's own result
            prog_verdict = verdict(m.group(1), m.group(4))
            if not cases:
                out.append((prog_verdict, "kselftest", prog))
            for v, name in cases:
                out.append((v, "kselftest", f"{prog}:{name}"))
            # Cut off, crashed or timed out after its last case.
            if cases and prog_verdict == "FAIL" and all(v != "FAIL" for v, _ in cases):
                out.append(("FAIL", "kselftest", f"{prog} (exit status)"))
            prog, cases = None, []
    if prog is not None:
        out.append(("FAIL", "kselftest", f"{prog} (no result: crashed or cut off)"))
    return out


def kunit(lines):
    """Cases of KUnit suites: '# Subtest: suite' then indented results."""
    out, suite = [], None
    for raw in lines:
        line = re.sub(r"^\[\s*[\d.]+\]\s?", "", raw.rstrip("\n"))
        m = re.match(r"^\s+# Subtest: (\S+)", line)
        if m:
            suite = m.group(1)
            continue
        m = re.match(r"^(\s+)(not ok|ok) \d+ (?:- )?([^#]*?)\s*(?:#\s*(\w+).*)?$", line)
        if m and suite and len(m.group(1)) == 4:
            out.append((verdict(m.group(2), m.group(4)), "kunit", f"{suite}.{m.group(3)}"))
            continue
        m = re.match(r"^(not ok|ok) \d+ (?:- )?(\S+)", line)
        if m and suite and m.group(2) == suite:
            suite = None
    if suite is not None:
        out.append(("FAIL", "kunit", f"{suite} (suite did not finish)"))
    return out


def main():
    lines = open(sys.argv[1], errors="replace").readlines()
    for v, kind, name in kselftest(lines) + kunit(lines):
        print(f"{v} {kind} {name}")


if __name__ == "__main__":
    main()
