"""``numba.cuda.cudadrv.devicearray`` (also ``numba.cuda.devicearray``), as far as
programs and Numba's tests reach into it: kcc's DeviceNDArray, ``auto_device``,
``from_array_like``, ``from_record_like`` and ``is_cuda_ndarray``."""

import numpy as np

from . import cuda as _cuda

DeviceNDArray = _cuda.DeviceNDArray


def is_cuda_ndarray(obj):
    """Whether obj is a device array (kcc's own, or an object with the interface)."""
    return isinstance(obj, DeviceNDArray) or hasattr(obj, '__cuda_array_interface__')


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """(device array, whether one was made): obj itself when it is on the device, else a
    device copy of it (numbers and sequences through np.array), as Numba's. A
    non-contiguous NumPy array is refused, as Numba refuses to move one in one copy."""
    if is_cuda_ndarray(obj):
        return (obj if isinstance(obj, DeviceNDArray) else _cuda.as_cuda_array(obj)), False
    ary = obj if isinstance(obj, np.ndarray) else np.array(obj, copy=False, subok=True)
    if ary.ndim and not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        raise ValueError('Array contains non-contiguous buffer and cannot be transferred '
                         'as a single memory region. Please ensure contiguous buffer '
                         'with numpy .ascontiguousarray()')
    if not copy:
        return _cuda.device_array_like(ary, stream=stream), True
    return _cuda.to_device(ary, stream), True


def from_array_like(ary, stream=0, gpu_data=None):
    """A new device array of ary's shape, dtype and order (uninitialised)."""
    return _cuda.device_array_like(ary, stream=stream)


def from_record_like(rec, stream=0, gpu_data=None):
    """A new device array of one record of rec's dtype (uninitialised)."""
    return _cuda.device_array(1, rec.dtype, stream=stream)
