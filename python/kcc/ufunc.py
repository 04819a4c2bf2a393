"""kcc's CUDA ufuncs, gufuncs and reductions: Numba's ``vectorize(..., target='cuda')``,
``guvectorize(..., target='cuda')`` and ``cuda.reduce``, called from Python.

kcc compiles these functions from their decorators in the source file, as it compiles
kernels (kcc/cuda.py); the objects here find the compiled kernel by the function's name
and call libkc's kc_vectorize_args, kc_guvectorize and kc_reduce through the extension.
How arguments are taken and results returned follows Numba 0.56's
numba/np/ufunc/deviceufunc.py and numba/cuda/kernels/reduction.py:

- host arrays (anything np.asarray takes) are copied to the device; numbers stay
  scalars, typed by value as NumPy types them;
- when any argument (or ``out``) is a device array the result stays on the device, else
  it is copied back into a NumPy array (into ``out`` when it is a host array);
- ``cuda.reduce``'s ``init`` defaults to 0 and is always combined into the result, as
  Numba's is.
"""

import re

import numpy as np

from . import _kcc
from . import cuda as _cuda


def _is_device(obj):
    return isinstance(obj, _kcc.DeviceArray)


def _imported(a):
    """Another library's device array (an object with __cuda_array_interface__) as a
    kcc device array over its memory, as Numba's ufuncs take one; anything else as it
    is."""
    if a is None or isinstance(a, (np.ndarray, _kcc.DeviceArray)) or \
            not hasattr(a, '__cuda_array_interface__'):
        return a
    return _cuda.as_cuda_array(a)


def _to_device_arg(a):
    """A ufunc argument as the extension takes it: a device array, or a number."""
    if _is_device(a):
        return a
    if isinstance(a, (bool, int, float, complex, np.generic)):
        return a
    return _cuda.to_device(np.asarray(a))


def _stream(stream):
    """None (the default stream, Numba's 0) or a Stream; host copies are made before the
    launch is queued, and results read back after the stream has finished."""
    return _cuda._stream_arg(stream)


def _to_host(result, stream, out=None):
    if stream is not None:
        stream.synchronize()
    return result.copy_to_host() if out is None else result.copy_to_host(out)


