#!/usr/bin/env python3
"""mutate_compile.py — mutation fuzzing of `kcc compile` from the outside.

Takes the tree's .k files (tests, samples, bench), applies 1 to 4 random mutations
to one at a time (a line deleted, duplicated, moved or re-indented; a token replaced
by another from the kernel language or by a huge, negative or odd number; brackets
and colons dropped; a decorator, parameter or nested call added) and compiles the
mutant with `kcc compile` to PTX and to host LLVM IR, each with a time limit.

Besides edits of lines and tokens, mutators add the shapes a fuzzing round found bugs
with (issue 32): record dtypes (thousands of fields, odd names), CUDA vector types,
names that clash with kcc's own symbols (f__float32, __kcc_error, K__body, vprintf,
__nv_sinf, _), huge sizes (arrays at CUDA's limits, 70 KB print strings, big module
arrays, hundreds of kernels), unicode, deep tuple use, big aggregates by value,
foreign functions (declare_device, link=) and module-level math (complex tables).

A run is good when kcc exits 0, or exits 1 and every error it prints has a
`file:line:col:` position; and, for the NVPTX runs (which emit PTX), when ptxas
(--arch sm_80; $CUDA_ROOT/bin, /usr/local/cuda/bin or PATH) accepts the PTX of a run
that exited 0. It is bad when kcc dies of a signal (a crash, an abort, a sanitizer
report), runs past the limit, exits with another status, prints an error without a
position, or exits 0 with PTX that ptxas refuses. Bad mutants are kept in the output
directory with the command that reproduces them.

    scripts/mutate_compile.py BUILD/kcc [RUNS] [--seed N] [--out DIR] [--timeout S]

Prints a summary line: runs, good, crashes, hangs, bad exits, errors without a
position, PTX ptxas refused. Exits 1 when any run was bad. Not part of `make test`;
`make test-all` runs a bounded round (scripts/test_all.sh); docs/testing.md
("Fuzzing") says when to run more.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

TOKENS = ["cuda.syncthreads()", "cuda.grid(1)", "cuda.threadIdx.x", "cuda.blockDim.x",
          "cuda.shared.array(32, float32)", "cuda.local.array(1 << 20, int8)",
          "cuda.atomic.add(a, 0, 1)", "range(n)", "range(0, 2**63 - 1, 2**62 - 1)",
          "math.sqrt(x)", "float32", "int64", "complex128", "(1, 2.0, True)", "None",
          "lambda x: x", "a[::-1]", "a[i, j]", "a.shape", "len(a)", "yield", "await",
          "global x", "x: int32 = 0", "1e309", "0x7fffffffffffffff", "-2**63",
          "18446744073709551616", "1j", "'s'", "b'x'", "...", "not", "is", "@", "**",
          "//", "%", ">>", "<<", "~", "(", ")", "[", "]", ":", ",", "=", "+=", "\\", ":=",
          "(w := i)"]
DECORATORS = ["@cuda.jit", "@cuda.jit(device=True)", "@cuda.jit('void(float32[:])')",
              "@cuda.jit(debug=True, opt=False)", "@vectorize(['float32(float32)'])",
              "@cuda.reduce", "@guvectorize(['void(float32[:], float32[:])'], '(n)->()')"]
NUMBERS = ["0", "-1", "2**31", "2**63", "-2**63", "1 << 62", "1e308", "nan", "3.5",
           "100000000000000000000", "0b101", "0o17", "True"]
WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9.]*|\d+(\.\d+)?|\S")


def sources(root):
    out = []
    for d in ("tests", "samples", "bench", "lib"):
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            out += [os.path.join(dirpath, f) for f in files if f.endswith(".k")]
    return sorted(out)


def mutate_line(rng, lines):
    i = rng.randrange(len(lines))
    op = rng.randrange(6)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[i])
    elif op == 2:
        lines.insert(rng.randrange(len(lines) + 1), lines.pop(i))
    elif op == 3:
        lines[i] = " " * rng.choice([0, 1, 2, 4, 8, 12]) + lines[i].lstrip()
    elif op == 4:
        lines.insert(i, rng.choice(DECORATORS))
    else:
        lines[i] = lines[i].replace(":", "", 1) if rng.random() < .5 else lines[i] + ":"


def mutate_token(rng, lines):
    i = rng.randrange(len(lines))
    toks = list(WORD.finditer(lines[i]))
    if not toks:
        return
    m = rng.choice(toks)
    new = rng.choice(NUMBERS) if m.group(0)[0].isdigit() else rng.choice(TOKENS)
    lines[i] = lines[i][:m.start()] + new + lines[i][m.end():]


def mutate_grow(rng, lines):
    """Many parameters, big tuples, deep nesting of calls."""
    i = rng.randrange(len(lines))
    op = rng.randrange(3)
    if op == 0 and "def " in lines[i] and "(" in lines[i]:
        extra = ", ".join(f"p{k}" for k in range(rng.choice([10, 100, 300])))
        lines[i] = lines[i].replace("(", f"({extra}, ", 1)
    elif op == 1:
        n = rng.choice([50, 500, 5000])
        lines.insert(i, " " * (len(lines[i]) - len(lines[i].lstrip())) +
                     "t = (" + ", ".join(str(k) for k in range(n)) + ")")
    else:
        depth = rng.choice([20, 200, 2000])
        lines.insert(i, " " * (len(lines[i]) - len(lines[i].lstrip())) +
                     "y = " + "abs(" * depth + "1" + ")" * depth)


# Names kcc gives its own symbols (mangled instances, its error record, the kernel
# body, the printf and libdevice it calls) and other odd names, for user functions,
# kernels and locals: they must be renamed or refused, never clash in the output.
CLASHES = ["f__float32", "__kcc_error", "K__body", "K__block", "vprintf", "__nv_sinf",
           "_", "__kcc_kernels", "main", "ptx", "str", "kc_const_A_float64", "\u00e9t\u00e9",
           "\u0394x", "x\u2080"]
UNICODE = ["\u00e9", "\u0394", "\u2028", "\ufeff", "\U0001F600", "\u00a0", "\u200b"]


def indent_of(line):
    return " " * (len(line) - len(line.lstrip()))


def mutate_kcc_names(rng, lines):
    """A def, a local or a record field named like kcc's own symbols."""
    i = rng.randrange(len(lines))
    name = rng.choice(CLASHES)
    m = re.match(r"(\s*)def ([A-Za-z_][A-Za-z_0-9]*)", lines[i])
    if m:
        old = m.group(2)
        lines[:] = [re.sub(r"\b%s\b" % re.escape(old), name, l) for l in lines]
    else:
        lines.insert(i, indent_of(lines[i]) + f"{name} = 1")


