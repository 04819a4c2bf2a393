"""`python3 -m kcc script.py [args]` (docs/python.md): Numba programs run unchanged.

Run by meson (suite 'python') as test_basic.py is. Each case runs a program in a
child process with this interpreter and checks what it prints against NumPy.
"""

import os
import subprocess
import sys

import numpy as np

from runner import Skip

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


def test_device_namespaces():
    """numba.cuda.bf16, fp16 and libdevice import as numba-cuda's do; values exact, so
    NumPy's arithmetic is the reference; 0x3FA0 is 1.25 as bfloat16 (float32's top half)."""
    rc, out, err = run_kcc('device_ns_program.py')
    assert rc == 0, err
    x = np.array([1.25, -2.5, 1.5, 16.0], dtype=np.float32)
    want = [x[0] + x[1], x[0] * x[1], x[1] / x[0], x[0] - x[1], x[2] * 2, np.sqrt(x[3])]
    top = int(np.array([1.25], np.float32).view(np.uint32)[0] >> 16)
    lines = out.splitlines()
    assert lines[0] == ' '.join(repr(float(v)) for v in want) + ' %d' % top, (lines, want)
    assert lines[1] == 'host call: numba.cuda.bf16.hadd runs only inside kernels and ' \
        'device functions', lines


def test_numba_launch_warnings():
    """Numba's launch warnings, on by default in Numba 0.56 and worded as Numba's: a grid
    under 128 blocks, a host array copied for a launch (not a mapped one); its
    NUMBA_CUDA_* switches turn them off. Reference: Numba's numba/cuda/dispatcher.py
    and devicearray.py."""
    rc, out, err = run_kcc('warnings_program.py')
    assert rc == 0, err
    assert 'NumbaPerformanceWarning: Grid size 1 will likely result in GPU under-utilization ' \
        'due to low occupancy.' in err, err
    assert 'NumbaPerformanceWarning: Host array used in CUDA kernel will incur copy ' \
        'overhead to/from device.' in err, err
    assert out.splitlines() == ['caught 0 for a big grid and device arrays',
                                'caught 0 for a mapped array'], out
    rc, out, err = run_kcc('warnings_program.py', env={
        'NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS': '0', 'NUMBA_CUDA_WARN_ON_IMPLICIT_COPY': '0'})
    assert rc == 0 and 'Warning' not in err, err


def test_cuda_device_names_imported():
    """from numba.cuda import grid, threadIdx, shared, atomic ... (numba.cuda's device
    names, as Numba exports them) in a kernel's module; NumPy computes the reference."""
    rc, out, err = run_kcc('cuda_names_program.py')
    assert rc == 0, err
    i = np.arange(64)
    popc = np.array([bin(v).count('1') for v in i])
    want = (i // 32) * 32 + popc + 64
    hist = np.bincount(i % 4)
    lines = out.splitlines()
    assert lines[0] == ' '.join(str(v) for v in want), (lines[0], want)
    assert lines[1] == ' '.join(str(v) for v in hist), lines
    assert lines[2] == 'host call: numba.cuda.grid runs only inside kernels and device ' \
        'functions', lines


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


def test_child_processes_run_under_kcc():
    """A python3 -c child (Numba's test_print runs its kernels so) and multiprocessing's
    spawned workers get kcc's numba too; a child that imports no numba is left alone."""
    # the child's stderr is part of what it prints: without Numba's launch warnings
    # (a grid of one block; Numba's NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0 turns them off)
    rc, out, err = run_kcc('children_program.py', env={
        'KCC_REAL_NUMBA': '0', 'NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS': '0',
        'NUMBA_CUDA_WARN_ON_IMPLICIT_COPY': '0'})
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == "child 0 ['0 999', '1 999', 'module kcc.cuda'] ", lines
    assert lines[1] == "spawned [('kcc.cuda', [0.0, 2.0]), ('kcc.cuda', [0.0, 2.0, 4.0])]", lines
    assert lines[2] == 'plain child imports numba: False', lines


def test_numba_type_signature():
    """Numba's type objects in the decorator: the real Numba's, so only with it."""
    try:
        import numba            # noqa: F401 (only whether it imports)
    except Exception:
        raise Skip('no Numba')
    rc, out, err = run_kcc('typed_program.py')
    assert rc == 0, err
    want = (np.arange(5, dtype=np.float32) * np.float32(1.5)).tolist()
    assert out.splitlines() == ["['scale(float32[:], float32)']", str(want)], out


def test_compile_error_is_kccs():
    """kcc's message, at the file's line and column; raised as Numba's TypingError
    (also a KccError) where Numba is installed, as Numba's users catch it, else as
    KccError."""
    path = os.path.join(HERE, 'bad_kernel.py')
    rc, out, err = run_kcc('bad_kernel.py', env={'KCC_REAL_NUMBA': '0'})
    assert rc == 1, (rc, err)
    assert 'kcc.KccError: %s:10:19: error: strings are only allowed' % path in err, err
    try:
        import numba.core.errors  # noqa: F401
    except Exception:
        return
    rc, out, err = run_kcc('bad_kernel.py')
    assert rc == 1, (rc, err)
    assert 'numba.core.errors.TypingError: %s:10:19: error: strings are only allowed' \
        % path in err, err
    assert '    a[i] = a[i] + "text"' in err, err
    assert 'Segmentation' not in err, err


def test_run_module():
    """python3 -m kcc -m MODULE runs a module as python3 -m does, numba served by kcc."""
    import kcc
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(kcc.__file__)))
    p = subprocess.run([sys.executable, '-m', 'kcc', '-m', 'seed_vector_add'],
                       capture_output=True, text=True, cwd=HERE, timeout=300,
                       env=dict(os.environ, KCC_REAL_NUMBA='0', PYTHONPATH=package_dir))
    assert p.returncode == 0, p.stderr
    assert p.stdout == '[5 7 9]\n', p.stdout


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


