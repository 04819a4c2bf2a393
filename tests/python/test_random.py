"""numba.cuda.random from Python (python/kcc/random.py): states made on the host as
Numba makes them, drawn from in a kernel. The expected draws are Numba 0.56's
(numba.cuda.random's CPU functions, init_xoroshiro128p_states_cpu(states, 1, 0) and
three xoroshiro128p_uniform_float32 then one xoroshiro128p_normal_float64 per
generator), written here so that the test does not need Numba.

Run by meson (suite 'python') as test_basic.py is.
"""

import os
import sys

import numpy as np

from kcc import cuda
from kcc.cuda.random import (create_xoroshiro128p_states, xoroshiro128p_uniform_float32,
                             xoroshiro128p_normal_float64)

NUMBA_DRAWS = [
    [0.13312314450740814, 0.3780596852302551, 0.23055170476436615, -0.035259441070700226],
    [0.8763487339019775, 0.21028068661689758, 0.41908127069473267, -0.20831362101765138],
    [0.8710908889770508, 0.4541151821613312, 0.8666136860847473, 0.35608328016565105],
    [0.9364807605743408, 0.9279626607894897, 0.8188914060592651, -0.039938800979166605],
]


@cuda.jit
def draw(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for k in range(3):
            out[i, k] = xoroshiro128p_uniform_float32(states, i)
        out[i, 3] = xoroshiro128p_normal_float64(states, i)


@cuda.jit
def compute_pi(rng_states, iterations, out):
    """Numba's documentation example (Monte Carlo pi)."""
    thread_id = cuda.grid(1)
    inside = 0
    for i in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, thread_id)
        y = xoroshiro128p_uniform_float32(rng_states, thread_id)
        if x**2 + y**2 <= 1.0:
            inside += 1
    out[thread_id] = 4.0 * inside / iterations


def test_draws_are_numbas():
    states = create_xoroshiro128p_states(4, seed=1)
    assert states.shape == (4, 2) and states.dtype == np.uint64, (states.shape, states.dtype)
    first = states.copy_to_host()[:2].tolist()           # Numba's, before any draw
    assert first == [[10451216379200822465, 10451216379200822465],
                     [8341117667364343960, 7824662623250379246]], first
    out = np.zeros((4, 4))
    draw[1, 4](states, out)
    assert np.allclose(out, NUMBA_DRAWS, rtol=1e-15, atol=0), out


def test_subsequence_start():
    """Numba's states with subsequence_start=5 (values Numba 0.56.4's CUDA simulator
    gives for create_xoroshiro128p_states(3, seed=42, subsequence_start=5))."""
    states = create_xoroshiro128p_states(3, seed=42, subsequence_start=5)
    assert states.shape == (3, 2), states.shape
    assert states.copy_to_host().tolist() == [
        [9453079810665557108, 16242466236478186356],
        [2597645069605232943, 1167954634385444535],
        [6957967959162806577, 4501384021356308625]], states.copy_to_host()
    out = np.zeros((3, 4))
    draw[1, 3](states, out)   # a view of a longer array works as an argument
    assert np.isfinite(out).all(), out
    try:
        create_xoroshiro128p_states(3, seed=1, subsequence_start=-1)
    except ValueError as e:
        assert 'subsequence_start' in str(e), e
    else:
        raise AssertionError('a negative subsequence_start was taken')


def test_monte_carlo_pi():
    threads_per_block, blocks = 64, 24
    rng_states = create_xoroshiro128p_states(threads_per_block * blocks, seed=1)
    out = np.zeros(threads_per_block * blocks, dtype=np.float32)
    compute_pi[blocks, threads_per_block](rng_states, 10000, out)
    # 15.36 million points: pi within 4 standard deviations (sqrt(p(1-p)/N) * 4)
    assert abs(out.mean() - np.pi) < 4 * 4 * np.sqrt(0.785 * 0.215 / 15.36e6), out.mean()


def test_device_functions_are_device_only():
    try:
        xoroshiro128p_uniform_float32(None, 0)
    except TypeError as e:
        assert 'runs in kernels only' in str(e), e
    else:
        raise AssertionError('a device function ran on the host')
    try:
        create_xoroshiro128p_states(0, seed=1)
    except Exception as e:
        assert 'KccError' in type(e).__name__, e
    else:
        raise AssertionError('no states were made without an error')


if __name__ == '__main__':
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from runner import run
    sys.exit(run(globals()))
