# SPDX-License-Identifier: GPL-2.0
"""prepage-bench app (bench/README.md, "Apps"): home-screen queries."""
import gc
import random
import sqlite3
import zlib

from app_protocol import serve

db = sqlite3.connect('file:posts.db?mode=ro&immutable=1', uri=True)
db.execute('PRAGMA cache_size=-16000')     # 16 MB, in the heap
FOLLOWED = random.Random(7).sample(range(2000), 40)
kept = []                                  # what the use phase holds on to


def feed(rng, authors, n):
    crc = 0
    for a in authors:
        rows = db.execute('SELECT id, title, body FROM posts WHERE author = ? '
                          'ORDER BY ts DESC LIMIT ?', (a, n)).fetchall()
        crc = zlib.crc32(repr(rows).encode(), crc)
    for _ in range(20):
        lo = rng.randrange(1000)
        rows = db.execute('SELECT id, likes FROM posts WHERE likes BETWEEN ? '
                          'AND ? LIMIT 30', (lo, lo + 3)).fetchall()
        crc = zlib.crc32(repr(rows).encode(), crc)
    return crc


def switch(r):
    rng = random.Random(1000 + r)
    # The home screen: the followed authors' newest posts, and what is
    # new this time (other authors, drawn by the round).
    authors = FOLLOWED + [rng.randrange(2000) for _ in range(15)]
    return feed(rng, authors, 5)


def use(r):
    rng = random.Random(50000 + r)
    kept.append([db.execute('SELECT body FROM posts WHERE id = ?',
                            (rng.randrange(90000),)).fetchone()
                 for _ in range(300)])
    del kept[:-3]
    feed(rng, [rng.randrange(2000) for _ in range(20)], 10)


serve(switch, use, gc.collect)
