"""Numba's launch warnings: printed (once each) for a small grid and a host array,
none for a big grid of device arrays or a mapped array."""
import warnings

import numpy as np
from numba import cuda


@cuda.jit
def bump(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


bump[1, 32](np.zeros(32))                 # both warnings
d = cuda.to_device(np.zeros(128 * 32))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    bump[128, 32](d)
print('caught %d for a big grid and device arrays' % len(caught))
m = cuda.mapped_array(128 * 32)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    bump[128, 32](m)
print('caught %d for a mapped array' % len(caught))