def test_seed_000():
    """Seed 000 whole: a @vectorize(target='cuda') ufunc called on host arrays."""
    for env in ({}, {'KCC_REAL_NUMBA': '0'}):
        rc, out, err = run_kcc('seed_000.py', env=env)
        assert rc == 0, err
        lines = out.splitlines()
        assert lines[0] == 'Error:  0.0', out          # 1 + 1 in float32, exactly
        assert lines[1].startswith('VectorAdd took ') and lines[1].endswith(' seconds')
        assert lines[2].startswith('VectorAdd(NP)took '), out


def primes_below(n):
    """The primes below n, by a sieve in NumPy (not the seed's trial division)."""
    sieve = np.ones(n, dtype=bool)
    sieve[:2] = False
    for p in range(2, int(n ** 0.5) + 1):
        if sieve[p]:
            sieve[p * p::p] = False
    return np.flatnonzero(sieve).tolist()


def test_seed_001():
    """Seed 001 whole: a kernel with for/else called with a number and a host array,
    a lazy kernel never launched (whose body is host Python), and @nb.vectorize."""
    primes = primes_below(10000)
    for env in ({}, {'KCC_REAL_NUMBA': '0'}):
        rc, out, err = run_kcc('seed_001.py', env=env)
        assert rc == 0, err
        assert out.splitlines() == [
            '11', '0', 'cpu %d %s' % (len(primes), primes[-3:]), 'jit True',
            'kernel loop True', 'vectorize ndarray int32 True'], out


def seed_002_lines(out):
    """What seed_002.py printed, without inspect_types's report (Numba's own, or kcc's
    notice without Numba) and the device array's repr."""
    lines = out.splitlines()
    start = lines.index('math.hypot 5.0') + 1
    end = lines.index('a+b:')
    return lines[:start] + lines[end:]


def check_close_f32(line, prefix, want):
    assert line.startswith(prefix + ' float32 (1000000,) '), line
    got = np.array(eval(line[len(prefix) + 20:]))
    assert np.allclose(got, want, rtol=2e-6, atol=0), (got, want)


def check_seed_002(out):
    lines = seed_002_lines(out)
    assert lines[:4] == ['hypot 5.0', 'hypot_jit 5.0', 'py_func 5.0', 'math.hypot 5.0']
    a, b = np.array([1, 2, 3, 4]), np.array([10, 20, 30, 40])
    c = np.arange(16).reshape(4, 4)
    text = '\n'.join(lines)
    assert 'a+b:\n %s\n\nb_col + c:\n %s\n' % (a + b, b[:, np.newaxis] + c) in text, text
    rng = np.random.RandomState(2)
    x = rng.uniform(-3, 3, size=1000000).astype(np.float32)[:3].astype(np.float64)
    i = lines.index('b_col + c:') + 5
    check_close_f32(lines[i], 'gaussian_pdf', np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi))
    rng = np.random.RandomState(2)
    rng.uniform(-3, 3, size=1000000)
    rho1, theta1, rho2, theta2 = [
        rng.uniform(lo, hi, size=1000000).astype(np.float32)[:3].astype(np.float64)
        for lo, hi in ((0.5, 1.5), (-np.pi, np.pi), (0.5, 1.5), (-np.pi, np.pi))]
    want = np.hypot(rho1 * np.cos(theta1) - rho2 * np.cos(theta2),
                    rho1 * np.sin(theta1) - rho2 * np.sin(theta2))
    check_close_f32(lines[i + 1], 'polar_distance', want)
    three = np.arange(100000, dtype=np.float32) * 3
    assert lines[i + 2] == 'add_ufunc host float32 %s' % three[:4].tolist()
    assert lines[i + 3].startswith('<') and lines[i + 4:i + 6] == ['(100000,)', 'float32']
    assert lines[i + 6] == 'add_ufunc device DeviceNDArray (100000,)', lines[i + 6]
    assert lines[i + 7:i + 10] == [str(three[:10])] * 3, lines[i + 7:i + 10]
    assert lines[i + 10] == 'add_kernel device %s' % three[-3:].tolist()
    # the race's count is whatever the threads make it; the atomic one is exact
    assert lines[i + 11].startswith('Should be 4096: ['), lines[i + 11]
    assert lines[i + 12] == 'Should be 4096: [4096]', lines[i + 12]
    m = np.arange(1024 * 1024, dtype=np.int32).reshape(1024, 1024)
    assert '\n'.join(lines[i + 13:]) == '\n'.join([str(m), str(m.T), str(m.T),
                                                    'tile_transpose True']), lines[i + 13:]


def test_seed_002():
    """Seed 002 whole: the notebook's cells as one program, names redefined as in it,
    ufuncs on host and device arrays with broadcasting and out=, kernels on host and
    device arrays, atomics, shared-memory transposes."""
    for env in ({}, {'KCC_REAL_NUMBA': '0'}):
        rc, out, err = run_kcc('seed_002.py', env=env)
        assert rc == 0, err
        check_seed_002(out)


if __name__ == '__main__':
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from runner import run
    sys.exit(run(globals()))
