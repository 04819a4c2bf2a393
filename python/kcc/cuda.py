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

import builtins
import contextlib
import enum
import functools
import inspect
import operator
import os
import re
import sys
import weakref

import numpy as np

from . import _kcc
from . import source
from . import random     # numba.cuda.random
sys.modules[__name__ + '.random'] = random   # so `from kcc.cuda.random import ...`
from .device_ns import libdevice, fp16, bf16   # device-only: cuda.fp16.hadd ...
for _name, _ns in (('libdevice', libdevice), ('fp16', fp16), ('bf16', bf16)):
    sys.modules[__name__ + '.' + _name] = _ns
from ._kcc import KccError
from .device_ns import cuda_device_names
for _name, _stub in cuda_device_names().items():   # from numba.cuda import grid ...
    globals().setdefault(_name, _stub)

__all__ = ['jit', 'reduce', 'Reduce', 'get_current_device', 'select_device', 'gpus',
           'to_device', 'device_array', 'device_array_like', 'pinned_array',
           'synchronize', 'is_available', 'detect', 'DeviceNDArray', 'KccError',
           'stream', 'default_stream', 'legacy_default_stream', 'external_stream',
           'event', 'event_elapsed_time', 'Stream', 'Event', 'is_cuda_array',
           'as_cuda_array', 'from_cuda_array_interface', 'from_dlpack', 'declare_device',
           'compile_ptx', 'compile_ptx_for_current_device', 'mapped_array', 'managed_array',
           'mapped_array_like', 'pinned_array_like', 'pinned', 'mapped',
           'current_context', 'In', 'Out', 'InOut', 'runtime']

_dtype_name = _kcc.DeviceArray.dtype   # the C type's descriptor: the NumPy name


def _stream_arg(stream):
    """A copy's or launch's stream: None for Numba's 0 (synchronous, the default
    stream), else a Stream."""
    if stream is None or (isinstance(stream, int) and stream == 0):
        return None
    if isinstance(stream, _kcc.Stream):
        return stream
    raise TypeError('stream must be a Stream (cuda.stream(), cuda.default_stream()) or 0, '
                    'not %r' % (stream,))


def _c_strides(shape):
    """C-contiguous strides in elements."""
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def _index_of(k, axis, extent):
    """An integer index, negative from the end, checked against the axis (NumPy's
    message)."""
    try:
        i = operator.index(k)
    except TypeError:
        raise IndexError('kcc device arrays take integers, slices (`:`) and Ellipsis '
                         '(`...`) as indices, not %s' % type(k).__name__) from None
    if not -extent <= i < extent:
        raise IndexError('index %d is out of bounds for axis %d with size %d'
                         % (i, axis, extent))
    return i % extent


def _slice_bounds(k):
    """A slice's start, stop and step as ints or None (Python's rule and message)."""
    try:
        start, stop, step = (None if v is None else operator.index(v)
                             for v in (k.start, k.stop, k.step))
    except TypeError:
        raise TypeError('slice indices must be integers or None or have an __index__ '
                        'method') from None
    if step == 0:
        raise ValueError('slice step cannot be zero')
    return start, stop, step


def _full_key(key, ndim):
    """An index as one entry per axis: Ellipsis expanded, missing trailing axes ':'."""
    key = key if isinstance(key, tuple) else (key,)
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    given = len(key) - len(ellipses)
    if given > ndim:
        raise IndexError('too many indices for array: array is %d-dimensional, but %d '
                         'were indexed' % (ndim, given))
    fill = (slice(None),) * (ndim - given)
    if ellipses:
        return key[:ellipses[0]] + fill + key[ellipses[0] + 1:]
    return key + fill


