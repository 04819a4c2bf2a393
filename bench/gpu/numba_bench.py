#!/usr/bin/env python3
"""numba_bench.py ROOT [REPS] — the Numba-CUDA side of bench/gpu/gpu_bench.c.

The .k files are Numba code, so Numba compiles the very same kernels:
  launch   host time per launch of bench/gpu/launch.k's args1/args4/args16 through
           Numba's dispatcher (device arrays, 1 block of 256), batches of 256, median;
  kernels  the seven bench/kernels/*.k with gpu_bench's sizes and launch shapes, kernel
           time by CUDA events, median of REPS; outputs checked against NumPy where
           cheap (vector_add, grid_stride_add, block_sum, histogram).
Prints Markdown tables. "not run: ..." and exit 0 without numba or a GPU.
"""
import importlib.util
import os
import statistics
import sys
import time

try:
    import numpy as np
    from numba import cuda
except Exception as e:  # numba or numpy missing
    print(f"not run: numba-cuda is not installed ({e.__class__.__name__}: {e})")
    sys.exit(0)

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 21


def load(path):
    """Import a .k file as a Python module (Numba compiles its @cuda.jit kernels)."""
    import importlib.machinery
    name = os.path.basename(path)[:-2]
    loader = importlib.machinery.SourceFileLoader(name, path)
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(mod)
    return mod


def launch_overhead():
    mod = load(os.path.join(ROOT, "bench/gpu/launch.k"))
    arrays = [cuda.to_device(np.zeros(256, np.float32)) for _ in range(16)]
    print("### Numba-CUDA launch overhead (host time per launch, median of 41 batches of 256)\n")
    print("| kernel | Numba dispatch (µs) |")
    print("|---|---:|")
    for n in (1, 4, 16):
        k = getattr(mod, f"args{n}")
        args = arrays[:n]
        times = []
        for rep in range(-3, 41):
            t0 = time.perf_counter()
            for _ in range(256):
                k[1, 256](*args)
            t1 = time.perf_counter()
            cuda.synchronize()
            if rep >= 0:
                times.append((t1 - t0) / 256 * 1e6)
        print(f"| {n} array argument{'s' if n > 1 else ''} | {statistics.median(times):.2f} |")
    print()


def event_time(fn, reset):
    s, e = cuda.event(), cuda.event()
    times = []
    for rep in range(-2, REPS):
        reset()
        s.record()
        fn()
        e.record()
        e.synchronize()
        if rep >= 0:
            times.append(cuda.event_elapsed_time(s, e))
    return statistics.median(times)


def kernel_times():
    n26, n22, tr = 1 << 26, 1 << 22, 8192
    rng = np.random.default_rng(1)
    f = lambda n: (rng.integers(0, 1001, n).astype(np.float32) * 0.01 - 5).astype(np.float32)
    ints = lambda n: rng.integers(2, 1000003, n).astype(np.int32)
    cases = {
        "vector_add": ([f(n26), f(n26), np.empty(n26, np.float32)], [], (n26 // 256,), (256,)),
        "grid_stride_add": ([f(n26), f(n26), np.empty(n26, np.float32)], [], (132 * 16,), (256,)),
        "gaussian_pdf": ([f(n26), np.empty(n26, np.float32)], [np.float32(0.5), np.float32(1.5)],
                         (n26 // 256,), (256,)),
        "histogram": ([ints(n26), np.zeros(256, np.int32)], [], (n26 // 256,), (256,)),
        "primes": ([ints(n22), np.empty(n22, np.int32)], [], (n22 // 256,), (256,)),
        "transpose": ([f(tr * tr).reshape(tr, tr), np.empty((tr, tr), np.float32)], [],
                      (tr // 32, tr // 32), (32, 32)),
        "block_sum": ([f(n26), np.empty(n26 // 256, np.float32)], [], (n26 // 256,), (256,)),
    }
    print(f"### Numba-CUDA kernel time (median of {REPS}, CUDA events)\n")
    print("| kernel | Numba (ms) | output check |")
    print("|---|---:|---|")
    for name, (arrays, scalars, grid, block) in cases.items():
        mod = load(os.path.join(ROOT, "bench/kernels", name + ".k"))
        k = getattr(mod, name)
        d = [cuda.to_device(a) for a in arrays]
        out = d[-1]
        args = [d[0]] + scalars + d[1:]
        reset = lambda: out.copy_to_device(np.zeros(out.shape, out.dtype))
        ms = event_time(lambda: k[grid, block](*args), reset)
        host = out.copy_to_host()
        a = arrays
        check = "-"
        if name in ("vector_add", "grid_stride_add"):
            check = "ok" if np.allclose(host, a[0] + a[1]) else "WRONG"
        elif name == "block_sum":
            check = "ok" if np.allclose(host, a[0].reshape(-1, 256).sum(1), rtol=1e-4, atol=1e-3) else "WRONG"
        elif name == "histogram":
            check = "ok" if np.array_equal(host, np.bincount(a[0] % 256, minlength=256)) else "WRONG"
        print(f"| {name} | {ms:.4f} | {check} |")
    print()


def main():
    try:
        if not cuda.is_available() or len(cuda.gpus) == 0:
            print("not run: no GPU (numba.cuda sees none)")
            return
    except Exception as e:
        print(f"not run: no GPU ({e})")
        return
    print(f"numba {__import__('numba').__version__}, device {cuda.get_current_device().name}\n")
    launch_overhead()
    kernel_times()


main()
