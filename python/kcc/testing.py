"""``numba.cuda.testing`` for Numba's own CUDA tests run under ``python3 -m kcc``.

Numba's test files (numba/cuda/tests/cudapy) import their harness from here:
CUDATestCase and the skip decorators. The tests are Numba's; this only says what kcc
is: not the simulator, a device of every compute capability the tests ask for (kcc
compiles for sm_80 and newer, and its CPU back end runs every feature).
"""

import unittest

try:   # Numba's TestCase has assertPreciseEqual, which many tests use
    from numba.tests.support import TestCase as _Base, captured_stdout, captured_stderr
except Exception:
    _Base = unittest.TestCase
    captured_stdout = captured_stderr = None

__all__ = ['unittest', 'CUDATestCase', 'ContextResettingTestCase', 'SerialMixin',
           'skip_on_cudasim', 'skip_unless_cudasim', 'skip_unless_conda_cudatoolkit',
           'skip_if_external_memmgr', 'skip_under_cuda_memcheck', 'skip_without_nvdisasm',
           'skip_with_nvdisasm', 'skip_on_arm', 'skip_if_cuda_includes_missing',
           'skip_if_mvc_enabled', 'skip_if_mvc_libraries_unavailable', 'linux_only',
           'windows_only', 'xfail_unless_cudasim', 'cc_X_or_above', 'skip_unless_cc_32',
           'skip_unless_cc_50', 'skip_unless_cc_53', 'skip_unless_cc_60',
           'skip_unless_cc_75', 'ensure_supported_ccs_initialized', 'override_config',
           'captured_stdout', 'captured_stderr', 'ForeignArray']


class SerialMixin:
    _numba_parallel_test_ = False


_QUIET = ('CUDA_LOW_OCCUPANCY_WARNINGS', 'CUDA_WARN_ON_IMPLICIT_COPY')


def _switch(name, value):
    """Set launch-warning switch `name` where kcc.cuda reads it (Numba's config module,
    else NUMBA_<name> in the environment: None removes it); its value before."""
    try:
        from numba.core import config
    except Exception:
        import os
        old = os.environ.pop('NUMBA_' + name, None)
        if value is not None:
            os.environ['NUMBA_' + name] = str(value)
        return old
    old = getattr(config, name, 1)
    setattr(config, name, value)
    return old


class CUDATestCase(SerialMixin, _Base):
    """Numba's base class for CUDA tests: as Numba's, it turns the launch warnings off
    for each test (low occupancy, implicit copies of host arrays)."""

    def setUp(self):
        self._kcc_saved = {k: _switch(k, 0) for k in _QUIET}

    def tearDown(self):
        for k, v in getattr(self, '_kcc_saved', {}).items():
            _switch(k, v)


ContextResettingTestCase = CUDATestCase


def _keep(reason):
    return lambda fn: fn


def _skip(reason):
    return unittest.skip(reason)


skip_on_cudasim = _keep                 # kcc is not the simulator
skip_unless_cudasim = _skip
skip_unless_conda_cudatoolkit = _skip
skip_if_external_memmgr = _keep
skip_under_cuda_memcheck = _keep
skip_without_nvdisasm = _skip           # kcc does not disassemble cubins
skip_with_nvdisasm = _keep
skip_on_arm = _keep
skip_if_cuda_includes_missing = _keep
skip_if_mvc_enabled = _keep
skip_if_mvc_libraries_unavailable = _skip
skip_with_cuda_python = _keep           # kcc is not NVIDIA's cuda-python binding
skip_unless_cuda_python = _skip
xfail_unless_cudasim = unittest.expectedFailure


def cudadevrt_missing():
    """kcc's grid-wide sync needs no cudadevrt (it links none): never missing."""
    return False


def skip_if_cudadevrt_missing(fn):
    return fn


linux_only = lambda fn: fn
windows_only = unittest.skip('Windows only')


def cc_X_or_above(major, minor):
    return True


skip_unless_cc_32 = skip_unless_cc_50 = skip_unless_cc_53 = skip_unless_cc_60 = \
    skip_unless_cc_75 = lambda fn: fn


def ensure_supported_ccs_initialized():
    pass


class override_config:
    """A context manager that sets numba.core.config attributes for its duration."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def __enter__(self):
        try:
            from numba.core import config
        except Exception:
            return
        self.config = config
        self.old = getattr(config, self.name, None)
        setattr(config, self.name, self.value)

    def __exit__(self, *exc):
        if hasattr(self, 'config'):
            setattr(self.config, self.name, self.old)


class ForeignArray:
    """An object with only __cuda_array_interface__ (Numba's test helper)."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__
