# SPDX-License-Identifier: GPL-2.0
"""prepage-bench app (bench/README.md, "Apps"): a dashboard of charts."""
import gc
import os
import zlib

# matplotlib's font cache in the app's directory: made when the app is
# staged (bench/stage-apps.sh runs it once on the host) and read here.
os.environ['MPLCONFIGDIR'] = os.path.abspath('mplconfig')
import matplotlib  # noqa: E402
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from app_protocol import serve  # noqa: E402

series = np.load('series.npy', mmap_mode='r')
N = len(series)
# The dashboard's fixed panels: windows of the series it always shows.
PANELS = [(i * N // 7, 20000) for i in range(2)]
fig, axes = plt.subplots(1, 3, figsize=(4.8, 1.6), dpi=80)
kept = []


def draw(windows):
    for ax, (start, n) in zip(axes.flat, windows):
        ax.clear()
        y = np.asarray(series[start:start + n])
        ax.plot(y[::50], linewidth=0.6)
        ax.plot(np.convolve(y, np.ones(200) / 200, 'valid')[::50],
                linewidth=0.8)
        ax.set_title('%d' % start, fontsize=6)
        ax.tick_params(labelsize=5)
    fig.canvas.draw()
    return zlib.crc32(bytes(fig.canvas.buffer_rgba()))


def switch(r):
    rng = np.random.default_rng(1000 + r)
    # The fixed panels and one that shows what changed since last time.
    return draw(PANELS + [(int(rng.integers(N - 20000)), 20000)])


def use(r):
    rng = np.random.default_rng(50000 + r)
    kept.append(np.asarray(series[:50000]) * rng.normal())
    del kept[:-2]
    draw([(int(rng.integers(N - 20000)), 20000) for _ in range(3)])


serve(switch, use, gc.collect)