def _infer_shape(newshape, size):
    """A reshape's extents with its -1 worked out (Numba's messages)."""
    unknown = [i for i, e in enumerate(newshape) if e == -1]
    if len(unknown) > 1:
        raise ValueError('can only specify one unknown dimension')
    if any(e < -1 for e in newshape):
        raise ValueError('negative dimensions not allowed')
    known = 1
    for e in newshape:
        known *= e if e != -1 else 1
    if unknown:
        if known == 0 or size % known:
            raise ValueError('cannot infer valid shape for unknown dimension')
        newshape = newshape[:unknown[0]] + (size // known,) + newshape[unknown[0] + 1:]
    elif known != size:
        raise ValueError('reshape changes the size of the array')
    return newshape


class DeviceNDArray(_kcc.DeviceArray):
    """An array on kcc's device, as Numba's DeviceNDArray: C-contiguous when made, and
    views of it (slices, reshapes) with their own strides, sharing its memory."""

    @property
    def dtype(self):
        spelling = _kcc.array_record(self)
        if spelling:                   # an array of records: the NumPy dtype it came from
            return _record_dtypes[spelling]
        return np.dtype(_dtype_name.__get__(self))

    @property
    def stream(self):
        """The stream the array was made with (device_array, to_device ...; 0: none), as
        Numba's arrays remember it. kcc's copies that are given no stream are
        synchronous whatever it is: their results are there when the call returns."""
        return self.__dict__.get('_kc_stream', 0)

    @property
    def strides(self):
        itemsize = self.dtype.itemsize
        return tuple(s * itemsize for s in _kcc.array_layout(self)[0])

    @property
    def alloc_size(self):
        """Numba's: the bytes the array's elements span, first to last (a view's own
        span, not its parent's allocation); 0 for an empty array."""
        if self.size == 0:
            return 0
        return sum((n - 1) * abs(st) for n, st in zip(self.shape, self.strides)) + \
            self.dtype.itemsize

    @property
    def flags(self):
        """NumPy's and Numba's layout flags (C_CONTIGUOUS, F_CONTIGUOUS)."""
        return {'C_CONTIGUOUS': self.is_c_contiguous(),
                'F_CONTIGUOUS': self.is_f_contiguous()}

    def is_c_contiguous(self):
        return _kcc.array_layout(self)[1]

    def is_f_contiguous(self):
        """NumPy's rule: axes of extent 1 take any stride, an empty array is both."""
        if self.size == 0:
            return True
        want = 1
        for extent, stride in zip(self.shape, _kcc.array_layout(self)[0]):
            if extent != 1 and stride != want:
                return False
            want *= extent
        return True

    # ---- copies ----------------------------------------------------------------------
    def _span(self):
        """A C-contiguous 1-D view of the memory from the lowest element the array
        reaches to the highest, and the first element's index in it: how a
        non-contiguous view is read and written (kc's copies take contiguous arrays)."""
        strides = _kcc.array_layout(self)[0]
        lo = sum((n - 1) * s for n, s in zip(self.shape, strides) if s < 0)
        hi = sum((n - 1) * s for n, s in zip(self.shape, strides) if s > 0)
        return _kcc.array_restride(self, (hi - lo + 1,), (1,), lo), -lo

    def _on_host(self, span_host, first):
        """The array's elements as NumPy sees them inside a host copy of its span."""
        return np.lib.stride_tricks.as_strided(span_host[first:], self.shape, self.strides)

    def _to_host(self):
        """A new C-contiguous host copy, synchronous."""
        out = np.empty(self.shape, self.dtype)
        if self.size == 0:
            return out
        if self.is_c_contiguous():
            self.to_host(out)
            return out
        span, first = self._span()
        buf = np.empty(span.shape, self.dtype)
        span.to_host(buf)
        out[...] = self._on_host(buf, first)
        return out

    def _assign(self, value):
        """self[...] = value with NumPy's broadcasting and casting, synchronous. A
        non-contiguous view is written by reading its span, changing the view's
        elements there and writing the span back."""
        if isinstance(value, _kcc.DeviceArray):
            if (value.shape == self.shape and value.dtype == self.dtype and
                    value.is_c_contiguous() and self.is_c_contiguous()):
                self.from_host(value)
                return
            value = value._to_host()
        host = np.empty(self.shape, self.dtype)
        host[...] = value
        if self.size == 0:
            return
        if self.is_c_contiguous():
            self.from_host(host)
            return
        span, first = self._span()
        buf = np.empty(span.shape, self.dtype)
        span.to_host(buf)
        self._on_host(buf, first)[...] = host
        span.from_host(buf)

    def copy_to_host(self, ary=None, stream=0):
        """The array's contents in a new NumPy array, or copied into ``ary``. With a
        stream the copy is queued on it (a C-contiguous array into a C-contiguous
        host array): the result holds the data after ``stream.synchronize()``, which
        the stream keeps the host array alive for."""
        stream = _stream_arg(stream)
        if ary is not None and (ary.dtype != self.dtype or ary.size != self.size):
            raise ValueError('copy_to_host: the device array is %s of shape %s, the host '
                             'array %s of shape %s' % (self.dtype, self.shape, ary.dtype,
                                                       ary.shape))
        if stream is not None and self.is_c_contiguous():
            out = np.empty(self.shape, self.dtype) if ary is None else ary
            if out.flags.c_contiguous and out.flags.writeable:
                stream.copy_to_host(self, out)
                return out
        if ary is None:
            if self.ndim > 1 and self.is_f_contiguous() and not self.is_c_contiguous():
                return _axes_reversed(self)._to_host().T   # Fortran order kept, as Numba's
            return self._to_host()
        if ary.flags.c_contiguous and ary.flags.writeable and self.is_c_contiguous():
            self.to_host(ary)
        else:
            ary[...] = self._to_host().reshape(ary.shape)
        return ary

    def copy_to_device(self, ary, stream=0):
        """Copy a host array (or another device array) of the same dtype and size in;
        with a stream, queued on it (the stream keeps the host data alive until its
        synchronize())."""
        stream = _stream_arg(stream)
        if not isinstance(ary, _kcc.DeviceArray):
            ary = np.ascontiguousarray(ary)
        if not self.is_c_contiguous():
            same_size = not isinstance(ary, _kcc.DeviceArray) and ary.size == self.size
            self._assign(ary.reshape(self.shape) if same_size else ary)
        elif stream is None:
            self.from_host(ary)
        else:
            stream.copy_to_device(self, ary)

    # ---- views -----------------------------------------------------------------------
    def _index(self, key):
        """What key selects: (a view, None), or (None, the one-element view) when every
        axis takes an integer (Numba then reads the element back to the host)."""
        key = _full_key(key, self.ndim)
        starts, stops, steps, kept = [], [], [], []
        for axis, (k, extent) in enumerate(zip(key, self.shape)):
            if isinstance(k, slice):
                start, stop, step = _slice_bounds(k)
                kept.append(axis)
            else:
                start = _index_of(k, axis, extent)
                stop, step = start + 1, 1
            starts.append(start), stops.append(stop), steps.append(step)
        view = _kcc.array_slice(self, tuple(starts), tuple(stops), tuple(steps))
        if len(kept) == self.ndim:
            return view, None
        if not kept:
            return None, view
        strides = _kcc.array_layout(view)[0]     # drop the axes integers took
        return _kcc.array_restride(view, tuple(view.shape[a] for a in kept),
                                   tuple(strides[a] for a in kept)), None

    def __getitem__(self, key):
        view, element = self._index(key)
        if view is not None:
            return view
        out = np.empty(1, self.dtype)
        element.to_host(out)
        return out[0]                             # a NumPy scalar, as Numba returns

    def __setitem__(self, key, value):
        view, element = self._index(key)
        (element if view is None else view)._assign(value)

    def getitem(self, item, stream=0):
        """Numba's spelling of self[item]."""
        return self[item]

    def view(self, dtype):
        """Numba's view(dtype): the same memory read as another number dtype; the last
        axis's extent scales by the item sizes' ratio, which needs that axis contiguous
        (Numba's rule and messages)."""
        dtype = np.dtype(dtype)
        if dtype.names or self.dtype.names:
            raise NotImplementedError('kcc views number dtypes only, not records')
        shape, strides = list(self.shape), list(self.strides)
        old, new = self.dtype.itemsize, dtype.itemsize
        if old != new:
            if not self.is_c_contiguous():
                raise ValueError('To change to a dtype of a different size, the array must '
                                 'be C-contiguous')
            shape[-1], rem = divmod(shape[-1] * old, new)
            if rem:
                raise ValueError('When changing to a larger dtype, its size must be a '
                                 'divisor of the total size in bytes of the last axis of '
                                 'the array.')
            strides[-1] = new
        if any(st % new for st in strides):
            raise ValueError('view: strides %s are not multiples of the item size %d'
                             % (tuple(strides), new))
        address = _kcc.array_layout(self)[2] if self.size else 0
        return _kcc.array_wrap(type(self), self, address, tuple(shape),
                               tuple(st // new for st in strides), dtype.name)

    def reshape(self, *newshape, **kws):
        """A view of another shape (Numba's reshape): C order, one extent may be -1;
        a non-contiguous array would need a copy and raises NotImplementedError."""
        order = kws.pop('order', 'C')
        if kws:
            raise TypeError('unknown keyword arguments %s' % list(kws))
        if order not in ('C', 'F', 'A'):
            raise ValueError('order not C|F|A')
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = newshape[0]
        newshape = _infer_shape(tuple(operator.index(e) for e in newshape), self.size)
        if newshape == self.shape:
            return self
        if order == 'F':
            raise NotImplementedError("kcc reshapes device arrays in C order only")
        if not self.is_c_contiguous():
            raise NotImplementedError('reshape would require copy')
        return _kcc.array_restride(self, newshape, _c_strides(newshape))

    def ravel(self, order='C', stream=0):
        """A 1-D view of a C-contiguous array (Numba's ravel)."""
        if order not in ('C', 'F', 'A'):
            raise ValueError('order not C|F|A')
        if not self.is_c_contiguous():
            raise NotImplementedError('ravel on non-contiguous array')
        return self.reshape(self.size)

    def transpose(self, axes=None):
        """A transposed C-contiguous copy of a 2-D array, made on the device, as Numba's
        transpose makes it (not a view)."""
        if axes and tuple(axes) == tuple(range(self.ndim)):
            return self
        if self.ndim != 2:
            raise NotImplementedError("transposing a non-2D DeviceNDArray isn't supported")
        if axes is not None and set(axes) != set(range(self.ndim)):
            raise ValueError('invalid axes list %r' % (axes,))
        return _transpose(self)

    @property
    def T(self):
        return self.transpose()

    # ---- interop ---------------------------------------------------------------------
    @property
    def __cuda_array_interface__(self):
        """Version 3. On the CPU back end the address is the array's host address, as
        Numba's simulator gives its arrays': kcc's own functions and Numba's tests take
        it, and the work queued on the array is finished first (stream None: nothing to
        wait for). A zero-size array's address is 0, as Numba's."""
        strides, contiguous, address = _kcc.array_layout(self)
        on_gpu = _kcc.device() == 'cuda'
        if not on_gpu:
            synchronize()
        if self.size == 0:
            address = 0   # as Numba gives a zero-size array's, which has no memory
        return {'shape': self.shape, 'typestr': self.dtype.str, 'data': (address, False),
                'strides': None if contiguous else self.strides, 'version': 3,
                # the legacy default stream: it follows all of kcc's streams' work
                'stream': 1 if on_gpu else None}

    def __dlpack__(self, stream=None):
        """A DLPack capsule sharing the array's memory. On CUDA the device's work is
        waited for unless the consumer says not to (stream -1)."""
        if stream not in (None, -1) and _kcc.device() == 'cuda':
            synchronize()
        return _kcc.array_to_dlpack(self)

    def __dlpack_device__(self):
        return _kcc.array_dlpack_device(self)

    def __repr__(self):
        extra = '' if self.is_c_contiguous() else ' strides=%s' % (self.strides,)
        return '<kcc.cuda.DeviceNDArray shape=%s dtype=%s%s>' % (self.shape, self.dtype,
                                                                extra)


_TRANSPOSE_SOURCE = """
from kcc import cuda

@cuda.jit
def transpose(src, dst):
    i, j = cuda.grid(2)
    if i < dst.shape[0] and j < dst.shape[1]:
        dst[i, j] = src[j, i]
"""
_transpose_kernel = []   # compiled at the first transpose


def _transpose(src, dst=None):
    """src transposed into dst (made when None) on the device; Numba's
    numba.cuda.kernels.transpose.transpose(a, b=None) too."""
    if not _transpose_kernel:
        module = _kcc.compile('<kcc.cuda transpose>', _TRANSPOSE_SOURCE)
        _transpose_kernel.append(module.get_kernel('transpose'))
    if dst is None:
        dst = device_array((src.shape[1], src.shape[0]), src.dtype)
    elif tuple(dst.shape) != (src.shape[1], src.shape[0]) or dst.dtype != src.dtype:
        raise ValueError('transpose: %s %s into %s %s' % (src.shape, src.dtype, dst.shape,
                                                          dst.dtype))
    if dst.size:
        grid = ((dst.shape[0] + 15) // 16, (dst.shape[1] + 15) // 16)
        _transpose_kernel[0].launch(grid, (16, 16), [src, dst])
    return dst


# ---- records (NumPy structured dtypes) ----------------------------------------------------
_records = {}          # NumPy dtype -> _kcc.Record
_record_dtypes = {}    # Numba's spelling -> the NumPy dtype


def record_of(dtype):
    """The kc record of a NumPy structured dtype (made once per dtype)."""
    rec = _records.get(dtype)
    if rec is None:
        fields = []
        for name in dtype.names:
            ftype, offset = dtype.fields[name][:2]
            base, shape = ftype.subdtype if ftype.subdtype else (ftype, ())
            fields.append((name, record_of(base) if base.names else base.name, offset,
                           tuple(shape)))
        rec = _records[dtype] = _kcc.Record(fields, dtype.itemsize, dtype.isalignedstruct)
        _record_dtypes.setdefault(rec.spelling, dtype)
    return rec


def _is_namedtuple_of_numbers(a):
    return isinstance(a, tuple) and hasattr(a, '_fields') and len(a) > 0 and all(
        isinstance(x, (bool, int, float, complex, np.number, np.bool_)) for x in a)


def _namedtuple_record(t):
    """A namedtuple of numbers as the record kernels read its fields from (p.x, p[0]):
    each field of the type Numba gives the value (int64, float64, complex128, bool, a
    NumPy scalar's own), passed by reference as a record is."""
    dtype = np.dtype([(name, np.asarray(v).dtype) for name, v in zip(t._fields, t)],
                     align=True)
    rec = np.zeros(1, dtype)
    for name, v in zip(t._fields, t):
        rec[0][name] = v
    return rec[0]


def _is_enum_member(a):
    """A member of an Enum that is not an int (IntEnum members pass as their ints)."""
    return isinstance(a, enum.Enum) and not isinstance(a, int)


def _needs_wrapper(a):
    """A record scalar, an Enum member, or a tuple kcc's kernels do not take as a
    parameter (they take tuples of numbers): one holding an array, a tuple or a record,
    an empty one, a namedtuple."""
    if isinstance(a, np.void) or _is_namedtuple_of_numbers(a) or _is_enum_member(a):
        return True
    return isinstance(a, tuple) and (not a or any(
        isinstance(x, (tuple, np.void)) or hasattr(x, 'shape') and getattr(x, 'ndim', 0) > 0
        for x in a))


def _layout_of(a):
    """How one argument reaches the kernel: 'r' (a record, or a namedtuple made one, by
    reference), ('enum', class, member name), a tuple of its elements' layouts (a tuple
    _needs_wrapper opens), or 'v' (as it is)."""
    if isinstance(a, np.void) or _is_namedtuple_of_numbers(a):
        return 'r'
    if _is_enum_member(a):
        return ('enum', type(a), a.name)
    if _needs_wrapper(a):
        return tuple(_layout_of(x) for x in a)
    return 'v'


def _layout(args):
    """The arguments' layouts when some need the wrapper kernel
    (Dispatcher._wrapped_kernel), else None."""
    layout = tuple(_layout_of(a) for a in args)
    return None if all(item == 'v' for item in layout) else layout


def _leaves(args, layout, out, owners, top=None):
    """The arguments in the wrapper kernel's order, as their layout says: tuples taken
    apart, depth first, an Enum member left out (written into the call), a namedtuple
    made a record; owners gets each leaf's argument (0-based)."""
    for k, (a, item) in enumerate(zip(args, layout)):
        owner = k if top is None else top
        if isinstance(item, tuple) and item[:1] == ('enum',):
            continue
        if isinstance(item, tuple):
            _leaves(a, item, out, owners, owner)
            continue
        out.append(_namedtuple_record(a) if item == 'r' and isinstance(a, tuple) else a)
        owners.append(owner)
    return out


def _renumbered(message, owners):
    """libkc's "argument N: ..." about a wrapper kernel's leaf N, said of the launch's
    argument it came from."""
    m = re.match(r'argument (\d+)(.*)', message, re.S)
    if not m or not 1 <= int(m.group(1)) <= len(owners):
        return message
    return 'argument %d (an element of it)%s' % (owners[int(m.group(1)) - 1] + 1, m.group(2))


def _wrapper_arg(item, name, params, enums):
    """The expression that passes a value of layout item to the kernel's function, its
    leaves added to params (names), the Enum classes it names to enums ({alias:
    class})."""
    if isinstance(item, tuple) and item[:1] == ('enum',):
        aliases = {cls: alias for alias, cls in enums.items()}
        alias = aliases.get(item[1]) or '__kcc_enum%d' % len(enums)
        enums[alias] = item[1]
        return '%s.%s' % (alias, item[2])
    if isinstance(item, tuple):
        parts = [_wrapper_arg(x, '%s_%d' % (name, k), params, enums)
                 for k, x in enumerate(item)]
        return '(%s%s)' % (', '.join(parts), ',' if len(parts) == 1 else '')
    params.append(name)
    return name + '[0]' if item == 'r' else name


def _record_written_back(rec, d):
    """What the kernel left in device record d[0], into the record scalar rec (a view
    into its array where it came from one, as Numba writes it back). The copy is the
    synchronous one, which waits for the launch's stream (kcc's default stream follows
    every stream's work): the record's fields are read right after it."""
    host = d.copy_to_host()[0]
    for name in rec.dtype.names:
        rec[name] = host[name]


def to_device(obj, stream=0, copy=True, to=None):
    """A device copy of a host array (``numba.cuda.to_device``); with a stream, the
    copy is queued on it (the stream keeps the host data alive until its
    synchronize())."""
    if to is not None:
        to.copy_to_device(obj, stream)
        return to
    if isinstance(obj, np.ndarray) and obj.ndim > 1 and obj.flags.f_contiguous and \
            not obj.flags.c_contiguous and not obj.dtype.names:
        # Fortran order kept, as Numba keeps it: the transpose's C-ordered memory
        return _axes_reversed(to_device(obj.T, stream))
    host = (np.ascontiguousarray(obj) if isinstance(obj, np.ndarray)
            else np.asarray(obj, order='C'))
    if host.dtype.names:
        return _kcc.record_array(DeviceNDArray, record_of(host.dtype), host.shape, host)
    if _stream_arg(stream) is None:
        return DeviceNDArray(host)
    d = device_array(host.shape, host.dtype, stream=stream)
    d.copy_to_device(host, stream)
    return d


def _f_strides(shape):
    """Fortran order's strides in elements."""
    strides, step = [], 1
    for extent in shape:
        strides.append(step)
        step *= max(extent, 1)
    return tuple(strides)


def _axes_reversed(d):
    """A view of device array d with its axes in reverse order, sharing its memory: a
    C-ordered array's is Fortran-ordered, and the other way round."""
    strides = _kcc.array_layout(d)[0]
    return _kcc.array_restride(d, tuple(reversed(d.shape)), tuple(reversed(strides)))


def device_array(shape, dtype=np.float64, strides=None, order='C', stream=0):
    """A new uninitialised device array (``numba.cuda.device_array``): C order, or
    Fortran order (order='F', or strides that are Fortran's)."""
    dtype = _np_dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if strides is not None:
        strides = tuple(strides)
        if strides == tuple(s * dtype.itemsize for s in _f_strides(shape)) and len(shape) > 1:
            order = 'F'
        elif strides != tuple(s * dtype.itemsize for s in _c_strides(shape)):
            raise NotImplementedError('kcc: device arrays are made in C or Fortran order, '
                                      'not with strides %s' % (strides,))
    if order not in ('C', 'F'):
        raise ValueError("device_array: order must be 'C' or 'F', not %r" % (order,))
    if order == 'F' and len(shape) > 1 and not dtype.names and all(shape):
        # a C-ordered array of the reversed shape, seen column by column
        d = _axes_reversed(device_array(tuple(reversed(shape)), dtype))
    elif dtype.names:
        d = _kcc.record_array(DeviceNDArray, record_of(dtype), shape, None)
    else:
        d = DeviceNDArray(shape=shape, dtype=dtype.name)
    if stream:
        d._kc_stream = stream   # remembered, as Numba's arrays remember theirs
    return d


def _np_dtype(dtype):
    """A NumPy dtype from one, a NumPy type, a name, or a Numba type (numba.float32)."""
    try:
        return np.dtype(dtype)
    except TypeError:
        return np.dtype(str(dtype))


class MappedNDArray(np.ndarray):
    """Numba's mapped and managed arrays: NumPy arrays host code reads and writes as any
    other (a.sum(), print(a), a[:] = ...), which kernels take too, seeing what the host
    wrote before the launch and leaving what they write there once the launch has
    finished (it is copied in and back around each launch, as a NumPy argument is), with
    the device array methods Numba's have (copy_to_host, copy_to_device)."""

    def copy_to_host(self, ary=None, stream=0):
        if ary is None:
            return np.array(self, copy=True, subok=False)
        ary[...] = self
        return ary

    def copy_to_device(self, ary, stream=0):
        self[...] = ary.copy_to_host() if hasattr(ary, 'copy_to_host') else ary

    @property
    def device_ctypes_pointer(self):
        import ctypes
        return ctypes.c_void_p(self.ctypes.data)

    @property
    def __cuda_array_interface__(self):
        """Version 3, on the CPU back end, where device memory is host memory (stream
        None: nothing queued). On a GPU kcc's mapped arrays are host memory the device
        does not address, so another library cannot be handed one there."""
        if _kcc.device() == 'cuda':
            raise AttributeError('kcc\'s mapped and managed arrays are host memory a GPU '
                                 'does not address: pass cuda.to_device(a) to another '
                                 'library')
        contiguous = self.flags['C_CONTIGUOUS']
        return {'shape': self.shape, 'typestr': self.dtype.str,
                'data': (self.ctypes.data if self.size else 0, False),
                'strides': None if contiguous else self.strides, 'version': 3,
                'stream': None}


class ManagedNDArray(MappedNDArray):
    """Numba's managed_array (unified memory): see MappedNDArray."""


def _host_mapped(cls, shape, dtype, strides, order):
    a = np.empty(shape, dtype, order=order)
    if strides is not None:
        strides = tuple(strides) if isinstance(strides, (tuple, list)) else (strides,)
        if strides != a.strides:
            raise NotImplementedError('kcc makes mapped and managed arrays C- or '
                                      'F-contiguous only, not with strides %r' % (strides,))
    return a.view(cls)


def mapped_array(shape, dtype=np.float64, strides=None, order='C', stream=0, portable=False,
                 wc=False):
    """Numba's mapped_array: host memory kernels read and write (MappedNDArray)."""
    return _host_mapped(MappedNDArray, shape, dtype, strides, order)


def managed_array(shape, dtype=np.float64, strides=None, order='C', stream=0,
                  attach_global=True):
    """Numba's managed_array: unified memory (ManagedNDArray)."""
    return _host_mapped(ManagedNDArray, shape, dtype, strides, order)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return mapped_array(ary.shape, ary.dtype, order=_like_order(ary), stream=stream)


def pinned_array_like(ary):
    return np.empty(ary.shape, ary.dtype, order=_like_order(ary))


@contextlib.contextmanager
def pinned(*arylist):
    """Numba's pinned(): page-locks host arrays for its duration; kcc's copies need no
    page-locked memory, so nothing is done."""
    yield


@contextlib.contextmanager
def mapped(*arylist, **kws):
    """Numba's mapped(): device arrays over the host arrays for its duration (copies
    here, written back at the end)."""
    devarys = [to_device(a) for a in arylist]
    try:
        yield devarys[0] if len(devarys) == 1 else devarys
    finally:
        for a, d in zip(arylist, devarys):
            if getattr(a, 'flags', None) is not None and a.flags.writeable:
                d.copy_to_host(a)


class _Context:
    """Numba's current_context(): the device, and its memory."""

    def __init__(self):
        self.device = get_current_device()

    def get_memory_info(self):
        """(free, total) bytes: the device's; on the CPU the machine's available and
        total memory."""
        total = self.device.total_memory
        free = total
        try:
            with open('/proc/meminfo') as f:
                for line in f:
                    if line.startswith('MemAvailable:'):
                        free = min(total, int(line.split()[1]) * 1024)
        except OSError:
            pass
        return free, total

    def reset(self):
        synchronize()

    def synchronize(self):
        synchronize()


def current_context(devnum=None):
    return _Context()


def device_array_like(ary, stream=0):
    """A new device array of ``ary``'s shape and dtype, in the order ``ary``'s strides
    run (NumPy's order='K' of zeros_like: Fortran for an F-ordered array or a view of
    one)."""
    return device_array(ary.shape, ary.dtype, order=_like_order(ary), stream=stream)


def _like_order(ary):
    """'F' when ary (2-D or more, not C-contiguous) has strides that grow from the
    first axis to the last, as an F-ordered array and its views do; else 'C'."""
    if ary.ndim < 2:
        return 'C'
    c = ary.flags.c_contiguous if isinstance(ary, np.ndarray) else ary.is_c_contiguous()
    steps = [abs(s) for s, n in zip(ary.strides, ary.shape) if n > 1]
    return 'F' if not c and steps == sorted(steps) and len(set(steps)) > 1 else 'C'


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


# ---- interop ------------------------------------------------------------------------
def is_cuda_array(obj):
    """Whether obj has __cuda_array_interface__ (Numba's is_cuda_array)."""
    return hasattr(obj, '__cuda_array_interface__')


def as_cuda_array(obj, sync=True):
    """A device array sharing the memory of obj, an object with
    __cuda_array_interface__ (CuPy's, PyTorch's arrays); obj is kept alive by it. With
    sync, the exporter's stream is waited for (on CUDA)."""
    if not is_cuda_array(obj):
        raise TypeError('as_cuda_array: %s has no __cuda_array_interface__'
                        % type(obj).__name__)
    return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj, sync=sync)


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A device array over the memory a __cuda_array_interface__ description gives
    (Numba's from_cuda_array_interface); owner, the memory's owner, is kept alive by it
    (the description itself when None). With sync, the exporter's stream is waited for
    (on CUDA)."""
    if desc.get('mask') is not None:
        raise NotImplementedError('Masked arrays are not supported')
    dtype = np.dtype(desc['typestr'])
    if dtype.byteorder == '>':
        raise TypeError('as_cuda_array: big-endian data (%s) is not supported'
                        % desc['typestr'])
    shape = tuple(desc['shape'])
    if not shape:
        raise ValueError('as_cuda_array: kcc arrays have at least one dimension')
    strides = desc.get('strides')
    if strides is not None:
        if any(s % dtype.itemsize for s in strides):
            raise ValueError('as_cuda_array: strides %s are not multiples of the item '
                             'size %d' % (tuple(strides), dtype.itemsize))
        strides = tuple(s // dtype.itemsize for s in strides)
    if sync and desc.get('stream') is not None and _kcc.device() == 'cuda':
        external_stream(desc['stream']).synchronize()
    return _kcc.array_wrap(DeviceNDArray, desc if owner is None else owner, desc['data'][0],
                           shape, strides, dtype.name)


def from_dlpack(obj):
    """A device array sharing the memory of a DLPack producer (an object with
    __dlpack__, or a 'dltensor' capsule): kcc's, not numba.cuda's (which has none)."""
    if not hasattr(obj, '__dlpack__'):
        return _kcc.array_from_dlpack(DeviceNDArray, obj)
    kind = obj.__dlpack_device__()[0] if hasattr(obj, '__dlpack_device__') else 1
    # a CUDA producer orders its work before the legacy default stream (1); a CPU
    # one (NumPy) takes no stream
    capsule = obj.__dlpack__(stream=1) if kind == 2 else obj.__dlpack__()
    return _kcc.array_from_dlpack(DeviceNDArray, capsule)


# ---- streams and events -------------------------------------------------------------
class _Handle(int):
    """A stream's CUstream as an int that also reads as Numba's ctypes handle does
    (stream.handle.value, None for 0): programs hand it to CuPy and others either way."""

    @property
    def value(self):
        return int(self) or None


class Stream(_kcc.Stream):
    """A stream (Numba's cuda.stream()): launches kernel[grid, block, stream](args)
    and copies with stream= queue on it, in order. Host arrays of its queued copies are
    kept alive by it until its synchronize() or cuda.synchronize()."""

    def __init__(self, *args, **kwargs):
        _live_streams.add(self)
        self._external = kwargs.get('external') is not None

    @property
    def external(self):
        """Whether the stream is another library's (cuda.external_stream), as Numba's."""
        return self.__dict__.get('_external', False)

    @property
    def handle(self):
        return _Handle(_kcc.Stream.handle.__get__(self))

    @contextlib.contextmanager
    def auto_synchronize(self):
        """with stream.auto_synchronize(): ... synchronizes the stream at the end."""
        yield self
        self.synchronize()

    def __int__(self):
        return int(self.handle)

    def __repr__(self):
        if self.is_default:
            return '<kcc.cuda.Stream default>'
        return '<kcc.cuda.Stream 0x%x>' % self.handle if self.handle else \
            '<kcc.cuda.Stream at 0x%x>' % id(self)


class Event(_kcc.Event):
    """An event (Numba's cuda.event()): record(stream), synchronize(), wait(stream),
    query(), elapsed_time(end)."""


_default_stream = []
_live_streams = weakref.WeakSet()   # cuda.synchronize() releases their host buffers


def stream():
    """A new stream (``numba.cuda.stream``)."""
    return Stream()


def default_stream():
    """The default stream (``numba.cuda.default_stream``): the one launches and copies
    without a stream use; it waits for, and is waited for by, every other stream."""
    if not _default_stream:
        _default_stream.append(Stream(default=True))
    return _default_stream[0]


legacy_default_stream = default_stream


def external_stream(ptr):
    """A stream over a CUstream made by another library (CUDA only)."""
    return Stream(external=ptr)


def event(timing=True):
    """A new event (``numba.cuda.event``)."""
    return Event(timing=timing)


def event_elapsed_time(evtstart, evtend):
    """Milliseconds between two recorded events."""
    return evtstart.elapsed_time(evtend)


def synchronize():
    """Wait for the device's work; raise a fault a kernel reported. Every stream's
    queued copies are then done, so the streams let their host arrays go."""
    _kcc.synchronize()
    for s in list(_live_streams):
        if s.pending:
            s.synchronize()


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


class _Runtime:
    """numba.cuda.runtime: the CUDA version kcc is built for (kcc needs no cudart)."""

    @staticmethod
    def get_version():
        """(major, minor) of the CUDA toolkit kcc was built against, as Numba gives
        its runtime's; RuntimeError for a CPU-only build."""
        v = _kcc.cuda_version
        if not v:
            raise RuntimeError('kcc was built without CUDA: it has no CUDA runtime version')
        return v // 1000, (v % 1000) // 10

    @staticmethod
    def is_supported_version():
        return bool(_kcc.cuda_version)


runtime = _Runtime()


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


def _function_module(fn, decorator_line, own=False):
    """(compiled module, kernel name) of fn's own text under decorator_line
    (kcc/source.py); each text is compiled once, unless own: a module of its own, whose
    kernel is specialised for its caller's launches alone."""
    text, name = source.function_text(fn, decorator_line)
    if own:
        return _kcc.compile(fn.__code__.co_filename, text), name
    module = _modules.get(('<function>', text))
    if module is None:
        module = _modules[('<function>', text)] = _kcc.compile(fn.__code__.co_filename, text)
    return module, name


def _function_text(fn, decorator_line, kind='ptx', arch=0):
    """fn's own text under decorator_line compiled to kind: 'ptx' (for sm_<arch>; 0: the
    default), 'llvm' (the device's IR) or 'types' (kcc's types of each local)."""
    text, _ = source.function_text(fn, decorator_line)
    return _kcc.compile_text(fn.__code__.co_filename, text, kind, arch)


def _cuda_tool(name):
    """A CUDA toolkit program (ptxas, nvdisasm): on PATH, else in $CUDA_HOME, $CUDA_PATH
    or /usr/local/cuda; None where there is none."""
    import shutil
    found = shutil.which(name)
    if found:
        return found
    for root in (os.environ.get('CUDA_HOME'), os.environ.get('CUDA_PATH'), '/usr/local/cuda'):
        path = os.path.join(root, 'bin', name) if root else None
        if path and os.access(path, os.X_OK):
            return path
    return None


def _run_cuda_tool(name, args, why):
    import subprocess
    tool = _cuda_tool(name)
    if tool is None:
        raise RuntimeError('%s is required for %s, and has not been found. You may need to '
                           'install the CUDA toolkit and ensure that it is available on '
                           'your PATH' % (name, why))
    p = subprocess.run([tool] + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError('%s failed (%s): %s' % (name, ' '.join(args), p.stderr.strip()[-2000:]))
    return p


def _assembled(ptx, folder, why, verbose=False):
    """(cubin path, ptxas's report) of ptx assembled for the sm_XX it targets."""
    target = re.search(r'^\.target\s+(sm_\w+)', ptx, re.M)
    arch = target.group(1) if target else 'sm_80'
    src, cubin = os.path.join(folder, 'kernel.ptx'), os.path.join(folder, 'kernel.cubin')
    with open(src, 'w') as f:
        f.write(ptx)
    p = _run_cuda_tool('ptxas', (['-v'] if verbose else []) + ['-arch=' + arch, '-o', cubin, src],
                       why)
    return cubin, p.stdout + p.stderr


@functools.lru_cache(maxsize=64)   # one ptxas run per PTX, however many getters ask
def _ptxas_resources(ptx):
    """What ptxas reports of the PTX's kernel (its first entry): {'regs', 'shared',
    'local'} in registers and bytes (the first figures after the entry's name are its
    own; its device functions' follow)."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix='kcc-ptxas-') as folder:
        _, report = _assembled(ptx, folder, 'a kernel\'s resource usage', verbose=True)
    entry = report.split("Compiling entry function", 1)[-1]
    def count(pattern):
        m = re.search(pattern, entry)
        return int(m.group(1)) if m else 0
    return {'regs': count(r'Used (\d+) registers'), 'shared': count(r'(\d+) bytes smem'),
            'local': count(r'(\d+) bytes stack frame')}


def _sass_of(ptx):
    import tempfile
    with tempfile.TemporaryDirectory(prefix='kcc-sass-') as folder:
        if _cuda_tool('nvdisasm') is None:   # said before ptxas runs
            _run_cuda_tool('nvdisasm', [], 'SASS inspection')
        cubin, _ = _assembled(ptx, folder, 'SASS inspection')
        return _run_cuda_tool('nvdisasm', ['-c', cubin], 'SASS inspection').stdout


def kernel_from_source(fn, noun='kernel', decorator='cuda.jit', decorator_line=None,
                       own=False):
    """The compiled kernel (or ufunc, gufunc, reduction: the noun) of fn, compiled as
    Numba compiles it: from the function's own text, under decorator_line (default
    '@' + decorator), with the globals and closure variables it uses as they are bound
    now (kcc/source.py). Where that text cannot be made, from its whole source file,
    where kcc finds it decorated with @decorator."""
    try:
        module, name = _function_module(fn, decorator_line or '@' + decorator, own)
    except source.SourceError as e:
        own_error = e
    else:
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
    # a tuple of argument types is one signature, (float32, int32); a list, or a tuple
    # of whole signatures, holds several (Numba's rule)
    arg_types = isinstance(signatures, tuple) and all(
        not hasattr(s, 'args') and not (isinstance(s, str) and '(' in s) for s in signatures)
    if isinstance(signatures, (list, tuple)) and signatures and not arg_types:
        parts.append(repr([source.type_text(s) for s in signatures]))
    elif signatures is not None and signatures != []:
        parts.append(repr(source.type_text(signatures)))
    for key, value in dict(options).items():
        if isinstance(value, (bool, int, float, str)) or (
                isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)):
            parts.append('%s=%r' % (key, value))
    return '@%s(%s)' % (name, ', '.join(parts))


def _dim(value, what):
    """A launch extent: an int or a tuple of 1 to 3 ints (NumPy integers too); errors
    worded as Numba's."""
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    if not 1 <= len(values) <= 3:
        raise ValueError('%s must be a sequence of 1, 2 or 3 integers, got %r'
                         % (what, values))
    try:
        dims = tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError('%s must be a sequence of integers, got %r' % (what, values)) from None
    return dims if isinstance(value, (tuple, list)) else dims[0]


class Dispatcher:
    """A @cuda.jit kernel: ``kernel[griddim, blockdim](args)`` launches it."""

    def __init__(self, py_func, signatures=None, options=None):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.options = dict(options or {})
        self._file = py_func.__code__.co_filename
        self._signatures = signatures
        self._kernel = None
        # a kernel with signatures is already specialised, as in Numba
        self._specialized = signatures is not None and signatures != []
        self.specializations = {}
        self.extensions = []   # Numba's: objects whose prepare_args sees each launch's
        if signatures is not None and signatures != []:
            self._get_kernel()     # eager: compiled at the decorator, as Numba does

    def _get_kernel(self):
        if self._kernel is None:
            # a lazy kernel's module is its own, as each Numba dispatcher compiles
            # for its own launches: its signatures, overloads and inspect_asm() are
            # those launches' alone (the on-disk cache still spares the compiles)
            try:
                self._kernel = kernel_from_source(
                    self.py_func, decorator_line=decorator_line('cuda.jit', self._signatures,
                                                                self.options),
                    own=not self._signatures)
            except KccError as e:
                raise kernel_exception(e, self.py_func) from None
        return self._kernel

    def _wrapped_kernel(self, layout):
        """The kernel for a launch whose arguments have `layout` (_layout): fn called
        as a device function by a kernel taking the arguments' leaves
        (source.wrapper_text), compiled once per layout."""
        cache = self.__dict__.setdefault('_wrapped', {})
        if layout not in cache:
            params, enums = [], {}
            call_args = [_wrapper_arg(item, '__kcc_arg%d' % k, params, enums)
                         for k, item in enumerate(layout)]
            device_options = {k: v for k, v in self.options.items()
                              if k in ('debug', 'opt', 'fastmath', 'lineinfo')}
            # the function keeps its signatures (its arguments converted to their
            # types as a typed kernel's are); the kernel is specialised for the launch
            text, name = source.wrapper_text(
                self.py_func,
                decorator_line('cuda.jit', self._signatures, dict(device_options, device=True)),
                decorator_line('cuda.jit', None, self.options), params, call_args, enums)
            try:
                cache[layout] = _kcc.compile(self.py_func.__code__.co_filename,
                                             text).get_kernel(name)
            except KccError as e:
                raise kernel_exception(e, self.py_func) from None
        return cache[layout]

    def _prepared(self, value, stream, retr):
        """value after every extension's prepare_args (Numba's protocol: retr collects
        what to call after the launch)."""
        for ext in self.extensions:
            _, value = ext.prepare_args(None, value, stream=stream, retr=retr)
        return value

    def _check_arity(self, args):
        """The argument count against the Python function's parameters, checked here so
        that the message speaks of the call (libkc's speaks of a signature)."""
        if len(args) == self.py_func.__code__.co_argcount:   # every launch but a few
            return
        code = self.py_func.__code__
        most = code.co_argcount
        least = most - len(self.py_func.__defaults__ or ())
        if not least <= len(args) <= most:
            params = ', '.join(code.co_varnames[:most])
            raise _error("kernel '%s': expected %s arguments (%s), got %d"
                         % (self.py_func.__name__, most if least == most
                            else '%d to %d' % (least, most), params, len(args)),
                         'KC_ERR_LAUNCH')

    def bind(self):
        """Compile now (Numba's bind); a lazy kernel is specialised at its launches."""
        self._get_kernel()

    def specialize(self, *args):
        """Numba's specialize: a kernel for these arguments' types (kcc specialises at
        each launch already; the object is kept per types, as Numba's)."""
        if self._specialized:
            raise RuntimeError('Dispatcher already specialized')
        key = tuple(_type_key(a) for a in args)
        found = self.specializations.get(key)
        if found is None:
            # Numba's types (float32[::1]) make an eager kernel of that signature
            sig = ([source.type_text(tuple(args))]
                   if args and all(_is_numba_type(a) for a in args) else None)
            found = self.specializations[key] = Dispatcher(self.py_func, sig, self.options)
            found._specialized = True
        return found

    def compile(self, sig):
        """Numba's compile(sig): the kernel compiled for sig now; its overload."""
        module, name = _function_module(
            self.py_func, decorator_line('cuda.jit', source.type_text(sig), self.options))
        return _Overload(module.get_kernel(name))

    def inspect_asm(self, signature=None):
        """The PTX of each compiled signature ({signature: text}), or of one: compiled
        for sm_80 (or the GPU's) whatever the device, as Numba's inspect_asm gives."""
        self._get_kernel()
        if signature is not None:
            return self._ptx_for(source.type_text(signature))
        return {self._signature_key(sig): self._ptx_for(sig) for sig in self._typed_signatures()}

    def _typed_signatures(self):
        """The compiled signatures as 'void(float32[:], ...)' strings."""
        return ['void' + s[s.index('('):] for s in self.signatures]

    def _ptx_for(self, sig, kind='ptx'):
        return _function_text(self.py_func, decorator_line('cuda.jit', sig, self.options), kind)

    @staticmethod
    def _signature_key(sig):
        """A compiled signature 'void(float32, int64)' as Numba keys its dicts: the
        tuple of argument types (float32, int64), Numba's own objects where Numba is
        installed, else kcc.types' stand-ins; the text itself where neither reads it.
        kcc's float64[:] is C-contiguous (its any-layout arrays are spelled
        array(float64, 1d, A)): Numba's array(float64, 1d, C), float64[::1]."""
        sig = re.sub(r'\[([:, ]+)\]',
                     lambda m: '[%s::1]' % (':, ' * m.group(1).count(',')), sig)
        sig = re.sub(r'array\((\w+), (\d)d, A\)',
                     lambda m: '%s[%s]' % (m.group(1), ', '.join(':' * int(m.group(2)))), sig)
        try:
            from numba.core import sigutils
            return tuple(sigutils.normalize_signature(sig)[0])
        except Exception:
            pass
        from . import types as kcc_types
        args = sig[sig.index('(') + 1:sig.rindex(')')].strip()
        names = {n: getattr(kcc_types, n) for n in kcc_types.__all__}
        try:
            return tuple(eval('(%s,)' % args, names)) if args else ()
        except Exception:
            return sig

    def _per_signature(self, signature, value_of):
        """Numba's shape for a kernel's facts: one signature's value; with none given,
        a specialised kernel's value, else {argument types: value} of each compiled."""
        self._get_kernel()
        if signature is not None:
            return value_of(source.type_text(signature))
        sigs = self._typed_signatures()
        if self._specialized and len(sigs) == 1:
            return value_of(sigs[0])
        return {self._signature_key(sig): value_of(sig) for sig in sigs}

    def _resources(self, sig):
        return _ptxas_resources(self._ptx_for(sig))

    def get_regs_per_thread(self, signature=None):
        """Registers per thread of the kernel's SASS, as ptxas allocates them for the PTX
        kcc writes (for sm_80, or the GPU's): Numba's get_regs_per_thread."""
        return self._per_signature(signature, lambda s: self._resources(s)['regs'])

    def get_shared_mem_per_block(self, signature=None):
        """Bytes of static shared memory per block (ptxas's count)."""
        return self._per_signature(signature, lambda s: self._resources(s)['shared'])

    def get_local_mem_per_thread(self, signature=None):
        """Bytes of local memory per thread: the stack frame ptxas reports."""
        return self._per_signature(signature, lambda s: self._resources(s)['local'])

    def inspect_sass(self, signature=None):
        """The SASS of each compiled signature (or of one), as Numba's: the PTX assembled
        by ptxas and disassembled by nvdisasm, which must be on PATH or in the CUDA
        toolkit (RuntimeError, in Numba's words, where it is not)."""
        return self._per_signature(signature, lambda s: _sass_of(self._ptx_for(s)))

    def inspect_llvm(self, signature=None):
        """The optimised LLVM IR of each compiled signature ({argument types: text}), or
        of one: the device's (NVPTX on a GPU, the CPU back end's on the CPU), as kcc
        compiles it."""
        self._get_kernel()
        if signature is not None:
            return self._ptx_for(source.type_text(signature), 'llvm')
        return {self._signature_key(sig): self._ptx_for(sig, 'llvm')
                for sig in self._typed_signatures()}

    def inspect_types(self, file=None, signature=None):
        """Numba's annotated listing, kcc's way: for each compiled signature, the
        function's name and argument types, its source lines, and the type kcc gave each
        parameter and local."""
        self._get_kernel()
        out = file if file is not None else sys.stdout
        sigs = [source.type_text(signature)] if signature is not None \
            else self._typed_signatures()
        try:
            lines, first = inspect.getsourcelines(self.py_func)
        except (OSError, TypeError):
            lines, first = [], 0
        for sig in sigs:
            args = sig[sig.index('('):]
            print('%s %s' % (self.py_func.__name__, args.replace(', ', ', ')), file=out)
            print('-' * 80, file=out)
            print('# File: %s' % self.py_func.__code__.co_filename, file=out)
            for k, line in enumerate(lines):
                print('# --- LINE %d ---\n%s' % (first + k, line.rstrip('\n')), file=out)
            for line in self._ptx_for(sig, 'types').splitlines():
                print('# ' + line, file=out)
            print('=' * 80, file=out)

    @property
    def overloads(self):
        """The compiled kernel, as Numba's overloads: {argument types: kernel}; kcc's
        kernel object covers every specialisation, so any key gives it."""
        return _Overloads(self)

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
        stream = _stream_arg(config[2] if len(config) > 2 else 0)
        sharedmem = config[3] if len(config) > 3 else 0
        return _Launcher(self, griddim, blockdim, stream, operator.index(sharedmem))

    def __call__(self, *args):
        raise ValueError("kernel '%s': launch configuration was not specified: launch "
                         'it as %s[griddim, blockdim](args)'
                         % (self.__name__, self.__name__))

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        """Numba's older spelling of kernel[griddim, blockdim, stream, sharedmem]."""
        return self[griddim, blockdim, stream, sharedmem]

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launch over ntasks threads, blocks of tpb (default 128); with no tasks a
        call that launches nothing, and a negative count a ValueError, as Numba's."""
        ntasks = operator.index(ntasks)
        if ntasks < 0:
            raise ValueError("Can't create ForAll with negative task count: %s" % ntasks)
        if ntasks == 0:
            return lambda *args: None
        tpb = tpb or 128
        return self[(ntasks + tpb - 1) // tpb, tpb, stream, sharedmem]

    def __repr__(self):
        return '<kcc.cuda.Dispatcher %s (%s)>' % (self.__name__, self._file)


def _is_numba_type(a):
    """A Numba type object (Numba's own, or kcc's stand-in), not a value."""
    mod = type(a).__module__ or ''
    return mod.startswith(('numba.core.types', 'kcc.types'))


def _type_key(a):
    """What a launch's argument contributes to its specialisation: dtype and rank of an
    array, the type of a scalar, a Numba type itself."""
    if _is_numba_type(a):
        return ('type', source.type_text(a))
    if hasattr(a, 'dtype') and hasattr(a, 'ndim') and getattr(a, 'ndim', 0) > 0:
        return ('array', np.dtype(a.dtype).str, a.ndim)
    if isinstance(a, tuple):
        return tuple(_type_key(x) for x in a)
    return type(a).__name__


class _Overloads:
    def __init__(self, dispatcher):
        self._dispatcher = dispatcher

    def __getitem__(self, argtypes):
        return _Overload(self._dispatcher._get_kernel())

    def __len__(self):
        return len(self._dispatcher.signatures)

    def keys(self):
        return list(self._dispatcher.signatures)

    def values(self):
        return [self[k] for k in self.keys()]

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def __iter__(self):
        return iter(self.keys())


class _Overload:
    """One compiled kernel (Numba's _Kernel): what its launches can be."""

    def __init__(self, kernel):
        self._kernel = kernel

    @property
    def cooperative(self):
        """Whether it synchronises its grid (a cooperative launch), as Numba's."""
        return self._kernel.cooperative

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """The largest grid of a cooperative launch with blocks of blockdim threads."""
        dims = blockdim if isinstance(blockdim, tuple) else (blockdim,)
        threads = 1
        for d in dims:
            threads *= operator.index(d)
        return self._kernel.max_cooperative_blocks(threads, dynsmemsize)


@functools.lru_cache(maxsize=None)
def _device_kind():
    """'cuda' or 'cpu', asked once: the process's one context never changes device."""
    return _kcc.device()


# launch arguments the extension takes as they are: device arrays and numbers
_PASSED_AS_IS = (_kcc.DeviceArray, int, float, complex, np.number, np.bool_)


def _host_memory_of(args):
    """{id(array): device array over its memory} for the NumPy arguments the kernel
    may use in place. On the CPU back end the device's memory is the host's, so
    copying an array in and back (Numba's way over PCIe) is only cost: an array the
    kernel may write through (C-contiguous, writable, native numbers) is lent to it
    as it is, unless another argument overlaps it (kernels are compiled with their
    arrays unaliased, and the copies keep such a launch as Numba runs it)."""
    if _device_kind() != 'cpu':
        return {}
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    lent = {}
    for a in arrays:
        if not (a.flags.c_contiguous and a.flags.writeable and a.flags.aligned and
                a.ndim >= 1 and a.size > 0 and a.dtype.kind in 'biufc' and
                a.dtype.isnative):
            continue
        if sum(1 for b in arrays if b is a or np.may_share_memory(a, b)) > 1:
            continue          # passed twice, or overlapping another argument
        lent[id(a)] = _kcc.array_wrap(DeviceNDArray, a, a.ctypes.data, a.shape, None,
                                      a.dtype.name)     # None: C-contiguous
    return lent


_RAISED = re.compile(r"kernel '[^']*': ([A-Za-z_][A-Za-z0-9_]*)(?::|, in block)")
_combined_errors = {}


# libkc's launch errors about the arguments themselves ("kernel 'k': argument 2 ('x'):
# expected int32, got float64", "expected 3 arguments"): Numba raises TypeError there
_BAD_ARGUMENT = re.compile(r"^kernel '[^']*': (argument \d+ .*: expected |expected \d+)")


_performance_warning = None


def _numba_config(name, default):
    """Numba's setting `name` (numba.core.config, which programs and Numba's tests set)
    where Numba is installed, else NUMBA_<name> from the environment."""
    config = sys.modules.get('numba.core.config')
    if config is not None and hasattr(config, name):
        return getattr(config, name)
    try:
        return int(os.environ.get('NUMBA_' + name, default))
    except ValueError:
        return default


def _warn_performance(message):
    """Numba's NumbaPerformanceWarning (kcc's own subclass of KccWarning without Numba):
    the launch warnings Numba 0.56 gives by default."""
    global _performance_warning
    if _performance_warning is None:
        try:
            from numba.core.errors import NumbaPerformanceWarning as cls
        except Exception:
            from ._kcc import KccWarning
            cls = type('NumbaPerformanceWarning', (KccWarning,), {'__module__': 'kcc'})
        _performance_warning = cls
    import warnings
    warnings.warn(_performance_warning(message))


def _numba_typing_error():
    """Numba's TypingError where Numba is installed (what its users catch), else None."""
    try:
        from numba.core.errors import TypingError
    except Exception:
        return None
    return TypingError


def kernel_exception(error, fn):
    """A kernel's raise (or failed assert) reported by libkc (KC_ERR_ASSERT: "kernel
    'k': IndexError: msg, in block ...") as Numba reports it: an exception of the class
    the kernel raised (looked up in its globals, then the builtins), which is also a
    KccError with kcc's message, file:line:col first; arguments the kernel does not take
    as a TypeError, an index out of bounds as an IndexError, each also a KccError. Any
    other error as it is."""
    status = getattr(error, 'status', None)
    if status == 'KC_ERR_LAUNCH' and _BAD_ARGUMENT.search(str(error)):
        cls = TypeError   # as Numba raises for arguments a kernel does not take
    elif status == 'KC_ERR_TYPE':
        cls = _numba_typing_error()   # a kernel that does not type, as Numba's does not
        if cls is None:
            return error
    elif status == 'KC_ERR_BOUNDS':
        cls = IndexError  # as Numba's bounds-checked kernels raise
    elif status != 'KC_ERR_ASSERT':
        return error
    else:
        m = _RAISED.search(str(error))
        cls = m and (fn.__globals__.get(m.group(1)) or getattr(builtins, m.group(1), None))
    if not (isinstance(cls, type) and issubclass(cls, Exception)) or \
            issubclass(cls, KccError):
        return error
    combined = _combined_errors.get(cls)
    if combined is None:
        try:
            combined = type(cls.__name__, (cls, KccError), {'__module__': cls.__module__})
        except TypeError:         # a class that cannot be combined: its own kind
            combined = cls
        _combined_errors[cls] = combined
    # a wrapper kernel's function (source.wrapper_text) is compiled under a name of
    # kcc's own: its messages say the kernel's
    text = str(error).replace("'%s__kcc_body'" % fn.__name__, "'%s'" % fn.__name__)
    if status == 'KC_ERR_ASSERT':
        text += _numba_words(text, fn)
    try:
        raised = combined(text)
    except Exception:
        return error
    raised.status = error.status
    return raised


_KCC_RAISE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):\d+: error: kernel '[^']*': "
                        r"[A-Za-z_][A-Za-z0-9_]*(?:: (?P<args>.*?))?, in block "
                        r"\((?P<block>[^)]*)\), thread \((?P<thread>[^)]*)\)")


def _numba_words(text, fn):
    """A kernel's raise reported as Numba words it after its own ("tid=[0, 0, 0]
    ctaid=[1, 0, 0]: message", then "In function 'k', file f.py, line 7"), for programs
    and tests that read Numba's text; '' when the message is not a raise's."""
    m = _KCC_RAISE.match(text)
    if not m:
        return ''
    where = '[%s]' % m.group('thread'), '[%s]' % m.group('block')
    said = 'tid=%s ctaid=%s' % where + (': %s' % m.group('args') if m.group('args') else '')
    return "\n%s\nIn function '%s', file %s, line %s" % (
        said, fn.__name__, m.group('file'), m.group('line'))


class _Launcher:
    """A kernel with its launch configuration, called with the kernel's arguments."""

    def __init__(self, dispatcher, griddim, blockdim, stream, sharedmem):
        self.dispatcher = dispatcher
        self.griddim, self.blockdim, self.sharedmem = griddim, blockdim, sharedmem
        self.stream = stream   # None: the default stream, synchronous copies
        self._blocks = functools.reduce(operator.mul, griddim) \
            if isinstance(griddim, tuple) else griddim

    def __call__(self, *args):
        self.dispatcher._check_arity(args)
        stream = self.stream or 0
        launch_args, copy_back, retr = [], [], []
        if self.dispatcher.extensions:   # Numba's launch hooks: each may rewrite an argument
            args = tuple(self.dispatcher._prepared(a, stream, retr) for a in args)
        owners = None
        plain = all(isinstance(a, _PASSED_AS_IS) for a in args)   # every launch but a few
        layout = None if plain else _layout(args)
        if layout is None:
            kernel = self.dispatcher._get_kernel()
        else:                            # records, tuples of arrays: their leaves
            kernel = self.dispatcher._wrapped_kernel(layout)
            owners = []                  # per leaf, the argument it came from
            args = tuple(_leaves(args, layout, [], owners))
        if self._blocks < 128 and _numba_config('CUDA_LOW_OCCUPANCY_WARNINGS', 1):
            # Numba's words and threshold (its dispatcher warns under 128 blocks)
            _warn_performance('Grid size %d will likely result in GPU under-utilization '
                              'due to low occupancy.' % self._blocks)
        host = not plain and any(isinstance(a, np.ndarray) for a in args)
        if host and _numba_config('CUDA_WARN_ON_IMPLICIT_COPY', 1) and \
                any(isinstance(a, np.ndarray) and not isinstance(a, MappedNDArray)
                    for a in args):
            _warn_performance('Host array used in CUDA kernel will incur copy overhead '
                              'to/from device.')
        shared = _host_memory_of(args) if host else {}
        for a in args:
            if isinstance(a, _PASSED_AS_IS):   # the usual launch: no other test
                launch_args.append(a)
            elif isinstance(a, np.ndarray) and id(a) in shared:
                launch_args.append(shared[id(a)])
            elif isinstance(a, np.ndarray):
                # as Numba: copied to the device, and back after the kernel (it may
                # have written it) unless the array is read-only; with a stream both
                # copies queue on it, so the results are there after its synchronize()
                d = to_device(a, stream)
                launch_args.append(d)
                if a.flags.writeable:
                    copy_back.append((a, d))
            elif isinstance(a, np.void):
                # by reference, as Numba: a device copy all threads share, and written
                # back into the record (a view of its array) after the launch
                d = to_device(np.array([a], dtype=a.dtype), stream)
                launch_args.append(d)
                retr.append(functools.partial(_record_written_back, a, d))
            elif type(a).__name__ in _DIRECTIONS and hasattr(a, 'value'):
                launch_args.append(_directed_arg(a, stream, copy_back))
            elif hasattr(a, '__cuda_array_interface__'):
                # another library's device array (CuPy, PyTorch ...): used in place,
                # as Numba takes any object with the interface
                launch_args.append(as_cuda_array(a))
            else:
                launch_args.append(a)
        try:
            kernel.launch(self.griddim, self.blockdim, launch_args, self.sharedmem,
                          stream=self.stream)
        except KccError as e:
            raise kernel_exception(e, self.dispatcher.py_func) from None
        except TypeError as e:
            if owners is None:
                raise
            raise TypeError(_renumbered(str(e), owners)) from None
        for a, d in copy_back:
            d.copy_to_host(a, stream)
        for write_back in retr:
            write_back()


class In:
    """``cuda.In(ary)``: a kernel argument copied to the device before the launch and
    not back after it (Numba's numba.cuda.args.In)."""

    def __init__(self, value, stream=0):
        self.value, self.stream = value, stream


class Out(In):
    """``cuda.Out(ary)``: an argument the kernel only writes: not copied in, copied back."""


class InOut(In):
    """``cuda.InOut(ary)``: copied in and back, what a NumPy argument gets by default."""


# (copied in, copied back) by the class's name, so Numba's own objects (numba.cuda.args,
# made by its wrap_arg in a dispatcher extension) are taken as kcc's are
_DIRECTIONS = {'In': (True, False), 'Out': (False, True), 'InOut': (True, True)}


def _directed_arg(a, stream, copy_back):
    """The device array for cuda.In/Out/InOut(value); a host array to copy back after
    the launch goes into copy_back."""
    copy_in, copy_out = _DIRECTIONS[type(a).__name__]
    value = a.value
    if not isinstance(value, np.ndarray):
        return value                      # a device array (or a scalar): used as it is
    d = to_device(value, stream) if copy_in else device_array_like(value, stream)
    if copy_out and value.flags.writeable:
        copy_back.append((value, d))
    return d


class ForeignFunction:
    """``cuda.declare_device(name, sig)``: a device function defined elsewhere (CUDA C,
    PTX ... given with a kernel's link=), callable from kernels only."""

    def __init__(self, name, sig):
        self.name, self.sig = name, sig

    def __call__(self, *args):
        raise TypeError("'%s' is a foreign device function (cuda.declare_device): kernels "
                        'call it, host code cannot' % self.name)

    def __repr__(self):
        return '<kcc foreign device function %s %s>' % (self.name, source.type_text(self.sig))


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False,
                cc=None, opt=True):
    """Numba's cuda.compile_ptx: (PTX text, return type) of pyfunc compiled as a kernel
    for sig, for compute capability cc (default sm_80), without a GPU; with device=True
    as a device function, a visible .func whose result type kcc infers unless sig
    gives it."""
    options = {'fastmath': fastmath, 'debug': debug, 'lineinfo': lineinfo}
    options = {k: v for k, v in options.items() if v}
    if device:
        return _compile_device_ptx(pyfunc, sig, options, cc)
    sig_text = source.type_text(sig)
    if '(' not in sig_text or sig_text.startswith('('):
        sig_text = 'void' + (sig_text if sig_text.startswith('(') else '(%s)' % sig_text)
    ptx = _function_text(pyfunc, decorator_line('cuda.jit', sig_text, options), 'ptx',
                         cc[0] * 10 + cc[1] if cc else 0)
    from . import types as kcc_types
    try:
        from numba.core import types as numba_types
        void = numba_types.void
    except Exception:
        void = kcc_types.void
    return ptx, void


def _device_signature(sig):
    """A device function's signature as kcc reads it: a tuple of argument types is
    '(float32, int32)' (its result inferred, as Numba infers it), a whole signature its
    text ('float32(float32, int32)'), a list each of those; None stays None."""
    if sig is None:
        return None
    if isinstance(sig, list):
        return [_device_signature(s) for s in sig]
    if isinstance(sig, tuple):
        return '(%s)' % ', '.join(source.type_text(t) for t in sig)
    return source.type_text(sig)


class _DeviceCompileResult:
    """What compile_device returns, as far as Numba's tests read it: fndesc's
    mangled_name (kcc's symbol of the function), its signature's types."""

    def __init__(self, symbol, argtypes, restype):
        self.fndesc = type('FunctionDescriptor', (), {'mangled_name': symbol})()
        self.signature = type('Signature', (), {'args': argtypes, 'return_type': restype})()


class DeviceDispatcher:
    """What ``cuda.jit(device=True)`` returns, as Numba's: a device function that
    kernels call (compiled into them from its own text, under this decorator) and that
    can be inspected on its own (compile_device, inspect_asm, inspect_llvm), not
    launched."""

    def __init__(self, py_func, signatures, options):
        self.py_func = py_func
        self.signatures = _device_signature(signatures)
        self.options = dict(options)
        self.decorator = decorator_line('%s.jit' % source._CUDA, self.signatures,
                                        dict(self.options, device=True))
        functools.update_wrapper(self, py_func)

    def __call__(self, *args, **kwargs):
        # Numba's device functions run only in kernels; kcc lets Python call the
        # function itself, as Numba's simulator does
        return self.py_func(*args, **kwargs)

    def __getitem__(self, config):
        raise RuntimeError('Cannot compile a device function as a kernel (%s was '
                           'declared with device=True)' % self.py_func.__name__)

    def _signature_for(self, args):
        """The declared signature when its arguments are args (its result type then
        holds), else args alone (the result inferred), as Numba compiles them."""
        wanted = _device_signature(tuple(args))
        declared = self.signatures if isinstance(self.signatures, str) else None
        if declared and '(' in declared and \
                declared[declared.index('('):].replace(' ', '') == wanted.replace(' ', ''):
            return declared
        return wanted

    def _text(self, args, kind):
        line = decorator_line('cuda.jit', self._signature_for(args),
                              dict(self.options, device=True))
        return _function_text(self.py_func, line, kind)

    def compile_device(self, args):
        """Compile for args (argument types); the result's fndesc.mangled_name is the
        symbol in the PTX and LLVM IR."""
        ptx, restype = _compile_device_ptx(self.py_func, self._signature_for(args),
                                           self.options, None)
        found = re.search(r'\.visible \.func\s*(?:\([^)]*\))?\s*(\S+)\(', ptx)
        return _DeviceCompileResult(found.group(1) if found else self.py_func.__name__,
                                    tuple(args), restype)

    def inspect_asm(self, args):
        """The PTX of the function compiled alone for args, a visible .func."""
        return self._text(tuple(args), 'device_ptx')

    def inspect_llvm(self, args):
        """The LLVM IR of the function compiled alone for args (for the GPU)."""
        return self._text(tuple(args), 'llvm')

    def inspect_sass(self, args=None):
        raise RuntimeError('Cannot inspect SASS of a device function')


def _compile_device_ptx(pyfunc, sig, options, cc):
    """compile_ptx(device=True): the device function on its own (kc_compile_text's
    device PTX) and its result type: the signature's, else read from kcc's types of it
    (a second compilation, only when the result is inferred)."""
    sig_text = _device_signature(tuple(sig) if isinstance(sig, list) else sig)
    if '(' not in sig_text:
        sig_text = '(%s)' % sig_text
    line = decorator_line('cuda.jit', sig_text, dict(options, device=True))
    arch = cc[0] * 10 + cc[1] if cc else 0
    ptx = _function_text(pyfunc, line, 'device_ptx', arch)
    result = sig_text[:sig_text.index('(')].strip()
    if not result:
        found = re.search(r'^device %s\S*\(.*\) -> (.+?)( \(fastmath\))?$' % re.escape(
            pyfunc.__name__), _function_text(pyfunc, line, 'types'), re.M)
        result = found.group(1) if found else None
    return ptx, Dispatcher._signature_key('void(%s)' % result)[0] if result else None


def compile_ptx_for_current_device(pyfunc, sig, debug=False, lineinfo=False, device=False,
                                   fastmath=False, opt=True):
    """compile_ptx for the current device's compute capability (sm_80 on the CPU)."""
    cc = get_current_device().compute_capability
    return compile_ptx(pyfunc, sig, debug, lineinfo, device, fastmath,
                       cc if cc != (0, 0) else None, opt)


def declare_device(name, sig):
    """Declare a foreign device function for kernels to call, as Numba's: sig its
    signature with a return type ('int32(float32[:])' or int32(float32[:])), kept as
    Numba's Signature object where Numba is installed."""
    if isinstance(sig, str):
        text = sig.strip()
        if text.startswith('('):
            raise TypeError('Return type must be provided for device declarations')
        try:
            from numba.core import sigutils
            args, ret = sigutils.normalize_signature(text)
        except ImportError:
            return ForeignFunction(name, sig)
        sig = ret(*args)
    elif isinstance(sig, tuple) or getattr(sig, 'return_type', 0) is None:
        raise TypeError('Return type must be provided for device declarations')
    return ForeignFunction(name, sig)


def jit(func_or_sig=None, device=False, **options):
    """``numba.cuda.jit``: a kernel (lazy, or eager with signatures), or with
    ``device=True`` a device function, which kcc compiles from the source file when a
    kernel calls it (so it is returned as it is).

    kcc reads a kernel's signatures and options from its decorator in the source, in
    every spelling Numba takes (strings, Numba's type objects, lists of them); here
    they only make the kernel eager."""
    def decorate(fn, signatures=None):
        if device:
            return DeviceDispatcher(fn, signatures, options)
        return Dispatcher(fn, signatures, options)

    if func_or_sig is None:
        return decorate
    if inspect.isfunction(func_or_sig):
        return decorate(func_or_sig)
    return lambda fn: decorate(fn, func_or_sig)


# numba.cuda.devicearray (numba.cuda.cudadrv.devicearray): made last, over this module
from . import devicearray   # noqa: E402
sys.modules[__name__ + '.devicearray'] = devicearray
