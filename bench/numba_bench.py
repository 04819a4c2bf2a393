#!/usr/bin/env python3
"""numba_bench.py MODE DATA KERNELS [REPS] — the Numba columns of bench/run.sh's CPU table.

bench/cpu_bench.c --dump DATA writes the inputs and the C results of each kernel of
bench/cpu_kernels.k to DATA (raw arrays, listed in DATA/manifest.tsv); this script runs
the same computations in Numba and checks every result against the C one:

  MODE cpu   @njit (one thread, thread CPU time: column nj), @njit(parallel=True) with
             prange (two threads, wall time: np2) and, where the kernel is a ufunc,
             @vectorize(target='parallel') (two threads, wall time: vp2). The loops are
             the C reference's loops (bench/cpu_ref.c) written in Python. Median of REPS
             runs after one warm-up (which compiles).
  MODE sim   Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, set here before Numba is
             imported) running the kernels of KERNELS itself (the .k file is Numba
             source) at a small size with kcc's launch shape; the time (median of REPS,
             default 3) is extrapolated per element to the full size (column sim).
             Results are checked against the C result's matching part where there is
             one, else against @njit at the same small size.

Prints tab-separated lines for bench/bench_table.awk:
  val  ID  COLUMN  MS       a median (sim: the extrapolated time)
  na   ID  COLUMN  WHY      a column that does not apply or cannot run
  bad  ID  COLUMN  WHY      a result that differs from the C one (also on stderr)
  note TEXT                 a line for under the table
  skip TEXT                 numba is missing: no Numba columns at all
NUMBA_NUM_THREADS is 2 (unless set): the parallel columns run on two threads.
"""
import math
import os
import statistics
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "cpu"
DATA = sys.argv[2] if len(sys.argv) > 2 else "build/bench/data"
KERNELS = sys.argv[3] if len(sys.argv) > 3 else "bench/cpu_kernels.k"
REPS = int(sys.argv[4]) if len(sys.argv) > 4 else (7 if MODE == "cpu" else 3)

os.environ.setdefault("NUMBA_NUM_THREADS", "2")
if MODE == "sim":
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
try:
    import numpy as np
    import numba
    from numba import njit, prange, vectorize
except Exception as e:  # numba or numpy missing
    print(f"skip\tnumba is not importable by {sys.executable} ({e.__class__.__name__}: {e})")
    sys.exit(0)

SQRT_2PI = 2.5066282746310002
F025, F05, F4 = np.float32(0.25), np.float32(0.5), np.float32(4.0)  # float32 constants


def out(*fields):
    print("\t".join(str(f) for f in fields), flush=True)


# ---- the data of cpu_bench --dump ----------------------------------------------------------
def load_data(d):
    arrays, params = {}, {}
    with open(os.path.join(d, "manifest.tsv")) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == "array":
                shape = tuple(int(x) for x in p[3:])
                arrays[p[1]] = np.fromfile(os.path.join(d, p[1] + ".bin"), p[2]).reshape(shape)
            elif p[0] == "param":
                params[p[1]] = p[2]
    return arrays, params


# ---- the loops, as in bench/cpu_ref.c ------------------------------------------------------
def both(fn):
    """fn compiled twice: @njit (serial) and @njit(parallel=True), where its
    `prange` runs in parallel."""
    return njit(fn), njit(parallel=True)(fn)


def add_loop(a, b, o):
    for i in prange(a.size):
        o[i] = a[i] + b[i]


def add_scalar_loop(a, s, o):
    for i in prange(a.size):
        o[i] = a[i] + s


def gauss_loop(x, mean, sigma, o):
    for i in prange(x.size):
        z = (x[i] - mean) / sigma
        o[i] = math.exp(-0.5 * z * z) / (sigma * SQRT_2PI)


def transpose_loop(a, o):
    nx, ny = a.shape
    for i in prange(nx):
        for j in range(ny):
            o[j, i] = a[i, j]


