"""bench/python_launch.py — a launch from Python (issue 30, item 3): the kernel below,
three arguments, all device arrays, launched back to back from kcc.cuda; prints the
wall time per launch in microseconds (the median of REPS batches of LAUNCHES), and the
first call's, compiling included, in milliseconds (run with KC_CACHE=0).
bench/python_launch.sh runs it beside python_launch_c.c, which launches the same kernel
of this same file through libkc's C API.
    usage: PYTHONPATH=build/python python3 bench/python_launch.py [REPS]
"""
import statistics
import sys
import time

import numpy as np

from kcc import cuda

LAUNCHES = 5000


@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    a = cuda.to_device(np.arange(64, dtype=np.float32))
    out = cuda.device_array_like(a)
    launch = vector_add[1, 64]
    t0 = time.perf_counter()
    launch(a, a, out)                            # the first call: compiled here
    cuda.synchronize()
    first = (time.perf_counter() - t0) * 1e3
    for _ in range(200):                         # compile, specialise, warm caches
        launch(a, a, out)
    cuda.synchronize()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(LAUNCHES):
            launch(a, a, out)
        cuda.synchronize()
        times.append((time.perf_counter() - t0) / LAUNCHES * 1e6)
    assert np.array_equal(out.copy_to_host(), 2 * np.arange(64, dtype=np.float32))
    print('python %.3f' % statistics.median(times))
    print('python_first %.3f' % first)


if __name__ == '__main__':
    main()
