#!/usr/bin/env python3
"""big_aggregates_gen.py KIND N — big aggregates that once compiled in super-linear time (issue 32,
item 5), for `time kcc compile FILE --target=host -o /dev/null` (and --emit=ptx):

  record N   a kernel taking a record parameter by value that holds float64[N]
             (N = 4000 took 53 s on --target=host; 16,000 over 60 s)
  tuple N    a tuple of N elements indexed by N lines (N = 1000: 28 s to PTX, 57 s to
             host code)
"""
import sys


def record(n):
    return f"""import numpy as np
from numba import cuda, from_dtype, float64, void

big = np.dtype([('v', np.float64, ({n},)), ('k', np.int32)], align=True)
big_t = from_dtype(big)


@cuda.jit(void(float64[:], big_t))
def by_value(out, r):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = r.v[i % {n}] + r.k
"""


def tuple_(n):
    lines = ["from numba import cuda, float64, int64, void", "",
             "", "@cuda.jit(void(float64[:], int64))", "def indexed(out, j):",
             "    t = (" + ", ".join(f"{k}.5" for k in range(n)) + ")"]
    lines += [f"    out[{k}] = t[{k}] + t[(j + {k}) % {n}]" for k in range(n)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    kind, n = sys.argv[1], int(sys.argv[2])
    sys.stdout.write(record(n) if kind == "record" else tuple_(n))
