"""python3 -m kcc script.py [args]: run a Numba program with kcc serving numba.cuda.

The script runs as ``python3 script.py [args]`` would run it (``__name__`` is
``'__main__'``, ``sys.argv`` is the script and its arguments, ``sys.path[0]`` its
folder), with the package ``numba`` replaced by kcc's shim (kcc/numba_shim.py).
"""

import os
import runpy
import sys

USAGE = '''usage: python3 -m kcc SCRIPT.py [ARGS...]
       python3 -m kcc -m MODULE [ARGS...]    (as python3 -m MODULE: unittest, pytest ...)

Run a Numba program with kcc: its numba.cuda kernels are compiled by kcc and run on a
CUDA GPU, or on kcc's CPU back end where there is none (KC_DEVICE=cpu asks for it).
numba's CPU functions (@jit, @njit, @vectorize) go to the real Numba when it is
installed, else run as plain Python.
'''


def serve_children():
    """The Python processes the program starts run under kcc too (subprocess, the spawn
    and forkserver methods of multiprocessing; fork inherits the shim): their
    PYTHONPATH starts with kcc/_children, whose sitecustomize installs the shim when
    such a process first imports numba."""
    package = os.path.dirname(os.path.abspath(__file__))
    first = [os.path.join(package, '_children')]
    if os.path.dirname(package) not in sys.path:    # kcc found another way: say where
        first.append(os.path.dirname(package))
    rest = [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p and p not in first]
    os.environ['PYTHONPATH'] = os.pathsep.join(first + rest)
    os.environ['KCC_NUMBA_SHIM'] = '1'


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ('-h', '--help'):
        sys.stdout.write(USAGE) if argv else sys.stderr.write(USAGE)
        return 0 if argv else 2
    if argv[0] == '-m':
        return run_module(argv[1:])
    script = argv[0]
    if not os.path.isfile(script):
        sys.stderr.write("python3 -m kcc: can't open file '%s'\n" % script)
        return 2
    from . import numba_shim
    numba_shim.install()
    serve_children()
    sys.argv = argv
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name='__main__')
    return 0


def run_module(argv):
    """python3 -m kcc -m MODULE [args]: the module run as python3 -m MODULE would run it
    (sys.path[0] the current folder), numba served by kcc."""
    if not argv:
        sys.stderr.write(USAGE)
        return 2
    from . import numba_shim
    numba_shim.install()
    serve_children()
    sys.argv = argv
    sys.path[0] = os.getcwd()
    runpy.run_module(argv[0], run_name='__main__', alter_sys=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
