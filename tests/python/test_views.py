"""Device array views (indexing, slicing, reshape, transpose), __cuda_array_interface__
and DLPack in kcc.cuda (docs/python.md), on the CPU back end, checked against NumPy.

Run by meson (suite 'python') as test_basic.py is; each test_* function is one case.
"""

import gc
import os
import sys

import numpy as np

from kcc import cuda, KccError
import kcc._kcc as _kcc


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


@cuda.jit('void(float32[:])')
def add_one_c(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


@cuda.jit
def scale_rows(m, k):
    i, j = cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        m[i, j] = m[i, j] * k


def raises(exc, fn, *args, match=None):
    """The exception fn(*args) raises, checked to be exc (and to contain match)."""
    try:
        fn(*args)
    except exc as e:
        if match is not None:
            assert match in str(e), 'expected %r in %r' % (match, str(e))
        return e
    raise AssertionError('%s(%s) did not raise %s' % (fn.__name__, args, exc.__name__))


def sample(shape=(4, 5, 6), dtype=np.float32):
    return np.arange(np.prod(shape), dtype=dtype).reshape(shape)


KEYS = [
    1, -1, (2, 3), (1, -2, 3), slice(1, 3), slice(None, None, 2), slice(None, None, -1),
    slice(3, 0, -2), (slice(None), 2), (Ellipsis, 1), (1, Ellipsis), (Ellipsis,),
    (slice(None, None, -1), slice(1, 4), slice(None, None, 3)), (2, slice(None), -1),
    (slice(1, 3), Ellipsis, slice(None, None, -2)), slice(10, 20), slice(-100, 100),
    (slice(2, 2), 0),
]


def test_getitem_matches_numpy():
    h = sample()
    d = cuda.to_device(h)
    for key in KEYS:
        want = h[key]
        got = d[key]
        if np.ndim(want) == 0:
            assert type(got) is type(want) and got == want, (key, got, want)
            continue
        assert isinstance(got, cuda.DeviceNDArray), key
        assert got.shape == want.shape, (key, got.shape, want.shape)
        assert got.strides == want.strides, (key, got.strides, want.strides)
        assert got.is_c_contiguous() == want.flags.c_contiguous, key
        assert got.is_f_contiguous() == want.flags.f_contiguous, key
        assert got.size == want.size and got.nbytes == want.nbytes, key
        np.testing.assert_array_equal(got.copy_to_host(), want)


def test_scalar_reads_of_every_dtype():
    for dt in (np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float16, np.float64,
               np.complex64, np.complex128):
        h = (np.arange(6) % 3).astype(dt)
        d = cuda.to_device(h)
        for i in range(-6, 6):
            got = d[i]
            assert type(got) is type(h[i]) and got == h[i], (dt, i, got)


def test_views_of_views():
    h = sample((6, 8))
    d = cuda.to_device(h)
    v = d[1:, ::-1][::2, 1:7:3]
    np.testing.assert_array_equal(v.copy_to_host(), h[1:, ::-1][::2, 1:7:3])
    assert v.strides == h[1:, ::-1][::2, 1:7:3].strides
    assert v[1, 1] == h[1:, ::-1][::2, 1:7:3][1, 1]


def test_setitem():
    h = sample((5, 6), np.int32)
    d = cuda.to_device(h)
    cases = [((1, 2), 100), (-1, 7), ((slice(None), 0), np.arange(5)),
             ((slice(None, None, 2), slice(None, None, -3)), -1),
             ((Ellipsis, 3), np.full(5, 9)), (slice(1, 3), np.ones((2, 6)) * 2.7),
             ((slice(None, None, -2), 1), np.array([4, 5, 6]))]
    for key, value in cases:
        d[key] = value
        h[key] = value
        np.testing.assert_array_equal(d.copy_to_host(), h)
    d[0] = cuda.to_device(np.arange(6, dtype=np.int32) * 3)     # a device array
    h[0] = np.arange(6) * 3
    d[::-1, 2] = cuda.to_device(np.arange(5, dtype=np.int64))   # converted on the host
    h[::-1, 2] = np.arange(5)
    np.testing.assert_array_equal(d.copy_to_host(), h)
    raises(ValueError, d.__setitem__, (slice(None), 1), np.ones(3), match='broadcast')


def test_copy_to_device_into_a_strided_view():
    h = sample((4, 6))
    d = cuda.to_device(h)
    v = d[:, ::2]
    v.copy_to_device(np.full((4, 3), -5, np.float32))
    h[:, ::2] = -5
    np.testing.assert_array_equal(d.copy_to_host(), h)
    out = np.empty((4, 3), np.float32)
    v.copy_to_host(out)
    np.testing.assert_array_equal(out, h[:, ::2])
    v.copy_to_device(cuda.to_device(np.full((4, 3), 8, np.float32)))
    h[:, ::2] = 8
    np.testing.assert_array_equal(d.copy_to_host(), h)


def test_view_keeps_its_base_alive():
    h = sample((10, 10))
    v = cuda.to_device(h)[2:8:3, ::-1]
    gc.collect()
    np.testing.assert_array_equal(v.copy_to_host(), h[2:8:3, ::-1])
    r = v.reshape(-1) if v.is_c_contiguous() else v[1]
    del v
    gc.collect()
    np.testing.assert_array_equal(r.copy_to_host(), h[2:8:3, ::-1][1])


def test_kernels_take_views():
    h = np.arange(20, dtype=np.float32)
    d = cuda.to_device(h)
    add_one_c[1, 32](d[5:10])                 # contiguous view, C-layout kernel
    h[5:10] += 1
    add_one[1, 32](d[::3])                    # strided view, a lazy kernel
    h[::3] += 1
    add_one[1, 32](d[::-2])
    h[::-2] += 1
    np.testing.assert_array_equal(d.copy_to_host(), h)
    m = sample((6, 8))
    dm = cuda.to_device(m)
    scale_rows[(2, 2), (4, 4)](dm[1:5, ::2], 3.0)
    m[1:5, ::2] *= 3
    np.testing.assert_array_equal(dm.copy_to_host(), m)
    add_one_c[1, 32](d[::2])            # float32[:] takes any layout, as in Numba
    h[::2] += 1
    np.testing.assert_array_equal(d.copy_to_host(), h)


def test_numpy_views_as_kernel_arguments():
    h = np.arange(30, dtype=np.float32)
    want = h.copy()
    add_one[1, 32](h[::-3])                   # copied in and back into the view
    want[::-3] += 1
    np.testing.assert_array_equal(h, want)


def test_reshape_ravel_transpose():
    h = sample((4, 6))
    d = cuda.to_device(h)
    for shape in [(24,), (2, 12), (-1, 3), (2, -1, 4), (3, 2, 2, 2)]:
        r = d.reshape(shape)
        np.testing.assert_array_equal(r.copy_to_host(), h.reshape(shape))
        assert r.strides == h.reshape(shape).strides
    np.testing.assert_array_equal(d.reshape(3, 8).copy_to_host(), h.reshape(3, 8))
    assert d.reshape(4, 6) is d
    d.reshape(24)[5] = 99                     # a view: writes reach d
    h.reshape(24)[5] = 99
    np.testing.assert_array_equal(d.copy_to_host(), h)
    np.testing.assert_array_equal(d.ravel().copy_to_host(), h.ravel())
    for t in (d.T, d.transpose(), d[::-1, 1:5].T, d.transpose((1, 0))):
        assert t.is_c_contiguous()
    np.testing.assert_array_equal(d.T.copy_to_host(), h.T)
    np.testing.assert_array_equal(d[::-1, 1:5].T.copy_to_host(), h[::-1, 1:5].T)
    assert d.transpose((0, 1)) is d
    assert len(d) == 4 and len(d[1]) == 6 and len(d[::-2]) == 2


def test_reshape_errors():
    d = cuda.to_device(sample((4, 6)))
    raises(ValueError, d.reshape, 5, 5, match='reshape changes the size of the array')
    raises(ValueError, d.reshape, -1, -1, match='can only specify one unknown dimension')
    raises(ValueError, d.reshape, -1, 5, match='cannot infer valid shape')
    raises(ValueError, cuda.to_device(np.ones(1)).reshape, (), match='1 to 8 dimensions')
    raises(NotImplementedError, d[:, ::2].reshape, 12, match='reshape would require copy')
    raises(NotImplementedError, d[:, ::2].ravel, match='ravel on non-contiguous array')
    raises(NotImplementedError, cuda.to_device(sample()).transpose,
           match="non-2D DeviceNDArray")
    raises(ValueError, d.transpose, (0, 0), match='invalid axes')
    raises(TypeError, d.reshape, 4.0, 6)


def test_index_errors():
    d = cuda.to_device(sample((4, 6)))
    raises(IndexError, d.__getitem__, 4, match='index 4 is out of bounds for axis 0 with size 4')
    raises(IndexError, d.__getitem__, (0, -7),
           match='index -7 is out of bounds for axis 1 with size 6')
    raises(IndexError, d.__getitem__, (0, 0, 0), match='too many indices for array')
    raises(IndexError, d.__getitem__, (Ellipsis, Ellipsis), match='single ellipsis')
    raises(IndexError, d.__getitem__, 1.5, match='integers, slices')
    raises(IndexError, d.__getitem__, None, match='not NoneType')
    raises(IndexError, d.__getitem__, [0, 1], match='not list')
    raises(ValueError, d.__getitem__, slice(None, None, 0), match='slice step cannot be zero')
    raises(TypeError, d.__getitem__, slice(0.5, 2), match='slice indices must be integers')
    raises(IndexError, d.__setitem__, 9, 1.0, match='out of bounds')
    # the array is untouched and still usable
    np.testing.assert_array_equal(d.copy_to_host(), sample((4, 6)))


def test_restride_is_checked():
    d = cuda.to_device(np.zeros(10, np.float32))
    raises(ValueError, _kcc.array_restride, d, (11,), (1,), match='outside the array')
    raises(ValueError, _kcc.array_restride, d, (5,), (2,), 2, match='outside the array')
    raises(ValueError, _kcc.array_restride, d, (2,), (-1,), match='outside the array')
    raises(ValueError, _kcc.array_restride, d, (3,), (2 ** 62,), match='outside the array')
    assert _kcc.array_restride(d, (5,), (2,), 1).strides == (8,)


def test_cuda_array_interface_on_the_cpu():
    """On the CPU back end, as Numba's simulator: the host address of the array's data,
    shared by an array made over it (as_cuda_array), the queued work finished."""
    d = cuda.to_device(np.arange(4.0))
    cai = d.__cuda_array_interface__
    assert cai['shape'] == (4,) and cai['typestr'] == '<f8' and cai['version'] == 3, cai
    assert cai['strides'] is None and cai['stream'] is None and cai['data'][1] is False, cai
    assert cai['data'][0] == np.from_dlpack(d).__array_interface__['data'][0], cai
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(np.arange(3))
    v = cuda.as_cuda_array(d[::2])
    assert v.shape == (2,) and v.strides == (16,), (v.shape, v.strides)
    # Numba's alloc_size: the bytes a view spans (8 + 16), the same for the view and
    # for an array made over it; the whole array's 32
    assert v.alloc_size == d[::2].alloc_size == 24 and d.alloc_size == 32, v.alloc_size
    add_one[1, 32](v)
    np.testing.assert_array_equal(d.copy_to_host(), [1.0, 1.0, 3.0, 3.0])
    raises(TypeError, cuda.as_cuda_array, np.arange(3), match='no __cuda_array_interface__')
    # a zero-size array exports address 0, as Numba's, and an array made over it launches
    empty = cuda.device_array(0)
    assert empty.__cuda_array_interface__['data'][0] == 0
    e = cuda.as_cuda_array(empty)
    assert e.shape == (0,)
    add_one[1, 32](e)


class HostExporter:
    """A __cuda_array_interface__ over a NumPy array's memory: on the CPU back end an
    address is a host address, so kcc can import it."""

    def __init__(self, ary, mask=None):
        self.ary = ary
        self.mask = mask

    @property
    def __cuda_array_interface__(self):
        ai = self.ary.__array_interface__
        return {'shape': ai['shape'], 'typestr': ai['typestr'], 'data': ai['data'],
                'strides': ai['strides'], 'version': 3, 'stream': None,
                'mask': self.mask}


def test_as_cuda_array_shares_memory():
    h = np.arange(12, dtype=np.float32)
    d = cuda.as_cuda_array(HostExporter(h))
    assert cuda.is_cuda_array(HostExporter(h))
    add_one[1, 32](d)
    np.testing.assert_array_equal(h, np.arange(12) + 1)
    m = np.arange(24, dtype=np.int64).reshape(4, 6)
    v = cuda.as_cuda_array(HostExporter(m[::2, ::-1]))
    assert v.strides == m[::2, ::-1].strides and not v.is_c_contiguous()
    np.testing.assert_array_equal(v.copy_to_host(), m[::2, ::-1])
    # the exporter (and through it the memory) lives as long as the array
    owner = HostExporter(np.arange(5, dtype=np.int16))
    w = cuda.as_cuda_array(owner)
    before = sys.getrefcount(owner)
    del owner
    gc.collect()
    assert before >= 3
    np.testing.assert_array_equal(w.copy_to_host(), np.arange(5))
    raises(NotImplementedError, cuda.as_cuda_array, HostExporter(h, mask=h), match='Masked')
    # an exporter passed to a kernel as it is, as Numba takes one: used in place
    g = np.zeros(5, dtype=np.float32)
    add_one[1, 8](HostExporter(g))
    np.testing.assert_array_equal(g, np.ones(5))
    # and to a CUDA ufunc, as Numba takes one: the result stays on the device
    from kcc import vectorize
    twice = vectorize(['float32(float32)'], target='cuda')(lambda x: x * 2)
    r = twice(HostExporter(g))
    assert cuda.is_cuda_array(r) and r.copy_to_host().tolist() == [2.0] * 5, r
    # the description alone (Numba's from_cuda_array_interface)
    f = cuda.from_cuda_array_interface(HostExporter(g).__cuda_array_interface__, owner=g)
    add_one[1, 8](f)
    np.testing.assert_array_equal(g, np.full(5, 2.0))


def test_dlpack_to_numpy():
    h = sample((4, 6))
    d = cuda.to_device(h)
    assert d.__dlpack_device__() == (1, 0)                 # kDLCPU
    n = np.from_dlpack(d)
    np.testing.assert_array_equal(n, h)
    d[1, 2] = -1                                           # shared memory
    assert n[1, 2] == -1
    v = np.from_dlpack(d[::2, ::-1])
    want = d.copy_to_host()[::2, ::-1]
    np.testing.assert_array_equal(v, want)
    del d, n
    gc.collect()
    np.testing.assert_array_equal(v, want)                 # kept alive by the tensor
    cap = cuda.to_device(h).__dlpack__()                   # never consumed
    assert 'dltensor' in repr(cap)
    del cap
    gc.collect()


def test_from_dlpack():
    h = np.arange(10, dtype=np.float64)
    d = cuda.from_dlpack(h)                                # NumPy's memory, shared
    add_one[1, 32](d)
    np.testing.assert_array_equal(h, np.arange(10) + 1)
    cap = h.__dlpack__()
    d2 = cuda.from_dlpack(cap)
    assert d2[3] == 4
    raises(ValueError, cuda.from_dlpack, cap, match='unused DLPack capsule')
    back = cuda.from_dlpack(cuda.to_device(h))             # kcc to kcc
    np.testing.assert_array_equal(back.copy_to_host(), h)
    del d, d2, back
    gc.collect()


def test_repr():
    d = cuda.to_device(sample((2, 3)))
    assert repr(d) == '<kcc.cuda.DeviceNDArray shape=(2, 3) dtype=float32>'
    assert str(d[:, ::2]) == \
        '<kcc.cuda.DeviceNDArray shape=(2, 2) dtype=float32 strides=(12, 8)>'


def test_no_leaks():
    h = sample((8, 8))
    d = cuda.to_device(h)
    refs = sys.getrefcount(d)

    def churn():
        for i in range(200):
            d[i % 8, ::-1].copy_to_host()
            d[::2, 1:5][1, 1]
            d.reshape(-1)[i % 64] = i
            np.from_dlpack(d[1:3])
            d[:, ::3] = 1.5

    churn()
    gc.collect()
    objects = len(gc.get_objects())
    churn()
    gc.collect()
    assert sys.getrefcount(d) == refs
    assert len(gc.get_objects()) <= objects + 5, (len(gc.get_objects()), objects)


@cuda.jit
def corner_sum(x, out):
    out[0] = x[1, 2] * 10 + x[0, 1]
    x[0, 0] = 42


def test_fortran_order():
    """Fortran-ordered device arrays as Numba's: to_device keeps the order and strides,
    copy_to_host gives a Fortran-ordered array, device_array(order='F') and
    device_array_like of one; kernels index them as NumPy does."""
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    d = cuda.to_device(a)
    assert d.shape == a.shape and d.strides == a.strides, (d.shape, d.strides)
    assert d.is_f_contiguous() and not d.is_c_contiguous()
    h = d.copy_to_host()
    assert h.flags.f_contiguous and h.strides == a.strides and (h == a).all(), h
    out = np.zeros(1)
    corner_sum[1, 1](d, out)
    want = a.copy()
    want[0, 0] = 42
    assert out[0] == a[1, 2] * 10 + a[0, 1], out
    np.testing.assert_array_equal(d.copy_to_host(), want)
    e = cuda.device_array((3, 4), np.float32, order='F')
    assert e.strides == (4, 12), e.strides
    e.copy_to_device(a.astype(np.float32))
    np.testing.assert_array_equal(e.copy_to_host(), a.astype(np.float32))
    assert cuda.device_array_like(a).strides == a.strides
    assert cuda.pinned_array_like(a).strides == a.strides
    assert cuda.mapped_array_like(a).strides == a.strides
    view = np.asfortranarray(np.zeros((10, 12)))[::2, ::2]   # NumPy's zeros_like order
    assert cuda.device_array_like(view).strides == np.zeros_like(view).strides
    assert cuda.device_array_like(np.zeros((10, 12))[::2, ::2]).strides == (48, 8)
    assert cuda.device_array((3, 4), strides=(8, 24)).strides == (8, 24)
    raises(NotImplementedError, lambda: cuda.device_array((3, 4), strides=(8, 8)))
    raises(ValueError, lambda: cuda.device_array((3, 4), order='K'))


def test_devicearray_module():
    """numba.cuda.devicearray's functions Numba's tests reach: auto_device (a device
    array as it is; a number or array copied; a non-contiguous array refused, as Numba
    refuses it), from_array_like (shape, dtype and order); the device transpose."""
    d = cuda.to_device(np.arange(3.0))
    assert cuda.devicearray.auto_device(d) == (d, False)
    e, made = cuda.devicearray.auto_device(np.arange(4, dtype=np.int16))
    assert made and e.dtype == np.int16 and e.copy_to_host().tolist() == [0, 1, 2, 3]
    raises(ValueError, cuda.devicearray.auto_device, np.arange(10.0)[::2],
           match='non-contiguous')
    f = np.asfortranarray(np.zeros((3, 5), np.float32))
    g = cuda.devicearray.from_array_like(f)
    assert g.shape == f.shape and g.strides == f.strides and g.dtype == f.dtype
    x = np.arange(12.0).reshape(3, 4)
    t = cuda._transpose(cuda.to_device(x))
    np.testing.assert_array_equal(t.copy_to_host(), x.T)
    out = cuda.device_array((4, 3))
    assert cuda._transpose(cuda.to_device(x), out) is out
    np.testing.assert_array_equal(out.copy_to_host(), x.T)



def test_view_as_another_dtype():
    """d.view(dtype), as NumPy's a.view(dtype) of the same bytes (the reference): the
    last axis rescaled, writes through the view reach the array, Numba's errors."""
    a = np.arange(8, dtype=np.float32)
    d = cuda.to_device(a)
    for dt in (np.int32, np.float64, np.uint8, np.complex64):
        v = d.view(dt)
        assert v.shape == a.view(dt).shape and v.dtype == np.dtype(dt), (dt, v.shape)
        np.testing.assert_array_equal(v.copy_to_host(), a.view(dt))
    m = np.arange(12, dtype=np.int16).reshape(3, 4)
    np.testing.assert_array_equal(cuda.to_device(m).view(np.int32).copy_to_host(),
                                  m.view(np.int32))
    d.view(np.int32)[1] = 0
    assert d.copy_to_host()[1] == 0.0, d.copy_to_host()
    raises(ValueError, lambda: cuda.to_device(np.arange(3, dtype=np.int8)).view(np.int16))
    raises(ValueError, lambda: cuda.to_device(np.zeros((4, 4), np.int16))[:, :2].view(np.int32))

if __name__ == '__main__':
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from runner import run
    sys.exit(run(globals()))
