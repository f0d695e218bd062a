#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fold the work tree's changes into the patches they belong to.

Run in build/linux with uncommitted changes. Each hunk (one line of
context) goes to the newest commit of prepage-base..HEAD that last
touched the lines it removes, or, for a pure insertion, its context: a
`git commit --fixup` per target, oldest first. Then
`GIT_SEQUENCE_EDITOR=: git rebase -i --autosquash prepage-base`.

    dev/series-absorb.py [PATH=SUBJECT ...]

PATH=SUBJECT sends every hunk of a file whose path contains PATH to the
commit with that subject instead: blame knows where lines came from, not
what a change needs (a helper must be in the patch of its first user).
Check that each patch still builds (make static) afterwards.
"""
import collections
import re
import subprocess
import sys


def git(*args, inp=None):
    return subprocess.run(['git'] + list(args), input=inp, capture_output=True,
                          text=True, check=True).stdout


if git('diff', '--cached', '--name-only').strip():
    sys.exit('changes are staged already: commit or unstage them first')
order = git('rev-list', '--reverse', 'prepage-base..HEAD').split()
rank = {c: i for i, c in enumerate(order)}
subject = {git('log', '-1', '--format=%s', c).strip(): c for c in order}
override = [a.split('=', 1) for a in sys.argv[1:]]
for _, s in override:
    if s not in subject:
        sys.exit(f'no commit with subject {s!r}')


def target(c):
    """A commit of the series, or the one a fixup! of it amends."""
    if c in rank:
        return c
    s = git('log', '-1', '--format=%s', c).strip()
    while s.startswith('fixup! '):
        s = s[len('fixup! '):]
    return subject.get(s)


def groups(diff):
    out = collections.defaultdict(list)
    for fd in re.split(r'(?m)^(?=diff --git )', diff):
        if not fd.strip():
            continue
        path = re.match(r'diff --git a/(\S+) b/', fd).group(1)
        header, *hunks = re.split(r'(?m)^(?=@@ )', fd)
        for h in hunks:
            m = re.match(r'@@ -(\d+)(?:,(\d+))? \+', h)
            start, n = int(m.group(1)), int(m.group(2) or 1)
            line, removed = start, []
            for l in h.split('\n')[1:]:
                if l.startswith('-'):
                    removed.append(line)
                if l[:1] in ('-', ' '):
                    line += 1
            lo, hi = ((min(removed), max(removed)) if removed else
                      (max(start, 1), max(start + n - 1, 1)))
            blame = git('blame', '-l', '-s', f'-L{lo},{hi}', 'HEAD', '--', path)
            cs = {target(l.split()[0].lstrip('^')) for l in blame.splitlines()}
            cs = [c for c in cs if c]
            if not cs:
                sys.exit(f'{path} {h.splitlines()[0]}: lines of the base only')
            best = max(cs, key=lambda c: rank[c])
            for pat, s in override:
                if pat in path:
                    best = subject[s]
            out[best].append((header, h))
    return out


while True:
    g = groups(git('diff', '-U1', '--no-color', '--no-ext-diff',
                   '--src-prefix=a/', '--dst-prefix=b/'))
    if not g:
        break
    c = min(g, key=lambda c: rank[c])
    patch, last = '', None
    for header, h in g[c]:
        if header != last:
            patch += header
            last = header
        patch += h
    print(f'{c[:12]} {git("log", "-1", "--format=%s", c).strip()[:60]}: '
          f'{len(g[c])} hunks')
    git('apply', '--cached', '-', inp=patch)
    git('commit', '-q', '--fixup=' + c)
