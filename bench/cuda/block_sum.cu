// block_sum.cu — the CUDA C peer of bench/kernels/block_sum.k: sums[b] = the sum of
// block b's 256 elements of a (zero past the end), a tree reduction in shared memory.
// Launch: exactly 256 threads per block.
// Parameters follow kcc's GPU ABI: each array is a pointer followed by its extents.
#define TPB 256

extern "C" __global__ void block_sum(const float *a, long long n, float *sums,
                                     long long nsums) {
  __shared__ float s[TPB];
  int t = threadIdx.x;
  long long i = (long long)blockIdx.x * blockDim.x + t;
  s[t] = i < n ? a[i] : 0.0f;
  __syncthreads();
  for (int stride = TPB / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = s[0];
}
