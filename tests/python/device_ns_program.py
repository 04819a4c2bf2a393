"""numba-cuda's device-only modules imported as its programs import them:
numba.cuda.bf16 (names and the module), numba.cuda.fp16 and numba.cuda.libdevice."""
import numpy as np
from numba import cuda
from numba.cuda import fp16, libdevice
from numba.cuda.bf16 import bfloat16, hadd, hmul, hdiv, bfloat16_as_int16
import numba.cuda.bf16 as bf


@cuda.jit
def kernel(x, out, bits):
    a = bfloat16(x[0])
    b = bfloat16(x[1])
    out[0] = np.float32(hadd(a, b))
    out[1] = np.float32(hmul(a, b))
    out[2] = np.float32(hdiv(b, a))
    out[3] = np.float32(bf.hsub(a, b))
    out[4] = fp16.hmul(np.float16(x[2]), np.float16(2.0))
    out[5] = libdevice.sqrtf(x[3])
    bits[0] = bfloat16_as_int16(a)


x = np.array([1.25, -2.5, 1.5, 16.0], dtype=np.float32)
out = np.zeros(6, dtype=np.float32)
bits = np.zeros(1, dtype=np.int16)
kernel[1, 1](x, out, bits)
print(' '.join(repr(float(v)) for v in out), int(bits[0]))
try:
    hadd(1, 2)
except TypeError as e:
    print('host call:', e)
