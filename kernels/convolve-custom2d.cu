/* gst-cuda-vision: cudaconvolve on the GPU, one general (non-separable)
 * custom kernel on 1-byte pixels (GRAY8, the planes of I420). Arithmetic
 * identical to cpu-fallback/convolve.c (see cvconvolve.h and
 * convolve_common.h): bit-exact results.
 *
 * A block of CB_X x CB_Y threads owns 64 x 16 outputs: every thread 8
 * consecutive outputs of one row, whose accumulators stay in registers.
 * The tile + halo is converted to float in shared memory once (border
 * rule applied). For kernel row i a thread loads the 8 + K - 1 inputs it
 * needs and the K weights (float4, the weights broadcast), then adds the
 * K products of every output in order j = 0 .. K - 1: each output still
 * sees acc = (((0 + w00 p00) + w01 p01) + ...) in the documented order.
 * The row pitch (== 4 mod 32 words) and the 8 x 4 threads of a warp make
 * the float4 loads conflict-free.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "convolve-internal.h"

#define CB_X 8
#define CB_Y 16
#define CB_P 8

template < int K > struct CustomGeom
{
  static constexpr int R = K / 2;
  static constexpr int TW = CB_X * CB_P, TH = CB_Y;
  static constexpr int IW = TW + K - 1, IH = TH + K - 1;
  static constexpr int NIN4 = (CB_P + K - 1 + 3) / 4;   /* float4 per row */
  static constexpr int NEED = (CB_X - 1) * CB_P + 4 * NIN4;
  static constexpr int W0 = IW > NEED ? IW : NEED;
  static constexpr int PITCH = (W0 + 27) / 32 * 32 + 4 >= W0 ?
      (W0 + 27) / 32 * 32 + 4 : (W0 + 27) / 32 * 32 + 36;
  static constexpr int KP = (K + 3) / 4 * 4;
};

template < int K >
__global__ void __launch_bounds__ (CB_X * CB_Y)
custom2d_kernel (const uint8_t * __restrict__ src, size_t sstride,
    uint8_t * __restrict__ dst, size_t dstride, int W, int H, int mode,
    int vec, const __grid_constant__ GpuChain p)
{
  typedef CustomGeom < K > G;
  static_assert (G::PITCH % 32 == 4 && G::PITCH >= G::W0, "pitch");
  __shared__ __align__ (16) float tile[G::IH * G::PITCH];
  __shared__ __align__ (16) float wts[K * G::KP];
  const int tid = threadIdx.x;
  const int x0 = (int) blockIdx.x * G::TW, y0 = (int) blockIdx.y * G::TH;

  for (int o = tid; o < K * G::KP; o += CB_X * CB_Y) {
    const int i = o / G::KP, j = o - i * G::KP;
    wts[o] = j < K ? p.w[i * K + j] : 0.0f;
  }
  for (int o = tid; o < G::IH * G::PITCH; o += CB_X * CB_Y) {
    const int j = o / G::PITCH, i = o - j * G::PITCH;
    float v = 0.0f;

    if (i < G::IW) {
      const int my = cv_conv_border (y0 - G::R + j, H, mode);
      const int mx = cv_conv_border (x0 - G::R + i, W, mode);
      if (my >= 0 && mx >= 0)
        v = (float) src[(size_t) my * sstride + mx];
    }
    tile[o] = v;
  }
  __syncthreads ();

  {
    const int tx = tid % CB_X, ty = tid / CB_X;
    const int gy = y0 + ty, gx = x0 + tx * CB_P;
    const float *base = tile + ty * G::PITCH + tx * CB_P;
    float acc[CB_P];

#pragma unroll
    for (int o = 0; o < CB_P; o++)
      acc[o] = 0.0f;
#pragma unroll 1
    for (int i = 0; i < K; i++) {
      float v[4 * G::NIN4], w[G::KP];

#pragma unroll
      for (int q = 0; q < G::NIN4; q++)
        *(float4 *) & v[4 * q] = *(const float4 *) (base + i * G::PITCH +
            4 * q);
#pragma unroll
      for (int q = 0; q < G::KP / 4; q++)
        *(float4 *) & w[4 * q] = *(const float4 *) (wts + i * G::KP + 4 * q);
#pragma unroll
      for (int j = 0; j < K; j++)
#pragma unroll
        for (int o = 0; o < CB_P; o++)
          acc[o] = __fadd_rn (acc[o], __fmul_rn (w[j], v[o + j]));
    }

    if (gy < H && gx < W) {
      uint8_t *q = dst + (size_t) gy * dstride + gx;
      uint32_t b[CB_P];

#pragma unroll
      for (int o = 0; o < CB_P; o++)
        b[o] = (uint32_t) cv_conv_round_sat (acc[o]);
      if (vec && gx + CB_P <= W) {
#pragma unroll
        for (int o = 0; o < CB_P; o += 4)
          *(uint32_t *) (q + o) = b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) |
              (b[o + 3] << 24);
      } else {
#pragma unroll
        for (int o = 0; o < CB_P; o++)
          if (gx + o < W)
            q[o] = (uint8_t) b[o];
      }
    }
  }
}

