/* gst-cuda-vision: Sobel edge detection on the GPU.
 * One block computes a 128x8 tile of the edge map: the brightness-adjusted
 * luma of the tile plus a 1-pixel halo (border replicated) is read once into
 * shared memory, then each thread produces 4 horizontally adjacent outputs.
 * Integer arithmetic throughout: bit-exact with cpu-fallback/sobel.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cvsobel.h"

#include <cuda_runtime.h>

namespace {

constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kPixelsPerThread = 4;
constexpr int kTileW = kThreadsX * kPixelsPerThread;    /* 128 */
constexpr int kTileH = kThreadsY;                       /* 8 */
constexpr int kHaloW = kTileW + 2;
constexpr int kHaloH = kTileH + 2;

__device__ __forceinline__ int
clampi (int v, int lo, int hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

template < int BPP, bool RGB >
__global__ void __launch_bounds__ (kThreadsX * kThreadsY)
sobel_kernel (const uint8_t * __restrict__ src, size_t sstride, int ro, int go,
    int bo, uint8_t * __restrict__ dst, size_t dstride, int w, int h,
    int brightness, int threshold)
{
  __shared__ uint8_t tile[kHaloH][kHaloW + 2];

  const int x0 = blockIdx.x * kTileW - 1;
  const int y0 = blockIdx.y * kTileH - 1;

  /* Cooperative load of the haloed tile, one row of the tile per warp pass. */
  for (int ty = threadIdx.y; ty < kHaloH; ty += kThreadsY) {
    const int gy = clampi (y0 + ty, 0, h - 1);
    const uint8_t *row = src + (size_t) gy * sstride;
    for (int tx = threadIdx.x; tx < kHaloW; tx += kThreadsX) {
      const int gx = clampi (x0 + tx, 0, w - 1);
      const uint8_t *p = row + (size_t) gx * BPP;
      int l;
      if (RGB)
        l = (CV_LUMA_R * __ldg (p + ro) + CV_LUMA_G * __ldg (p + go) +
            CV_LUMA_B * __ldg (p + bo) + 128) >> 8;
      else
        l = __ldg (p);
      tile[ty][tx] = (uint8_t) clampi (l + brightness, 0, 255);
    }
  }
  __syncthreads ();

  const int oy = blockIdx.y * kTileH + threadIdx.y;
  if (oy >= h)
    return;
  const int lx = threadIdx.x * kPixelsPerThread;        /* tile column of output 0 */
  const int ox = blockIdx.x * kTileW + lx;
  if (ox >= w)
    return;

  const int r = threadIdx.y + 1;
  int a[3][kPixelsPerThread + 2];
#pragma unroll
  for (int i = 0; i < kPixelsPerThread + 2; i++) {
    a[0][i] = tile[r - 1][lx + i];
    a[1][i] = tile[r][lx + i];
    a[2][i] = tile[r + 1][lx + i];
  }

  uint8_t out[kPixelsPerThread];
#pragma unroll
  for (int i = 0; i < kPixelsPerThread; i++) {
    const int gx = (a[0][i + 2] - a[0][i]) + 2 * (a[1][i + 2] - a[1][i]) +
        (a[2][i + 2] - a[2][i]);
    const int gy = (a[2][i] + 2 * a[2][i + 1] + a[2][i + 2]) -
        (a[0][i] + 2 * a[0][i + 1] + a[0][i + 2]);
    const int s = gx * gx + gy * gy;
    /* sqrtf is correctly rounded (IEEE) by default in CUDA; for s < 255^2
     * truncation equals floor(sqrt(s)): same as the CPU. */
    const int m = s >= 65025 ? 255 : (int) sqrtf ((float) s);
    out[i] = (uint8_t) (m > threshold ? m : 0);
  }

  uint8_t *o = dst + (size_t) oy * dstride + ox;
  if (ox + kPixelsPerThread <= w && (((uintptr_t) o) & 3) == 0) {
    *reinterpret_cast < uchar4 * >(o) = make_uchar4 (out[0], out[1], out[2],
        out[3]);
  } else {
#pragma unroll
    for (int i = 0; i < kPixelsPerThread; i++)
      if (ox + i < w)
        o[i] = out[i];
  }
}

template < int BPP, bool RGB >
void
launch (const CvPlane * src, CvLumaLayout l, CvPlane * dst,
    const CvSobelParams * p, cudaStream_t stream)
{
  dim3 block (kThreadsX, kThreadsY);
  dim3 grid ((src->width + kTileW - 1) / kTileW,
      (src->height + kTileH - 1) / kTileH);
  sobel_kernel < BPP, RGB > <<<grid, block, 0, stream>>> (src->data,
      src->stride, l.r, l.g, l.b, dst->data, dst->stride, src->width,
      src->height, p->brightness, p->threshold);
}

}                               /* namespace */

extern "C" int
cv_sobel_cuda (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvSobelParams * params, void *stream)
{
  if (!src || !dst || !params || !src->data || !dst->data || src->width < 1
      || src->height < 1 || src->width != dst->width
      || src->height != dst->height)
    return CV_ERROR_INVALID_ARGUMENT;
  if (src->height > 65535 * kTileH)
    return CV_ERROR_INVALID_ARGUMENT;

  cudaStream_t s = (cudaStream_t) stream;
  const bool rgb = layout.r >= 0;
  if (!rgb && layout.bpp == 1)
    launch < 1, false > (src, layout, dst, params, s);
  else if (layout.bpp == 3)
    launch < 3, true > (src, layout, dst, params, s);
  else if (layout.bpp == 4)
    launch < 4, true > (src, layout, dst, params, s);
  else
    return CV_ERROR_INVALID_ARGUMENT;
  return (int) cudaGetLastError ();
}
