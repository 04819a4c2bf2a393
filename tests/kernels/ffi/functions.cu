// functions.cu — device functions in CUDA C++ for foreign_functions.k, with
// Numba's ABI (int status; the result through the first argument). The GPU links this
// file when the runtime loads the PTX (NVRTC); the CPU back end compiles it as C++.

// Numba's own example (docs: "Calling foreign functions from Python kernels")
extern "C" __device__ int mul_f32_f32(float *return_value, float x, float y) {
  *return_value = x * y;
  return 0;
}

// 8- and 16-bit integers arrive widened by their sign
extern "C" __device__ int widen_i8_i16(int *return_value, signed char a, short b) {
  *return_value = a * 1000 + b;
  return 0;
}

extern "C" __device__ int is_negative(bool *return_value, double x) {
  *return_value = x < 0;
  return 0;
}

extern "C" __device__ int axpy_f64(double *return_value, double a, double x, long long k) {
  *return_value = a * x + (double)k;
  return 0;
}
