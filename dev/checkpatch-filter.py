#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Filter 'checkpatch.pl --strict --show-types' output of one patch through
dev/checkpatch.exceptions; print the reports that are not excused and exit
1 if there are any.

An exception line is: PATCH-GLOB TYPE FILE-GLOB justification.  FILE-GLOB
matches the file the report is about ('-' for reports about the patch as a
whole, such as FILE_PATH_CHANGES, '*' for any).  The justification is
required.
"""
import fnmatch
import re
import sys


def load(path):
    rules = []
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 3)
        if len(parts) < 4:
            sys.exit(f"{path}:{n}: want PATCH-GLOB TYPE FILE-GLOB justification")
        rules.append(parts[:3])
    return rules


def main():
    rules_file, patch, report = sys.argv[1:4]
    rules = load(rules_file)
    blocks = open(report).read().split("\n\n")
    bad = []
    for block in blocks:
        m = re.search(r"^(ERROR|WARNING|CHECK):([A-Z0-9_]+):", block, re.M)
        if not m:
            continue
        kind = m.group(2)
        f = re.search(r"FILE: ([^:\s]+):\d+:", block)
        fname = f.group(1) if f else "-"
        if not any(fnmatch.fnmatch(patch, p) and t == kind and
                   (g == "*" or fnmatch.fnmatch(fname, g)) for p, t, g in rules):
            bad.append(block.strip())
    for b in bad:
        print(b + "\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
