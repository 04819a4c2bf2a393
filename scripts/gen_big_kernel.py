#!/usr/bin/env python3
"""gen_big_kernel.py N [NAME] -- print a kernel of N straight-line statements.

For measuring how the CPU JIT's compile time grows with a kernel's size (issue 16,
docs/performance.md): the body is arithmetic on eight locals and on array elements,
with a store now and then, as a user's hand-unrolled code might be, all under the
usual `if i < n:` guard, so it lands in the thread loop of K__block. Values stay
bounded (every update is a convex mix or a halving), so the kernel can also be run.
Deterministic: the same N gives the same text.

    python3 scripts/gen_big_kernel.py 5000 > /tmp/big.k
"""
import sys

FORMS = [
    "x{d} = x{p} * 0.5 + x{q} * 0.25",
    "x{d} = x{p} * 0.75 - a[i] * 0.125",
    "x{d} = max(x{p}, x{q}) * 0.5 + b[i] * 0.25",
    "out[i] = out[i] * 0.5 + x{p} * 0.25",
    "x{d} = min(x{p} + x{q}, 1.0) * 0.5",
    "x{d} = math.sqrt(abs(x{p})) * 0.5",
    "x{d} = x{p} * x{q} * 0.5 + 0.25",
]


def statement(k):
    form = FORMS[k % len(FORMS)]
    return form.format(d=k % 8, p=(k * 3 + 1) % 8, q=(k * 5 + 2) % 8)


def kernel(n, name="big"):
    lines = [
        f"# {n} generated statements (scripts/gen_big_kernel.py)",
        "import math",
        "from numba import cuda, float32",
        "",
        "",
        f'@cuda.jit("void(float32[:], float32[:], float32[:], int64)")',
        f"def {name}(a, b, out, n):",
        "    i = cuda.grid(1)",
        "    if i < n:",
        "        out[i] = float32(0)",
    ]
    lines += [f"        x{j} = a[i] * {0.125 * (j + 1)} + b[i]" for j in range(8)]
    lines += ["        " + statement(k) for k in range(n)]
    lines.append("        out[i] = out[i] + " + " + ".join(f"x{j}" for j in range(8)))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) < 2 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    sys.stdout.write(kernel(int(sys.argv[1]), *sys.argv[2:3]))
