"""kcc.cuda: Numba's ``numba.cuda`` for kernels and host code, run by kcc.

``from kcc import cuda`` is meant to be a drop-in ``numba.cuda``: ``cuda.jit``
(lazy, eager with signatures, ``device=True``), launches written
``kernel[griddim, blockdim](args)``, NumPy arrays as arguments (copied in, and
back after the kernel, as Numba does), device arrays (``to_device``,
``device_array``, ``device_array_like``, ``copy_to_host``), ``synchronize``,
``is_available`` and ``detect``.

kcc compiles whole modules: a kernel is compiled from its function's source
*file*, host code and all (kcc ignores the host code around the kernels), so its
diagnostics name the user's file and lines. A file is compiled once; an untyped
kernel is specialised by libkc at each launch with new argument types, as Numba
specialises it. Calls into the device (cuda.grid, cuda.threadIdx ...) exist only
inside kernels: Python cannot run them.
"""

import functools
import inspect
import operator
import os
import sys

import numpy as np

from . import _kcc
from . import source
from . import random     # numba.cuda.random
sys.modules[__name__ + '.random'] = random   # so `from kcc.cuda.random import ...`
from ._kcc import KccError

__all__ = ['jit', 'reduce', 'Reduce', 'get_current_device', 'select_device', 'gpus',
           'to_device', 'device_array', 'device_array_like', 'pinned_array',
           'synchronize', 'is_available', 'detect', 'DeviceNDArray', 'KccError']

_dtype_name = _kcc.DeviceArray.dtype   # the C type's descriptor: the NumPy name


class DeviceNDArray(_kcc.DeviceArray):
    """An array on kcc's device, as Numba's DeviceNDArray (C-contiguous)."""

    @property
    def dtype(self):
        return np.dtype(_dtype_name.__get__(self))

    @property
    def strides(self):
        step, strides = self.dtype.itemsize, []
        for extent in reversed(self.shape):
            strides.append(step)
            step *= extent
        return tuple(reversed(strides))

    def is_c_contiguous(self):
        return True

    def is_f_contiguous(self):
        return self.ndim == 1 or sum(1 for e in self.shape if e != 1) <= 1

    def copy_to_host(self, ary=None, stream=0):
        """The array's contents in a new NumPy array, or copied into ``ary``."""
        if ary is None:
            out = np.empty(self.shape, self.dtype)
            self.to_host(out)
            return out
        if ary.dtype != self.dtype or ary.size != self.size:
            raise ValueError('copy_to_host: the device array is %s of shape %s, the host '
                             'array %s of shape %s' % (self.dtype, self.shape, ary.dtype,
                                                       ary.shape))
        if ary.flags.c_contiguous and ary.flags.writeable:
            self.to_host(ary)
        else:
            ary[...] = self.copy_to_host().reshape(ary.shape)
        return ary

    def copy_to_device(self, ary, stream=0):
        """Copy a host array (or another device array) of the same dtype and size in."""
        if not isinstance(ary, _kcc.DeviceArray):
            ary = np.ascontiguousarray(ary)
        self.from_host(ary)

    def __repr__(self):
        return '<kcc.cuda.DeviceNDArray shape=%s dtype=%s>' % (self.shape, self.dtype)


def to_device(obj, stream=0, copy=True, to=None):
    """A device copy of a host array (``numba.cuda.to_device``)."""
    if to is not None:
        to.copy_to_device(obj, stream)
        return to
    return DeviceNDArray(np.ascontiguousarray(obj) if isinstance(obj, np.ndarray)
                         else np.asarray(obj, order='C'))


def device_array(shape, dtype=np.float64, strides=None, order='C', stream=0):
    """A new uninitialised device array (``numba.cuda.device_array``)."""
    if order != 'C' or strides is not None:
        raise NotImplementedError("kcc's device arrays are C-contiguous (order='C')")
    return DeviceNDArray(shape=shape, dtype=np.dtype(dtype).name)


def device_array_like(ary, stream=0):
    """A new device array of ``ary``'s shape and dtype."""
    return device_array(ary.shape, ary.dtype, stream=stream)


def pinned_array(shape, dtype=np.float64, strides=None, order='C'):
    """A host array for fast copies; kcc's copies need no page-locked memory here."""
    return np.empty(shape, dtype, order=order)


_kcc.set_array_class(DeviceNDArray)   # ufunc outputs made by the extension


def reduce(functor):
    """``numba.cuda.reduce``: a reduction of 1-D arrays by a binary function decorated
    @cuda.reduce in its source file."""
    from .ufunc import Reduce
    return Reduce(functor)


Reduce = reduce


def synchronize():
    """Wait for the device's work; raise a fault a kernel reported."""
    _kcc.synchronize()