class CUDAUFunc:
    """A @vectorize(..., target='cuda') function: called on arrays as a NumPy ufunc."""

    def __init__(self, py_func, signatures):
        self.py_func = py_func
        self.signatures = signatures
        self.__name__ = py_func.__name__
        self.__doc__ = py_func.__doc__
        self._kernel = _cuda.kernel_from_source(
            py_func, 'CUDA ufunc', "vectorize(..., target='cuda')",
            _cuda.decorator_line('vectorize', signatures, {'target': 'cuda'}))

    @property
    def nin(self):
        return self.py_func.__code__.co_argcount

    def __call__(self, *args, out=None, stream=0):
        stream = _stream(stream)
        args, out = [_imported(a) for a in args], _imported(out)
        if len(args) != self.nin:
            raise TypeError("ufunc '%s' takes %d arguments, got %d"
                            % (self.__name__, self.nin, len(args)))
        on_device = any(_is_device(a) for a in args)
        device_args = [_to_device_arg(a) for a in args]
        if out is None or _is_device(out):
            result = self._call_into(device_args, out, stream)
            return result if on_device or out is not None else _to_host(result, stream)
        # a host out: the result lands in it, as Numba copies it back
        result = self._kernel.vectorize(device_args, None, stream)
        if result.shape != np.shape(out):
            raise ValueError("ufunc '%s': out has shape %s, the result %s"
                             % (self.__name__, np.shape(out), result.shape))
        np.copyto(out, _to_host(result, stream), casting='same_kind')
        return out

    def _call_into(self, device_args, out, stream):
        """The ufunc into out (a device array, or None for a new one). An out that is
        also an input (f(x, y, out=x), which Numba allows: each element is read before
        it is written) gets the result through a new array, since kernels are compiled
        with their arrays unaliased."""
        try:
            return self._kernel.vectorize(device_args, out, stream)
        except _kcc.KccError as e:
            if out is None or 'overlaps' not in str(e):
                raise
        out.copy_to_device(self._kernel.vectorize(device_args, None, stream), stream)
        return out

    def reduce(self, arg, stream=0):
        """Numba's ufunc.reduce for a binary CUDA ufunc: a 1-D array folded by halving
        as Numba's does (so floating-point results combine in its order); a scalar.
        The halves are combined into new arrays, where Numba overwrites a device input."""
        if self.nin != 2:
            raise TypeError("ufunc '%s' is not binary: reduce needs two inputs"
                            % self.__name__)
        if np.ndim(arg) != 1:
            raise TypeError('must use 1d array')
        n = len(arg)
        if n == 0:
            raise TypeError('Reduction on an empty array.')
        if n == 1:
            return arg[0]
        mem = arg if _is_device(arg) else _cuda.to_device(np.ascontiguousarray(arg))
        out = self._halve(mem, stream)
        dtype = out.dtype
        _to_host(out, _stream(stream))
        return out.copy_to_host().astype(dtype, copy=False)[0]

    def _halve(self, mem, stream):
        n = mem.shape[0]
        if n % 2:
            return self(self._halve(mem[:n - 1], stream), mem[n - 1:], stream=stream)
        half = self(mem[:n // 2], mem[n // 2:], stream=stream)
        return self._halve(half, stream) if n // 2 > 1 else half

    def __repr__(self):
        return "<kcc CUDA ufunc '%s'>" % self.__name__


def _gufunc_core_ndims(layout):
    """([core dimensions of each input], [of each output]) of a layout such as
    '(),(t)->(t)': [0, 1], [1]; their lengths are the numbers of inputs and outputs."""
    try:
        ins, outs = layout.replace(' ', '').split('->')
    except ValueError:
        raise ValueError("gufunc layout %r: expected 'inputs->outputs'" % (layout,)) \
            from None
    core = lambda side: [0 if g == '' else g.count(',') + 1
                         for g in re.findall(r'\(([^)]*)\)', side)]
    return core(ins), core(outs)


def _loop_shape(inputs, core_in):
    """The loop dimensions NumPy's gufunc rules give these inputs: each one's shape less
    its core dimensions, broadcast; a 0-d scalar adds none (kcc passes it as a 1-element
    array, whose extra loop dimension of 1 must not reach the result)."""
    loops = [tuple(a.shape if _is_device(a) else np.shape(a)) for a in inputs]
    loops = [s[:len(s) - c] if len(s) >= c else s for s, c in zip(loops, core_in)]
    try:
        return np.broadcast_shapes(*loops)
    except ValueError:
        return None     # kcc's own check says what is wrong


def _signature_dtypes(sig):
    """The argument dtypes of a signature 'void(int32, int32[:], float64[:, :])'."""
    text = _cuda.source.type_text(sig)
    inner = text[text.index('(') + 1:text.rindex(')')]
    args, depth, cur = [], 0, ''
    for ch in inner:
        depth += ch in '[(' and 1 or (ch in '])' and -1 or 0)
        if ch == ',' and depth == 0:
            args.append(cur)
            cur = ''
        else:
            cur += ch
    args.append(cur)
    try:
        return [np.dtype(a.strip().split('[')[0]) for a in args if a.strip()]
    except TypeError:
        return None


def _cast_to_a_signature(inputs, signatures):
    """The inputs cast for the first signature all of them cast to safely, by NumPy's
    rules (a scalar by its value: np.int64(2) goes to int32), as NumPy picks a gufunc's
    loop; None when none does, or when an input to cast is on the device."""
    for sig in signatures:
        want = _signature_dtypes(sig)
        if want is None or len(want) < len(inputs):
            continue
        cast = []
        for a, dt in zip(inputs, want):
            if _is_device(a):
                if np.dtype(a.dtype) != dt:
                    break
                cast.append(a)
            elif np.ndim(a) == 0 and np.can_cast(np.asarray(a)[()], dt):
                cast.append(np.asarray(a, dtype=dt)[()])
            elif np.ndim(a) > 0 and np.can_cast(np.asarray(a).dtype, dt):
                cast.append(np.asarray(a, dtype=dt))
            else:
                break
        else:
            return cast
    return None


class CUDAGUFunc:
    """A @guvectorize(..., target='cuda') function."""

    def __init__(self, py_func, signatures, layout):
        self.py_func = py_func
        self.signatures = signatures
        self.layout = layout
        self.__name__ = py_func.__name__
        self.__doc__ = py_func.__doc__
        self._core_in, self._core_out = _gufunc_core_ndims(layout)
        self.nin, self.nout = len(self._core_in), len(self._core_out)
        self._kernel = _cuda.kernel_from_source(
            py_func, 'CUDA gufunc', "guvectorize(..., target='cuda')",
            '@guvectorize(%r, %r, target=%r)' % (
                [_cuda.source.type_text(s) for s in signatures], layout, 'cuda'))

    def __call__(self, *args, out=None, stream=0):
        stream = _stream(stream)
        args, out = [_imported(a) for a in args], _imported(out)
        if not self.nin <= len(args) <= self.nin + self.nout:
            raise TypeError("gufunc '%s' (%s) takes %d inputs and up to %d outputs, got "
                            "%d arguments" % (self.__name__, self.layout, self.nin,
                                              self.nout, len(args)))
        inputs, outputs = list(args[:self.nin]), list(args[self.nin:])
        if out is not None:
            if outputs:
                raise ValueError("cannot specify 'out' as both a positional and keyword "
                                 "argument")
            outputs = [out]
        outputs += [None] * (self.nout - len(outputs))
        # as Numba: the results come back to the host unless something is on the device
        to_host = not any(_is_device(a) for a in inputs + outputs)
        try:
            results = self._launch(inputs, outputs, stream)
        except _cuda.KccError as e:
            if 'no signature takes these input dtypes' not in str(e):
                raise
            cast = _cast_to_a_signature(inputs, self.signatures)
            if cast is None and any(_is_device(a) for a in inputs):
                raise TypeError('%s: a device array is not cast to a signature\'s dtype (it '
                                'does not support .astype(), as in Numba); make it of that '
                                'dtype, or pass a host array' % e) from None
            if cast is None:
                raise
            inputs = cast
            results = self._launch(inputs, outputs, stream)
        loop = _loop_shape(inputs, self._core_in)
        if loop is not None:   # scalars only: no loop dimension of 1 in front, as NumPy's
            for k, (r, o) in enumerate(zip(results, outputs)):
                want = loop + tuple(r.shape[len(r.shape) - self._core_out[k]:])
                if o is None and want and tuple(r.shape) != want and \
                        int(np.prod(want)) == int(np.prod(r.shape)):
                    results[k] = r.reshape(want)
        if to_host:
            results = [_to_host(r, stream, o) for r, o in zip(results, outputs)]
        return results[0] if self.nout == 1 else tuple(results)

    def _launch(self, inputs, outputs, stream):
        """The kernel over inputs (scalars passed as 1-element arrays) into outputs (None:
        made by the call): the results, a list."""
        device_in = [a if _is_device(a) else _cuda.to_device(np.asarray(a).reshape(-1)
                                                              if np.ndim(a) == 0
                                                              else np.asarray(a))
                     for a in inputs]
        device_out = [o if _is_device(o) else None for o in outputs]
        return list(self._kernel.guvectorize(device_in, device_out, stream))

    def __repr__(self):
        return "<kcc CUDA gufunc '%s' %s>" % (self.__name__, self.layout)


class Reduce:
    """``cuda.reduce(fn)`` / ``cuda.Reduce(fn)``: a reduction of 1-D arrays by fn, a
    binary function that must be associative and commutative."""

    def __init__(self, functor):
        self._functor = functor
        self.__name__ = getattr(functor, '__name__', 'reduce')
        self._kernel = _cuda.kernel_from_source(functor, 'reduction', 'cuda.reduce',
                                                '@cuda.reduce')

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        stream = _stream(stream)
        if not _is_device(arr):
            arr = np.asarray(arr)
        if arr.ndim != 1:
            raise TypeError('only support 1D array')
        if size is not None:
            arr = arr[:size] if not _is_device(arr) else arr.copy_to_host()[:size]
        dtype = np.dtype(arr.dtype)
        init = dtype.type(init)
        if arr.size < 1:
            result = init
        else:
            device = arr if _is_device(arr) else _cuda.to_device(np.ascontiguousarray(arr))
            raw = self._kernel.reduce(device, np.asarray(init, dtype).tobytes(), stream)
            result = np.frombuffer(raw, dtype)[0]
        if res is None:
            return result
        host = res.copy_to_host()
        host[0] = result
        res.copy_to_device(host)
        return None

    def __repr__(self):
        return "<kcc cuda.reduce '%s'>" % self.__name__


def _is_cuda_target(kwargs):
    return kwargs.get('target') == 'cuda'


def vectorize(ftylist_or_function=(), **kws):
    """``numba.vectorize`` with ``target='cuda'``: a CUDA ufunc compiled by kcc."""
    if callable(ftylist_or_function):
        raise TypeError("kcc's CUDA ufuncs need their signatures: "
                        "@vectorize(['float32(float32)'], target='cuda')")
    if not _is_cuda_target(kws):
        raise ValueError("kcc.vectorize compiles for target='cuda' only")
    for opt in kws:
        if opt not in ('target', 'identity', 'nopython'):
            raise KeyError("Unrecognized options. cuda vectorize target does not support "
                           "option: '%s'" % opt)
    if 'nopython' in kws:   # as Numba's DeviceVectorize says
        import warnings
        warnings.warn('nopython kwarg for cuda target is redundant', RuntimeWarning,
                      stacklevel=2)
    return lambda fn: CUDAUFunc(fn, ftylist_or_function)


def guvectorize(ftylist, signature, **kws):
    """``numba.guvectorize`` with ``target='cuda'``: a CUDA gufunc compiled by kcc; its
    options checked as Numba's DeviceGUFuncVectorize checks them."""
    if not _is_cuda_target(kws):
        raise ValueError("kcc.guvectorize compiles for target='cuda' only")
    options = {k: v for k, v in kws.items() if k not in ('target', 'identity', 'cache')}
    if not options.pop('nopython', True):
        raise TypeError('nopython flag must be True')
    if options:
        raise TypeError('The following target options are not supported: %s'
                        % ', '.join(repr(k) for k in options))
    return lambda fn: CUDAGUFunc(fn, ftylist, signature)
