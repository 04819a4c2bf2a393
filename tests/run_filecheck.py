#!/usr/bin/env python3
"""run_filecheck.py — FileCheck tests of the text kcc emits.

usage: run_filecheck.py KCC DIR [NAME...]

Each DIR/*.k says how to compile it and what the output must contain:

    # RUN-EMIT: ptx --arch sm_80 --lineinfo     (--emit=ptx, then the other options)
    # CHECK: .target sm_80                      (LLVM FileCheck directives)

The runner compiles with `KCC compile FILE --emit=EMIT OPTIONS -o OUT` and runs
`FileCheck FILE --input-file OUT --check-prefixes=CHECK,LLVMnn`, nn being the major
version of the LLVM that kcc runs on (`kcc --version`): where the PTX of two LLVM
releases differs in form but not in meaning (LLVM 19 puts a constant in a register
where LLVM 22 writes it into the instruction), lines such as `# LLVM19:` and
`# LLVM22:` say what each one must print; other releases check only the CHECK lines. FileCheck is $FILECHECK, else the newest
FileCheck-NN on PATH or under /usr/lib/llvm-NN/bin, else `FileCheck`; without one the
run exits 77 (skipped). Prints one line per file and `N passed, N failed`.
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

RUN_RE = re.compile(r"#\s*RUN-EMIT:\s*(\S+)(.*)$")


def find_filecheck():
    env = os.environ.get("FILECHECK")
    if env and shutil.which(env):
        return shutil.which(env)
    found = []
    for d in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/bin"]:
        found += glob.glob(os.path.join(d, "FileCheck-[0-9]*"))
    found += glob.glob("/usr/lib/llvm-[0-9]*/bin/FileCheck")

    def version(p):
        m = re.search(r"(\d+)", os.path.basename(p)) or re.search(r"llvm-(\d+)", p)
        return int(m.group(1)) if m else 0

    found = [p for p in found if os.access(p, os.X_OK)]
    if found:
        return max(found, key=version)
    return shutil.which("FileCheck")


def main(argv):
    if len(argv) < 3:
        print("usage: run_filecheck.py KCC DIR [NAME...]", file=sys.stderr)
        return 2
    kcc, test_dir, only = argv[1], argv[2], set(argv[3:])
    filecheck = find_filecheck()
    if not filecheck:
        print("SKIP: FileCheck not found (install llvm-NN-tools)")
        return 77
    version = subprocess.run([kcc, "--version"], stdout=subprocess.PIPE).stdout.decode()
    m = re.search(r"^LLVM (\d+)\.", version, re.M)
    prefixes = "CHECK" + (",LLVM" + m.group(1) if m else "")
    names = sorted(n for n in os.listdir(test_dir) if n.endswith(".k"))
    if only:
        names = [n for n in names if n in only or n[:-2] in only]
    passed = failed = 0
    tmp = tempfile.mkdtemp(prefix="kcc-filecheck-")
    try:
        for name in names:
            path = os.path.join(test_dir, name)
            with open(path, encoding="utf-8") as f:
                runs = [RUN_RE.search(line) for line in f]
            runs = [m for m in runs if m]
            if not runs:
                print("FAIL %s: no `# RUN-EMIT:` line" % name)
                failed += 1
                continue
            emit, opts = runs[0].group(1), shlex.split(runs[0].group(2))
            out = os.path.join(tmp, name + "." + emit)
            cmd = [kcc, "compile", path, "--emit=" + emit] + opts + ["-o", out]
            try:
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=60)
            except subprocess.TimeoutExpired:
                print("FAIL %s: kcc hung" % name)
                failed += 1
                continue
            if p.returncode != 0:
                print("FAIL %s: `%s` exited %d:\n  | %s" % (
                    name, " ".join(cmd[1:]), p.returncode,
                    "\n  | ".join(p.stderr.decode(errors="replace").splitlines()[:10])))
                failed += 1
                continue
            fc = subprocess.run([filecheck, path, "--input-file", out,
                                 "--check-prefixes=" + prefixes, "--allow-unused-prefixes"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if fc.returncode != 0:
                print("FAIL %s:\n  | %s" % (name, "\n  | ".join(
                    fc.stdout.decode(errors="replace").splitlines()[:30])))
                failed += 1
            else:
                print("PASS %s" % name)
                passed += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed (FileCheck: %s, prefixes %s)" % (passed, failed, filecheck,
                                                                 prefixes))
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
