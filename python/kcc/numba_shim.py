"""The ``numba`` that ``python3 -m kcc`` puts in sys.modules.

``numba.cuda`` (``from numba import cuda``, ``import numba.cuda as cuda``) is
kcc.cuda. Everything else is the real Numba's when it is installed: it is imported
under its own name before the shim takes the name over, so its submodules
(``numba.core`` ...) stay importable and ``numba.njit`` compiles for the CPU as
before. Without Numba (or with ``KCC_REAL_NUMBA=0``), ``jit``/``njit`` return the
function itself and ``vectorize`` wraps it in ``numpy.vectorize``: the program runs
as plain Python, and one notice on stderr says so.
"""

import importlib
import os
import sys
import types

from . import cuda as kcc_cuda

_real = None          # the real numba module, or None
_notice_given = False


def _import_real_numba():
    """The real Numba, imported while the name is free, or None."""
    if os.environ.get('KCC_REAL_NUMBA', '1') == '0':
        return None
    try:
        return importlib.import_module('numba')
    except Exception:   # not installed, or broken against this NumPy: run without it
        for name in [n for n in sys.modules if n == 'numba' or n.startswith('numba.')]:
            del sys.modules[name]
        return None


def _notice():
    global _notice_given
    if not _notice_given:
        _notice_given = True
        sys.stderr.write('kcc: Numba is not installed: numba.jit, njit and vectorize '
                         'functions run as plain Python\n')


def _plain(wrap):
    """A decorator used bare (@njit) or with arguments (@njit(cache=True), @jit('f8(f8)')),
    applying wrap to the function."""
    def decorator(*args, **kwargs):
        _notice()
        if len(args) == 1 and callable(args[0]) and not isinstance(args[0], str) \
                and not kwargs:
            return wrap(args[0])
        return wrap
    return decorator


def _no_guvectorize(*args, **kwargs):
    raise NotImplementedError('kcc: numba.guvectorize needs Numba, which is not '
                              'installed (its CUDA target is not in kcc.cuda yet)')


def _refuse_cuda_target(real_decorator, name):
    """vectorize/guvectorize of the real Numba, except target='cuda', which kcc does not
    serve from Python yet (its kernels would go to the real numba.cuda)."""
    def decorator(*args, **kwargs):
        if kwargs.get('target') == 'cuda':
            raise NotImplementedError("kcc: @%s(target='cuda') is not in kcc.cuda yet"
                                      % name)
        return real_decorator(*args, **kwargs)
    return decorator


def _make_shim(real):
    shim = types.ModuleType('numba', __doc__)
    shim.__path__ = []            # a package, so `import numba.cuda` looks it up
    shim.cuda = kcc_cuda
    shim.__version__ = getattr(real, '__version__', '0.56.4+kcc')
    if real is not None:
        shim.jit, shim.njit = real.jit, real.njit
        shim.vectorize = _refuse_cuda_target(real.vectorize, 'vectorize')
        shim.guvectorize = _refuse_cuda_target(real.guvectorize, 'guvectorize')
        # numba.types, numba.float32, numba.prange ...: the real Numba's
        shim.__getattr__ = lambda name: getattr(real, name)
    else:
        import numpy as np
        shim.jit = shim.njit = _plain(lambda fn: fn)
        shim.vectorize = _plain(np.vectorize)
        shim.guvectorize = _no_guvectorize
        shim.prange = range
    return shim


def install():
    """Make ``import numba`` give the shim, and ``numba.cuda`` kcc.cuda."""
    global _real
    if isinstance(sys.modules.get('numba'), types.ModuleType) and \
            getattr(sys.modules['numba'], 'cuda', None) is kcc_cuda:
        return sys.modules['numba']
    _real = _import_real_numba()
    shim = _make_shim(_real)
    sys.modules['numba'] = shim
    sys.modules['numba.cuda'] = kcc_cuda
    return shim
