# SPDX-License-Identifier: GPL-2.0
"""The app's database, the same for a seed: posts.db (~40 MB)."""
import os
import random
import sqlite3

rng = random.Random(1)
WORDS = [''.join(rng.choice('abcdefghijklmnopqrstuvwxyz')
                 for _ in range(rng.randint(2, 9))) for _ in range(4000)]
if os.path.exists('posts.db'):
    os.unlink('posts.db')
db = sqlite3.connect('posts.db')
db.execute('PRAGMA page_size=4096')
db.execute('CREATE TABLE posts (id INTEGER PRIMARY KEY, author INTEGER, '
           'ts INTEGER, likes INTEGER, title TEXT, body TEXT)')
rows = ((i, rng.randrange(2000), rng.randrange(10**9), rng.randrange(1000),
         ' '.join(rng.choices(WORDS, k=6)),
         ' '.join(rng.choices(WORDS, k=rng.randint(20, 80))))
        for i in range(90000))
db.executemany('INSERT INTO posts VALUES (?, ?, ?, ?, ?, ?)', rows)
db.execute('CREATE INDEX by_author ON posts (author, ts)')
db.execute('CREATE INDEX by_likes ON posts (likes)')
db.commit()
db.execute('VACUUM')
db.close()
