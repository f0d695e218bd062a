# SPDX-License-Identifier: GPL-2.0
"""The app's data, the same for a seed: posts.tsv (~14 MB)."""
import random

rng = random.Random(3)
WORDS = [''.join(rng.choice('abcdefghijklmnopqrstuvwxyz')
                 for _ in range(rng.randint(2, 9))) for _ in range(3000)]
with open('posts.tsv', 'w') as f:
    for i in range(40000):
        f.write('%d\t%d\t%d\t%s\t%s\n' % (
            i, rng.randrange(2000), rng.randrange(999),
            ' '.join(rng.choices(WORDS, k=6)),
            ' '.join(rng.choices(WORDS, k=rng.randint(20, 70)))))
