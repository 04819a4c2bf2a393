"""`python3 -m kcc script.py [args]` (docs/python.md): Numba programs run unchanged.

Run by meson (suite 'python') as test_basic.py is. Each case runs a program in a
child process with this interpreter and checks what it prints against NumPy.
"""

import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def run_kcc(script, *args, env=None):
    """(returncode, stdout, stderr) of python3 -m kcc HERE/script args."""
    full_env = dict(os.environ, **(env or {}))
    p = subprocess.run([sys.executable, '-m', 'kcc', os.path.join(HERE, script)] +
                       list(args), capture_output=True, text=True, env=full_env,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def test_seed_vector_add():
    rc, out, err = run_kcc('seed_vector_add.py')
    assert rc == 0, err
    want = str(np.array([1, 2, 3]) + np.array([4, 5, 6]))
    assert out == want + '\n', (out, want)


def check_shim_output(out, n):
    a = np.arange(n, dtype=np.float64)
    lines = out.splitlines()
    assert lines[0] == "argv ['%d', 'extra']" % n, lines
    assert lines[1] == 'squares %s' % (a * a).tolist(), lines
    assert lines[2] == 'total %s' % float((a * a).sum()), lines
    assert lines[3] == 'halves %s' % (a * a / 2).tolist(), lines
    assert lines[4] == 'cuda is kcc True', lines


def test_shim_with_real_numba_or_without():
    # with Numba installed, njit and vectorize are its own; else plain Python
    rc, out, err = run_kcc('shim_program.py', '100', 'extra')
    assert rc == 0, err
    check_shim_output(out, 100)


def test_shim_without_numba():
    rc, out, err = run_kcc('shim_program.py', '70', 'extra', env={'KCC_REAL_NUMBA': '0'})
    assert rc == 0, err
    check_shim_output(out, 70)
    notices = [l for l in err.splitlines() if l.startswith('kcc: Numba is not installed')]
    assert len(notices) == 1, err          # one notice, for two decorators


def test_numba_type_signature():
    """Numba's type objects in the decorator: the real Numba's, so only with it."""
    try:
        import numba            # noqa: F401 (only whether it imports)
    except Exception:
        print('skip: no Numba')
        return
    rc, out, err = run_kcc('typed_program.py')
    assert rc == 0, err
    want = (np.arange(5, dtype=np.float32) * np.float32(1.5)).tolist()
    assert out.splitlines() == ["['scale(float32[:], float32)']", str(want)], out


def test_compile_error_is_kccs():
    rc, out, err = run_kcc('bad_kernel.py')
    assert rc == 1, (rc, err)
    path = os.path.join(HERE, 'bad_kernel.py')
    assert 'kcc.KccError: %s:10:19: error: strings are only allowed' % path in err, err
    assert '    a[i] = a[i] + "text"' in err, err
    assert 'Segmentation' not in err, err


def test_usage():
    p = subprocess.run([sys.executable, '-m', 'kcc'], capture_output=True, text=True)
    assert p.returncode == 2 and 'usage: python3 -m kcc' in p.stderr, p
    rc, out, err = run_kcc('no_such_script.py')
    assert rc == 2 and "can't open file" in err, err


def seed_003_expected():
    """What seed_003.py prints, computed with NumPy from the same random draws."""
    rng = np.random.RandomState(3)
    draw = lambda: rng.randn(3, 3).astype(np.float32)
    twice = lambda a: (a * np.float32(2)).tolist()
    a = draw()
    b = draw()
    c = draw()
    d = draw().flatten()
    e = draw()
    f = draw()
    return [('doubled', twice(a)), ('doubled_auto_grid', twice(b)),
            ('doubled_man_copy', twice(c)), ('reduce_gpu', d.astype(np.float64).sum()),
            ('doubled_ufunc', twice(e)), ('doubled_gufunc', twice(f))]


def check_seed_003(out):
    lines = dict(l.split(' ', 1) for l in out.splitlines())
    for name, want in seed_003_expected():
        got = lines[name]
        if name == 'reduce_gpu':
            # a float32 sum in the reduction's own order: within rounding of the exact one
            assert abs(float(got) - want) <= 1e-5 * 9, (got, want)
            assert got == repr(np.float32(got)), got       # printed as a float32 scalar
        elif name == 'doubled_ufunc':
            assert got == 'ndarray float32 %s' % want, (got, want)
        else:
            assert got == str(want), (name, got, want)


def test_seed_003():
    """Seed 003 whole: kernels, cuda.reduce, @vectorize and @guvectorize (target='cuda')
    called from host code, with Numba's type objects in the decorators."""
    rc, out, err = run_kcc('seed_003.py')
    assert rc == 0, err
    check_seed_003(out)


def test_seed_003_without_numba():
    # numba.float32 and float32[:, :] are kcc's stand-ins then
    rc, out, err = run_kcc('seed_003.py', env={'KCC_REAL_NUMBA': '0'})
    assert rc == 0, err
    check_seed_003(out)


if __name__ == '__main__':
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from runner import run
    sys.exit(run(globals()))
