// grid_stride_add.cu — the CUDA C peer of bench/kernels/grid_stride_add.k.
// Parameters follow kcc's GPU ABI: each array is a pointer followed by its extents.
extern "C" __global__ void grid_stride_add(const float *a, long long na, const float *b,
                                           long long nb, float *out, long long n) {
  long long start = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = start; i < n; i += stride) out[i] = a[i] + b[i];
}
