// transpose.cu — the CUDA C peer of bench/kernels/transpose.k: out = a.T through a
// 32x33 shared tile. a is rows x cols (row-major), out is cols x rows.
// Launch: 32x32 blocks, grid (ceil(cols/32), ceil(rows/32)).
// Parameters follow kcc's GPU ABI: each array is a pointer followed by its extents.
#define TILE 32

extern "C" __global__ void transpose(const float *a, long long rows, long long cols,
                                     float *out, long long orows, long long ocols) {
  __shared__ float tile[TILE][TILE + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  long long x0 = (long long)blockIdx.x * TILE, y0 = (long long)blockIdx.y * TILE;
  if (y0 + ty < rows && x0 + tx < cols) tile[ty][tx] = a[(y0 + ty) * cols + x0 + tx];
  __syncthreads();
  if (x0 + ty < cols && y0 + tx < rows) out[(x0 + ty) * ocols + y0 + tx] = tile[tx][ty];
}
