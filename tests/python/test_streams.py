"""Streams and events in kcc.cuda (docs/python.md), on the CPU back end, checked
against NumPy: launches kernel[grid, block, stream], copies with stream=, the host
buffers a stream keeps alive until its synchronize(), events, and misuse raising.

Run by meson (suite 'python') as test_basic.py is; each test_* function is one case.
On the CPU back end queued work has run when the call returns, so these tests check
the API and the object lifetimes; ordering on a GPU is the runtime's (libkc's tests).
"""

import gc
import os
import sys
import weakref

import numpy as np

from kcc import cuda, KccError


@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def scale(x, k):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= k


@cuda.jit
def shared_sum(x, out):
    buf = cuda.shared.array(0, dtype=np.float32)
    i = cuda.threadIdx.x
    buf[i] = x[i]
    cuda.syncthreads()
    if i == 0:
        s = 0.0
        for j in range(cuda.blockDim.x):
            s += buf[j]
        out[0] = s


def raises(exc, fn, *args, match=None, **kwargs):
    """The exception fn(*args) raises, checked to be exc (and to contain match)."""
    try:
        fn(*args, **kwargs)
    except exc as e:
        if match is not None:
            assert match in str(e), 'expected %r in %r' % (match, str(e))
        return e
    raise AssertionError('%s%s did not raise %s' % (fn.__name__, args, exc.__name__))


def test_launch_on_a_stream():
    x = np.arange(100, dtype=np.float32)
    y = np.ones(100, dtype=np.float32)
    s = cuda.stream()
    dx, dy = cuda.to_device(x, stream=s), cuda.to_device(y, stream=s)
    out = cuda.device_array_like(x)
    axpy[1, 128, s](out, 2.0, dx, dy)
    scale[4, 32, s, 0](out, 0.5)                       # [grid, block, stream, sharedmem]
    host = out.copy_to_host(stream=s)
    s.synchronize()
    np.testing.assert_allclose(host, (2 * x + y) * 0.5)
    scale.forall(100, stream=s)(out, 2.0)
    s.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), 2 * x + y)


def test_dynamic_shared_memory_with_a_stream():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(1, np.float32)
    s = cuda.stream()
    shared_sum[1, 64, s, 64 * 4](x, out)               # NumPy arguments on a stream
    s.synchronize()
    assert out[0] == x.sum()


def test_numpy_arguments_copied_back_on_the_stream():
    x = np.arange(50, dtype=np.float64)
    want = x * 3
    s = cuda.stream()
    scale[1, 64, s](x, 3.0)
    s.synchronize()
    np.testing.assert_array_equal(x, want)
    strided = np.arange(40, dtype=np.float64)
    expect = strided.copy()
    expect[::4] *= -1
    scale[1, 64, s](strided[::4], -1.0)                # non-contiguous: copied back too
    s.synchronize()
    np.testing.assert_array_equal(strided, expect)


def test_copies_with_a_stream():
    s = cuda.stream()
    h = np.arange(24, dtype=np.int32).reshape(4, 6)
    d = cuda.to_device(h, stream=s)
    into = np.zeros_like(h)
    assert d.copy_to_host(into, stream=s) is into
    s.synchronize()
    np.testing.assert_array_equal(into, h)
    d.copy_to_device(h * 2, stream=s)
    d2 = cuda.device_array_like(h)
    d2.copy_to_device(d, stream=s)                     # device to device
    s.synchronize()
    np.testing.assert_array_equal(d2.copy_to_host(), h * 2)
    cuda.to_device(h * 3, stream=s, to=d)
    s.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), h * 3)
    f = np.zeros((6, 4), np.int32).T                   # not C-contiguous: synchronous
    d.copy_to_host(f, stream=s)
    np.testing.assert_array_equal(f, h * 3)
    np.testing.assert_array_equal(d[:, ::2].copy_to_host(stream=s), (h * 3)[:, ::2])


def test_stream_keeps_host_buffers_until_synchronize():
    s = cuda.stream()
    d = cuda.device_array(1000, np.float64)
    src = np.arange(1000, dtype=np.float64)
    src_ref = weakref.ref(src)
    d.copy_to_device(src, stream=s)
    out = d.copy_to_host(stream=s)
    out_ref = weakref.ref(out)
    del src, out
    gc.collect()
    assert src_ref() is not None and out_ref() is not None   # the queued copies use them
    assert s.pending > 0
    s.synchronize()
    gc.collect()
    assert src_ref() is None and out_ref() is None and s.pending == 0
    # a temporary (to_device of an expression) is kept too, and freed at synchronize
    cuda.to_device(np.ones(10) * 2, stream=s)
    assert s.pending > 0
    s.synchronize()
    assert s.pending == 0
    # cuda.synchronize() waits for every stream: theirs are let go too
    cuda.to_device(np.ones(10), stream=s)
    z = cuda.default_stream()
    z_out = cuda.to_device(np.ones(3)).copy_to_host(stream=z)
    assert s.pending > 0 and z.pending > 0
    cuda.synchronize()
    assert s.pending == 0 and z.pending == 0
    np.testing.assert_array_equal(z_out, np.ones(3))


