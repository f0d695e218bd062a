# SPDX-License-Identifier: GPL-2.0
"""The app's data, the same for a seed: feed.json (~12 MB)."""
import json
import random

rng = random.Random(2)
WORDS = [''.join(rng.choice('abcdefghijklmnopqrstuvwxyz')
                 for _ in range(rng.randint(2, 9))) for _ in range(3000)]
posts = [{'id': i, 'author': rng.randrange(1500), 'likes': rng.randrange(999),
          'title': ' '.join(rng.choices(WORDS, k=6)),
          'body': ' '.join(rng.choices(WORDS, k=rng.randint(20, 90))),
          'tags': rng.sample(WORDS[:200], 3)} for i in range(30000)]
with open('feed.json', 'w') as f:
    json.dump(posts, f)
