#!/usr/bin/env bash
# Install what kcc needs to build and test, when missing, on Debian 12 (bookworm).
# Runs as root (or with sudo). Quiet when everything is already there.
set -euo pipefail

# LLVM 22 first, else 19 (Debian 12's own): both tested; meson.build refuses older ones
want_llvm=(22 19)
need=()
have() { command -v "$1" >/dev/null 2>&1; }

have flex || need+=(flex)
have bison || need+=(bison)
have meson || need+=(meson)
have ninja || need+=(ninja-build)
have pkg-config || need+=(pkg-config)
have gcc || need+=(gcc)
have g++ || need+=(g++)   # the CPU back end compiles link= files (src/target/host_link.c)
[ -f /usr/include/check.h ] || need+=(check)
have valgrind || need+=(valgrind)
# DLPack's header (kc_array_to_dlpack / kc_array_from_dlpack; without it they are
# compiled out)
[ -f /usr/include/dlpack/dlpack.h ] || need+=(libdlpack-dev)
# GNU libunistring: non-ASCII identifiers (PEP 3131) in the lexer
[ -f /usr/include/uninorm.h ] || need+=(libunistring-dev)
# xxHash: the disk cache's key and checksums (runtime/cache.c)
[ -f /usr/include/xxhash.h ] || need+=(libxxhash-dev)
# The Python package (python/, docs/python.md): Debian's python3 with its headers and
# NumPy (meson.build builds it only where /usr/bin/python3 has both)
/usr/bin/python3 -c 'import sys, sysconfig, os
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  >/dev/null 2>&1 || need+=(python3-dev)
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)
# clang with libFuzzer: the fuzz targets of tests/fuzz (make test, make test-all)
have clang || need+=(clang)
compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/*/libclang_rt.fuzzer*.a" >/dev/null ||
  need+=(libclang-rt-dev)
# Open MPI: only the MPI sample's test (samples/mpi_heat.c, mpirun -np 2 and 4 on the CPU
# back end); meson builds it when it finds MPI, and the test is skipped without it
have mpirun || need+=(openmpi-bin)
compgen -G "/usr/lib/*/openmpi/include/mpi.h" >/dev/null || need+=(libopenmpi-dev)
# For `make bench` only (KC_DEPS_BENCH=1), not needed to build or test: gnuplot (the
# charts) and Debian's python3-numba (the Numba columns of bench/run.sh, run by
# /usr/bin/python3). bench/run.sh skips what is missing, so a failed install only warns.
bench_need=()
if [ "${KC_DEPS_BENCH:-0}" != 0 ]; then
  have gnuplot || bench_need+=(gnuplot-nox)
  /usr/bin/python3 -c 'import numba' >/dev/null 2>&1 || bench_need+=(python3-numba)
fi

llvm_found=""
for v in "${want_llvm[@]}"; do
  if have "llvm-config-$v" && have "FileCheck-$v"; then llvm_found=$v; break; fi
done

sudo_=""
[ "$(id -u)" = 0 ] || sudo_="sudo"
updated=0
apt_install() {
  if [ $updated = 0 ]; then $sudo_ apt-get update -qq || true; updated=1; fi
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends "$@"
}

if [ -z "$llvm_found" ]; then
  for v in "${want_llvm[@]}"; do
    if apt_install "llvm-$v-dev" "llvm-$v-tools" >/dev/null 2>&1; then llvm_found=$v; break; fi
  done
  [ -n "$llvm_found" ] || { echo "deps: could not install llvm-dev (tried ${want_llvm[*]})" >&2; exit 1; }
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "deps: installing ${need[*]}"
  apt_install "${need[@]}" >/dev/null
fi
if [ ${#bench_need[@]} -gt 0 ]; then
  echo "deps: installing ${bench_need[*]} (for make bench)"
  apt_install "${bench_need[@]}" >/dev/null 2>&1 ||
    echo "deps: could not install ${bench_need[*]}: make bench goes on without them" >&2
fi
if [ ! -f /usr/local/cuda/include/cuda.h ]; then
  echo "deps: no CUDA toolkit under /usr/local/cuda: kcc builds CPU-only, ptxas checks are skipped"
fi
echo "llvm-config-$llvm_found"
