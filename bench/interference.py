#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read the output of bench/interference (a probe; see its header).

    bench/interference.py OUTPUT

For every kind of background work: the foreground's wall time per
repetition (repetition 0, the warm-up, is left out of the means) and, for
the repetitions run with INTERF_TRACE=1, where the foreground's time went:
on a CPU, blocked (from switching out asleep to its wakeup), woken but
not yet running, its wakeups and what ran on the CPU it was woken onto
(nothing, the background task, or another task), its migrations, and,
with INTERF_LOCKS=1, its lock contention (count, time).
"""
import collections
import re
import statistics
import sys

INTERF = re.compile(r'INTERF rep=(\d+) bg=(\S+) wall_ms=([\d.]+)'
                    r'(?: fg=(\d+) bgpid=(\d+))?')
EVENT = re.compile(r'^TRACE rep=(\d+) bg=(\S+)\s+.*-(\d+)\s+\[(\d+)\]\s+\S+'
                   r'\s+([\d.]+): (\w+): (.*)')


def fields(text):
    return dict(re.findall(r'(\w+)=(\S+)', text))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    walls = collections.defaultdict(list)
    pids = {}
    events = collections.defaultdict(list)
    for line in open(sys.argv[1], errors='replace'):
        m = INTERF.search(line)
        if m:
            rep, kind = int(m[1]), m[2]
            walls[kind].append((rep, float(m[3])))
            if m[4]:
                pids[(rep, kind)] = (m[4], m[5])
            continue
        m = EVENT.match(line)
        if m:
            events[(int(m[1]), m[2])].append(
                (m[3], int(m[4]), float(m[5]), m[6], m[7]))
    if not walls:
        sys.exit('interference.py: no INTERF lines in ' + sys.argv[1])

    print('wall ms: mean of repetitions >= 1 (all repetitions)')
    for kind, v in walls.items():
        later = [w for r, w in v if r >= 1] or [w for r, w in v]
        print(f'  {kind:16s} {statistics.mean(later):7.1f}  '
              f'({" ".join(str(round(w)) for r, w in v)})')

    per = collections.defaultdict(lambda: collections.defaultdict(list))
    for (rep, kind), evs in sorted(events.items()):
        if rep < 1 or (rep, kind) not in pids:
            continue
        fg, bg = pids[(rep, kind)]
        running = {}
        woken = slept = ran = None
        s = collections.Counter()
        locks = {}
        for pid, cpu, ts, ev, rest in evs:
            if ev == 'sched_switch':
                prev, nxt = (fields(x) for x in rest.split(' ==> '))
                running[cpu] = nxt['next_pid']
                if nxt['next_pid'] == fg:
                    if woken is not None:
                        s['wait'] += ts - woken
                        woken = None
                    ran = ts
                if prev['prev_pid'] == fg and ran is not None:
                    s['cpu'] += ts - ran
                    ran = None
                    if not prev['prev_state'].startswith('R'):
                        slept = ts
            elif ev == 'sched_wakeup':
                f = fields(rest)
                if f['pid'] != fg:
                    continue
                on = running.get(int(f['target_cpu']), '0')
                s['wakeups'] += 1
                s['onto idle' if on == '0' else
                  'onto bg' if on == bg and bg != '0' else 'onto other'] += 1
                woken = ts
                if slept is not None:
                    s['blocked'] += ts - slept
                    slept = None
            elif ev == 'sched_migrate_task':
                if fields(rest)['pid'] == fg:
                    s['migrations'] += 1
            elif ev == 'contention_begin' and pid == fg:
                locks[cpu] = ts
            elif ev == 'contention_end' and pid == fg and cpu in locks:
                s['contended'] += 1
                s['contended ms'] += (ts - locks.pop(cpu)) * 1e3
        for key in ('cpu', 'blocked', 'wait'):
            s[key] *= 1e3
        for key in ('cpu', 'blocked', 'wait', 'wakeups', 'onto idle',
                    'onto bg', 'onto other', 'migrations', 'contended',
                    'contended ms'):
            per[kind][key].append(s[key])
    if not per:
        return
    print('\ntraced repetitions >= 1, means: the foreground\'s ms on a CPU, '
          'blocked, woken but waiting; its wakeups, onto a CPU that ran '
          'nothing / the background task / another task; migrations; '
          'lock contentions and their ms')
    for kind, v in per.items():
        m = {k: statistics.mean(x) for k, x in v.items()}
        print(f'  {kind:16s} cpu {m["cpu"]:6.1f}  blocked {m["blocked"]:6.1f}'
              f'  wait {m["wait"]:5.1f}  wakeups {m["wakeups"]:4.0f}'
              f' ({m["onto idle"]:.0f}/{m["onto bg"]:.0f}/'
              f'{m["onto other"]:.0f})  migrations {m["migrations"]:.0f}'
              f'  contended {m["contended"]:.0f} ({m["contended ms"]:.2f} ms)')


if __name__ == '__main__':
    main()
