# A Numba program for test_main.py: numba.cuda kernels, a CPU @njit function and a
# @vectorize one, its arguments and __name__ printed, run with `python3 -m kcc`.
import sys

import numba
import numpy as np
from numba import cuda, njit, vectorize


@njit
def host_total(x):
    s = 0.0
    for v in x:
        s += v
    return s


@vectorize(['float64(float64)'])
def halve(x):
    return x / 2


@cuda.jit
def square(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * a[i]


if __name__ == '__main__':
    n = int(sys.argv[1])
    a = np.arange(n, dtype=np.float64)
    out = np.zeros_like(a)
    square[(n + 63) // 64, 64](a, out)
    print('argv', sys.argv[1:])
    print('squares', out.tolist())
    print('total', host_total(out))
    print('halves', halve(out).tolist())
    print('cuda is kcc', numba.cuda is cuda and cuda.__name__ == 'kcc.cuda')