# ---- devices --------------------------------------------------------------------------
class Device:
    """A device, as Numba's (cuda.get_current_device(), cuda.gpus[i]): its name (bytes,
    as Numba 0.56 gives it), id, compute_capability and attributes. On the CPU back end
    it is the CPU, with compute capability (0, 0)."""

    WARP_SIZE = 32

    def __init__(self, info):
        self._info = info
        self.id = info['id']
        self.name = info['name'].encode()
        self.compute_capability = tuple(info['compute_capability'])
        self.MAX_THREADS_PER_BLOCK = info['max_threads_per_block']
        self.MULTIPROCESSOR_COUNT = info['multiprocessors']
        self.MAX_SHARED_MEMORY_PER_BLOCK = info['max_shared_per_block']
        self.total_memory = info['total_memory']

    @property
    def is_cpu(self):
        return self._info['kind'] == 'cpu'

    def __enter__(self):
        select_device(self.id)
        return self

    def __exit__(self, *exc):
        return False

    def reset(self):
        """Wait for the device's work (kcc keeps its context for the process)."""
        synchronize()

    def __repr__(self):
        return '<CUDA device %d %r>' % (self.id, self.name.decode()) if not self.is_cpu \
            else '<kcc CPU device %r>' % self.name.decode()


def get_current_device():
    """The device kernels run on: the selected GPU, or the CPU back end's device."""
    return Device(_kcc.device_info())


def select_device(device_id):
    """Choose the CUDA device (before the first array or kernel; kcc keeps one context
    per process). Returns it, as Numba does."""
    _kcc.select_device(device_id)
    return get_current_device()


class _Gpus:
    """cuda.gpus: the CUDA devices; on a machine without one, the CPU device that runs
    kernels in their place, so that code that lists devices runs."""

    def _devices(self):
        found = [Device(info) for info in _kcc.cuda_devices()]
        return found if found and _kcc.device() == 'cuda' else [get_current_device()]

    def __getitem__(self, i):
        return self._devices()[i]

    def __len__(self):
        return len(self._devices())

    def __iter__(self):
        return iter(self._devices())

    @property
    def current(self):
        return get_current_device()


gpus = _Gpus()


def is_available():
    """True: kcc runs kernels on a CUDA GPU, or on the CPU back end where there is none."""
    return True


def detect():
    """Print what kcc sees (the CUDA driver, the devices, the CPU); True, as Numba's."""
    print(_kcc.detect(), end='')
    return True


# ---- kernels ------------------------------------------------------------------------
_modules = {}   # (file, variant) -> _kcc.Module: each text is compiled once


def _compile_for(fn, path):
    """The compiled module holding fn's kernel: its file, with the definitions bound
    now of names the file defines twice (kcc/source.py)."""
    with open(path, encoding='utf-8') as f:
        variant, text = source.text_for(fn, f.read())
    module = _modules.get((path, variant))
    if module is None:
        module = _modules[(path, variant)] = _kcc.compile(path, text)
    return module


def kernel_from_source(fn, noun='kernel', decorator='cuda.jit', decorator_line=None):
    """The compiled kernel (or ufunc, gufunc, reduction: the noun) of fn, compiled as
    Numba compiles it: from the function's own text, under decorator_line (default
    '@' + decorator), with the globals and closure variables it uses as they are bound
    now (kcc/source.py). Where that text cannot be made, from its whole source file,
    where kcc finds it decorated with @decorator."""
    try:
        text, name = source.function_text(fn, decorator_line or '@' + decorator)
    except source.SourceError as e:
        own_error = e
    else:
        module = _modules.get(('<function>', text))
        if module is None:
            module = _modules[('<function>', text)] = _kcc.compile(
                fn.__code__.co_filename, text)
        return module.get_kernel(name)
    path = _file_of(fn)
    if path is None or fn.__qualname__ != fn.__name__:
        raise _error('%s (a %s is compiled from its own text, or else from its decorator '
                     'in its source file)' % (own_error, noun), 'KC_ERR_NOT_FOUND')
    try:
        return _compile_for(fn, path).get_kernel(fn.__name__)
    except KccError as e:
        if e.status != 'KC_ERR_NOT_FOUND':
            raise
        raise _error("%s:%d: '%s' is not a %s kcc can compile: %s, and it is not "
                     'decorated with @%s in its source file'
                     % (path, fn.__code__.co_firstlineno, fn.__name__, noun, own_error,
                        decorator), 'KC_ERR_NOT_FOUND') from None


def _file_of(fn):
    """The source file fn was defined in, or None (exec'd text, a notebook cell)."""
    path = fn.__code__.co_filename
    return path if os.path.isfile(path) else None


def _error(message, status='KC_ERR_INVALID'):
    """A KccError raised by the Python layer, with a status as libkc's have."""
    e = KccError(message)
    e.status = status
    return e


