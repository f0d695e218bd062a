#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a test VM's console log into one result line per test case.

kselftest: run_kselftest.sh prints TAP; each program's own KTAP (the
kselftest_harness cases) is nested under it with a "# " prefix.  A case
line counts; a program that printed no case lines counts by its own line.
The upstream no-regression run (dev/upstream-selftests.sh) prints the
same layout for the mm, cachestat and proc programs.
KUnit: built-in suites print KTAP to the boot log ("    ok 1 case").

Then the verdicts are judged (judge()):
 - the test VM is set up for every prepage test, so a SKIP of a case of
   the prepage kselftests, or of a KUnit case, is a FAIL, and a log with
   no prepage kselftest result or no prepage KUnit result fails;
 - results of other kselftest collections are the upstream run's (kind
   "upstream"): a FAIL listed in the known-failures file (--known) is
   reported as SKIP with its reason, any other FAIL stays a FAIL, SKIPs
   are reported as such (a program that failed once and passed when the
   runner ran it again is a SKIP noted "flaky"); with --known, a log
   without upstream results fails.

Usage: results.py CONSOLE_LOG... [--known FILE]
Output lines: "PASS|FAIL|SKIP <kind> <name>[ (note)]".
"""
import fnmatch
import re
import sys
from collections import namedtuple

Result = namedtuple("Result", "verdict kind name note")
Result.__new__.__defaults__ = ("",)

RESULT = re.compile(r"^(not ok|ok) (\d+) (?:- )?([^#]*?)\s*(?:#\s*(\w+)\s*(.*))?$")
PREPAGE = "prepage"     # the series' kselftest collection


def verdict(status, directive):
    if directive and directive.upper() == "SKIP":
        return "SKIP"
    if directive and directive.upper() in ("TODO", "XFAIL"):
        return "SKIP"
    return "PASS" if status == "ok" else "FAIL"


def skip_note(status, directive, rest):
    """The reason a SKIP gave, if any."""
    if verdict(status, directive) != "SKIP":
        return ""
    return (rest or "").strip()


def kselftest(lines):
    out, cases, prog = [], [], None
    for raw in lines:
        line = raw.rstrip("\n")
        if line.startswith("# selftests: "):
            if prog is not None:
                out.append(Result("FAIL", "kselftest", f"{prog} (no result: crashed or cut off)"))
            prog, cases = line[len("# selftests: "):].strip(), []
            continue
        if prog is None:
            continue
        m = RESULT.match(line[2:]) if line.startswith("# ") else None
        if m:   # a harness case of the current program
            name, note = m.group(3), skip_note(m.group(1), m.group(4), m.group(5))
            if not name:    # ksft_test_result_skip(msg): "ok 3 # SKIP msg"
                name, note = note or f"case {m.group(2)}", ""
            cases.append((verdict(m.group(1), m.group(4)), name, note))
            continue
        m = RESULT.match(line)
        if m and "selftests: " in m.group(3):   # the program's own result
            prog_verdict = verdict(m.group(1), m.group(4))
            if not cases:
                out.append(Result(prog_verdict, "kselftest", prog,
                                  skip_note(m.group(1), m.group(4), m.group(5))))
            for v, name, note in cases:
                out.append(Result(v, "kselftest", f"{prog}:{name}", note))
            # Cut off, crashed or timed out after its last case.
            if cases and prog_verdict == "FAIL" and all(v != "FAIL" for v, _, _ in cases):
                out.append(Result("FAIL", "kselftest", f"{prog} (exit status)"))
            # Failed once, passed when the runner ran it again: say so.
            note = skip_note(m.group(1), m.group(4), m.group(5))
            if cases and note.startswith("flaky"):
                out.append(Result("SKIP", "kselftest", prog, note))
            prog, cases = None, []
    if prog is not None:
        out.append(Result("FAIL", "kselftest", f"{prog} (no result: crashed or cut off)"))
    return out


def kunit(lines):
    """Cases of KUnit suites: '# Subtest: suite' then indented results.
    A suite run again (through /sys/kernel/debug/kunit/SUITE/run) is
    reported as SUITE[2], SUITE[3], ...: each run's cases count."""
    out, suite, base, runs = [], None, None, {}
    for raw in lines:
        line = re.sub(r"^\[\s*[\d.]+\]\s?", "", raw.rstrip("\n"))
        m = re.match(r"^\s+# Subtest: (\S+)", line)
        if m:
            suite = base = m.group(1)
            runs[base] = runs.get(base, 0) + 1
            if runs[base] > 1:
                suite = f"{base}[{runs[base]}]"
            continue
        m = re.match(r"^(\s+)(not ok|ok) \d+ (?:- )?([^#]*?)\s*(?:#\s*(\w+)\s*(.*))?$", line)
        if m and suite and len(m.group(1)) == 4:
            out.append(Result(verdict(m.group(2), m.group(4)), "kunit",
                              f"{suite}.{m.group(3)}",
                              skip_note(m.group(2), m.group(4), m.group(5))))
            continue
        m = re.match(r"^(not ok|ok) \d+ (?:- )?(\S+)", line)
        if m and suite and m.group(2) == base:
            suite = None
    if suite is not None:
        out.append(Result("FAIL", "kunit", f"{suite} (suite did not finish)"))
    return out