def mutate_unicode(rng, lines):
    """A unicode character inside a line, a name or a string."""
    i = rng.randrange(len(lines))
    j = rng.randrange(len(lines[i]) + 1)
    lines[i] = lines[i][:j] + rng.choice(UNICODE) + lines[i][j:]


HEADER = ["import numpy as np", "from numba import cuda, from_dtype, float32, float64, int32, int64, void"]


def mutate_records(rng, lines):
    """A record dtype (many fields, nested, odd names) used by a new kernel."""
    n = rng.choice([2, 50, 2000])
    fields = ", ".join(f"('{rng.choice(['f', 'x', '_', 'e' + chr(233)])}{k}', "
                       f"{rng.choice(['np.int32', 'np.float64', 'np.int8', '(np.float32, (3,))'])})"
                       for k in range(n))
    body = [f"R = np.dtype([{fields}], align={rng.choice(['True', 'False'])})",
            "R_t = from_dtype(R)",
            "@cuda.jit(void(R_t[:], R_t))" if rng.random() < .5 else "@cuda.jit",
            "def rec_kernel(a, r):",
            "    a[0] = r" if rng.random() < .5 else f"    a[0].{fields[2:4].strip(chr(39))} = 1"]
    lines[len(lines):] = HEADER + body


def mutate_vectors(rng, lines):
    """CUDA vector types made, read and misused."""
    t = rng.choice(["float32x4", "float4", "int32x2", "uint8x3", "float64x3", "int2", "char4"])
    use = rng.choice(["v.x + v.w", "v.z", "v.x = 1", "v[0]", "v + v", "len(v)"])
    lines[len(lines):] = ["from numba import cuda", "@cuda.jit", "def vec_kernel(out):",
                          f"    v = cuda.{t}(1, 2, 3, 4)" if rng.random() < .5 else
                          f"    v = cuda.{t}(1)", f"    out[0] = {use}"]