template < int K >
static CvStatus
launch_custom2d (const uint8_t * src, size_t sstride, uint8_t * dst,
    size_t dstride, int W, int H, const GpuChain & g, cudaStream_t stream)
{
  typedef CustomGeom < K > G;
  const int vec = ((uintptr_t) dst % 4 == 0) && dstride % 4 == 0;
  dim3 grid ((unsigned) cv_div_up (W, G::TW), (unsigned) cv_div_up (H,
          G::TH));

  if (grid.y > 65535)
    return CV_ERROR_INVALID_ARGUMENT;
  custom2d_kernel < K > <<<grid, CB_X * CB_Y, 0, stream>>> (src, sstride,
      dst, dstride, W, H, g.border, vec, g);
  return cv_cuda_status (cudaGetLastError ());
}

int
cv_conv_custom2d_try (int bpp, int nc, const uint8_t * s, size_t ss,
    uint8_t * d, size_t ds, int W, int H, const GpuChain & g,
    cudaStream_t st, CvStatus *ret)
{
  if (g.n != 1 || g.kind[0] != CV_FILTER_CUSTOM || g.sep_custom || bpp != 1
      || nc != 1)
    return 0;
  switch (g.ksize) {
#define CV_K(k) case k: \
    *ret = launch_custom2d < k > (s, ss, d, ds, W, H, g, st); \
    return 1;
      CV_K (3) CV_K (5) CV_K (7) CV_K (9) CV_K (11) CV_K (13) CV_K (15)
          CV_K (17) CV_K (19) CV_K (21) CV_K (23) CV_K (25) CV_K (27)
          CV_K (29) CV_K (31)
#undef CV_K
    default:
      return 0;
  }
}

/* every general custom kernel size, loaded at the operator's create
 * (convolve-internal.h) */
CvStatus
cv_conv_custom2d_preload (int bpp, int nc)
{
  const void *k[] = {
    (const void *) custom2d_kernel < 3 >, (const void *) custom2d_kernel < 5 >,
    (const void *) custom2d_kernel < 7 >, (const void *) custom2d_kernel < 9 >,
    (const void *) custom2d_kernel < 11 >,
    (const void *) custom2d_kernel < 13 >,
    (const void *) custom2d_kernel < 15 >,
    (const void *) custom2d_kernel < 17 >,
    (const void *) custom2d_kernel < 19 >,
    (const void *) custom2d_kernel < 21 >,
    (const void *) custom2d_kernel < 23 >,
    (const void *) custom2d_kernel < 25 >,
    (const void *) custom2d_kernel < 27 >,
    (const void *) custom2d_kernel < 29 >,
    (const void *) custom2d_kernel < 31 >,
  };
  if (bpp != 1 || nc != 1)
    return CV_OK;
  return cv_cuda_preload (k, (int) (sizeof (k) / sizeof (k[0])));
}