def test_stream_freed_with_work_pending():
    d = cuda.device_array(100, np.float32)
    s = cuda.stream()
    d.copy_to_device(np.full(100, 4, np.float32), stream=s)
    out = d.copy_to_host(stream=s)
    del s                                              # waits, then releases the buffers
    gc.collect()
    np.testing.assert_array_equal(out, np.full(100, 4))


def test_auto_synchronize_and_default_stream():
    s = cuda.stream()
    x = np.arange(10, dtype=np.float32)
    with s.auto_synchronize() as same:
        assert same is s
        d = cuda.to_device(x, stream=s)
        scale[1, 32, s](d, 4.0)
        out = d.copy_to_host(stream=s)
    assert s.pending == 0
    np.testing.assert_array_equal(out, x * 4)
    z = cuda.default_stream()
    assert z is cuda.default_stream() and z.is_default and not s.is_default
    assert repr(z) == '<kcc.cuda.Stream default>'
    scale[1, 32, z](d, 0.5)
    z.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), x * 2)
    assert s.handle == 0 and int(z) == 0                # no CUstream on the CPU back end
    assert cuda.legacy_default_stream() is z


def test_events():
    s = cuda.stream()
    start, end = cuda.event(), cuda.event(timing=True)
    assert start.query()                               # never recorded: complete (CUDA's rule)
    start.synchronize()
    start.wait(s)
    start.record(s)
    d = cuda.to_device(np.arange(1000, dtype=np.float32), stream=s)
    scale[8, 128, s](d, 2.0)
    end.record(stream=s)
    end.wait(s)
    end.wait()                                         # the default stream
    end.synchronize()
    assert end.query() is True
    ms = cuda.event_elapsed_time(start, end)
    assert isinstance(ms, float) and ms >= 0
    assert start.elapsed_time(end) >= 0
    e0 = cuda.event()
    e0.record()                                        # default stream
    e0.record(0)
    assert e0.query()


def test_event_errors():
    recorded, fresh = cuda.event(), cuda.event()
    recorded.record()
    e = raises(KccError, recorded.elapsed_time, fresh, match='recorded')
    assert e.status == 'KC_ERR_INVALID'
    untimed = cuda.event(timing=False)
    untimed.record()
    raises(ValueError, recorded.elapsed_time, untimed, match='timing=False')
    raises(TypeError, recorded.elapsed_time, 5, match='expected an Event')
    raises(TypeError, recorded.record, 'x', match='stream must be a Stream')
    raises(TypeError, recorded.wait, 3, match='stream must be a Stream')


def test_stream_errors():
    s = cuda.stream()
    d = cuda.device_array(10, np.float32)
    raises(TypeError, scale.__getitem__, (1, 32, 'stream'), match='stream must be a Stream')
    raises(TypeError, scale.__getitem__, (1, 32, 7), match='stream must be a Stream')
    raises(TypeError, d.copy_to_host, stream=object(), match='stream must be a Stream')
    raises(TypeError, s.copy_to_host, np.zeros(10), np.zeros(10), match='device array')
    ro = np.zeros(10, np.float32)
    ro.flags.writeable = False
    raises(ValueError, s.copy_to_host, d, ro, match='read-only')
    raises(ValueError, s.copy_to_host, d, np.zeros(20, np.float32)[::2],
           match='not C-contiguous')
    raises(ValueError, s.copy_to_device, d, np.zeros(11, np.float32), match='40 bytes')
    raises(ValueError, s.copy_to_device, d, np.zeros(10, np.float64), match='float64')
    e = raises(KccError, cuda.external_stream, 1234)   # CUDA only
    assert e.status == 'KC_ERR_UNSUPPORTED'
    raises(TypeError, cuda.Stream, default=True, external=1)
    assert s.pending == 0                              # failed copies keep nothing
    s.synchronize()


def test_launch_errors_on_a_stream_leave_it_usable():
    s = cuda.stream()
    d = cuda.to_device(np.arange(8, dtype=np.float32))
    raises(KccError, scale.__getitem__((0, 32, s)), d, 2.0)
    scale[1, 32, s](d, 2.0)
    s.synchronize()
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(8) * 2)


def test_no_leaks():
    x = np.arange(256, dtype=np.float32)
    s = cuda.stream()
    refs = sys.getrefcount(x)

    def churn():
        for _ in range(100):
            d = cuda.to_device(x, stream=s)
            scale[2, 128, s](d, 1.0)
            d.copy_to_host(stream=s)
            e = cuda.event()
            e.record(s)
            s.synchronize()
            e.elapsed_time(e)

    churn()
    gc.collect()
    objects = len(gc.get_objects())
    churn()
    gc.collect()
    assert sys.getrefcount(x) == refs
    assert len(gc.get_objects()) <= objects + 5, (len(gc.get_objects()), objects)



def test_handle_reads_as_numba_reads_it():
    """stream.handle is the CUstream as an int and, as Numba's ctypes handle, has
    .value (None for no CUstream: the CPU back end's and the default stream's)."""
    s = cuda.stream()
    h = s.handle
    assert isinstance(h, int) and int(s) == int(h), (h, int(s))
    assert h.value == (int(h) or None), h.value
    assert cuda.default_stream().handle.value is None
    assert s.external is False and cuda.default_stream().external is False

if __name__ == '__main__':
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from runner import run
    sys.exit(run(globals()))
