"""Kernels written with numba.cuda's device names imported into the module, as some
Numba programs write them: from numba.cuda import jit, grid, threadIdx, shared ..."""
import numpy as np
from numba import float32
from numba.cuda import jit, grid, gridsize, threadIdx, blockIdx, blockDim, syncthreads, \
    shared, atomic, local, popc


@jit
def kernel(out, hist):
    i = grid(1)
    s = shared.array(32, float32)
    t = local.array(2, float32)
    t[0] = blockIdx.x * blockDim.x
    s[threadIdx.x] = t[0]
    syncthreads()
    if i < out.size:
        out[i] = s[(threadIdx.x + 1) % 32] + popc(i) + gridsize(1)
        atomic.add(hist, i % 4, 1)


out = np.zeros(64, np.float32)
hist = np.zeros(4, np.int32)
kernel[2, 32](out, hist)
print(' '.join(str(int(v)) for v in out))
print(' '.join(str(int(v)) for v in hist))
try:
    grid(1)
except TypeError as e:
    print('host call:', e)
