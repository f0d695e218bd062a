#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The series in patches/ as the mail thread reviewers get.

  mail-thread.py thread ROOT   print the thread as one mbox: the cover
                               letter, then every patch of ROOT/series as a
                               reply to it (Message-Id, In-Reply-To), header
                               lines unfolded (b4 0.16 refuses a folded From:)
  mail-thread.py msgid         the cover letter's Message-Id, without <>
  mail-thread.py cover ROOT FILE
                               write the cover letter's subject and text to
                               FILE, as `b4 prep --edit-cover` expects (an
                               $EDITOR): what comes before format-patch's
                               shortlog
"""
import re
import sys

MSGID = 'prepage-series-0@localhost'


def split(text):
    head, body = text.split('\n\n', 1)
    return re.sub(r'\n[ \t]+', ' ', head), body


def thread(root):
    series = [l.strip() for l in open(f'{root}/series')
              if l.strip() and not l.lstrip().startswith('#')]
    out = []
    for i, name in enumerate(['0000-cover-letter.patch'] + series):
        head, body = split(open(f'{root}/patches/{name}').read())
        head += f'\nMessage-Id: <prepage-series-{i}@localhost>'
        if i:
            head += f'\nIn-Reply-To: <{MSGID}>\nReferences: <{MSGID}>'
        out.append(head + '\n\n' + body.rstrip('\n') + '\n')
    sys.stdout.write('\n'.join(out))


def cover(root, path):
    head, body = split(open(f'{root}/patches/0000-cover-letter.patch').read())
    subject = re.search(r'(?m)^Subject: \[PATCH[^\]]*\] (.*)$', head).group(1)
    shortlog = re.search(r'(?m)^\S.*\(\d+\):\n', body)
    if not shortlog:
        sys.exit('cover letter: no shortlog')
    with open(path, 'w') as f:
        f.write(subject + '\n\n' + body[:shortlog.start()].rstrip() + '\n')


if __name__ == '__main__':
    if sys.argv[1:2] == ['thread'] and len(sys.argv) == 3:
        thread(sys.argv[2])
    elif sys.argv[1:] == ['msgid']:
        print(MSGID)
    elif sys.argv[1:2] == ['cover'] and len(sys.argv) == 4:
        cover(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
