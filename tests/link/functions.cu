// mul_f32_f32 for a kernel that declares it with
//   mul = cuda.declare_device('mul_f32_f32', 'float32(float32, float32)')
// and is compiled with @cuda.jit(link=[this file]). Numba's ABI: the result through
// the first pointer, the int returned a status (0: no exception).
// cuda_fp16.h: NVRTC must find the toolkit's headers (runtime/nvrtc.c's -I).
#include <cuda_fp16.h>

extern "C" __device__ int mul_f32_f32(float *return_value, float x, float y) {
  *return_value = __half2float(__float2half(x)) * y;
  return 0;
}
