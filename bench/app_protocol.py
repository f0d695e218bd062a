# SPDX-License-Identifier: GPL-2.0
"""The benchmark's line protocol (bench/README.md, "Apps") for apps in
Python: bench/stage-apps.sh copies this file into every staged app."""
import sys
import time


def serve(switch, use, background, pid=None):
    """Say READY (naming @pid if the switched process is another), then
    answer the driver until Q or the end of input: S <round> with
    @switch(round)'s checksum and the time it was done, U <round> after
    @use(round), B after @background()."""
    print('READY' if pid is None else 'READY %d' % pid, flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd or cmd[0] == 'Q':
            break
        if cmd[0] == 'S':
            crc = switch(int(cmd[1]))
            print('DONE %08x %d' % (crc, time.monotonic_ns()), flush=True)
        elif cmd[0] == 'U':
            use(int(cmd[1]))
            print('OK', flush=True)
        elif cmd[0] == 'B':
            background()
            print('OK', flush=True)
        else:
            print('ERROR unknown command', flush=True)