def transpose_blocked_loop(a, o):
    nx, ny = a.shape
    for ib in prange((nx + 31) // 32):
        i0 = ib * 32
        for j0 in range(0, ny, 32):
            for j in range(j0, min(j0 + 32, ny)):
                for i in range(i0, min(i0 + 32, nx)):
                    o[j, i] = a[i, j]


def matmul_loop(a, b, c):
    n, k = a.shape
    m = b.shape[1]
    for i in prange(n):
        for j in range(m):
            c[i, j] = 0
        for p in range(k):
            aip = a[i, p]
            for j in range(m):
                c[i, j] += aip * b[p, j]


def stencil_loop(a, o):
    for i in prange(1, a.size - 1):
        o[i] = F025 * a[i - 1] + F05 * a[i] + F025 * a[i + 1]


def laplace_loop(a, o):
    ny, nx = a.shape
    for y in prange(1, ny - 1):
        for x in range(1, nx - 1):
            o[y, x] = (a[y - 1, x] + a[y + 1, x] + a[y, x - 1] + a[y, x + 1]) - F4 * a[y, x]


def mandelbrot_loop(image, min_x, max_x, min_y, max_y, max_iter):
    height, width = image.shape
    for y in prange(height):
        for x in range(width):
            cx = min_x + x * ((max_x - min_x) / width)
            cy = min_y + y * ((max_y - min_y) / height)
            zr = 0.0
            zi = 0.0
            n = 0
            while n < max_iter and zr * zr + zi * zi <= 4.0:
                t = zr * zr - zi * zi + cx
                zi = 2.0 * zr * zi + cy
                zr = t
                n += 1
            image[y, x] = n


def sum_loop(a):
    s = np.float32(0)
    for i in prange(a.size):
        s += a[i]
    return s


def block_sum_loop(a, o):
    for k in prange(o.size):
        s = np.float32(0)
        for i in range(k * 256, k * 256 + 256):
            s += a[i]
        o[k] = s


def vec_add(a, b):
    return a + b


def vec_gauss(x, mean, sigma):
    return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)


