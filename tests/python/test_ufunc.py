"""kcc's CUDA ufuncs, gufuncs and reductions from Python (python/kcc/ufunc.py), on the
CPU back end, checked against NumPy and Numba 0.56's documented rules.

Run by meson (suite 'python') as test_basic.py is; needs NumPy, not Numba.
"""

import math
import os
import sys

import numpy as np

import kcc
from kcc import cuda, KccError, vectorize, guvectorize


@vectorize(['float32(float32, float32)', 'float64(float64, float64)',
            'int32(int32, int32)'], target='cuda')
def axpy1(x, y):
    return 2 * x + y


@vectorize(['float32(float32, float32)'], target='cuda')
def add_f32(x, y):
    return x + y


@vectorize(['float64(float64)'], target='cuda')
def gauss(x):
    return math.exp(-x * x)


@guvectorize(['void(float64[:, :], float64[:], float64[:])'], '(m,n),(n)->(m)',
             target='cuda')
def matvec(m, v, out):
    for i in range(m.shape[0]):
        acc = 0.0
        for j in range(m.shape[1]):
            acc += m[i, j] * v[j]
        out[i] = acc


@guvectorize(['void(int32, int32[:], int32[:])'], '(),(t)->(t)', target='cuda')
def scale_i32(a, b, out):
    for i in range(b.size):
        out[i] = a * b[i]


