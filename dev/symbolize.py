#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Name the kernel text addresses of a console log: SYMBOL+OFF/SIZE.

    dev/symbolize.py SYSTEM_MAP < LOG > LOG.named

The test kernel has no kallsyms (tinyconfig), so its stack traces (a
hung task's, sysrq-w's, a WARN's) print bare addresses; its System.map,
from the same link, names them (no KASLR in the test config). Each
0xffffffff... address inside the text is followed by its name; other
lines pass unchanged.
"""
import bisect
import re
import sys


def load(path):
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in 'tTwW':
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip())
    addrs, names = load(sys.argv[1])
    if not addrs:
        sys.exit(f'{sys.argv[1]}: no text symbols')
    etext = addrs[-1]

    def name(m):
        a = int(m.group(1), 16)
        i = bisect.bisect_right(addrs, a) - 1
        if i < 0 or a >= etext:
            return m.group(0)
        size = addrs[i + 1] - addrs[i] if i + 1 < len(addrs) else 0
        return f'{m.group(0)} {names[i]}+{a - addrs[i]:#x}/{size:#x}'

    pat = re.compile(r'0x(ffffffff[0-9a-f]{8})\b')
    for line in sys.stdin:
        sys.stdout.write(pat.sub(name, line))


if __name__ == '__main__':
    main()