def read_known(text):
    """Known upstream failures: 'NAME | reason' lines, NAME a result name
    ("mm: cow:case", "proc: read") or an fnmatch pattern of names."""
    known = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, reason = line.rpartition(" | ")
        if not sep or not name.strip() or not reason.strip():
            raise ValueError(f"known failures line {n}: not 'NAME | reason': {line}")
        known.append((name.strip(), reason.strip()))
    return known


def known_reason(known, name):
    for pat, reason in known:
        if name == pat or fnmatch.fnmatchcase(name, pat):
            return reason
    return None


def collection(name):
    return name.split(":", 1)[0]


def judge(results, known=None):
    """Apply the rules above; known=None: no upstream run expected."""
    out = []
    seen = {"prepage": False, "kunit": False, "upstream": False}
    for r in results:
        if r.kind not in ("kselftest", "kunit"):
            out.append(r)
            continue
        if r.kind == "kunit" or collection(r.name) == PREPAGE:
            if r.kind != "kunit":
                seen["prepage"] = True
            elif r.name.startswith(PREPAGE):
                seen["kunit"] = True
            if r.verdict == "SKIP":
                why = f": {r.note}" if r.note else ""
                r = r._replace(verdict="FAIL", note=f"skipped{why}; a SKIP in the test VM is a failure")
            out.append(r)
            continue
        seen["upstream"] = True
        r = r._replace(kind="upstream")
        if r.verdict == "FAIL" and known is not None:
            reason = known_reason(known, r.name)
            if reason is not None:
                r = r._replace(verdict="SKIP", note=f"known failure: {reason}")
        out.append(r)
    if not seen["prepage"]:
        out.append(Result("FAIL", "kselftest", f"{PREPAGE} (no results: the prepage kselftests did not run)"))
    if not seen["kunit"]:
        out.append(Result("FAIL", "kunit", f"{PREPAGE} (no results: the prepage KUnit suites did not run)"))
    if known is not None and not seen["upstream"]:
        out.append(Result("FAIL", "upstream", "(no results: the upstream kselftests did not run)"))
    return out


def line(r):
    return f"{r.verdict} {r.kind} {r.name}" + (f" ({r.note})" if r.note else "")


def main(argv):
    args, logs, known = argv[1:], [], None
    while args:
        if args[0] == "--known" and len(args) > 1:
            known = read_known(open(args[1]).read())
            args = args[2:]
        elif args[0].startswith("-"):
            sys.exit("usage: results.py CONSOLE_LOG... [--known FILE]")
        else:
            logs.append(args.pop(0))
    if not logs:
        sys.exit("usage: results.py CONSOLE_LOG... [--known FILE]")
    got = []
    for log in logs:    # each log on its own: a cut-off run ends in it
        try:
            lines = open(log, errors="replace").readlines()
        except OSError as e:
            got.append(Result("FAIL", "log", f"{log} ({e.strerror})"))
            continue
        got += kselftest(lines) + kunit(lines)
    for r in judge(got, known):
        print(line(r))


if __name__ == "__main__":
    main(sys.argv)
