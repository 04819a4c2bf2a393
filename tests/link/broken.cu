// Does not compile: NVRTC's log must reach the caller (test_cuda_link).
extern "C" __device__ int broken_f32(float *return_value, float x) {
  *return_value = x * undeclared_factor;
  return 0;
}