# ---- checks ----------------------------------------------------------------------------------
def differs(got, want, rel):
    """None when got matches want (exactly, or within rel relative), else why not."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape}, want {want.shape}"
    if not rel:
        bad = int(np.count_nonzero(got != want))
    else:
        g, w = got.astype(np.float64), want.astype(np.float64)
        d = np.abs(g - w)
        bad = int(np.count_nonzero((d > 1e-30) & (d / (np.abs(w) + 1e-30) > rel)))
    return f"{bad} of {want.size} elements differ from the C result" if bad else None


# ---- MODE cpu ---------------------------------------------------------------------------------
_EVICT = None


def evict_caches():
    """512 MiB read, as cpu_bench reads before each timed run: every column starts with
    its arrays out of the caches."""
    global _EVICT
    if _EVICT is None:
        _EVICT = np.ones(64 << 20)
    _EVICT[::8].sum()


def timed(fn, clock, reps):
    fn()  # warm-up: compiles
    ts = []
    for _ in range(reps):
        evict_caches()
        t0 = clock()
        fn()
        ts.append((clock() - t0) * 1e3)
    return statistics.median(ts)


def cpu_cases(A, P):
    """ID -> (serial loop, parallel loop, ufunc or None, its args, result getter, C
    result, relative tolerance or 0)."""
    n = A["a"].size
    mean, sigma = np.float32(P["mean"]), np.float32(P["sigma"])
    win = [float(v) for v in P["win"].split(",")]
    max_iter = int(P["max_iter"])
    f = lambda *shape: np.zeros(shape, np.float32)
    add, gauss = both(add_loop), both(gauss_loop)
    vadd = vectorize(["float32(float32, float32)"], target="parallel")(vec_add)
    vgauss = vectorize(["float32(float32, float32, float32)"], target="parallel")(vec_gauss)
    lap_in = A["a"].reshape(4096, 4096)
    img = np.zeros(A["ref_mandelbrot"].shape, np.int32)
    cases = {}
    for rid in ("add", "gs_2x256", "gs_1024x256", "gs_while", "gs_sug", "gs_vec", "vadd"):
        o = f(n)
        cases[rid] = (add, (A["a"], A["b"], o), o, A["ref_add"], 0,
                      (vadd, (A["a"], A["b"])))
    o = f(n)
    cases["vadd_s"] = (both(add_scalar_loop), (A["a"], mean, o), o, A["ref_add_s"], 0,
                       (vadd, (A["a"], mean)))
    o = f(n)
    cases["gauss"] = (gauss, (A["x"], mean, sigma, o), o, A["ref_gauss"], 1e-5,
                      (vgauss, (A["x"], mean, sigma)))
    o = f(n)
    cases["vgauss"] = (gauss, (A["x"], mean, sigma, o), o, A["ref_gauss"], 1e-5,
                       (vgauss, (A["x"], A["mean"], A["sigma"])))
    o = f(n)
    cases["vgauss_s"] = (gauss, (A["x"], mean, sigma, o), o, A["ref_gauss"], 1e-5,
                         (vgauss, (A["x"], mean, sigma)))
    cases["sum"] = (tuple(njit(fastmath=True, parallel=p)(sum_loop) for p in (False, True)),
                    (A["r"],), None, A["ref_sum"], 0, None)
    o = f(A["r"].size // 256)
    cases["tree_sum"] = (tuple(njit(fastmath=True, parallel=p)(block_sum_loop) for p in (False, True)),
                         (A["r"], o), o, A["ref_block_sum"], 0, None)
    o = f(*A["t1"].shape)
    cases["transpose"] = (both(transpose_loop), (A["t1"], o), o, A["ref_transpose"], 0, None)
    o = f(*A["t2"].shape)
    cases["transpose_tiled"] = (both(transpose_blocked_loop), (A["t2"], o), o,
                                A["ref_transpose_tiled"], 0, None)
    o = f(A["ma"].shape[0], A["mb"].shape[1])
    cases["matmul"] = (both(matmul_loop), (A["ma"], A["mb"], o), o, A["ref_matmul"], 0, None)
    o = f(A["ma"].shape[0], A["mb"].shape[1])
    cases["matmul_naive"] = (both(matmul_loop), (A["ma"], A["mb"], o), o, A["ref_matmul"], 0,
                             None)
    o = f(n)
    cases["stencil_1d"] = (both(stencil_loop), (A["a"], o), o, A["ref_stencil_1d"], 0, None)
    lap = both(laplace_loop)
    for rid in ("laplace_2d", "laplace_16", "laplace_xrow"):  # one C loop, 3 launch shapes
        o = f(4096, 4096)
        cases[rid] = (lap, (lap_in, o), o, A["ref_laplace_2d"], 0, None)
    cases["mandelbrot"] = (both(mandelbrot_loop), (img, *win, max_iter), img,
                           A["ref_mandelbrot"], 0, None)
    return cases


def measure(rid, col, call, clock, result, want, rel):
    """Time call() (median of REPS after a warm-up) with clock, check result() against
    want and print the line; an exception becomes an n/a line, so the other columns
    still run."""
    try:
        ms = timed(call, clock, REPS)
        report(rid, col, ms, differs(result(), want, rel))
    except Exception as e:
        out("na", rid, col, f"failed: {e.__class__.__name__}: {e}")


def run_cpu(A, P):
    for rid, (fns, args, o, want, rel, vec) in cpu_cases(A, P).items():
        for col, fn, clock in (("nj", fns[0], time.thread_time),
                               ("np2", fns[1], time.perf_counter)):
            res = [None]

            def call(fn=fn, res=res):
                res[0] = fn(*args)
            if o is None:  # a scalar result (the sum)
                measure(rid, col, call, clock, lambda: np.float32(res[0]), want.reshape(()), rel)
            else:
                o[...] = 0  # as the C result's untouched border
                measure(rid, col, call, clock, lambda: o, want, rel)
        if vec is None:
            out("na", rid, "vp2", "not a ufunc")
            continue
        vfn, vargs = vec
        vo = np.zeros_like(want)  # out=: written in place, as kcc's output is
        measure(rid, "vp2", lambda: vfn(*vargs, out=vo), time.perf_counter, lambda: vo,
                want, rel)
    out("note", f"Numba {numba.__version__} (NumPy {np.__version__}), threading layer "
        f"{numba.threading_layer()}, NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}")


def report(rid, col, ms, why):
    if why:
        out("bad", rid, col, why)
        print(f"numba_bench: {rid} {col}: {why}", file=sys.stderr)
    else:
        out("val", rid, col, f"{ms:.4f}")


# ---- MODE sim ----------------------------------------------------------------------------------
class Unbuilt:
    """What a decorator the simulator cannot apply leaves in the module: why."""
    def __init__(self, why):
        self.why = why


def tolerant(decorator):
    """decorator, except that a function it fails on becomes an Unbuilt (Numba 0.56's
    simulator raises on @vectorize(target='cuda'); the other kernels still run)."""
    def make(*args, **kwargs):
        def wrap(fn):
            try:
                return decorator(*args, **kwargs)(fn)
            except Exception as e:
                return Unbuilt(f"{e.__class__.__name__}: {e}")
        return wrap
    return make


def load_kernels(path):
    """Import the .k file as a Python module: Numba (here its simulator) compiles its
    kernels."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("cpu_kernels", path)
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader("cpu_kernels", loader))
    real = numba.vectorize
    numba.vectorize = tolerant(real)
    try:
        loader.exec_module(mod)
    finally:
        numba.vectorize = real
    return mod


