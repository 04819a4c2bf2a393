# A Numba program for test_main.py whose kernel's signature is written with Numba's
# type objects (numba.void, numba.float32): kcc reads it from the decorator; the
# objects themselves come from the real Numba, so the test needs it.
import numpy as np
from numba import cuda, void, float32


@cuda.jit(void(float32[:], float32))
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= factor


a = np.arange(5, dtype=np.float32)
scale[1, 32](a, 1.5)
print(scale.signatures)
print(a.tolist())