def decorator_line(name, signatures, options=()):
    """'@name(signatures, option=value...)': a Python call's decorator written out for
    a function compiled from its own text (signatures as kcc reads them; options whose
    values are literals)."""
    parts = []
    if isinstance(signatures, (list, tuple)) and signatures and \
            not (isinstance(signatures, tuple) and not isinstance(signatures[0], str)
                 and hasattr(signatures[0], 'ndim')):
        parts.append(repr([source.type_text(s) for s in signatures]))
    elif signatures is not None and signatures != []:
        parts.append(repr(source.type_text(signatures)))
    for key, value in dict(options).items():
        if isinstance(value, (bool, int, float, str)) or (
                isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)):
            parts.append('%s=%r' % (key, value))
    return '@%s(%s)' % (name, ', '.join(parts))


def _dim(value, what):
    """A launch extent: an int or a tuple of 1 to 3 ints (NumPy integers too)."""
    if isinstance(value, (tuple, list)):
        if not 1 <= len(value) <= 3:
            raise ValueError('%s must have 1 to 3 extents, not %d' % (what, len(value)))
        return tuple(operator.index(v) for v in value)
    return operator.index(value)


class Dispatcher:
    """A @cuda.jit kernel: ``kernel[griddim, blockdim](args)`` launches it."""

    def __init__(self, py_func, signatures=None, options=None):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.options = dict(options or {})
        self._file = py_func.__code__.co_filename
        self._signatures = signatures
        self._kernel = None
        if signatures is not None and signatures != []:
            self._get_kernel()     # eager: compiled at the decorator, as Numba does

    def _get_kernel(self):
        if self._kernel is None:
            self._kernel = kernel_from_source(
                self.py_func, decorator_line=decorator_line('cuda.jit', self._signatures,
                                                            self.options))
        return self._kernel

    def _check_arity(self, args):
        """The argument count against the Python function's parameters, checked here so
        that the message speaks of the call (libkc's speaks of a signature)."""
        code = self.py_func.__code__
        most = code.co_argcount
        least = most - len(self.py_func.__defaults__ or ())
        if not least <= len(args) <= most:
            params = ', '.join(code.co_varnames[:most])
            raise _error("kernel '%s': expected %s arguments (%s), got %d"
                         % (self.py_func.__name__, most if least == most
                            else '%d to %d' % (least, most), params, len(args)),
                         'KC_ERR_LAUNCH')

    @property
    def signatures(self):
        """The signatures compiled so far, as kcc spells them."""
        if self._kernel is None:
            return []
        return [s for s in self._kernel.signature.splitlines() if not s.endswith('(untyped)')]

    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise ValueError('launch a kernel as kernel[griddim, blockdim](args), '
                             'optionally [griddim, blockdim, stream, sharedmem]')
        griddim, blockdim = _dim(config[0], 'griddim'), _dim(config[1], 'blockdim')
        stream = config[2] if len(config) > 2 else 0
        sharedmem = config[3] if len(config) > 3 else 0
        if stream not in (0, None):
            raise NotImplementedError('kcc.cuda does not take streams yet')
        return _Launcher(self, griddim, blockdim, operator.index(sharedmem))

    def __call__(self, *args):
        raise ValueError("kernel '%s' was called without a launch configuration: launch "
                         'it as %s[griddim, blockdim](args)'
                         % (self.__name__, self.__name__))

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launch over ntasks threads, blocks of tpb (default 128)."""
        tpb = tpb or 128
        return self[(ntasks + tpb - 1) // tpb, tpb, stream, sharedmem]

    def __repr__(self):
        return '<kcc.cuda.Dispatcher %s (%s)>' % (self.__name__, self._file)


class _Launcher:
    """A kernel with its launch configuration, called with the kernel's arguments."""

    def __init__(self, dispatcher, griddim, blockdim, sharedmem):
        self.dispatcher = dispatcher
        self.griddim, self.blockdim, self.sharedmem = griddim, blockdim, sharedmem

    def __call__(self, *args):
        kernel = self.dispatcher._get_kernel()
        self.dispatcher._check_arity(args)
        launch_args, copy_back = [], []
        for a in args:
            if isinstance(a, np.ndarray):
                # as Numba: copied to the device, and back after the kernel (it may
                # have written it) unless the array is read-only
                d = DeviceNDArray(np.ascontiguousarray(a))
                launch_args.append(d)
                if a.flags.writeable:
                    copy_back.append((a, d))
            else:
                launch_args.append(a)
        kernel.launch(self.griddim, self.blockdim, launch_args, self.sharedmem)
        for a, d in copy_back:
            d.copy_to_host(a)


def jit(func_or_sig=None, device=False, **options):
    """``numba.cuda.jit``: a kernel (lazy, or eager with signatures), or with
    ``device=True`` a device function, which kcc compiles from the source file when a
    kernel calls it (so it is returned as it is).

    kcc reads a kernel's signatures and options from its decorator in the source, in
    every spelling Numba takes (strings, Numba's type objects, lists of them); here
    they only make the kernel eager."""
    def decorate(fn, signatures=None):
        if device:
            return fn
        return Dispatcher(fn, signatures, options)

    if func_or_sig is None:
        return decorate
    if inspect.isfunction(func_or_sig):
        return decorate(func_or_sig)
    return lambda fn: decorate(fn, func_or_sig)
