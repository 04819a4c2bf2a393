"""Numba's documentation examples for CUDA (tests/python/numba_docs/, made from Numba
0.56.4's numba/cuda/tests/doc_examples by scripts/numba_doc_examples.py) run unchanged
under `python3 -m kcc`, on the CPU back end. Each example checks itself as it does in
Numba's suite (against NumPy, or against values computed independently, such as the
Monte Carlo integrals' exact values); a failed check is a non-zero exit.

Run by meson (suite 'python') as test_main.py is; without Numba (KCC_REAL_NUMBA=0: its
type objects and @jit are kcc's stand-ins), and with it where it is installed.
"""

import glob
import os
import subprocess
import sys

from runner import Skip

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = sorted(glob.glob(os.path.join(HERE, 'numba_docs', 'ex_*.py')))
BIG = {'ex_3d_grid.py': 4 << 30}    # bytes it needs: a 701 x 900 x 719 float32 array twice


def available_memory():
    with open('/proc/meminfo') as f:
        for line in f:
            if line.startswith('MemAvailable:'):
                return int(line.split()[1]) * 1024
    return 0


def run_example(path, env):
    p = subprocess.run([sys.executable, '-m', 'kcc', path], capture_output=True,
                       text=True, env=dict(os.environ, **env), timeout=600)
    assert p.returncode == 0, '%s: exit %d\n%s%s' % (os.path.basename(path), p.returncode,
                                                     p.stdout[-2000:], p.stderr[-4000:])


def make_test(path, env):
    def test():
        need = BIG.get(os.path.basename(path), 0)
        if need and available_memory() < need:
            raise Skip('%s needs %d GiB' % (os.path.basename(path), need >> 30))
        run_example(path, env)
    return test


def numba_installed():
    try:
        import numba   # noqa: F401
        return True
    except Exception:
        return False


for _path in EXAMPLES:
    _name = os.path.basename(_path)[:-3]
    globals()['test_%s_without_numba' % _name] = make_test(_path, {'KCC_REAL_NUMBA': '0'})
    if numba_installed() and _name not in ('ex_3d_grid',):   # the big one runs once
        globals()['test_%s_with_numba' % _name] = make_test(_path, {})


def test_every_example_is_here():
    names = sorted(os.path.basename(p) for p in EXAMPLES)
    assert names == ['ex_3d_grid.py', 'ex_cpu_gpu_compat.py', 'ex_grid_sync.py',
                     'ex_laplace.py', 'ex_linking_cu.py', 'ex_matmul.py',
                     'ex_montecarlo.py', 'ex_reduction.py', 'ex_sessionize.py',
                     'ex_vecadd.py'], names


if __name__ == '__main__':
    sys.path.insert(0, HERE)
    from runner import run
    sys.exit(run(globals()))
