"""Numba's own CUDA tests (numba/cuda/tests/cudapy in Debian's python3-numba 0.56.4) run
unchanged under `python3 -m kcc`, on the CPU back end: the files below pass whole, and
each must keep passing. The tests are Numba's; their expected values are Numba's own
(NumPy, math, its documented results). The rest of the suite is measured, not held
here (docs/python.md, "Numba's own tests").

Needs Numba installed (its test files and numba.tests.support); without it the test
reports itself skipped (exit 77). Run by meson (suite 'python').
"""

import os
import subprocess
import sys

PASSING = [
    'test_array_methods', 'test_blackscholes', 'test_boolean', 'test_complex',
    'test_complex_kernel', 'test_cuda_jit_no_types', 'test_freevar', 'test_frexp_ldexp',
    'test_globals', 'test_gufunc_scheduling', 'test_idiv', 'test_iterators', 'test_lang',
    'test_laplace', 'test_libdevice', 'test_lineinfo', 'test_mandel', 'test_math',
    'test_matmul', 'test_multigpu',
    'test_montecarlo', 'test_nondet', 'test_exception', 'test_forall', 'test_gufunc_scalar', 'test_operator', 'test_powi', 'test_sync', 'test_py2_div_issue', 'test_reduction',
    'test_slicing', 'test_transpose', 'test_vectorize', 'test_vectorize_complex', 'test_vectorize_device',
    'test_vectorize_scalar_arg', 'test_dispatcher', 'test_minmax', 'test_multithreads',
    'test_print', 'test_retrieve_autoconverted_arrays', 'test_vectorize_decor',
    'test_warp_ops', 'test_record_dtype', 'test_array_args', 'test_fastmath', 'test_userexc',
]


def suite_dir():
    try:
        import numba
    except Exception:
        return None
    d = os.path.join(os.path.dirname(numba.__file__), 'cuda', 'tests', 'cudapy')
    return d if os.path.isdir(d) else None


def main():
    d = suite_dir()
    if d is None:
        print('skip: Numba (python3-numba) is not installed')
        return 77
    failed = []
    for name in PASSING:
        p = subprocess.run([sys.executable, '-m', 'kcc', os.path.join(d, name + '.py')],
                           capture_output=True, text=True, timeout=600)
        last = (p.stderr.strip().splitlines() or ['(no output)'])[-1]
        print('%s %s: %s' % ('ok' if p.returncode == 0 else 'FAIL', name, last))
        if p.returncode != 0:
            failed.append(name)
            print(p.stderr[-6000:])
    print('%d of %d files failed' % (len(failed), len(PASSING)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
