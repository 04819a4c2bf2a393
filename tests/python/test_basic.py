"""The Python package kcc (docs/python.md) on the CPU back end, checked against NumPy.

Run by meson (suite 'python') with /usr/bin/python3, PYTHONPATH=build/python,
KC_DEVICE=cpu and KC_CACHE=0; needs NumPy, not Numba. Each test_* function is one
case; the script runs them all and fails if any did.
"""

import gc
import io
import os
import sys
import tempfile

import numpy as np

from runner import Skip

from kcc import cuda, KccError
import kcc._kcc as _kcc

@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@cuda.jit('void(float32[:], float32[:], float32[:])')
def vector_add_eager(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@cuda.jit
def scale_2d(m, factor, offset):
    i, j = cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        m[i, j] = m[i, j] * factor + offset + i * 100 + j


@cuda.jit(device=True)
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@cuda.jit
def clamp_all(a, bounds):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = clamp(a[i], bounds[0], bounds[1])


@cuda.jit
def fill_flags(flags, on):
    i = cuda.grid(1)
    if i < flags.size:
        flags[i] = on and i % 2 == 0


@cuda.jit(debug=True, opt=False)
def checked(a):
    i = cuda.grid(1)
    assert a[i] < 5, "too big"
    a[i] = -1


@cuda.jit
def broken(a):
    i = cuda.grid(1)
    a[i] = no_such_name + 1


def test_vector_add_lazy():
    n = 1000
    a = np.random.rand(n).astype(np.float32)
    b = np.random.rand(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    vector_add[(n + 127) // 128, 128](a, b, out)
    np.testing.assert_array_equal(out, a + b)
    assert 'vector_add(float32[:], float32[:], float32[:])' in vector_add.signatures, \
        vector_add.signatures
    # new argument types: another specialisation, as Numba makes
    ai = np.arange(10, dtype=np.int64)
    oi = np.zeros(10, np.int64)
    vector_add[1, 32](ai, ai, oi)
    np.testing.assert_array_equal(oi, 2 * ai)
    assert 'vector_add(int64[:], int64[:], int64[:])' in vector_add.signatures, \
        vector_add.signatures
    # launch shapes refused with Numba's words
    for bad, exc, words in (((1, 2, 3, 4), ValueError, 'griddim must be a sequence of 1, 2 or 3'),
                            (2.0, TypeError, 'griddim must be a sequence of integers, got [2.0]')):
        try:
            vector_add[bad, 32]
        except exc as e:
            assert words in str(e), e
        else:
            raise AssertionError('griddim %r was taken' % (bad,))
    try:
        vector_add(ai, ai, oi)
    except ValueError as e:
        assert 'launch configuration was not specified' in str(e), e
    else:
        raise AssertionError('a call without a launch configuration was taken')
    # forall of no tasks launches nothing; of a negative count is refused, as Numba's
    vector_add.forall(0)(ai, ai, oi)
    try:
        vector_add.forall(-1)
    except ValueError as e:
        assert 'negative task count' in str(e), e
    else:
        raise AssertionError('forall(-1) was taken')
    # Numba's older launch spelling (its legacy examples use it)
    oi[:] = 0
    vector_add.configure(1, 32)(ai, ai, oi)
    np.testing.assert_array_equal(oi, 2 * ai)


def test_vector_add_eager():
    # compiled at the decorator: its signature is known before any launch
    assert vector_add_eager.signatures == \
        ['vector_add_eager(float32[:], float32[:], float32[:])'], vector_add_eager.signatures
    a = np.linspace(0, 1, 300, dtype=np.float32)
    out = np.empty_like(a)
    vector_add_eager[3, 128](a, a, out)
    np.testing.assert_array_equal(out, a + a)
    out[:] = 0
    vector_add_eager.forall(a.size)(a, a, out)
    np.testing.assert_array_equal(out, a + a)


def test_2d_and_scalars():
    m = np.arange(12, dtype=np.float64).reshape(3, 4)
    want = m * 2.5 + 1 + np.arange(3)[:, None] * 100 + np.arange(4)[None, :]
    scale_2d[(1, 1), (4, 4)](m, 2.5, 1)       # a float and an int scalar
    np.testing.assert_array_equal(m, want)
    # a NumPy scalar keeps its dtype; an array not C-contiguous is copied back into
    m32 = np.ones((4, 6), np.float32)
    view = m32[:, ::2]
    want32 = view * np.float32(3) + np.arange(4)[:, None] * 100 + np.arange(3)[None, :]
    scale_2d[(1, 1), (8, 8)](view, np.float32(3), np.int32(0))
    np.testing.assert_array_equal(view, want32.astype(np.float32))
    np.testing.assert_array_equal(m32[:, 1::2], np.ones((4, 3), np.float32))


def test_device_function_and_tuple():
    a = np.linspace(-2, 2, 41)
    clamp_all[1, 64](a, (-1.0, 0.5))
    np.testing.assert_array_equal(a, np.clip(np.linspace(-2, 2, 41), -1.0, 0.5))


@cuda.jit('int32(int32, int32)', device=True)
def pack(hi, lo):
    return (hi << 8) | (lo & 0xFF)


@cuda.jit
def pack_all(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = pack(a[i], a[i] + 1.7)   # a float argument cast to the declared int32


def test_device_dispatcher():
    """cuda.jit(device=True) gives Numba's device dispatcher: kernels call it (under its
    signature, which casts), Python may call the function, it is not launched, and it
    is inspected on its own."""
    a = np.arange(5, dtype=np.int32)
    out = np.zeros(5, np.int64)
    pack_all[1, 8](a, out)
    np.testing.assert_array_equal(out, (a.astype(np.int64) << 8) | ((a + 1) & 0xFF))
    assert pack(1, 2) == 258 and pack.__name__ == 'pack'
    try:
        pack[1, 1](1, 2)
    except RuntimeError as e:
        assert 'Cannot compile a device function as a kernel' in str(e), e
    else:
        raise AssertionError('a device function was launched')
    from kcc import types as kt
    cres = pack.compile_device((kt.int32, kt.int32))
    name = cres.fndesc.mangled_name
    assert 'pack' in name and str(cres.signature.return_type) == 'int32', (name, cres)
    assert '.visible .func' in pack.inspect_asm((kt.int32, kt.int32))
    assert name in pack.inspect_asm((kt.int32, kt.int32))
    assert name in pack.inspect_llvm((kt.int32, kt.int32))


def test_bool_arrays_and_scalars():
    flags = np.ones(7, np.bool_)
    fill_flags[1, 8](flags, True)
    np.testing.assert_array_equal(flags, np.arange(7) % 2 == 0)
    fill_flags[1, 8](flags, False)
    assert not flags.any()


def test_device_arrays():
    host = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    d = cuda.to_device(host)
    assert d.shape == (2, 3, 4) and d.ndim == 3 and d.size == 24 and len(d) == 2
    assert d.dtype == np.float32 and d.nbytes == host.nbytes and d.strides == host.strides
    np.testing.assert_array_equal(d.copy_to_host(), host)
    # into an existing array, and a copy back in
    out = np.zeros_like(host)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, host)
    d.copy_to_device(host * 2)
    np.testing.assert_array_equal(d.copy_to_host(), host * 2)
    # device arrays as kernel arguments stay on the device
    x = cuda.to_device(np.arange(100, dtype=np.float64))
    y = cuda.device_array_like(x.copy_to_host())
    assert y.shape == (100,) and y.dtype == np.float64
    vector_add[1, 128](x, x, y)
    np.testing.assert_array_equal(y.copy_to_host(), 2 * np.arange(100, dtype=np.float64))
    z = cuda.device_array((5, 2), np.int16)
    assert z.shape == (5, 2) and z.dtype == np.int16
    for dt in (np.int8, np.uint16, np.int32, np.uint64, np.float16, np.complex64,
               np.complex128, np.bool_):
        h = (np.arange(6) % 3).astype(dt)
        np.testing.assert_array_equal(cuda.to_device(h).copy_to_host(), h)
    cuda.synchronize()


def test_compile_error_names_the_file():
    try:
        broken[1, 1](np.zeros(4))
    except KccError as e:
        text = str(e)
        # the file as Python names it in tracebacks, and the line of the file
        code = broken.py_func.__code__
        assert e.status == 'KC_ERR_TYPE', e.status
        assert '%s:%d:12: error:' % (code.co_filename, code.co_firstlineno + 3) in text, text
        assert "undefined name 'no_such_name'" in text, text
        assert '^~~~' in text, text          # the caret under the name
    else:
        raise AssertionError('a kernel with an undefined name compiled')


def test_kernel_fault_raises():
    try:
        checked[1, 8](np.arange(8.0))
    except KccError as e:
        code = checked.py_func.__code__
        assert e.status == 'KC_ERR_ASSERT', e.status
        assert "%s:%d:5: error: kernel 'checked': AssertionError: too big" \
            % (code.co_filename, code.co_firstlineno + 3) in str(e), e
    else:
        raise AssertionError('a failed assert in a debug kernel did not raise')
    cuda.synchronize()                   # raised once, at the launch, as Numba does
    x = np.zeros(4)                      # the context runs on
    checked[1, 4](x)
    np.testing.assert_array_equal(x, np.full(4, -1.0))


class OutOfRange(ValueError):
    """A program's own exception class, raised by a kernel as Numba raises it."""


def test_program_exception_classes():
    """raise OutOfRange(...) in a kernel: in a debug kernel the launch raises that very
    class (also a KccError), elsewhere the raising thread ends silently (Numba's)."""
    def body(a):
        i = cuda.grid(1)
        if i >= 3:
            raise OutOfRange("past", 3)
        a[i] = i + 1
    a = np.zeros(5)
    cuda.jit(body)[1, 5](a)
    assert a.tolist() == [1.0, 2.0, 3.0, 0.0, 0.0], a
    try:
        cuda.jit(debug=True, opt=False)(body)[1, 5](np.zeros(5))
    except OutOfRange as e:
        assert isinstance(e, KccError) and "OutOfRange: ('past', 3)" in str(e), e
        # and in Numba's words after kcc's (Numba's test_userexc reads them)
        assert "tid=[3, 0, 0] ctaid=[0, 0, 0]: ('past', 3)\nIn function 'body', file " \
            in str(e), e
    else:
        raise AssertionError('a debug kernel raising OutOfRange did not raise it')


def test_wrong_launches_raise():
    a = np.zeros(4, np.float32)

    def expect(what, fn, status=None, exc=KccError):
        try:
            fn()
        except exc as e:
            assert status is None or e.status == status, (what, e.status, e)
            return str(e)
        raise AssertionError(what + ': no error')

    msg = expect('too few', lambda: vector_add[1, 4](a, a), 'KC_ERR_LAUNCH')
    assert "kernel 'vector_add': expected 3 arguments (a, b, out), got 2" in msg, msg
    expect('too many', lambda: vector_add_eager[1, 4](a, a, a, a), 'KC_ERR_LAUNCH')
    msg = expect('wrong dtype', lambda: vector_add_eager[1, 4](a, a, np.zeros(4)),
                 'KC_ERR_LAUNCH')
    assert 'float64' in msg, msg
    expect('zero grid', lambda: vector_add[0, 4](a, a, a), 'KC_ERR_LAUNCH')
    expect('huge block', lambda: vector_add[1, 100000](a, a, a), 'KC_ERR_LAUNCH')
    expect('no configuration', lambda: vector_add(a, a, a), exc=ValueError)
    expect('bad configuration', lambda: vector_add[1](a, a, a), exc=ValueError)
    expect('negative extent', lambda: vector_add[-1, 4](a, a, a), exc=ValueError)
    expect('a string argument', lambda: vector_add[1, 4](a, a, 'x'), exc=TypeError)
    expect('0-d array', lambda: cuda.to_device(np.float32(1)), exc=ValueError)
    expect('object array', lambda: cuda.to_device(np.array([None])), exc=(TypeError, ValueError))
    expect('copy size', lambda: cuda.to_device(a).copy_to_host(np.zeros(3, np.float32)),
           exc=ValueError)
    # the context is as before
    out = np.zeros(4, np.float32)
    vector_add[1, 4](a + 1, a + 2, out)
    np.testing.assert_array_equal(out, np.full(4, 3, np.float32))


SCALE = 3.0
OFFSETS = np.array([10.0, 20.0, 30.0, 40.0])


def test_kernel_in_a_function():
    """A kernel defined in a function, with a closure variable, a device function of
    its own, a module constant and a NumPy table: compiled from its own text, as
    Numba compiles it."""
    bias = np.float32(0.5)

    @cuda.jit(device=True)
    def twice(x):
        return 2 * x

    @cuda.jit
    def nested(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = twice(a[i]) * SCALE + OFFSETS[i] + bias

    a = np.arange(4, dtype=np.float64)
    out = np.zeros(4)
    nested[1, 4](a, out)
    np.testing.assert_array_equal(out, 2 * a * 3.0 + OFFSETS + 0.5)


def test_cuda_jit_at_run_time():
    def plain(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = i * 2
    kernel = cuda.jit('void(float32[:])')(plain)
    a = np.zeros(5, np.float32)
    kernel[1, 5](a)
    np.testing.assert_array_equal(a, np.arange(5, dtype=np.float32) * 2)


def test_error_in_a_nested_kernel_names_its_line():
    def bad(a):
        a[0] = a[0] + "text"
    line = bad.__code__.co_firstlineno + 1
    try:
        cuda.jit('void(float32[:])')(bad)
    except KccError as e:
        assert '%s:%d:' % (__file__, line) in str(e), e
        assert 'a[0] = a[0] + "text"' in str(e), e
    else:
        raise AssertionError('a bad kernel compiled')


def test_kernel_in_exec_text():
    """Kernels made by exec() of text (as Numba's own tests make them from templates):
    Python keeps no copy of the text, kcc's audit hook does, and the right one of
    texts differing only in a name is found by the function's code."""
    template = ('@cuda.jit\ndef extreme(res, a):\n'
                '    i = cuda.grid(1)\n    if i < a.size:\n        cuda.atomic.%s(res, 0, a[i])\n')
    made = {}
    for op in ('max', 'min'):
        scope = {'cuda': cuda}
        exec(template % op, scope)
        made[op] = scope['extreme']
    a = np.array([3.0, -7.0, 11.0, 2.0])
    for op, want in (('max', 11.0), ('min', -7.0)):
        res = np.array([0.0])
        made[op][1, 4](res, a)
        assert res[0] == (want if op == 'max' else min(want, 0.0)), (op, res)
    # as in IPython's cells, a text linecache holds is read from there
    import linecache
    text = '@cuda.jit\ndef from_cell(a):\n    a[0] = 7\n'
    linecache.cache['<cell-1>'] = (len(text), None, text.splitlines(True), '<cell-1>')
    scope = {'cuda': cuda}
    exec(compile(text, '<cell-1>', 'exec'), scope)
    a = np.zeros(1, np.int64)
    scope['from_cell'][1, 1](a)
    assert a[0] == 7, a


def test_no_leak_in_a_loop_of_launches():
    """Reference counts exact: objects made by launches and copies all go away."""
    a = np.ones(64, np.float32)
    d, e = cuda.to_device(a), cuda.device_array_like(a)
    for _ in range(50):                 # warm up: caches, specialisations
        vector_add[1, 64](a, d, a)
        cuda.to_device(a).copy_to_host()
        vector_add[1, 64](d, d, e)
    gc.collect()
    before = len(gc.get_objects())
    refs = sys.getrefcount(d), sys.getrefcount(a)
    for _ in range(500):
        vector_add[1, 64](a, d, a)
        cuda.to_device(a).copy_to_host()
        vector_add[1, 64](d, d, e)
    gc.collect()
    assert (sys.getrefcount(d), sys.getrefcount(a)) == refs
    grown = len(gc.get_objects()) - before
    assert grown < 50, 'objects grew by %d over 500 launches' % grown


@cuda.jit
def add_one_everywhere(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1
        b[i] += 1


def test_numpy_arguments_as_numba_passes_them():
    """What a kernel does to NumPy arguments is what Numba's copies in and back make of
    it (on the CPU back end writable C-contiguous arrays are lent to the kernel as they
    are, the others copied): written arrays change, read-only ones do not, an array
    passed twice is written once per parameter through one copy each, as Numba's."""
    a, b = np.zeros(8), np.zeros(8)
    add_one_everywhere[1, 8](a, b)
    assert a.tolist() == [1.0] * 8 and b.tolist() == [1.0] * 8
    ro = np.zeros(8)
    ro.flags.writeable = False
    add_one_everywhere[1, 8](a, ro)                 # written on the device copy only
    assert a.tolist() == [2.0] * 8 and ro.tolist() == [0.0] * 8
    big = np.zeros(16)
    add_one_everywhere[1, 8](big[::2], big[1::2])   # strided views: copied, and back
    assert big.tolist() == [1.0] * 16
    c = np.zeros(8)
    add_one_everywhere[1, 8](c, c)                  # twice: two copies, the last back
    assert c.tolist() == [1.0] * 8, c


def test_compile_ptx_and_inspect_asm():
    """Numba's compile_ptx and a kernel's inspect_asm, without a GPU."""
    def add(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] + b[i]
    ptx, resty = cuda.compile_ptx(add, 'void(float32[:], float32[:], float32[:])',
                                  cc=(9, 0))
    assert '.target sm_90' in ptx and '.entry' in ptx, ptx[:300]
    assert str(resty) in ('none', 'void'), resty
    ptx, _ = cuda.compile_ptx(add, 'void(float64[:], float64[:], float64[:])')
    assert '.target sm_80' in ptx and '.f64' in ptx, ptx[:300]
    kernel = cuda.jit(add)
    kernel.bind()
    a = np.ones(4)
    kernel[1, 4](a, a, a.copy())
    asm = kernel.inspect_asm()   # keyed by argument types, as Numba's
    from kcc.source import type_text
    assert [type_text(k) for k in asm] == ['void(float64[::1], float64[::1], float64[::1])'], list(asm)
    assert '.f64' in list(asm.values())[0]
    llvm = kernel.inspect_llvm()
    assert list(llvm) == list(asm) and 'define' in list(llvm.values())[0], list(llvm)
    listing = io.StringIO()
    kernel.inspect_types(file=listing)
    text = listing.getvalue()
    assert text.startswith('add (float64[:], float64[:], float64[:])\n'), text[:200]
    assert '    out[i] = a[i] + b[i]' in text and '#   out: float64[:] (parameter)' in text, text
    def hyp(x, y):
        return x * x + y * y   # float32, by Numba's rules as by kcc's
    from kcc import types as kt
    ptx, resty = cuda.compile_ptx(hyp, (kt.float32, kt.float32), device=True)
    assert '.visible .func' in ptx and 'func_retval' in ptx, ptx[:400]
    assert '.entry' not in ptx and str(resty) == 'float32', (ptx[:400], resty)
    ptx, resty = cuda.compile_ptx(hyp, 'float32(float32, float32)', device=True,
                                  fastmath=True)
    assert 'fma.rn.ftz.f32' in ptx and str(resty) == 'float32', (ptx[:600], resty)
    try:
        cuda.compile_ptx(add, 'void(float32[:], float32[:], float32[:])', cc=(0, 5))
    except KccError as e:
        assert 'arch 5' in str(e), e
    else:
        raise AssertionError('sm_5 was taken')


POINT = np.dtype([('x', np.float64), ('y', np.float64), ('w', np.int32)], align=True)
SUBARRAY = np.dtype([('v', np.float32, (3,)), ('n', np.int32)])   # not align=True


@cuda.jit
def scale_points(pts, k):
    i = cuda.grid(1)
    if i < pts.size:
        pts[i].x *= k
        pts[i].y = pts[i].x + pts[i].w


@cuda.jit
def point_sum(out, p):
    out[0] = p.x + p.y + p.w


@cuda.jit
def subarray_sums(recs, out):
    i = cuda.grid(1)
    if i < recs.size:
        out[i] = recs[i].v[0] + recs[i].v[1] * recs[i].v[2] + recs[i].n


@cuda.jit
def points_from_local(out):
    i = cuda.grid(1)
    if i < out.size:
        tmp = cuda.local.array(1, POINT)
        tmp[0].x = i
        tmp[0].w = 3
        out[i].x = tmp[0].x * 2
        out[i].w = tmp[0].w


def test_record_dtype_as_a_global():
    """A record dtype a kernel uses is written into its text as np.dtype([...]), and
    serves cuda.local.array as in Numba."""
    from kcc import source
    text, _ = source.function_text(points_from_local.py_func, '@cuda.jit')
    assert ("POINT = __kcc_np.dtype([('x', __kcc_np.float64), ('y', __kcc_np.float64), "
            "('w', __kcc_np.int32)], align=True)") in text, text
    out = np.zeros(4, POINT)
    points_from_local[1, 4](out)
    assert out['x'].tolist() == [0.0, 2.0, 4.0, 6.0] and out['w'].tolist() == [3] * 4, out


def test_records():
    """NumPy structured arrays and record scalars as Numba passes them: arrays copied in
    and back, a record by value, device arrays of records; aligned and unaligned dtypes,
    a subarray field."""
    pts = np.zeros(5, POINT)
    pts['x'] = np.arange(5)
    pts['w'] = np.arange(5) * 10
    want = pts.copy()
    want['x'] *= 2.5
    want['y'] = want['x'] + want['w']
    scale_points[1, 5](pts, 2.5)
    same = lambda a, b: all(np.array_equal(a[f], b[f]) for f in POINT.names)  # not padding
    assert same(pts, want), pts
    d = cuda.to_device(pts)
    assert d.dtype == POINT and d.shape == (5,)
    assert same(d.copy_to_host(), pts)
    out = np.zeros(1)
    point_sum[1, 1](out, pts[3])
    assert out[0] == pts[3]['x'] + pts[3]['y'] + pts[3]['w'], out
    e = cuda.device_array(4, dtype=POINT)
    assert e.shape == (4,) and e.dtype == POINT
    recs = np.zeros(3, SUBARRAY)
    recs['v'] = np.arange(9, dtype=np.float32).reshape(3, 3)
    recs['n'] = [1, -2, 3]
    norms = np.zeros(3, np.float32)
    subarray_sums[1, 3](recs, norms)
    v = recs['v']
    assert np.array_equal(norms, v[:, 0] + v[:, 1] * v[:, 2] + recs['n']), norms


@cuda.jit(debug=True, opt=False)
def raises_at(a, where):
    i = cuda.grid(1)
    if i == where:
        raise IndexError("tuple index out of range")
    if i < a.size:
        a[i] = 1 // a[i]


def test_kernel_exceptions_raised_as_numba_does():
    """A debug kernel's raise (and its division by zero, Python's error model there) is
    raised as an exception of that class, which is also a KccError."""
    try:
        raises_at[1, 8](np.ones(8, np.int64), 3)
    except IndexError as e:
        assert isinstance(e, KccError) and e.status == 'KC_ERR_ASSERT', e
        assert 'tuple index out of range' in str(e) and 'thread (3, 0, 0)' in str(e), e
    else:
        raise AssertionError('the raise was lost')
    a = np.ones(8, np.int64)
    a[5] = 0
    try:
        raises_at[1, 8](a, -1)
    except ZeroDivisionError as e:
        assert 'division by zero' in str(e) and 'thread (5, 0, 0)' in str(e), e
    else:
        raise AssertionError('a division by zero was not raised in debug code')

    # a tuple indexed out of range in debug code (Numba's test_exception), and an array
    # index out of bounds with bounds checking: IndexError, as Numba raises
    def shape_at(ary):
        x = cuda.threadIdx.x
        if x == 2:
            ary[0] = ary.shape[-x]

    try:
        cuda.jit(debug=True, opt=False)(shape_at)[1, 3](np.zeros(2, np.int64))
    except IndexError as e:
        assert isinstance(e, KccError) and 'tuple index out of range' in str(e), e
        assert 'thread (2, 0, 0)' in str(e), e
    else:
        raise AssertionError('the tuple index out of range was not raised')

    @cuda.jit(debug=True)
    def past_end(a):
        a[5] = 1

    try:
        past_end[1, 1](np.zeros(3))
    except IndexError as e:
        assert isinstance(e, KccError) and e.status == 'KC_ERR_BOUNDS', e
        assert 'index 5 is out of bounds' in str(e), e
    else:
        raise AssertionError('the index out of bounds was not raised')


def test_specialize_as_numba():
    """specialize: one kernel per argument types, eager for Numba's types; a kernel
    already specialised (or compiled with a signature) refuses another, as Numba's."""
    from kcc import types as kt

    def fill(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = i
    f = cuda.jit(fill)
    a = f.specialize(kt.float32[::1])
    assert f.specialize(kt.float32[::1]) is a and len(f.specializations) == 1
    assert a.signatures == ['fill(float32[:])'], a.signatures     # kcc's spelling
    b = f.specialize(kt.int32[::1])
    assert b is not a and len(f.specializations) == 2
    x = np.zeros(4, np.float32)
    a[1, 4](x)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
    for already in (a, cuda.jit('void(float32[::1])')(fill)):
        try:
            already.specialize(kt.float32[::1])
        except RuntimeError as e:
            assert 'Dispatcher already specialized' in str(e), e
        else:
            raise AssertionError('a specialised kernel specialised again')


def test_each_dispatcher_its_own_overloads():
    """Two cuda.jit() of one function are two dispatchers, as in Numba: each lists the
    signatures of its own launches, and inspect_asm() gives their PTX (Numba's
    test_minmax decorates one function afresh per test and reads the PTX back)."""
    def pick(a, b, c):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = max(a[i], b[i])
    first, second = cuda.jit(pick), cuda.jit(pick)
    c = np.zeros(4)
    first[1, 4](np.arange(4, dtype=np.float32), np.full(4, 2, np.float32), c)
    assert c.tolist() == [2.0, 2.0, 2.0, 3.0], c
    second[1, 4](np.arange(4.0), np.full(4, 2.5), c)
    assert c.tolist() == [2.5, 2.5, 2.5, 3.0], c
    assert first.signatures == ['pick(float32[:], float32[:], float64[:])'], first.signatures
    assert second.signatures == ['pick(float64[:], float64[:], float64[:])'], second.signatures
    (ptx,) = second.inspect_asm().values()
    assert 'max.f64' in ptx and 'max.f32' not in ptx, ptx


def test_arrays_remember_their_stream():
    """d.stream: the stream a device array was made with, 0 without one (Numba's)."""
    s = cuda.stream()
    assert cuda.device_array(4, stream=s).stream is s
    assert cuda.to_device(np.ones(3), stream=s).stream is s
    assert cuda.device_array((2, 3), order='F', stream=s).stream is s
    assert cuda.device_array(2).stream == 0 and cuda.to_device(np.ones(2)).stream == 0
    s.synchronize()


def test_mapped_and_managed_arrays_are_host_arrays():
    """cuda.mapped_array and cuda.managed_array: NumPy arrays to host code (Numba's
    MappedNDArray and ManagedNDArray), which kernels read and write in place of the
    host: what the host wrote before a launch, the kernel sees; what the kernel wrote,
    the host sees after it."""
    @cuda.jit
    def twice_plus(x, k):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = 2 * x[i] + k
    for make in (cuda.mapped_array, cuda.managed_array):
        m = make((2, 3), dtype=np.float32)
        assert isinstance(m, np.ndarray) and m.shape == (2, 3) and m.dtype == np.float32
        m[:] = np.arange(6, dtype=np.float32).reshape(2, 3)
        twice_plus[1, 8](m.reshape(6), 1)
        cuda.synchronize()
        want = 2 * np.arange(6, dtype=np.float32).reshape(2, 3) + 1
        np.testing.assert_array_equal(m, want)
        assert float(m.sum()) == float(want.sum())                  # NumPy's own methods
        np.testing.assert_array_equal(m.copy_to_host(), want)      # and a device array's
        m.copy_to_device(cuda.to_device(np.zeros((2, 3), np.float32)))
        assert not m.any(), m
        cai = m.__cuda_array_interface__                 # the CPU back end's: host memory
        assert cai['data'][0] == m.ctypes.data and cai['shape'] == (2, 3), cai
        assert cai['stream'] is None and cai['typestr'] == '<f4', cai
    f = cuda.mapped_array((3, 4), order='F')
    assert f.flags['F_CONTIGUOUS'] and f.dtype == np.float64, f.flags


def test_in_out_arguments_and_extensions():
    """cuda.In (copied in, not back), cuda.Out (back, not in), cuda.InOut (both), as
    Numba's; a dispatcher's extensions rewrite each argument before the launch and their
    write-backs run after it (Numba's test_retrieve_autoconverted_arrays)."""
    @cuda.jit
    def bump(a, b):
        i = cuda.grid(1)
        if i < a.size:
            b[i] = a[i] + 1
            a[i] = -a[i]
    a, b = np.arange(4.0), np.zeros(4)
    bump[1, 4](cuda.In(a), cuda.Out(b))
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0] and b.tolist() == [1.0, 2.0, 3.0, 4.0], (a, b)
    bump[1, 4](cuda.InOut(a), b)
    assert a.tolist() == [0.0, -1.0, -2.0, -3.0], a
    calls = []

    class Hook:
        def prepare_args(self, ty, val, stream=0, retr=None):
            retr.append(lambda: calls.append('after'))
            return ty, cuda.In(val) if isinstance(val, np.ndarray) else val
    bump.extensions.append(Hook())
    bump[1, 4](a, b)
    assert a.tolist() == [0.0, -1.0, -2.0, -3.0] and calls == ['after', 'after'], (a, calls)


def test_kernel_resources_from_ptxas():
    """get_regs_per_thread, get_shared_mem_per_block, get_local_mem_per_thread: what
    ptxas reports of the kernel's PTX (Numba asks the driver of the same SASS); one value
    for a kernel with a signature, {argument types: value} for a lazy one. inspect_sass
    needs nvdisasm, and says so in Numba's words where it is missing."""
    from kcc import cuda as kcuda
    if kcuda._cuda_tool('ptxas') is None:
        raise Skip('no ptxas (the CUDA toolkit) to assemble the PTX')
    from kcc import types as kt

    @cuda.jit('void(float32[::1])')
    def flip(a):
        tile = cuda.shared.array(64, kt.float32)
        i = cuda.threadIdx.x
        tile[i] = a[i]
        cuda.syncthreads()
        a[i] = tile[63 - i]
    regs = flip.get_regs_per_thread()
    assert isinstance(regs, int) and regs > 0, regs
    assert flip.get_shared_mem_per_block() == 64 * 4, flip.get_shared_mem_per_block()
    assert flip.get_local_mem_per_thread() == 0, flip.get_local_mem_per_thread()

    @cuda.jit
    def scale(a, k):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= k
    scale[1, 4](np.ones(4, np.float32), 2.0)
    scale[1, 4](np.ones(4), 2.0)
    per_sig = scale.get_regs_per_thread()
    assert len(per_sig) == 2 and all(r > 0 for r in per_sig.values()), per_sig
    if kcuda._cuda_tool('nvdisasm') is None:
        try:
            flip.inspect_sass()
        except RuntimeError as e:
            assert 'nvdisasm is required' in str(e), e
        else:
            raise AssertionError('inspect_sass without nvdisasm gave no error')
    else:
        assert 'EXIT' in flip.inspect_sass(), flip.inspect_sass()


def test_compile_warnings_are_python_warnings():
    """kcc's compile warnings that Numba gives too reach Python as KccWarning (Numba's
    test_print reads the print-of-33-items one from stderr), each once; kcc's own hints
    (a float32 widened to float64) do not, Numba compiling such code without a word."""
    import warnings
    from kcc import KccWarning
    src = ('from kcc import cuda\n@cuda.jit\ndef many(r):\n    print(%s)\n'
           '@cuda.jit\ndef widened(a, x):\n    a[0] += x\n'
           % ', '.join('r[%d]' % k for k in range(33)))
    namespace = {}
    path = os.path.join(tempfile.mkdtemp(), 'many_items.py')
    with open(path, 'w') as f:
        f.write(src)
    exec(compile(src, path, 'exec'), namespace)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        namespace['many'][1, 1](np.arange(33))
        namespace['many'][1, 1](np.arange(33))
        namespace['widened'][1, 1](np.zeros(1, np.float32), 0.5)
        cuda.synchronize()
    texts = [str(w.message) for w in caught if issubclass(w.category, KccWarning)]
    assert len(texts) == 1 and 'many_items.py:4:5: warning: CUDA print() cannot print ' \
        'more than 32 items' in texts[0], texts


def test_enum_globals():
    """Enum classes a kernel uses are written into its text (Numba's enum support)."""
    import enum

    class Color(enum.IntEnum):
        red = 1
        green = 2

    class Shape(enum.Enum):
        circle = 3
        square = 4

    def f(out):
        out[0] = Color.green
        out[1] = Shape.square.value
        out[2] = Color.red == Color.green
        out[3] = Shape.circle == Shape.circle
    out = np.zeros(4, np.int64)
    cuda.jit(f)[1, 1](out)
    assert out.tolist() == [2, 4, 0, 1], out


def resident_bytes():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')


def test_memory_flat_over_100000_launches():
    """The issue's loop: 100,000 launches (host arrays copied in and back, device
    arrays made and dropped) leave the process's resident memory where it was."""
    if 'vgpreload' in os.environ.get('LD_PRELOAD', ''):
        raise Skip('under valgrind the resident memory is its quarantine of freed blocks')
    a = np.ones(64, np.float32)
    d, e = cuda.to_device(a), cuda.device_array_like(a)
    for _ in range(2000):                       # warm up: allocator pools, caches
        vector_add[1, 64](d, d, e)
        vector_add[1, 64](a, d, a)
        cuda.to_device(a)
    gc.collect()
    before = resident_bytes()
    for i in range(100000):
        if i % 3 == 0:
            vector_add[1, 64](a, d, a)          # a NumPy argument: copied in and back
        elif i % 3 == 1:
            vector_add[1, 64](d, d, cuda.device_array_like(a))
        else:
            vector_add[1, 64](d, d, e)
    gc.collect()
    grown = resident_bytes() - before
    assert grown < 4 << 20, 'resident memory grew by %d KiB' % (grown >> 10)


def test_runtime_facts():
    assert cuda.is_available() is True
    assert _kcc.device() in ('cpu', 'cuda')
    assert 'CPU' in _kcc.detect() or 'cpu' in _kcc.detect(), _kcc.detect()
    assert issubclass(KccError, Exception)




def test_devices():
    """cuda.get_current_device, gpus and select_device as Numba's, on the CPU back end
    (KC_DEVICE=cpu here): the CPU device, compute capability (0, 0)."""
    d = cuda.get_current_device()
    assert isinstance(d.name, bytes) and d.name, d.name
    assert d.compute_capability == (0, 0) and d.id == 0, d.compute_capability
    assert d.MAX_THREADS_PER_BLOCK >= 1 and d.MULTIPROCESSOR_COUNT >= 1
    assert d.WARP_SIZE == 32
    assert os.cpu_count() is None or d.MULTIPROCESSOR_COUNT <= os.cpu_count()
    assert len(cuda.gpus) == 1 and cuda.gpus[0].name == d.name
    assert [g.id for g in cuda.gpus] == [0] and cuda.gpus.current.name == d.name
    assert cuda.select_device(0).name == d.name
    with cuda.gpus[0] as g:
        assert g.id == 0
    try:
        cuda.select_device(-1)
    except ValueError as e:
        assert 'no device -1' in str(e), e
    else:
        raise AssertionError('device -1 was selected')


def test_operator_functions_as_closure_variables():
    """A kernel factory given operator.add, operator.floordiv ... (Numba's own
    test_operator does this): the closure variable is the operator; and `in` with a
    tuple. Expected values from NumPy's operators on the same inputs."""
    import operator

    def make(op):
        @cuda.jit
        def k(a, b, out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = op(a[i], b[i])
        return k

    a = np.arange(-8, 8, dtype=np.float64) * 1.5
    b = np.full(16, -2.5)
    for op in (operator.add, operator.sub, operator.mul, operator.truediv,
               operator.floordiv, operator.mod, operator.pow):
        out = np.zeros(16)
        make(op)[1, 16](a, b, out)
        with np.errstate(all="ignore"):
            want = op(a, b)
        np.testing.assert_allclose(out, want, rtol=1e-15)   # pow: libm against NumPy

    @cuda.jit
    def member(x, out):
        i = cuda.grid(1)
        if i < out.size:
            v = x[i]
            out[i] = 1 if v in (2, 3, 5, 7) else (2 if v not in (0, 1) else 0)

    x = np.arange(10, dtype=np.int64)
    out = np.zeros(10, dtype=np.int64)
    member[1, 10](x, out)
    want = [1 if v in (2, 3, 5, 7) else (2 if v not in (0, 1) else 0) for v in range(10)]
    assert out.tolist() == want, out


def test_device_functions_of_a_project_module():
    """A kernel calling mod.f and reading mod.K of the project's own module (import
    helpers; helpers.scale(x) * helpers.FACTOR), and of a module object in a closure
    (Numba's test_device_func does this): each attribute is bound by itself. Expected
    values from NumPy on the same formula."""
    import tempfile
    import types
    d = tempfile.mkdtemp()
    with open(os.path.join(d, 'kcc_test_helpers.py'), 'w') as f:
        f.write('from numba import cuda\n'
                'FACTOR = 3\n'
                '@cuda.jit(device=True)\n'
                'def scale(x):\n'
                '    return x * 2.0 + 1.0\n')
    sys.path.insert(0, d)
    try:
        import kcc_test_helpers as helpers
    finally:
        sys.path.remove(d)

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = helpers.scale(a[i]) * helpers.FACTOR

    a = np.linspace(-2, 2, 40)
    out = np.zeros_like(a)
    k[1, 40](a, out)
    assert np.array_equal(out, (a * 2.0 + 1.0) * 3), out

    def add(x, y):
        return x + y
    mod = types.ModuleType('mod')
    mod.add = add

    @cuda.jit
    def k2(ary):
        i = cuda.grid(1)
        ary[i] = mod.add(ary[i], 1)

    ary = np.arange(10)
    k2[1, 10](ary)
    assert ary.tolist() == list(range(1, 11)), ary


if __name__ == '__main__':
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from runner import run
    sys.exit(run(globals()))
