#!/usr/bin/env python3
"""mutate_compile.py — mutation fuzzing of `kcc compile` from the outside.

Takes the tree's .k files (tests, samples, bench), applies 1 to 4 random mutations
to one at a time (a line deleted, duplicated, moved or re-indented; a token replaced
by another from the kernel language or by a huge, negative or odd number; brackets
and colons dropped; a decorator, parameter or nested call added) and compiles the
mutant with `kcc compile` to PTX and to host LLVM IR, each with a time limit.

A run is good when kcc exits 0, or exits 1 and every error it prints has a
`file:line:col:` position. It is bad when kcc dies of a signal (a crash, an abort,
a sanitizer report), runs past the limit, exits with another status, or prints an
error without a position. Bad mutants are kept in the output directory with the
command that reproduces them.

    scripts/mutate_compile.py BUILD/kcc [RUNS] [--seed N] [--out DIR] [--timeout S]

Prints a summary line: runs, good, crashes, hangs, bad exits, errors without a
position. Exits 1 when any run was bad. Not part of `make test` (it takes minutes);
docs/testing.md ("Fuzzing") says when to run it.
"""
import argparse
import os
import random
import re
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
          "//", "%", ">>", "<<", "~", "(", ")", "[", "]", ":", ",", "=", "+=", "\\"]
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


def mutate(rng, text):
    lines = text.split("\n") or [""]
    for _ in range(rng.randint(1, 4)):
        if not lines:
            lines = [""]
        rng.choice([mutate_line, mutate_token, mutate_token, mutate_grow])(rng, lines)
    return "\n".join(lines)


POSITION = re.compile(r"^[^\s:][^:]*:\d+:\d+: (error|warning|note): ", re.M)
ERROR = re.compile(r"(^|\n)[^\n]*\berror: ")


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
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = sources(root)
    rng = random.Random(a.seed)
    counts = {"good": 0, "crash": 0, "hang": 0, "bad-exit": 0, "no-position": 0}
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
            cmd = [a.kcc, "compile", path, target, "--emit=llvm", "-o", os.devnull]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                   timeout=a.timeout, env=env)
                kind = judge(p)
            except subprocess.TimeoutExpired:
                kind, p = "hang", None
            counts[kind or "good"] += 1
            if kind:
                keep = os.path.join(a.out, f"{kind}-{run}.k")
                with open(keep, "w", encoding="utf-8") as f:
                    f.write(text)
                detail = (p.stderr.strip().splitlines() or [""])[-1] if p else "timeout"
                print(f"{kind}: {keep} (from {os.path.relpath(src, root)}; "
                      f"{a.kcc} compile {keep} {target} --emit=llvm): {detail[:200]}",
                      file=sys.stderr)
            os.unlink(path)
    bad = a.runs - counts["good"]
    print(f"mutants: {a.runs} runs, {counts['good']} good, {counts['crash']} crashes, "
          f"{counts['hang']} hangs, {counts['bad-exit']} bad exits, "
          f"{counts['no-position']} errors without a position")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
