# SPDX-License-Identifier: GPL-2.0
"""The app's data, the same for a seed: series.npy (2M float64, 16 MB)."""
import numpy as np

rng = np.random.default_rng(1)
np.save('series.npy', np.cumsum(rng.normal(size=2_000_000)))