def mutate_huge(rng, lines):
    """Sizes at and past the limits: arrays, strings, repeat counts, kernel counts."""
    i = rng.randrange(len(lines))
    ind = indent_of(lines[i])
    op = rng.randrange(4)
    if op == 0:
        size = rng.choice(["65536", "1 << 31", "2**40", "(1 << 16, 1 << 16)", "60000"])
        kind = rng.choice(["shared", "local"])
        lines.insert(i, ind + f"big = cuda.{kind}.array({size}, {rng.choice(['float64', 'int8'])})")
    elif op == 1:
        lines.insert(i, ind + 'print("' + "x" * rng.choice([100, 70000]) + '")')
    elif op == 2:
        n = rng.choice([1000, 20000])
        lines[len(lines):] = ["import numpy as np", f"BIG = np.arange({n}, dtype=np.float64)",
                              f"BIG2 = np.ones({n})", "from numba import cuda", "@cuda.jit",
                              "def huge_kernel(out):", "    out[0] = BIG[1] + BIG2[2]"]
    else:
        lines[len(lines):] = ["from numba import cuda"] + [
            f'@cuda.jit("void(int32[:])")\ndef gen_k{k}(a):\n    a[0] = {k}'
            for k in range(rng.choice([10, 400]))]


def mutate_aggregates(rng, lines):
    """Deep tuple use and big aggregates passed by value."""
    i = rng.randrange(len(lines))
    ind = indent_of(lines[i])
    n = rng.choice([10, 300, 2000])
    op = rng.randrange(3)
    if op == 0:
        lines.insert(i, ind + "tt = (" + ", ".join(str(k) for k in range(n)) + ")")
        lines.insert(i + 1, ind + "ts = " + " + ".join(f"tt[{k}]" for k in range(0, n, max(1, n // 50))))
    elif op == 1:
        lines.insert(i, ind + "tn = " + "(" * min(n, 200) + "1," + ")" * min(n, 200))
    else:
        lines[len(lines):] = HEADER + [
            f"AGG = np.dtype([('v', np.float64, ({n},)), ('k', np.int32)])",
            "AGG_t = from_dtype(AGG)",
            "@cuda.jit(void(float64[:], AGG_t))", "def agg_kernel(out, r):",
            f"    out[0] = r.v[{n - 1}] + r.k"]


FFI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "kernels",
                   "ffi", "functions.cu")


def mutate_foreign(rng, lines):
    """Foreign device functions: declare_device with odd names and signatures, link=
    entries that exist, are missing, of unknown kinds or computed."""
    name = rng.choice(["mul_f32_f32", "axpy_f64", "__kcc_error", "k", "vprintf", "x y", "",
                       "_Z3fooff", "\u0394"])
    sig = rng.choice(["'float32(float32, float32)'", "'float64(float64, float64, int64)'",
                      "'(float32,)'", "float32(float32[:])", "'void()'", "'complex64(int8)'",
                      "'bool(float16)'", "SIG"])
    link = rng.choice([repr(FFI), "'missing.cu'", "'x.cuh'", "os.getcwd()",
                       "os.path.join(os.path.dirname(__file__), 'f.ptx')", "[]", "None"])
    call = rng.choice(["f(a[0], a[1])", "f(a[0])", "f(a, 1)", "f(1j, 2)", "f()"])
    lines[len(lines):] = ["import os", "from numba import cuda, float32, void",
                          f"f = cuda.declare_device('{name}', {sig})",
                          f"@cuda.jit(void(float32[:]), link=[{link}])"
                          if rng.random() < .8 else "@cuda.jit(void(float32[:]))",
                          "def ffi_kernel(a):", f"    a[0] = {call}"]


def mutate_module_math(rng, lines):
    """Module-level math: elementary functions of numbers and arrays, complex tables,
    values Python raises on, used by a kernel."""
    fn = rng.choice(["math.sqrt", "math.log", "math.exp", "math.floor", "np.exp", "np.sqrt",
                     "np.arctan2", "np.abs", "cmath.exp", "np.cos", "math.gamma", "np.power"])
    arg = rng.choice(["-1.0", "0", "1000.0", "2j", "np.arange(5)", "np.arange(4) * 1j",
                      "np.arange(3, dtype=np.float32) * 1j", "np.array([1 + 2j, -3j])",
                      "np.linspace(0, 1, 7)", "float('nan')", "np.arange(5), 2.0", "1e308, 10"])
    lines[len(lines):] = ["import cmath, math", "import numpy as np",
                          "from numba import cuda, complex128, void",
                          f"T = {fn}({arg})", "@cuda.jit(void(complex128[:]))",
                          "def math_kernel(out):",
                          "    out[0] = " + rng.choice(["T", "T[1]", "T.real", "len(T)", "T[0].imag"])]


def mutate(rng, text):
    lines = text.split("\n") or [""]
    for _ in range(rng.randint(1, 4)):
        if not lines:
            lines = [""]
        rng.choice([mutate_line, mutate_token, mutate_token, mutate_grow, mutate_kcc_names,
                    mutate_unicode, mutate_records, mutate_vectors, mutate_huge,
                    mutate_aggregates, mutate_foreign, mutate_module_math])(rng, lines)
    return "\n".join(lines)


POSITION = re.compile(r"^[^\s:][^:]*:\d+:\d+: (error|warning|note): ", re.M)
ERROR = re.compile(r"(^|\n)[^\n]*\berror: ")


def find_ptxas():
    cuda = os.environ.get("CUDA_ROOT") or os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    p = os.path.join(cuda, "bin", "ptxas")
    return p if os.access(p, os.X_OK) else shutil.which("ptxas")


def check_ptx(ptxas, ptx, timeout):
    """None when ptxas accepts the PTX (for sm_80), else its first complaint. PTX that
    links files (link=, "// kcc-link:" lines) is relocatable: ptxas -c."""
    with open(ptx, errors="replace") as f:
        reloc = ["-c"] if f.read(13) == "// kcc-link: " else []
    try:
        q = subprocess.run([ptxas, "-arch=sm_80", *reloc, ptx, "-o", os.devnull], capture_output=True,
                           text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return None   # ptxas's own time, not kcc's fault
    return None if q.returncode == 0 else (q.stderr.strip().splitlines() or ["refused"])[0]


def judge(proc):
    """None when good, else the kind of failure."""
    if proc.returncode < 0:
        return "crash"
    if proc.returncode not in (0, 1):
        return "bad-exit"
    err = proc.stderr
    for line in err.splitlines():
        if line.endswith("error: too many errors, stopping"):
            continue   # the summary after the positioned errors it counts
        if " error: " in line and not POSITION.match(line):
            return "no-position"
    if proc.returncode == 1 and not POSITION.search(err):
        return "no-position"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kcc")
    ap.add_argument("runs", type=int, nargs="?", default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="mutants")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--no-ptxas", action="store_true", help="do not check the PTX")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = sources(root)
    rng = random.Random(a.seed)
    counts = {"good": 0, "crash": 0, "hang": 0, "bad-exit": 0, "no-position": 0,
              "invalid-ptx": 0}
    ptxas = None if a.no_ptxas else find_ptxas()
    os.makedirs(a.out, exist_ok=True)
    env = dict(os.environ, KC_CACHE="0")
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(a.runs):
            src = rng.choice(files)
            with open(src, encoding="utf-8", errors="replace") as f:
                text = mutate(rng, f.read())
            path = os.path.join(tmp, f"m{run}.k")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            target = "--target=host" if run % 2 else "--target=nvptx"
            ptx = os.path.join(tmp, f"m{run}.ptx")
            emit = ["--emit=ptx", "-o", ptx] if run % 2 == 0 else ["--emit=llvm", "-o", os.devnull]
            cmd = [a.kcc, "compile", path, target] + emit
            ptx_error = None
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                   timeout=a.timeout, env=env)
                kind = judge(p)
                if not kind and p.returncode == 0 and ptxas and os.path.exists(ptx):
                    ptx_error = check_ptx(ptxas, ptx, a.timeout)
                    if ptx_error:
                        kind = "invalid-ptx"
            except subprocess.TimeoutExpired:
                kind, p = "hang", None
            if os.path.exists(ptx):
                os.unlink(ptx)
            counts[kind or "good"] += 1
            if kind:
                keep = os.path.join(a.out, f"{kind}-{run}.k")
                with open(keep, "w", encoding="utf-8") as f:
                    f.write(text)
                detail = ptx_error or ((p.stderr.strip().splitlines() or [""])[-1] if p
                                       else "timeout")
                print(f"{kind}: {keep} (from {os.path.relpath(src, root)}; "
                      f"{a.kcc} compile {keep} {target} {emit[0]}): {detail[:200]}",
                      file=sys.stderr)
            os.unlink(path)
    bad = a.runs - counts["good"]
    print(f"mutants: {a.runs} runs, {counts['good']} good, {counts['crash']} crashes, "
          f"{counts['hang']} hangs, {counts['bad-exit']} bad exits, "
          f"{counts['no-position']} errors without a position, "
          f"{counts['invalid-ptx']} PTX ptxas refused"
          f"{'' if ptxas else ' (no ptxas: PTX not checked)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
