#!/usr/bin/env python3
"""check_big_data.py KCC — data that once passed the GPU's 64 KiB constant bank.

kcc wrote PTX that ptxas refuses ("File uses too much global constant data") and exited
0 when a module's data passed 64 KiB of .const: a 70 KB print string, 3,000 kernels in
one file and a record dtype of 10,000 fields (the kernel table kcc embeds spells every
kernel's signature). Print's strings and the kernel table now live in .global (as nvcc
puts printf's formats), so each of these compiles to PTX that ptxas accepts for sm_80
and sm_90. (Module arrays stay in .const; past 64 KiB together they are an error at the
use: tests/errors/const_bank_full.k.) Exit 77 (skipped) without ptxas.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def big_print():
    return ('from numba import cuda\n\n\n@cuda.jit("void(int32[:])")\ndef k(a):\n'
            '    print("%s")\n' % ("x" * 70000))


def many_kernels():
    s = "from numba import cuda\n\n"
    for i in range(3000):
        s += '\n@cuda.jit("void(int32[:])")\ndef kernel_number_%d(a):\n    a[0] = %d\n\n' % (i, i)
    return s


def big_record():
    fields = ", ".join("('f%d', np.int32)" % i for i in range(10000))
    return ("import numpy as np\nfrom numba import cuda, from_dtype, void\n\n"
            "rec = np.dtype([%s])\nrec_t = from_dtype(rec)\n\n\n"
            "@cuda.jit(void(rec_t[:]))\ndef k(r):\n    r[0].f1 = 1\n" % fields)


def main():
    kcc = sys.argv[1]
    cuda = os.environ.get("CUDA_ROOT") or os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    ptxas = os.path.join(cuda, "bin", "ptxas")
    if not os.access(ptxas, os.X_OK):
        ptxas = shutil.which("ptxas")
    if not ptxas:
        print("SKIP: no ptxas")
        return 77
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in (("big_print", big_print), ("many_kernels", many_kernels),
                           ("big_record", big_record)):
            src, ptx = os.path.join(tmp, name + ".k"), os.path.join(tmp, name + ".ptx")
            with open(src, "w") as f:
                f.write(make())
            p = subprocess.run([kcc, "compile", src, "--emit=ptx", "-o", ptx],
                               capture_output=True, text=True, env=dict(os.environ, KC_CACHE="0"))
            if p.returncode != 0:
                print("FAIL: %s: kcc exit %d: %s" % (name, p.returncode, p.stderr[-500:]))
                bad += 1
                continue
            for arch in ("sm_80", "sm_90"):
                q = subprocess.run([ptxas, "-arch=" + arch, ptx, "-o", os.devnull],
                                   capture_output=True, text=True)
                ok = q.returncode == 0
                print("%s: %s %s" % ("ok" if ok else "FAIL", name, arch) +
                      ("" if ok else ": " + q.stderr.strip()[:300]))
                bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
