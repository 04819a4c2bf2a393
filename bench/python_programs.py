"""bench/python_programs.py — Numba programs end to end (issue 30, item 3): each
workload below, written as a Numba user writes it (NumPy arrays in, a kernel launch,
the result back), timed in one process: the first call (compiling included) and the
median of the next REPS calls. Run under `python3 -m kcc` (kcc's CPU back end), under
Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1: the only way to run these without a
GPU under Numba), or with MODE=numpy, the same computation in NumPy.
bench/python_programs.sh runs all three.
    usage: python3 bench/python_programs.py WORKLOAD [REPS]     (MODE=numpy for NumPy)
"""
import math
import os
import statistics
import sys
import time

import numpy as np
from numba import cuda, float32
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

TPB = 16


@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@cuda.jit
def fast_matmul(A, B, C):
    """Numba's documentation: a matrix product with shared-memory tiles."""
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


@cuda.jit
def monte_carlo_pi(rng_states, iterations, out):
    i = cuda.grid(1)
    inside = 0
    for _ in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, i)
        y = xoroshiro128p_uniform_float32(rng_states, i)
        if x * x + y * y <= 1.0:
            inside += 1
    out[i] = 4.0 * inside / iterations


def run_vector_add(numpy):
    n = 1 << 20
    a = np.arange(n, dtype=np.float32)
    b = 2 * a
    if numpy:
        return lambda: a + b
    out = np.empty_like(a)
    return lambda: vector_add[(n + 255) // 256, 256](a, b, out)


def run_matmul(numpy):
    n = 256
    a = np.random.RandomState(1).rand(n, n).astype(np.float32)
    b = np.random.RandomState(2).rand(n, n).astype(np.float32)
    if numpy:
        return lambda: a @ b
    c = np.empty_like(a)
    grid = (math.ceil(n / TPB), math.ceil(n / TPB))
    return lambda: fast_matmul[grid, (TPB, TPB)](a, b, c)


def run_monte_carlo(numpy):
    threads, blocks, iterations = 64, 24, 2000
    if numpy:
        rng = np.random.default_rng(1)

        def draw():
            p = rng.random((2, threads * blocks * iterations), dtype=np.float32)
            return 4.0 * np.mean(p[0] * p[0] + p[1] * p[1] <= 1.0)
        return draw
    states = create_xoroshiro128p_states(threads * blocks, seed=1)
    out = np.zeros(threads * blocks, dtype=np.float32)
    return lambda: monte_carlo_pi[blocks, threads](states, iterations, out)


WORKLOADS = {'vector_add': run_vector_add, 'matmul': run_matmul,
             'monte_carlo': run_monte_carlo}


def main():
    name = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    call = WORKLOADS[name](os.environ.get('MODE') == 'numpy')
    t0 = time.perf_counter()
    call()
    first = (time.perf_counter() - t0) * 1e3
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1e3)
    print('%s first %.2f ms, then %.3f ms' % (name, first, statistics.median(times)))


if __name__ == '__main__':
    main()