def sim_cases(K, A, P):
    """ID -> (run(), small output, expected, tolerance, elements small, elements full,
    what the size is) for the simulator; or ID -> str (why not run)."""
    mean, sigma = np.float32(P["mean"]), np.float32(P["sigma"])
    win = [float(v) for v in P["win"].split(",")]
    max_iter = np.int32(P["max_iter"])
    N = A["a"].size
    a, b, x = A["a"], A["b"], A["x"]
    cases = {}

    def elementwise(rid, n, launch, want, rel=0):
        o = np.zeros(n, np.float32)
        cases[rid] = (lambda: launch(o), o, want[:n], rel, n, N)

    elementwise("add", 512, lambda o: K.vector_add[2, 256](a[:512], b[:512], o, 512),
                A["ref_add"])
    cases["gs_1024x256"] = ("not run: 262,144 simulated threads take minutes; the "
                            "2 x 256 row runs the same kernel")
    elementwise("gs_2x256", 1024, lambda o: K.grid_stride_add[2, 256](a[:1024], b[:1024], o),
                A["ref_add"])
    elementwise("gs_while", 1024,
                lambda o: K.grid_stride_add_while[2, 256](a[:1024], b[:1024], o), A["ref_add"])
    # kc_kernel_suggest_block's shape on the CPU: blocks of 1024, one per core
    elementwise("gs_sug", 2048, lambda o: K.grid_stride_add[2, 1024](a[:2048], b[:2048], o),
                A["ref_add"])
    # kc_vectorize's shape for 512 elements: the grid that covers them (2 x 256)
    elementwise("gs_vec", 512, lambda o: K.grid_stride_add[2, 256](a[:512], b[:512], o),
                A["ref_add"])
    elementwise("gauss", 512, lambda o: K.gaussian_pdf[2, 256](x[:512], mean, sigma, o),
                A["ref_gauss"], 1e-5)
    # the ufuncs, with arrays and (the _s rows) with scalars, as cpu_bench calls them
    for rid, fn, args, ref, rel in (
            ("vadd", K.vadd, (a[:512], b[:512]), "ref_add", 0),
            ("vadd_s", K.vadd, (a[:512], mean), "ref_add_s", 0),
            ("vgauss", K.vgauss, (x[:512], A["mean"][:512], A["sigma"][:512]), "ref_gauss", 1e-5),
            ("vgauss_s", K.vgauss, (x[:512], mean, sigma), "ref_gauss", 1e-5)):
        if isinstance(fn, Unbuilt):
            cases[rid] = f"the simulator cannot build @vectorize(target='cuda') ({fn.why})"
        else:
            o = np.zeros(512, np.float32)
            cases[rid] = (lambda fn=fn, args=args, o=o: fn(*args, out=o), o, A[ref][:512],
                          rel, 512, N)
    r = A["r"][:1 << 16]
    s = np.zeros((), np.float32)

    def reduce_run():
        s[...] = K.rsum(r)
    # the simulator's Reduce is functools.reduce over the array: Python, no kernel
    cases["sum"] = (reduce_run, s, np.float32(np.sum(r, dtype=np.float64)), 0, r.size, N)
    ot = np.zeros(2, np.float32)
    cases["tree_sum"] = (lambda: K.tree_sum[2, 256](r[:512], ot), ot, A["ref_block_sum"][:2], 0,
                         512, N)
    t1 = np.ascontiguousarray(A["t1"][:16, :32])  # 16x32 -> 32x16: two 16x16 blocks
    o1 = np.zeros((32, 16), np.float32)
    cases["transpose"] = (lambda: K.transpose[(1, 2), (16, 16)](t1, o1), o1,
                          A["ref_transpose"][:32, :16], 0, o1.size, A["t1"].size)
    t2 = np.ascontiguousarray(A["t2"][:32, :32])  # one 32x32 block
    o2 = np.zeros((32, 32), np.float32)
    cases["transpose_tiled"] = (lambda: K.transpose_tiled[(1, 1), (32, 32)](t2, o2), o2,
                                A["ref_transpose_tiled"][:32, :32], 0, o2.size, A["t2"].size)
    ma = np.ascontiguousarray(A["ma"][:16, :])  # 16 rows of a, all of k: one 16x16 block
    mb = np.ascontiguousarray(A["mb"][:, :16])
    oc = np.zeros((16, 16), np.float32)
    cases["matmul"] = (lambda: K.matmul_tiled[(1, 1), (16, 16)](ma, mb, oc), oc,
                       A["ref_matmul"][:16, :16], 0, oc.size, A["ref_matmul"].size)
    on = np.zeros((16, 16), np.float32)
    cases["matmul_naive"] = (lambda: K.matmul_naive[(1, 1), (16, 16)](ma, mb, on), on,
                             A["ref_matmul"][:16, :16], 0, on.size, A["ref_matmul"].size)
    os_ = np.zeros(512, np.float32)
    cases["stencil_1d"] = (lambda: K.stencil_1d[2, 256](a[:512], os_), os_[1:511],
                           A["ref_stencil_1d"][1:511], 0, 512, N)
    la = np.ascontiguousarray(a.reshape(4096, 4096)[:8, :64])  # two 64x4 blocks
    ol = np.zeros((8, 64), np.float32)
    cases["laplace_2d"] = (lambda: K.laplace_2d[(1, 2), (64, 4)](la, ol), ol[1:7, 1:63],
                           A["ref_laplace_2d"][1:7, 1:63], 0, ol.size, N)
    lb = np.ascontiguousarray(a.reshape(4096, 4096)[:16, :32])  # two 16x16 blocks
    for rid, kern, grid in (("laplace_16", K.laplace_2d, (2, 1)),
                            ("laplace_xrow", K.laplace_2d_xrow, (1, 2))):
        o16 = np.zeros((16, 32), np.float32)
        cases[rid] = (lambda kern=kern, grid=grid, o16=o16: kern[grid, (16, 16)](lb, o16),
                      o16[1:15, 1:31], A["ref_laplace_2d"][1:15, 1:31], 0, o16.size, N)
    # a coarse image of the same window (two 32x8 blocks), checked against @njit
    img = np.zeros((16, 32), np.int32)
    want = np.zeros((16, 32), np.int32)
    njit(mandelbrot_loop)(want, *win, max_iter)
    cases["mandelbrot"] = (lambda: K.mandelbrot[(1, 2), (32, 8)](img, *win, max_iter), img,
                           want, 0, img.size, A["ref_mandelbrot"].size)
    return cases


def run_sim(A, P):
    K = load_kernels(KERNELS)
    out("note", f"CUDA simulator: Numba {numba.__version__}, {REPS} runs per kernel at a "
        "small size, extrapolated per element; its kc_reduce row is the simulator's "
        "Reduce, which is functools.reduce in Python (no kernel runs)")
    for rid, c in sim_cases(K, A, P).items():
        if isinstance(c, str):
            out("na", rid, "sim", c)
            continue
        run, o, want, rel, n_small, n_full = c
        ts = []
        try:
            for _ in range(REPS):
                t0 = time.perf_counter()
                run()
                ts.append((time.perf_counter() - t0) * 1e3)
        except Exception as e:  # report it in the table and go on with the others
            out("na", rid, "sim", f"the simulator failed: {e.__class__.__name__}: {e}")
            continue
        report(rid, "sim", statistics.median(ts) / n_small * n_full, differs(o, want, rel))


def main():
    A, P = load_data(DATA)
    if MODE == "sim":
        run_sim(A, P)
    else:
        run_cpu(A, P)


if __name__ == "__main__":
    main()
