# Seed 004 (../shared/seeds/004_*.txt, "How to use Numba for GPU programming?"): the
# tutorial's program as printed, its two code blocks one after the other. Run by
# test_main.py with `python3 -m kcc`, which checks what it prints against NumPy.
import numba.cuda as cuda

@cuda.jit
def add_vectors(a, b, result):
    i = cuda.grid(1)
    if i < len(a):
        result[i] = a[i] + b[i]

import numpy as np

# Create input arrays
a = np.array([1, 2, 3])
b = np.array([4, 5, 6])

# Allocate GPU memory for input and output arrays
d_a = cuda.to_device(a)
d_b = cuda.to_device(b)
d_result = cuda.device_array_like(a)

# Launch kernel on the GPU
block_size = 32
grid_size = (len(a) + block_size - 1) // block_size
add_vectors[grid_size, block_size](d_a, d_b, d_result)

# Copy result from GPU memory to the host
result = d_result.copy_to_host()

print(result)  # Output: [5, 7, 9]
