#!/usr/bin/env python3
"""run_valgrind.py — the compiler and CPU runtime tests under valgrind memcheck.

usage: run_valgrind.py BUILD_DIR [TEST...]

Runs every test of BUILD_DIR whose command is a program built there (the Check suites,
the kernel tests on the CPU back end, the samples; not the python and shell drivers,
and not the `gpu`, `fuzz` and `cuda-double` suites) through `meson test --wrapper valgrind`, then the
diagnostics cases with KC_VALGRIND=1 (each `kcc compile` under valgrind), and the
Python package's extension tests in the interpreter (memory errors only). A memory
error, or a leak (definite, indirect or possible) not suppressed by
tests/valgrind.supp, fails the test. With TEST names, only those run.

The kernel tests and samples (`kernels`, `samples`) find their kernels in an on-disk
compile cache that a native run of the same tests fills first, so that under valgrind
they run the runtime (the cache's loading and the JIT's linking included) without
compiling: LLVM under valgrind made them most of CI's time (20 to 70 s each, against
about 1 s natively). The compiler is still run under valgrind by the Check suites, the
diagnostics cases and the Python tests, and the whole suite compiles under ASan
(scripts/test_all.sh).
"""
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# cuda-double: the kernel tests and samples again, through the CUDA driver double (a
# second copy of the runtime and compiler, dlopen'ed); the ASan run covers them, and
# under valgrind they would double this step's time.
SKIP_SUITES = {"gpu", "fuzz", "cuda-double"}


# the suites whose tests compile the kernels they run: under valgrind from a warm cache
CACHED_SUITES = {"kernels", "samples"}


def elf_tests(build):
    """(name, suites) of the tests whose command is an executable built in `build`."""
    out = subprocess.run(["meson", "introspect", "--tests", build], check=True,
                         stdout=subprocess.PIPE).stdout
    names = []
    root = os.path.realpath(build) + os.sep
    for t in json.loads(out):
        suites = {s.split(":")[-1] for s in t["suite"]}
        if suites & SKIP_SUITES:
            continue
        if os.path.realpath(t["cmd"][0]).startswith(root):
            names.append((t["name"], suites))
    return names


def meson_test(build, names, wrapper, env, quiet=False):
    """Exit status of `meson test` of names under wrapper (a command line); quiet, only
    the lines of the tests that failed are printed."""
    cmd = ["meson", "test", "-C", build, "--no-rebuild", "--num-processes",
           os.environ.get("KC_VALGRIND_JOBS", "2"), "--timeout-multiplier", "20",
           "--wrapper", wrapper] + ([] if quiet else ["--print-errorlogs"]) + names
    if not quiet:
        return subprocess.run(cmd, env=env).returncode
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    for line in p.stdout.splitlines():
        if " FAIL " in line or " ERROR " in line or " TIMEOUT " in line:
            print(line)
    return p.returncode


# the Python package's tests whose work is in the extension (docs/python.md); the ones
# that run child interpreters (test_main, test_docs) would only measure valgrind
PYTHON_TESTS = ["basic", "ufunc", "random", "streams", "views"]


def python_under_valgrind(build, valgrind):
    """The extension's tests in Debian's interpreter under memcheck: invalid reads and
    writes, uses of uninitialised memory. Leaks are not counted: CPython does not free
    everything at exit. PYTHONMALLOC=malloc, so that valgrind sees each object."""
    interpreter = "/usr/bin/python3"
    if not os.path.exists(os.path.join(build, "python", "kcc")):
        print("run_valgrind: the Python package is not built: its tests are skipped")
        return 0
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"), KC_DEVICE="cpu",
               KC_CACHE="0", PYTHONMALLOC="malloc", PYTHONDONTWRITEBYTECODE="1")
    if platform.machine() == "x86_64":
        env.setdefault("KC_HOST_CPU", "x86-64-v2")
    rc = 0
    for t in PYTHON_TESTS:
        cmd = [valgrind, "-q", "--error-exitcode=99", "--leak-check=no", "--num-callers=40",
               "--suppressions=" + os.path.join(HERE, "valgrind.supp"), interpreter,
               os.path.join(HERE, "python", "test_%s.py" % t)]
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        print("run_valgrind: python test_%s: %s" % (t, "ok" if p.returncode == 0 else
                                                     "FAILED (exit %d)" % p.returncode))
        if p.returncode != 0:
            print(p.stdout[-20000:])
            rc = 1
    return rc


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    build, only = argv[1], argv[2:]
    valgrind = shutil.which("valgrind")
    if not valgrind:
        print("run_valgrind: valgrind is not installed (apt-get install valgrind)")
        return 1
    wrapper = " ".join([
        valgrind, "-q", "--error-exitcode=99", "--leak-check=full",
        "--errors-for-leak-kinds=definite,indirect,possible", "--num-callers=40",
        "--suppressions=" + os.path.join(HERE, "valgrind.supp")])
    # one process per suite: leaks are seen. The CPU back end compiles for a baseline
    # x86-64 under valgrind, whose emulation of BMI2's bzhi (which LLVM picks for
    # isfinite on this CPU) gives wrong results: src/target/target_host.c, KC_HOST_CPU.
    env = dict(os.environ, CK_FORK="no")
    if platform.machine() == "x86_64":
        env.setdefault("KC_HOST_CPU", "x86-64-v2")
    tests = elf_tests(build)
    if only:
        tests = [(n, s) for n, s in tests if n in only] + \
                [(n, set()) for n in only if n not in {t for t, _ in tests}]
    cached = [n for n, s in tests if s & CACHED_SUITES]
    plain = [n for n, s in tests if not s & CACHED_SUITES]
    print("run_valgrind: %d tests under %s (%d with their kernels from a warm cache)"
          % (len(tests), wrapper, len(cached)))
    rc = meson_test(build, plain, wrapper, env) if plain else 0
    if cached:
        with tempfile.TemporaryDirectory(prefix="kc-valgrind-cache-") as cache:
            on = "env KC_CACHE=1 XDG_CACHE_HOME=" + cache
            if meson_test(build, cached, on, env, quiet=True) != 0:
                print("run_valgrind: warming the cache: the tests above failed natively "
                      "with the compile cache on (make test runs without it)")
                rc = 1
            rc |= meson_test(build, cached, on + " " + wrapper, env)
    if not only:
        rc |= python_under_valgrind(build, valgrind)
        env = dict(os.environ, KC_VALGRIND="1")
        rc |= subprocess.run(["meson", "test", "-C", build, "--no-rebuild",
                              "--print-errorlogs", "--timeout-multiplier", "20",
                              "diagnostics"], env=env).returncode
    return 1 if rc else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
