# Seed 003 (../shared/seeds/003_*.txt, "Target = GPU - Numba"): the tutorial's code
# blocks as printed, one after the other, with the imports it leaves out, a fixed
# random seed, and prints of each result. Run by test_main.py with `python3 -m kcc`,
# which recomputes every printed value with NumPy.
import numpy as np
from numba import cuda, vectorize, guvectorize, float32

np.random.seed(3)

@cuda.jit
def doubled(arr):
    x_idx = cuda.threadIdx.x
    y_idx = cuda.threadIdx.y
    arr[x_idx, y_idx] *= 2

arr = np.random.randn(3, 3).astype(np.float32)
doubled[1, (3, 3)](arr)
print('doubled', arr.tolist())

@cuda.jit
def doubled_auto_grid(arr):
    x_idx, y_idx = cuda.grid(2)
    arr[x_idx, y_idx] *= 2

arr = np.random.randn(3, 3).astype(np.float32)
doubled_auto_grid[1, (3, 3)](arr)
print('doubled_auto_grid', arr.tolist())

@cuda.jit
def doubled_man_copy(arr, out):
    x_idx, y_idx = cuda.grid(2)
    out[x_idx, y_idx] = arr[x_idx, y_idx] * 2

arr = np.random.randn(3, 3).astype(np.float32)
out = cuda.device_array_like(arr)
arr_gpu = cuda.to_device(arr)
doubled_man_copy[1, (3, 3)](arr_gpu, out)
out = out.copy_to_host()
print('doubled_man_copy', out.tolist())

@cuda.reduce
def reduce_gpu(a, b):
    return a + b

arr = np.random.randn(3, 3).astype(np.float32)
flattened_arr = arr.flatten()
reduced_arr = reduce_gpu(flattened_arr)
print('reduce_gpu', repr(reduced_arr))

@vectorize(
    [float32(float32), ],
    target="cuda"
)
def doubled_ufunc(arr):
    arr *= 2
    return arr

arr = np.random.randn(3, 3).astype(np.float32)
out = doubled_ufunc(arr)
print('doubled_ufunc', type(out).__name__, out.dtype, out.tolist())

@guvectorize(
    [(float32[:, :], float32[:, :])],
    "(m,n)->(m,n)",
    target="cuda"
)
def doubled_gufunc(arr, out):
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            out[i, j] = arr[i, j] * 2

arr = np.random.randn(3, 3).astype(np.float32)
out = cuda.device_array_like(arr)
doubled_gufunc(arr, out)
out = out.copy_to_host()
print('doubled_gufunc', out.tolist())
