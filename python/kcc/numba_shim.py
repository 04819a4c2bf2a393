"""The ``numba`` that ``python3 -m kcc`` puts in sys.modules.

``numba.cuda`` (``from numba import cuda``, ``import numba.cuda as cuda``) is
kcc.cuda. Everything else is the real Numba's when it is installed: it is imported
under its own name before the shim takes the name over, so its submodules
(``numba.core`` ...) stay importable and ``numba.njit`` compiles for the CPU as
before. Without Numba (or with ``KCC_REAL_NUMBA=0``), ``jit``/``njit`` return the
function itself and ``vectorize`` wraps it in ``numpy.vectorize``: the program runs
as plain Python, and one notice on stderr says so.
"""

import functools
import importlib
import os
import sys
import types

from . import cuda as kcc_cuda
from . import ufunc as kcc_ufunc
from . import types as kcc_types

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


class _PlainFunction:
    """A @jit/@njit function run as plain Python, with the attributes of Numba's
    dispatcher that programs use on it (py_func, inspect_types)."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.py_func = fn

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)

    def __get__(self, obj, objtype=None):      # as a method, like a function
        return self if obj is None else functools.partial(self, obj)

    def inspect_types(self, file=None, **kwargs):
        print("%s: not compiled (Numba is not installed; kcc runs it as plain Python)"
              % self.__name__, file=file or sys.stdout)


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
    raise NotImplementedError('kcc: numba.guvectorize for the CPU needs Numba, which is '
                              "not installed (target='cuda' is kcc's)")


def _cuda_target_to_kcc(other_decorator, kcc_decorator):
    """vectorize/guvectorize: target='cuda' compiled by kcc, any other target by
    other_decorator (the real Numba's, or the plain-Python stand-in)."""
    def decorator(*args, **kwargs):
        if kwargs.get('target') == 'cuda':
            return kcc_decorator(*args, **kwargs)
        return other_decorator(*args, **kwargs)
    return decorator


def _make_shim(real):
    shim = types.ModuleType('numba', __doc__)
    shim.__path__ = []            # a package, so `import numba.cuda` looks it up
    shim.cuda = kcc_cuda
    shim.__version__ = getattr(real, '__version__', '0.56.4+kcc')
    if real is not None:
        # its submodules (numba.types, numba.core ...) are found where Numba's are
        shim.__path__ = list(real.__path__)
        shim.jit, shim.njit = real.jit, real.njit
        shim.vectorize = _cuda_target_to_kcc(real.vectorize, kcc_ufunc.vectorize)
        shim.guvectorize = _cuda_target_to_kcc(real.guvectorize, kcc_ufunc.guvectorize)
        # numba.types, numba.float32, numba.prange ...: the real Numba's
        shim.__getattr__ = lambda name: getattr(real, name)
    else:
        import numpy as np
        shim.jit = shim.njit = _plain(_PlainFunction)
        shim.vectorize = _cuda_target_to_kcc(_plain(np.vectorize), kcc_ufunc.vectorize)
        shim.guvectorize = _cuda_target_to_kcc(_no_guvectorize, kcc_ufunc.guvectorize)
        shim.prange = range
        shim.types = kcc_types    # numba.float32, numba.types.int32[:] ...: stand-ins
        for name in kcc_types.__all__:
            setattr(shim, name, getattr(kcc_types, name))
    return shim


def _keep_command_source():
    """A program run as python3 -c CODE (a child a Numba program starts, as Numba's own
    tests do) has its kernels' source in CODE alone: kept with the texts exec() compiled
    (kcc/source.py), where a function's text is found by matching its code object, so
    that another '<string>' function is never given CODE's text."""
    argv = getattr(sys, 'orig_argv', [])
    if sys.argv[:1] == ['-c'] and '-c' in argv[:-1]:
        from . import source
        source.keep_exec_text('<string>', argv[argv.index('-c') + 1])


def install():
    """Make ``import numba`` give the shim, and ``numba.cuda`` kcc.cuda."""
    global _real
    if isinstance(sys.modules.get('numba'), types.ModuleType) and \
            getattr(sys.modules['numba'], 'cuda', None) is kcc_cuda:
        return sys.modules['numba']
    _real = _import_real_numba()
    _keep_command_source()
    shim = _make_shim(_real)
    sys.modules['numba'] = shim
    sys.modules['numba.cuda'] = kcc_cuda
    sys.modules['numba.cuda.random'] = kcc_cuda.random
    from .device_ns import MODULES
    for name, ns in MODULES.items():   # numba.cuda.libdevice, fp16, bf16
        sys.modules['numba.cuda.' + name] = ns
    # numba.cuda.cudadrv.devicearray is kcc's (Numba's needs a driver); its package,
    # Numba's, is imported for it when Numba is there
    sys.modules['numba.cuda.devicearray'] = kcc_cuda.devicearray
    # numba.cuda.compiler's PTX entry points (`from numba.cuda.compiler import
    # compile_ptx`), kcc's; Numba's module would need its NVVM
    compiler = types.ModuleType('numba.cuda.compiler')
    compiler.compile_ptx = kcc_cuda.compile_ptx
    compiler.compile_ptx_for_current_device = kcc_cuda.compile_ptx_for_current_device
    sys.modules['numba.cuda.compiler'] = compiler
    kernels = types.ModuleType('numba.cuda.kernels.transpose')
    kernels.transpose = kcc_cuda._transpose   # Numba's device-side transpose, kcc's
    sys.modules['numba.cuda.kernels.transpose'] = kernels
    sys.modules['numba.cuda.cudadrv.devicearray'] = kcc_cuda.devicearray
    if _real is not None and not hasattr(kcc_cuda, '__path__'):
        # numba.cuda's other submodules (numba.cuda.tests ..., which Numba's own tests
        # import their helpers from) are found where Numba keeps them
        kcc_cuda.__path__ = [os.path.join(os.path.dirname(_real.__file__), 'cuda')]
    if _real is not None:
        try:   # Numba's package (its driver is loaded only when called), kcc's module
            import numba.cuda.cudadrv as cudadrv
            cudadrv.devicearray = kcc_cuda.devicearray
            kcc_cuda.cudadrv = cudadrv
        except Exception:
            pass
    from . import testing
    sys.modules['numba.cuda.testing'] = testing   # Numba's own tests' harness
    if _real is None:
        sys.modules['numba.types'] = kcc_types
    return shim