@guvectorize(['void(float32[:], float32, float32[:])'], '(n),()->(n)', target='cuda')
def shift(a, by, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + by


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.reduce
def max_reduce(a, b):
    return max(a, b)


def not_decorated(x):
    return x


def test_ufunc_host_arrays():
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    y = np.arange(1000, dtype=np.float32)
    got = axpy1(x, y)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32, type(got)
    assert np.array_equal(got, np.float32(2) * x + y)


def test_ufunc_picks_signature_by_dtype():
    a = np.arange(10, dtype=np.int32)
    got = axpy1(a, a)
    assert got.dtype == np.int32 and np.array_equal(got, 3 * a)
    d = np.arange(10, dtype=np.float64) / 3
    assert axpy1(d, d).dtype == np.float64
    assert np.allclose(axpy1(d, d), 3 * d, rtol=0, atol=1e-15)


def test_ufunc_broadcasting_and_scalars():
    m = np.arange(12, dtype=np.float64).reshape(3, 4)
    row = np.array([1.0, -1.0, 0.5, 2.0])
    got = axpy1(m, row)
    assert got.shape == (3, 4) and np.array_equal(got, 2 * m + row)
    # a number takes every position (typed by value, as NumPy and Numba type it)
    x = np.arange(5, dtype=np.float32)
    got = axpy1(x, 1.0)
    assert got.dtype == np.float32 and np.array_equal(got, 2 * x + np.float32(1))
    # every argument a scalar: Numba's CUDA ufuncs return an array of one element
    got = axpy1(np.float64(1.5), 2.0)
    assert got.shape == (1,) and got[0] == 5.0, got


def test_ufunc_device_arrays_stay_on_device():
    x = np.arange(8, dtype=np.float64)
    dx = cuda.to_device(x)
    got = gauss(dx)
    assert isinstance(got, cuda.DeviceNDArray), type(got)
    assert np.allclose(got.copy_to_host(), np.exp(-x * x), rtol=1e-15, atol=0)
    out = cuda.device_array(8, np.float64)
    assert gauss(dx, out=out) is out
    assert np.allclose(out.copy_to_host(), np.exp(-x * x), rtol=1e-15, atol=0)


def test_ufunc_out_is_an_input():
    """f(x, y, out=x), as Numba allows (elementwise, in place)."""
    x = np.arange(6, dtype=np.float64)
    d = cuda.to_device(x)
    assert axpy1(d, d, out=d) is d
    assert np.array_equal(d.copy_to_host(), 3 * x)


def test_gufunc_options_as_numba_checks_them():
    def foo(a, b):
        pass
    for kws, msg in (({'nopython': False}, 'nopython flag must be True'),
                     ({'what1': True}, 'The following target options are not supported')):
        try:
            guvectorize(['void(float32[:], float32[:])'], '(x)->(x)', target='cuda',
                        **kws)(foo)
        except TypeError as e:
            assert str(e).startswith(msg), e
        else:
            raise AssertionError('%s was taken' % kws)


def test_vectorize_nopython_is_redundant():
    """@vectorize(..., nopython=True) for the GPU warns as Numba's does, and works."""
    import warnings

    def plus(a, b):
        return a + b
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        add = vectorize(['float32(float32, float32)'], target='cuda', nopython=True)(plus)
    assert [str(w.message) for w in caught] == ['nopython kwarg for cuda target is redundant'] \
        and caught[0].category is RuntimeWarning, caught
    x = np.arange(4, dtype=np.float32)
    assert np.array_equal(add(x, x), 2 * x)


def test_ufunc_host_out():
    x = np.arange(6, dtype=np.float64)
    out = np.zeros(6)
    assert gauss(x, out=out) is out
    assert np.allclose(out, np.exp(-x * x), rtol=1e-15, atol=0)


def test_ufunc_errors():
    try:
        axpy1(np.zeros(3, np.float32))
    except TypeError as e:
        assert "ufunc 'axpy1' takes 2 arguments, got 1" in str(e), e
    else:
        raise AssertionError('a wrong arity was taken')
    try:
        axpy1(np.zeros(3), np.zeros(4))
    except KccError as e:
        assert 'shape' in str(e) or 'broadcast' in str(e), e
    else:
        raise AssertionError('shapes that do not broadcast were taken')


def test_vectorize_at_run_time():
    ufunc = vectorize(['float64(float64)'], target='cuda')(not_decorated)
    x = np.arange(5.0)
    np.testing.assert_array_equal(ufunc(x), x)


def test_gufunc_loop_dimensions():
    m = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    v = np.array([1.0, 2.0, -1.0, 0.5])
    got = matvec(m, v)
    assert isinstance(got, np.ndarray) and got.shape == (2, 3), got.shape
    assert np.array_equal(got, m @ v)


def test_gufunc_outputs_given():
    m = np.arange(12, dtype=np.float64).reshape(3, 4)
    v = np.ones(4)
    out = cuda.device_array(3, np.float64)
    assert matvec(m, v, out) is out           # a device output stays on the device
    assert np.array_equal(out.copy_to_host(), m @ v)
    host_out = np.zeros(3)
    assert matvec(m, v, out=host_out) is host_out
    assert np.array_equal(host_out, m @ v)


def test_gufunc_scalar_core_argument():
    a = np.arange(10, dtype=np.float32).reshape(2, 5)
    got = shift(a, np.float32(0.5))
    assert got.dtype == np.float32 and np.array_equal(got, a + np.float32(0.5))


def test_gufunc_scalar_rules_as_numpy():
    """Numba's test_gufunc_scalar: with one core-sized array and a scalar the result has
    no loop dimension ((n,), not (1, n)); a scalar of another integer type is cast by its
    value (np.int64(3) to an int32 signature), as NumPy picks a
    gufunc's loop; a device array of another dtype is a TypeError."""
    a = np.arange(5, dtype=np.float32)
    got = shift(a, np.float32(0.5))
    assert got.shape == (5,) and np.array_equal(got, a + np.float32(0.5)), got
    got = scale_i32(np.int64(3), np.arange(6, dtype=np.int32))
    assert got.dtype == np.int32 and got.tolist() == [0, 3, 6, 9, 12, 15], got
    try:
        scale_i32(cuda.to_device(np.array([3], dtype=np.int64)), np.arange(6, dtype=np.int32))
    except TypeError as e:
        assert 'does not support .astype()' in str(e), e
    else:
        raise AssertionError('a device array of another dtype was taken')


def test_gufunc_arity():
    try:
        matvec(np.zeros((2, 2)))
    except TypeError as e:
        assert "takes 2 inputs and up to 1 outputs, got 1" in str(e), e
    else:
        raise AssertionError('a wrong arity was taken')


def test_reduce_sum():
    a = np.arange(1234, dtype=np.float64) + 1          # Numba's documentation example
    got = sum_reduce(a)
    assert got == a.sum() and isinstance(got, np.float64), repr(got)
    assert sum_reduce(cuda.to_device(a)) == a.sum()
    assert sum_reduce(a, size=10) == 55.0
    ints = np.arange(-50, 1000, dtype=np.int32)
    got = sum_reduce(ints)
    assert got == ints.sum() and isinstance(got, np.int32), repr(got)


def test_reduce_init_is_combined_as_numba_does():
    a = np.array([-3.0, -1.0, -2.0])
    assert max_reduce(a) == 0.0                   # init=0 by default, always combined
    assert max_reduce(a, init=-10) == -1.0
    assert sum_reduce(a, init=100) == 94.0
    empty = np.array([], dtype=np.float32)
    got = max_reduce(empty, init=7)
    assert got == 7 and isinstance(got, np.float32), repr(got)


def test_reduce_into_device_array():
    a = np.arange(100, dtype=np.float64)
    res = cuda.to_device(np.array([-1.0, 42.0]))
    assert sum_reduce(a, res=res) is None
    assert res.copy_to_host().tolist() == [a.sum(), 42.0]


def test_reduce_errors():
    try:
        sum_reduce(np.zeros((2, 2)))
    except TypeError as e:
        assert 'only support 1D array' in str(e), e
    else:
        raise AssertionError('a 2-D array was reduced')


def test_reduce_of_a_lambda():
    """Numba's documentation: sum_reduce = cuda.reduce(lambda a, b: a + b)."""
    sum_reduce = cuda.reduce(lambda a, b: a + b)
    a = np.arange(1234, dtype=np.float64) + 1
    assert sum_reduce(a) == a.sum()
    max_reduce = cuda.Reduce(lambda a, b: max(a, b))
    assert max_reduce(np.array([3, 9, -1], dtype=np.int32)) == 9


def test_on_a_stream():
    """stream= as Numba's: the launches queued on it; a host result read after it."""
    s = cuda.stream()
    x = np.arange(1000, dtype=np.float32)
    dx = cuda.to_device(x)
    got = axpy1(dx, dx, stream=s)
    s.synchronize()
    assert np.array_equal(got.copy_to_host(), 3 * x)
    assert np.array_equal(axpy1(x, x, stream=s), 3 * x)          # host in, host out
    m = np.arange(12, dtype=np.float64).reshape(3, 4)
    assert np.array_equal(matvec(m, np.ones(4), stream=s), m.sum(axis=1))
    assert sum_reduce(np.arange(100, dtype=np.float64), stream=s) == 4950.0
    try:
        axpy1(x, x, stream='fast')
    except TypeError as e:
        assert 'stream must be a Stream' in str(e), e
    else:
        raise AssertionError('a string was taken as a stream')


def test_ufunc_reduce_as_numba_halves():
    """ufunc.reduce folds by halves in Numba's order (odd lengths: the last element
    combined after the rest), so float32 sums round as Numba's do."""
    def numba_order(a):
        n = len(a)
        if n == 1:
            return a[0]
        if n % 2:
            return np.float32(numba_order(a[:n - 1]) + a[n - 1])
        half = (a[:n // 2] + a[n // 2:]).astype(np.float32)
        return numba_order(half) if n // 2 > 1 else half[0]
    for n in (1, 2, 7, 100, 1001):
        a = np.linspace(0, 1, n, dtype=np.float32)
        s = add_f32.reduce(a)
        assert s == numba_order(a), (n, s, numba_order(a))
        assert add_f32.reduce(cuda.to_device(a)) == s
    try:
        gauss.reduce(np.ones(3))
    except TypeError as e:
        assert 'not binary' in str(e), e
    else:
        raise AssertionError('a unary ufunc reduced')


def test_kcc_exports():
    assert kcc.vectorize is vectorize and kcc.guvectorize is guvectorize
    assert cuda.Reduce is cuda.reduce


if __name__ == '__main__':
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from runner import run
    sys.exit(run(globals()))
