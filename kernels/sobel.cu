/* gst-cuda-vision: Sobel edge detection on the GPU.
 * Aligned GRAY8/luma and 4-byte RGB planes: each thread slides 3 rows of
 * luma through registers over a 4x4 strip, reading rows as 32-bit words or
 * 16-byte vectors. Other planes (RGB/BGR, unaligned rows): one block computes
 * a 128x8 tile whose brightness-adjusted luma plus a 1-pixel halo (border
 * replicated) is read once into shared memory, then each thread produces 4
 * horizontally adjacent outputs. The norm (L2, L1) is a template parameter:
 * the L2 instantiations are the kernels of before the norm existed.
 * Kernel sizes 5 and 7 (OpenCV's Sobel kernels, sobel_core.h), every
 * layout: sobel_sep_kernel, the aperture separated into binomial smoothing
 * (horizontal by dp4a on words of luma, vertical slid through registers)
 * and the 3x3 Sobel of the smoothed luma, 4 columns x 8 rows a thread, the
 * neighbour columns by shuffle, no shared memory, sums in floats holding
 * integers exactly (see its section). Issue #25, H100, timed as kbench
 * does (a graph of 200 launches, median of 5 replays, random frames):
 * 1080p GRAY8 13.1 -> 5.4 us (k 5), 13.6 -> 6.0 us (k 7); 4K RGBA k 7
 * 57.3 -> 17.6 us (the shared-memory kernel before it, sobel_k_kernel, in
 * the same session).
 * Integer arithmetic (or floats holding integers exactly) throughout:
 * bit-exact with cpu-fallback/sobel.c.
 * The operator (cv_sobel_cuda_ops) at the end.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cuda-internal.h"
#include "cvop-internal.h"
#include "sobel_core.h"
#include "fill.cuh"

#include <cuda_runtime.h>
#include <stdlib.h>

namespace {

constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kPixelsPerThread = 4;
constexpr int kTileW = kThreadsX * kPixelsPerThread;    /* 128 */
constexpr int kTileH = kThreadsY;                       /* 8 */
constexpr int kHaloW = kTileW + 2;
constexpr int kHaloH = kTileH + 2;

/* NORM: CV_SOBEL_NORM_L2 (the magnitude as it always was) or
 * CV_SOBEL_NORM_L1; the L2 instantiations are the original kernels. */
template < int BPP, bool RGB, int NORM, typename F = CvNoFill >
__global__ void __launch_bounds__ (kThreadsX * kThreadsY)
sobel_kernel (const uint8_t * __restrict__ src, size_t sstride, int ro, int go,
    int bo, uint8_t * __restrict__ dst, size_t dstride, int w, int h,
    int brightness, int threshold, const F fill)
{
  __shared__ uint8_t tile[kHaloH][kHaloW + 2];

  cv_fill_share (fill);

  const int x0 = blockIdx.x * kTileW - 1;
  const int y0 = blockIdx.y * kTileH - 1;

  /* Cooperative load of the haloed tile, one row of the tile per warp pass. */
  for (int ty = threadIdx.y; ty < kHaloH; ty += kThreadsY) {
    const int gy = cv_border_replicate (y0 + ty, h);
    const uint8_t *row = src + (size_t) gy * sstride;
    for (int tx = threadIdx.x; tx < kHaloW; tx += kThreadsX) {
      const int gx = cv_border_replicate (x0 + tx, w);
      const uint8_t *p = row + (size_t) gx * BPP;
      int l;
      if (RGB)
        l = cv_luma (__ldg (p + ro), __ldg (p + go), __ldg (p + bo));
      else
        l = __ldg (p);
      tile[ty][tx] = (uint8_t) cv_clamp (l + brightness, 0, 255);
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
    int m;
    if (NORM == CV_SOBEL_NORM_L1) {
      m = cv_sobel_mag_l1 (gx, gy);
    } else {
      const int s = gx * gx + gy * gy;
      /* sqrtf is correctly rounded (IEEE) by default in CUDA; for s < 255^2
       * truncation equals floor(sqrt(s)): same as the CPU. */
      m = s >= 65025 ? 255 : (int) sqrtf ((float) s);
    }
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

constexpr int kVecThreadsY = 8;

/* the luma of one pixel of a row (BPP 1: the byte; 4: a 32-bit pixel) */
template < int BPP >
__device__ __forceinline__ int
luma_of (uint32_t px, int ro, int go, int bo)
{
  if (BPP == 1)
    return (int) (px & 255);
  return cv_luma ((int) ((px >> (8 * ro)) & 255),
      (int) ((px >> (8 * go)) & 255), (int) ((px >> (8 * bo)) & 255));
}

template < int BPP >
__device__ __forceinline__ uint32_t
pixel_at (const uint8_t * row, int x)
{
  if (BPP == 1)
    return __ldg (row + x);
  return __ldg (reinterpret_cast < const uint32_t * >(row) + x);
}

/* ---- the shuffle kernel: GRAY8 / luma planes (BPP 1), 4-byte pixels ----
 * What the H100 bounded the vectorised kernel before it by was
 * instructions, not bytes (1080p GRAY8: 5.6 us against 1.45 us for a copy
 * of the frame). This one
 * spends fewer per pixel:
 * - each thread reads its 4 pixels of a row as one word (one 16-byte vector
 *   for 4-byte pixels) and takes the neighbours x0 - 1 and x0 + 4 from its
 *   warp neighbours' words by shuffle; only lanes 0 and 31 read them;
 * - the R + 2 rows of its R output rows are read before any arithmetic
 *   (independent loads in flight together);
 * - the aperture is separated: per column the smoothing sum t + 2m + b and
 *   the difference b - t, then Gx = S[i + 1] - S[i - 1] and Gy = D[i - 1]
 *   + 2 D[i] + D[i + 1] (the same integers as cv_sobel_gradient_at);
 * - brightness 0 skips the add and clamp (template parameter);
 * - L2: floor (sqrt (s)) from the approximate hardware square root, exact
 *   (floor_sqrt_255; cv_sobel_cuda_mag_check () checks every s on the
 *   device);
 * Pixels outside the frame replicate the edge, as everywhere. */
__device__ __forceinline__ float
sqrt_approx (float x)
{
  float r;
  asm ("sqrt.approx.ftz.f32 %0, %1;":"=f" (r):"f" (x));
  return r;
}

/* min (255, floor (sqrt (s))) for 0 <= s < 2^22, without the quarter-rate
 * int <-> float conversions: s as a float by its bits (s | 2^23's
 * exponent, minus 2^23), the square root less 0.499 rounded to the
 * nearest integer by adding 1.5 * 2^23 (the integer lands in the low
 * mantissa bits). With the approximation's error e (|e| < 1e-4 below 256):
 * for k^2 <= s < (k + 1)^2, sqrt (s) + e - 0.499 lies in [k - 0.4992,
 * k + 0.4992] (sqrt (s) <= k + 1 - 1/512), so the rounding gives k. */
__device__ __forceinline__ int
floor_sqrt_255 (int s)
{
  const float f = __int_as_float (s | 0x4b000000) - 8388608.0f;
  const float y = fminf (sqrt_approx (f) - 0.499f, 255.0f);
  return __float_as_int (y + 12582912.0f) - 0x4b400000;
}

template < int NORM >
__device__ __forceinline__ int
magnitude_fast (int gx, int gy)
{
  if (NORM == CV_SOBEL_NORM_L1)
    return min (abs (gx) + abs (gy), 255);
  return floor_sqrt_255 (gx * gx + gy * gy);
}

/* luma of 4 pixels of one word (BPP 1: 4 bytes; BPP 4: a uint4) */
template < int BPP, bool BRIGHT >
__device__ __forceinline__ void
unpack4 (uint4 v, int ro, int go, int bo, int brightness, int l[4])
{
  if (BPP == 1) {
    l[0] = v.x & 255;
    l[1] = (v.x >> 8) & 255;
    l[2] = (v.x >> 16) & 255;
    l[3] = v.x >> 24;
  } else {
    l[0] = luma_of < 4 > (v.x, ro, go, bo);
    l[1] = luma_of < 4 > (v.y, ro, go, bo);
    l[2] = luma_of < 4 > (v.z, ro, go, bo);
    l[3] = luma_of < 4 > (v.w, ro, go, bo);
  }
  if (BRIGHT) {
#pragma unroll
    for (int i = 0; i < 4; i++)
      l[i] = cv_clamp (l[i] + brightness, 0, 255);
  }
}

/* pixels x0 .. x0 + 3 of a row as one word, the edge replicated */
template < int BPP >
__device__ __forceinline__ uint4
load4 (const uint8_t * __restrict__ row, int x0, int w)
{
  uint4 v;
  if (x0 + 3 < w) {
    if (BPP == 1) {
      v.x = __ldg (reinterpret_cast < const uint32_t * >(row + x0));
    } else {
      v = __ldg (reinterpret_cast < const uint4 * >(row) + x0 / 4);
    }
  } else {
    uint32_t p[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
      p[i] = pixel_at < BPP > (row, min (x0 + i, w - 1));
    if (BPP == 1)
      v.x = p[0] | (p[1] << 8) | (p[2] << 16) | (p[3] << 24);
    else
      v = make_uint4 (p[0], p[1], p[2], p[3]);
  }
  return v;
}

template < int BPP, int NORM, int R, bool BRIGHT, typename F = CvNoFill >
__global__ void __launch_bounds__ (kThreadsX * kVecThreadsY)
sobel_shfl_kernel (const uint8_t * __restrict__ src, size_t sstride, int ro,
    int go, int bo, uint8_t * __restrict__ dst, size_t dstride, int w, int h,
    int brightness, int threshold, const F fill)
{
  cv_fill_share (fill);
  const int lane = threadIdx.x;
  const int x0 = (blockIdx.x * kThreadsX + lane) * 4;
  const int y0 = (blockIdx.y * kVecThreadsY + threadIdx.y) * R;
  /* whole warps stay (the shuffles): a lane right of the frame reads its
   * last pixel in every column (load4 clamps), which is what its left
   * neighbour needs from it, and stores nothing */
  if (y0 >= h)
    return;
  uint4 v[R + 2];
#pragma unroll
  for (int r = 0; r < R + 2; r++) {
    const int y = min (max (y0 - 1 + r, 0), h - 1);
    v[r] = load4 < BPP > (src + (size_t) y * sstride, x0, w);
  }
  /* the left neighbour of lane 0 and the right one of lane 31 */
  uint32_t edge[R + 2];
  if (lane == 0 || lane == kThreadsX - 1) {
    const int xe = lane == 0 ? max (x0 - 1, 0) : min (x0 + 4, w - 1);
#pragma unroll
    for (int r = 0; r < R + 2; r++) {
      const int y = min (max (y0 - 1 + r, 0), h - 1);
      edge[r] = pixel_at < BPP > (src + (size_t) y * sstride, xe);
    }
  }

  int c[3][6];                  /* luma of columns x0 - 1 .. x0 + 4 */
#pragma unroll
  for (int r = 0; r < R + 2; r++) {
    int l[6];
    unpack4 < BPP, BRIGHT > (v[r], ro, go, bo, brightness, l + 1);
    l[0] = __shfl_up_sync (0xffffffffu, l[4], 1);
    l[5] = __shfl_down_sync (0xffffffffu, l[1], 1);
    if (lane == 0 || lane == kThreadsX - 1) {
      int e = BPP == 1 ? (int) edge[r] : luma_of < 4 > (edge[r], ro, go, bo);
      if (BRIGHT)
        e = cv_clamp (e + brightness, 0, 255);
      if (lane == 0)
        l[0] = e;
      else
        l[5] = e;
    }
#pragma unroll
    for (int i = 0; i < 6; i++)
      c[r % 3][i] = l[i];
    if (r >= 2) {
      const int *t = c[(r - 2) % 3], *m = c[(r - 1) % 3], *b = c[r % 3];
      const int y = y0 + r - 2;
      int s[6], d[6];
#pragma unroll
      for (int i = 0; i < 6; i++) {
        s[i] = t[i] + 2 * m[i] + b[i];
        d[i] = b[i] - t[i];
      }
      uint32_t word = 0;
#pragma unroll
      for (int i = 0; i < 4; i++) {
        const int gx = s[i + 2] - s[i];
        const int gy = d[i] + 2 * d[i + 1] + d[i + 2];
        const int mag = magnitude_fast < NORM > (gx, gy);
        word |= (uint32_t) (mag > threshold ? mag : 0) << (8 * i);
      }
      if (y < h && x0 < w) {
        uint8_t *o = dst + (size_t) y * dstride + x0;
        if (x0 + 3 < w && (((uintptr_t) o) & 3) == 0) {
          *reinterpret_cast < uint32_t * >(o) = word;
        } else {
#pragma unroll
          for (int i = 0; i < 4; i++)
            if (x0 + i < w)
              o[i] = (uint8_t) (word >> (8 * i));
        }
      }
    }
  }
}

template < int BPP, int NORM, int R, typename F = CvNoFill >
void
launch_shfl_r (const CvPlane * src, CvLumaLayout l, CvPlane * dst,
    const CvSobelParams * p, const F & fill, cudaStream_t stream)
{
  dim3 block (kThreadsX, kVecThreadsY);
  dim3 grid (cv_div_up (src->width, kThreadsX * 4),
      cv_div_up (src->height, kVecThreadsY * R));
  if (p->brightness == 0)
    sobel_shfl_kernel < BPP, NORM, R, false, F > <<<grid, block, 0, stream>>>
        (src->data, src->stride, l.r, l.g, l.b, dst->data, dst->stride,
        src->width, src->height, 0, p->threshold, fill);
  else
    sobel_shfl_kernel < BPP, NORM, R, true, F > <<<grid, block, 0, stream>>>
        (src->data, src->stride, l.r, l.g, l.b, dst->data, dst->stride,
        src->width, src->height, p->brightness, p->threshold, fill);
}

template < int BPP, int R, typename F = CvNoFill >
void
launch_shfl (const CvPlane * src, CvLumaLayout l, CvPlane * dst,
    const CvSobelParams * p, const F & fill, cudaStream_t stream)
{
  if (p->norm == CV_SOBEL_NORM_L1)
    launch_shfl_r < BPP, CV_SOBEL_NORM_L1, R > (src, l, dst, p, fill, stream);
  else
    launch_shfl_r < BPP, CV_SOBEL_NORM_L2, R > (src, l, dst, p, fill, stream);
}

template < int BPP, bool RGB, typename F = CvNoFill >
void
launch (const CvPlane * src, CvLumaLayout l, CvPlane * dst,
    const CvSobelParams * p, const F & fill, cudaStream_t stream)
{
  dim3 block (kThreadsX, kThreadsY);
  dim3 grid (cv_div_up (src->width, kTileW), cv_div_up (src->height,
          kTileH));
  if (p->norm == CV_SOBEL_NORM_L1)
    sobel_kernel < BPP, RGB, CV_SOBEL_NORM_L1, F > <<<grid, block, 0, stream>>>
        (src->data, src->stride, l.r, l.g, l.b, dst->data, dst->stride,
        src->width, src->height, p->brightness, p->threshold, fill);
  else
    sobel_kernel < BPP, RGB, CV_SOBEL_NORM_L2, F > <<<grid, block, 0, stream>>>
        (src->data, src->stride, l.r, l.g, l.b, dst->data, dst->stride,
        src->width, src->height, p->brightness, p->threshold, fill);
}

/* ---- apertures 5 and 7: the separable form, slid through registers ----
 * OpenCV's kernels factor through the 3x3 one (sobel_core.h; B2 = 1 2 1,
 * B4 = 1 4 6 4 1, D = -1 0 1):
 *   k = 5: smooth = B2 * B2, deriv = B2 * D;
 *   k = 7: smooth = B4 * B2, deriv = B4 * D,
 * so Gx = B2_y D_x C and Gy = D_y B2_x C with C = Bs_x Bs_y in (Bs = B2 or
 * B4, radius RS = 1 or 2): the 3x3 Sobel of the binomially smoothed luma
 * (of the replicated plane: every stage is computed at its own
 * coordinates from luma read with clamped coordinates, never clamped
 * itself, so the result is the definition's).
 * A block is 4 warps one above the other, a warp 32 lanes x 4 columns x
 * R = 8 rows; lanes 0 and 31 only supply the halo (RS + 1 <= 3 columns),
 * lanes 1 .. 30 store: 120 x 32 outputs a block, no divergent edge code.
 * A thread:
 * - reads its 4 pixels of the R + K - 1 rows first (one 32-bit word of
 *   GRAY8 or one 16-byte vector of 4-byte RGB a row, in one branch for all
 *   rows; pixel by pixel at the frame's left and right edges and for other
 *   layouts), all loads in flight together;
 * - per row: the 4 luma bytes as one word (RGB: one dp4a a pixel,
 *   77 R + 150 G + 29 B + 128, its byte 1 = cv_luma; brightness by
 *   saturating byte adds), the words of the lanes left and right by
 *   shuffle, Bs_x of its 4 columns by dp4a with the weights as bytes
 *   (<= 255 * 16, added to 0x4b000000: the float 2^23 + sum);
 * - keeps the last 2 RS + 1 smoothed rows in registers, smooths them
 *   vertically (Bs_y) into a row of C, keeps the last 3 rows of C and from
 *   them s = C_t + 2 C_m + C_b and d = C_b - C_t, takes the outer s and d
 *   from the next lanes by shuffle: Gx = s[x + 1] - s[x - 1],
 *   Gy = d[x - 1] + 2 d[x] + d[x + 1];
 * - the magnitude (sep_magnitude, as cv_sobel_magnitude), the 4 bytes
 *   packed into a word, the threshold on the 4 at once, one store.
 * The vertical sums and Gx, Gy are floats: every value is an integer below
 * 2^24 (|G| <= 326400), so every add and (fused) multiply-add is exact, at
 * twice the integer rate. Per output (k 7): 1.75 rows of horizontal
 * smoothing (2 dp4a + 1 add a column), 1.25 rows of vertical (4 flops),
 * 6 flops of 3x3, ~7 for L2, 0.75 shuffles; 48-72 registers (sm_90, R 8),
 * no shared memory. Tried on the H100 and slower at 1080p GRAY8: blocks
 * of 1, 2 or 8 warps, R = 4, 6, 10, 12, 16, exchanging C instead of s and d
 * (faster for 4K RGBA only), float luma with float horizontal sums. ---- */
constexpr int kSepWarps = 4;    /* warps of a block, one above the other */
constexpr int kSepTileW = (kThreadsX - 2) * 4;  /* 120 output columns */

/* how a thread reads its 4 pixels of a row */
enum
{
  kSepGray = 0,                 /* 1-byte luma, 4-byte aligned rows: a word */
  kSepRgba = 1,                 /* 4-byte RGB, 16-byte aligned rows: a uint4 */
  kSepAny = 2                   /* any layout: pixel by pixel */
};

/* raw pixels x0 .. x0 + 3 of a row one by one, the edge replicated on
 * both sides (the rows of lanes at the frame's left and right edges, and
 * every row of kSepAny): kSepGray: the 4 bytes in .x; kSepRgba: the 4
 * pixels; kSepAny: the 4 luma values (not brightness-adjusted) */
template < int MODE >
__device__ __forceinline__ uint4
sep_load_edge (const uint8_t * __restrict__ row, int x0, int w, int bpp,
    int ro, int go, int bo)
{
  uint32_t p[4];
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const int x = min (max (x0 + i, 0), w - 1);
    if (MODE == kSepGray) {
      p[i] = __ldg (row + x);
    } else if (MODE == kSepRgba) {
      p[i] = __ldg (reinterpret_cast < const uint32_t * >(row) + x);
    } else {
      const uint8_t *q = row + (size_t) x * bpp;
      p[i] = ro < 0 ? __ldg (q) :
          cv_luma (__ldg (q + ro), __ldg (q + go), __ldg (q + bo));
    }
  }
  if (MODE == kSepGray)
    return make_uint4 (p[0] | (p[1] << 8) | (p[2] << 16) | (p[3] << 24), 0, 0,
        0);
  return make_uint4 (p[0], p[1], p[2], p[3]);
}

/* the brightness-adjusted luma of the 4 pixels as the 4 bytes of a word
 * (pixel x0 in the low byte); wl: the dp4a weights of R, G, B (kSepRgba);
 * badd, bsub: the brightness as 4 bytes, added or subtracted with
 * saturation (one of them 0) */
template < int MODE, bool BRIGHT >
__device__ __forceinline__ uint32_t
sep_luma4 (uint4 v, uint32_t wl, uint32_t badd, uint32_t bsub)
{
  uint32_t x;
  if (MODE == kSepGray) {
    x = v.x;
  } else if (MODE == kSepRgba) {
    /* 77 R + 150 G + 29 B + 128 < 2^16: the luma is its byte 1 */
    x = __byte_perm (__byte_perm (__dp4a (v.x, wl, 128u), __dp4a (v.y, wl,
                128u), 0x0051), __byte_perm (__dp4a (v.z, wl, 128u),
            __dp4a (v.w, wl, 128u), 0x0051), 0x5410);
  } else {
    x = __byte_perm (__byte_perm (v.x, v.y, 0x0040), __byte_perm (v.z, v.w,
            0x0040), 0x5410);
  }
  if (BRIGHT)
    x = __vsubus4 (__vaddus4 (x, badd), bsub);
  return x;
}

/* Bs_x of the 4 columns of m, l and r the words of luma left and right of
 * it, by dp4a (the weights as bytes, 1 2 1 or 1 4 6 4 1; at most
 * 255 * 16), the sum added to 0x4b000000: the float 2^23 + sum, minus
 * 2^23 */
template < int RS >
__device__ __forceinline__ void
sep_hsmooth (uint32_t l, uint32_t m, uint32_t r, float h[4])
{
  constexpr uint32_t B = 0x4b000000u;
  uint32_t b[4];
  if (RS == 1) {
    b[0] = __dp4a (m, 0x00000102u, __dp4a (l, 0x01000000u, B));
    b[1] = __dp4a (m, 0x00010201u, B);
    b[2] = __dp4a (m, 0x01020100u, B);
    b[3] = __dp4a (m, 0x02010000u, __dp4a (r, 0x00000001u, B));
  } else {
    b[0] = __dp4a (m, 0x00010406u, __dp4a (l, 0x04010000u, B));
    b[1] = __dp4a (m, 0x01040604u, __dp4a (l, 0x01000000u, B));
    b[2] = __dp4a (m, 0x04060401u, __dp4a (r, 0x00000001u, B));
    b[3] = __dp4a (m, 0x06040100u, __dp4a (r, 0x00000104u, B));
  }
#pragma unroll
  for (int i = 0; i < 4; i++)
    h[i] = __uint_as_float (b[i]) - 8388608.0f;
}

/* the vertical Bs of one column, p[0 .. 2 RS] top to bottom */
template < int RS >
__device__ __forceinline__ float
sep_smooth (const float *p)
{
  if (RS == 1)
    return fmaf (2.0f, p[1], p[0] + p[2]);
  return fmaf (6.0f, p[2], fmaf (4.0f, p[1] + p[3], p[0] + p[4]));
}

/* 1.5 * 2^23 + min (255, floor (sqrt (s))) from sp = min (s + 0.5,
 * 65025.5), s an integer: floor (sqrt (s + 0.5)) is floor (sqrt (s))
 * with a margin of 1 / (4 * 256) or more on both sides, far wider than the
 * error of the approximate square root; the sum rounded down is the
 * floor. cv_sobel_cuda_mag_check checks every sp on the device. */
__device__ __forceinline__ float
sep_floor_sqrt (float sp)
{
  return __fadd_rd (sqrt_approx (sp), 12582912.0f);
}

/* the magnitude of integer-valued Gx, Gy (cv_sobel_magnitude) as the
 * float 1.5 * 2^23 + the byte: the byte is the low byte of its bits */
template < int NORM >
__device__ __forceinline__ uint32_t
sep_magnitude (float gx, float gy)
{
  float m;
  if (NORM == CV_SOBEL_NORM_L1) {
    m = fminf (fabsf (gx) + fabsf (gy), 255.0f) + 12582912.0f;
  } else {
    /* gx^2 + gy^2 + 0.5 exact below 2^23; above 65025.5 (a magnitude of
     * 255) it only has to stay there, and rounding keeps it there */
    m = sep_floor_sqrt (fminf (fmaf (gx, gx, fmaf (gy, gy, 0.5f)),
            65025.5f));
  }
  return __float_as_uint (m);
}

template < int K, int NORM, int MODE, bool BRIGHT, int R, typename F = CvNoFill >
__global__ void __launch_bounds__ (kThreadsX * kSepWarps)
sobel_sep_kernel (const uint8_t * __restrict__ src, size_t sstride, int bpp,
    int ro, int go, int bo, uint8_t * __restrict__ dst, size_t dstride,
    int w, int h, int brightness, int threshold, const F fill)
{
  cv_fill_share (fill);
  constexpr int RS = K / 2 - 1;       /* radius of Bs: 1 (k 5), 2 (k 7) */
  constexpr int NW = 2 * RS + 1;      /* smoothed rows kept */
  constexpr int NR = R + K - 1;       /* luma rows read */
  const int lane = threadIdx.x;
  const int x0 = blockIdx.x * kSepTileW - 4 + lane * 4;
  const int y0 = (blockIdx.y * kSepWarps + threadIdx.y) * R;
  if (y0 >= h)
    return;                     /* the whole warp */

  const uint32_t wl = MODE == kSepRgba ? (CV_LUMA_R << (8 * ro)) |
      (CV_LUMA_G << (8 * go)) | (CV_LUMA_B << (8 * bo)) : 0u;
  const uint32_t badd = BRIGHT ? (uint32_t) min (max (brightness, 0), 255) *
      0x01010101u : 0u;
  const uint32_t bsub = BRIGHT ? (uint32_t) min (max (-brightness, 0), 255) *
      0x01010101u : 0u;
  /* the threshold as 4 bytes: m > threshold is m > tb's byte for any
   * threshold (0 for a negative one: m > 0 or m is 0 anyway) */
  const uint32_t tb = (uint32_t) min (max (threshold, 0), 255) * 0x01010101u;

  /* every row first: the loads in flight together; one branch for all
   * rows (a branch a row, as tried first, cost 10 % at 1080p) */
  uint4 v[NR];
  if (MODE != kSepAny && x0 >= 0 && x0 + 3 < w) {
#pragma unroll
    for (int r = 0; r < NR; r++) {
      const uint8_t *row = src + (size_t) min (max (y0 - K / 2 + r, 0),
          h - 1) * sstride;
      if (MODE == kSepGray)
        v[r] = make_uint4 (__ldg (reinterpret_cast < const uint32_t * >(row +
                    x0)), 0, 0, 0);
      else
        v[r] = __ldg (reinterpret_cast < const uint4 * >(row) + x0 / 4);
    }
  } else {
#pragma unroll
    for (int r = 0; r < NR; r++)
      v[r] = sep_load_edge < MODE > (src + (size_t) min (max (y0 - K / 2 + r,
                  0), h - 1) * sstride, x0, w, bpp, ro, go, bo);
  }

  float hs[NW][4];              /* rows of Bs_x luma, own columns */
  float c[3][4];                /* rows of C, own columns */
#pragma unroll
  for (int r = 0; r < NR; r++) {
    /* the luma of columns x0 - 4 .. x0 + 7 as 3 words */
    const uint32_t lm = sep_luma4 < MODE, BRIGHT > (v[r], wl, badd, bsub);
    const uint32_t ll = __shfl_up_sync (0xffffffffu, lm, 1);
    const uint32_t lr = __shfl_down_sync (0xffffffffu, lm, 1);
    sep_hsmooth < RS > (ll, lm, lr, hs[r % NW]);
    if (r < 2 * RS)
      continue;
    /* row j of C: the luma row y0 - 1 + j, from the rows read j .. j + 2 RS */
    const int j = r - 2 * RS;
#pragma unroll
    for (int i = 0; i < 4; i++) {
      float col[NW];
#pragma unroll
      for (int q = 0; q < NW; q++)
        col[q] = hs[(j + q) % NW][i];
      c[j % 3][i] = sep_smooth < RS > (col);
    }
    if (j < 2)
      continue;
    /* output row y0 + j - 2 from the rows j - 2, j - 1, j of C */
    const float *t = c[(j - 2) % 3], *m = c[(j - 1) % 3], *b = c[j % 3];
    float s[6], d[6];
#pragma unroll
    for (int i = 0; i < 4; i++) {
      s[i + 1] = fmaf (2.0f, m[i], t[i] + b[i]);
      d[i + 1] = b[i] - t[i];
    }
    s[0] = __shfl_up_sync (0xffffffffu, s[4], 1);
    d[0] = __shfl_up_sync (0xffffffffu, d[4], 1);
    s[5] = __shfl_down_sync (0xffffffffu, s[1], 1);
    d[5] = __shfl_down_sync (0xffffffffu, d[1], 1);
    uint32_t o[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
      o[i] = sep_magnitude < NORM > (s[i + 2] - s[i],
          fmaf (2.0f, d[i + 1], d[i] + d[i + 2]));
    uint32_t word = __byte_perm (__byte_perm (o[0], o[1], 0x0040),
        __byte_perm (o[2], o[3], 0x0040), 0x5410);
    word &= __vcmpgtu4 (word, tb);      /* the threshold, 4 bytes at once */
    const int y = y0 + j - 2;
    if (lane >= 1 && lane <= kThreadsX - 2 && y < h && x0 < w) {
      uint8_t *p = dst + (size_t) y * dstride + x0;
      if (x0 + 3 < w && (((uintptr_t) p) & 3) == 0) {
        *reinterpret_cast < uint32_t * >(p) = word;
      } else {
#pragma unroll
        for (int i = 0; i < 4; i++)
          if (x0 + i < w)
            p[i] = (uint8_t) (word >> (8 * i));
      }
    }
  }
}

/* rows a thread: 8, the fastest on the H100 at 1080p GRAY8 (the K - 1
 * halo rows cost (8 + K - 1) / 8 of the horizontal work; more rows, fewer
 * warps to hide latency) */
constexpr int kSepRows = 8;

template < int K, int NORM, int MODE, bool BRIGHT, typename F = CvNoFill >
void
launch_sep_b (const CvPlane * src, CvLumaLayout l, CvPlane * dst,
    const CvSobelParams * p, const F & fill, cudaStream_t stream)
{
  dim3 block (kThreadsX, kSepWarps);
  dim3 grid (cv_div_up (src->width, kSepTileW), cv_div_up (src->height,
          kSepWarps * kSepRows));
  sobel_sep_kernel < K, NORM, MODE, BRIGHT, kSepRows, F >
      <<<grid, block, 0, stream>>> (src->data, src->stride, l.bpp, l.r, l.g,
      l.b, dst->data, dst->stride, src->width, src->height, p->brightness,
      p->threshold, fill);
}

template < int K, int NORM, int MODE, typename F = CvNoFill >
void
launch_sep_m (const CvPlane * src, CvLumaLayout l, CvPlane * dst,
    const CvSobelParams * p, const F & fill, cudaStream_t stream)
{
  if (p->brightness == 0)
    launch_sep_b < K, NORM, MODE, false > (src, l, dst, p, fill, stream);
  else
    launch_sep_b < K, NORM, MODE, true > (src, l, dst, p, fill, stream);
}

template < int K, int NORM, typename F = CvNoFill >
void
launch_sep_n (const CvPlane * src, CvLumaLayout l, CvPlane * dst,
    const CvSobelParams * p, const F & fill, cudaStream_t stream)
{
  const uintptr_t align = (uintptr_t) src->data | (uintptr_t) src->stride;
  if (l.r < 0 && l.bpp == 1 && (align & 3) == 0) {
    launch_sep_m < K, NORM, kSepGray > (src, l, dst, p, fill, stream);
    return;
  }
  /* the chroma fill only with luma planes (sobel_run) */
  if constexpr (!cv_fills < F >)
    if (l.r >= 0 && l.bpp == 4 && (align & 15) == 0) {
      launch_sep_m < K, NORM, kSepRgba > (src, l, dst, p, fill, stream);
      return;
    }
  launch_sep_m < K, NORM, kSepAny > (src, l, dst, p, fill, stream);
}

template < int K, typename F = CvNoFill >
void
launch_k (const CvPlane * src, CvLumaLayout l, CvPlane * dst,
    const CvSobelParams * p, const F & fill, cudaStream_t stream)
{
  if (p->norm == CV_SOBEL_NORM_L1)
    launch_sep_n < K, CV_SOBEL_NORM_L1 > (src, l, dst, p, fill, stream);
  else
    launch_sep_n < K, CV_SOBEL_NORM_L2 > (src, l, dst, p, fill, stream);
}

}                               /* namespace */

namespace {

/* cv_sobel_cuda_variant, with F = CvFill: the planes of fill written by
 * the same launch (fill.cuh). Those kernels exist for luma planes (1-byte
 * pixels: GRAY8, NV12 and I420 input) only; with another layout the fill
 * is refused (CV_ERROR_INVALID_ARGUMENT), not lost: sobel_slot_submit
 * fills the chroma of RGB input's NV12 / I420 output with
 * cudaMemset2DAsync after the kernel instead. */
template < typename F >
CvStatus
sobel_run (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvSobelParams * params, const F & fill, void *stream, int variant)
{
  if (!src || !dst || !params || !src->data || !dst->data || src->width < 1
      || src->height < 1 || src->width != dst->width
      || src->height != dst->height)
    return CV_ERROR_INVALID_ARGUMENT;
  if (src->height > 65535 * kTileH)
    return CV_ERROR_INVALID_ARGUMENT;

  const int k = params->kernel_size == 0 ? 3 : params->kernel_size;
  if (!cv_sobel_ksize_valid (k) || (params->norm != CV_SOBEL_NORM_L2
          && params->norm != CV_SOBEL_NORM_L1))
    return CV_ERROR_INVALID_ARGUMENT;
  const bool rgb = layout.r >= 0;
  if (cv_fills < F > && (rgb || layout.bpp != 1))
    return CV_ERROR_INVALID_ARGUMENT;

  cudaStream_t s = (cudaStream_t) stream;
  if (k == 5 || k == 7) {
    if (layout.bpp != 1 && layout.bpp != 3 && layout.bpp != 4)
      return CV_ERROR_INVALID_ARGUMENT;
    if (k == 5)
      launch_k < 5 > (src, layout, dst, params, fill, s);
    else
      launch_k < 7 > (src, layout, dst, params, fill, s);
    return cv_cuda_status (cudaGetLastError ());
  }
  if (variant != 0 && variant != 4 && variant != 8)
    return CV_ERROR_INVALID_ARGUMENT;
  const uintptr_t align = (uintptr_t) src->data | (uintptr_t) src->stride;
  /* rows a thread in the shuffle kernel: the fastest on the H100
   * (docs/benchmarks.md), 8 for 1-byte pixels, 4 for 4-byte ones, unless
   * the benchmark asks */
  if (!rgb && layout.bpp == 1 && (align & 3) == 0) {
    /* the benchmark's 4 rows: no fill kernels of it (the slots ask 0) */
    bool r4 = false;
    if constexpr (!cv_fills < F >)
      if (variant == 4) {
        launch_shfl < 1, 4 > (src, layout, dst, params, fill, s);
        r4 = true;
      }
    if (!r4)
      launch_shfl < 1, 8 > (src, layout, dst, params, fill, s);
  } else if (!rgb && layout.bpp == 1) {
    launch < 1, false > (src, layout, dst, params, fill, s);
  } else if constexpr (!cv_fills < F >) {
    if (rgb && layout.bpp == 4 && (align & 15) == 0) {
      if (variant == 8)
        launch_shfl < 4, 8 > (src, layout, dst, params, fill, s);
      else
        launch_shfl < 4, 4 > (src, layout, dst, params, fill, s);
    } else if (layout.bpp == 3)
      launch < 3, true > (src, layout, dst, params, fill, s);
    else if (layout.bpp == 4)
      launch < 4, true > (src, layout, dst, params, fill, s);
    else
      return CV_ERROR_INVALID_ARGUMENT;
  }
  return cv_cuda_status (cudaGetLastError ());
}

}                               /* namespace */

extern "C" CvStatus
cv_sobel_cuda (const CvPlane * src, CvLumaLayout layout, CvPlane * dst,
    const CvSobelParams * params, void *stream)
{
  return sobel_run (src, layout, dst, params, CvNoFill (), stream, 0);
}

extern "C" CvStatus
cv_sobel_cuda_variant (const CvPlane * src, CvLumaLayout layout,
    CvPlane * dst, const CvSobelParams * params, void *stream, int variant)
{
  return sobel_run (src, layout, dst, params, CvNoFill (), stream,
      variant);
}

/* ---- the operator (cvsobel.h) ---- */

namespace {

/* the kernels of apertures 5 and 7 that layout l can launch (every norm,
 * brightness and read mode: parameters change per frame) */
template < int MODE, typename F = CvNoFill >
int
sep_kernels (const void **k, int n)
{
  k[n++] = (const void *) sobel_sep_kernel < 5, CV_SOBEL_NORM_L1, MODE, false,
      kSepRows, F >;
  k[n++] = (const void *) sobel_sep_kernel < 5, CV_SOBEL_NORM_L1, MODE, true,
      kSepRows, F >;
  k[n++] = (const void *) sobel_sep_kernel < 5, CV_SOBEL_NORM_L2, MODE, false,
      kSepRows, F >;
  k[n++] = (const void *) sobel_sep_kernel < 5, CV_SOBEL_NORM_L2, MODE, true,
      kSepRows, F >;
  k[n++] = (const void *) sobel_sep_kernel < 7, CV_SOBEL_NORM_L1, MODE, false,
      kSepRows, F >;
  k[n++] = (const void *) sobel_sep_kernel < 7, CV_SOBEL_NORM_L1, MODE, true,
      kSepRows, F >;
  k[n++] = (const void *) sobel_sep_kernel < 7, CV_SOBEL_NORM_L2, MODE, false,
      kSepRows, F >;
  k[n++] = (const void *) sobel_sep_kernel < 7, CV_SOBEL_NORM_L2, MODE, true,
      kSepRows, F >;
  return n;
}

/* Every kernel cv_sobel_cuda can launch for the layout, loaded now
 * (cv_cuda_preload, issue #24): the shuffle kernel's shipped rows (not the
 * benchmark's variants), the tiled one (unaligned planes) and the
 * separable ones; fill: also those that write the chroma (luma
 * layouts). */
CvStatus
sobel_preload (const CvLumaLayout * l, bool fill)
{
  const void *k[64];
  int n = 0;

  if (l->r < 0 && l->bpp == 1) {
    k[n++] = (const void *) sobel_shfl_kernel < 1, CV_SOBEL_NORM_L1, 8, false >;
    k[n++] = (const void *) sobel_shfl_kernel < 1, CV_SOBEL_NORM_L1, 8, true >;
    k[n++] = (const void *) sobel_shfl_kernel < 1, CV_SOBEL_NORM_L2, 8, false >;
    k[n++] = (const void *) sobel_shfl_kernel < 1, CV_SOBEL_NORM_L2, 8, true >;
    k[n++] = (const void *) sobel_kernel < 1, false, CV_SOBEL_NORM_L1 >;
    k[n++] = (const void *) sobel_kernel < 1, false, CV_SOBEL_NORM_L2 >;
    n = sep_kernels < kSepGray > (k, n);
    if (fill) {
      k[n++] = (const void *) sobel_shfl_kernel < 1, CV_SOBEL_NORM_L1, 8,
          false, CvFill >;
      k[n++] = (const void *) sobel_shfl_kernel < 1, CV_SOBEL_NORM_L1, 8,
          true, CvFill >;
      k[n++] = (const void *) sobel_shfl_kernel < 1, CV_SOBEL_NORM_L2, 8,
          false, CvFill >;
      k[n++] = (const void *) sobel_shfl_kernel < 1, CV_SOBEL_NORM_L2, 8,
          true, CvFill >;
      k[n++] = (const void *) sobel_kernel < 1, false, CV_SOBEL_NORM_L1,
          CvFill >;
      k[n++] = (const void *) sobel_kernel < 1, false, CV_SOBEL_NORM_L2,
          CvFill >;
      n = sep_kernels < kSepGray, CvFill > (k, n);
      n = sep_kernels < kSepAny, CvFill > (k, n);
    }
  } else if (l->bpp == 4) {
    k[n++] = (const void *) sobel_shfl_kernel < 4, CV_SOBEL_NORM_L1, 4, false >;
    k[n++] = (const void *) sobel_shfl_kernel < 4, CV_SOBEL_NORM_L1, 4, true >;
    k[n++] = (const void *) sobel_shfl_kernel < 4, CV_SOBEL_NORM_L2, 4, false >;
    k[n++] = (const void *) sobel_shfl_kernel < 4, CV_SOBEL_NORM_L2, 4, true >;
    k[n++] = (const void *) sobel_kernel < 4, true, CV_SOBEL_NORM_L1 >;
    k[n++] = (const void *) sobel_kernel < 4, true, CV_SOBEL_NORM_L2 >;
    n = sep_kernels < kSepRgba > (k, n);
  } else if (l->bpp == 3) {
    k[n++] = (const void *) sobel_kernel < 3, true, CV_SOBEL_NORM_L1 >;
    k[n++] = (const void *) sobel_kernel < 3, true, CV_SOBEL_NORM_L2 >;
  }
  n = sep_kernels < kSepAny > (k, n);
  return cv_cuda_preload (k, n);
}

struct SobelSlot
{
  CvSobelInfo info;
  bool fill_chroma;             /* chroma planes out, a luma plane in:
                                 * written by the Sobel kernel (CvFill) */
};

CvStatus
sobel_slot_create (const CvSobelInfo * info, SobelSlot ** slot)
{
  SobelSlot *o;

  if (!slot)
    return CV_ERROR_INVALID_ARGUMENT;
  *slot = NULL;
  if (!cv_edge_map_info_valid (info))
    return CV_ERROR_INVALID_ARGUMENT;
  const bool fill = info->n_out_planes > 1 && info->layout.r < 0
      && info->layout.bpp == 1;
  CvStatus st = sobel_preload (&info->layout, fill);
  if (st != CV_OK)
    return st;
  o = (SobelSlot *) calloc (1, sizeof (SobelSlot));
  if (!o)
    return CV_ERROR_NO_MEMORY;
  o->info = *info;
  o->fill_chroma = fill;
  *slot = o;
  return CV_OK;
}

CvStatus
sobel_slot_submit (SobelSlot * o, const CvFrame * frame,
    const CvSobelParams * params, const CvExec * exec)
{
  void *stream = cv_exec_stream (exec);
  CvFrame f;
  CvStatus status;

  if (!params || !cv_edge_map_frame_valid (&o->info, frame))
    return CV_ERROR_INVALID_ARGUMENT;
  f = *frame;
  /* the neutral chroma of NV12 / I420 output (a luma plane in), in the
   * same launch */
  if (o->fill_chroma)
    return sobel_run (&f.in[0], o->info.layout, &f.out[0], params,
        cv_fill_chroma (f.out, o->info.n_out_planes,
            o->info.out_pixel_stride, 128), stream, 0);
  status = sobel_run (&f.in[0], o->info.layout, &f.out[0], params,
      CvNoFill (), stream, 0);
  for (int p = 1; status == CV_OK && p < o->info.n_out_planes; p++)
    status = cv_fill_plane_cuda (&f.out[p], o->info.out_pixel_stride[p], 128,
        stream);
  return status;
}

void
sobel_slot_destroy (SobelSlot * o)
{
  free (o);
}

}                               /* namespace */

CV_SLOT_OP_FUNCTIONS (cv_sobel_cuda, sobel_slot, SobelSlot, CvSobelOp,
    CvSobelInfo, CvSobelParams);
CV_OPS_TABLE (cv_sobel_cuda_ops, "sobel-cuda", cv_sobel_cuda, CvSobelOp,
    CvSobelInfo, CvSobelParams, cv_op_no_results);

/* ---- the check of the fast L2 magnitudes ----
 * sobel_shfl_kernel: every s = gx² + gy² a 3x3 aperture can give lies in
 * 0 .. 2 * 1020²; for each, magnitude_fast's floor (sqrt) against the
 * exact integer one. sobel_sep_kernel (apertures 5, 7): every sp =
 * min (s + 0.5, 65025.5) it can give, s = 0 .. 65025, sep_floor_sqrt
 * against the same. Returns the number of values where they differ (0),
 * or -1 on a CUDA error. */
namespace {

__global__ void
mag_check_kernel (int n, unsigned int *bad)
{
  for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < n;
      s += gridDim.x * blockDim.x) {
    int r = (int) sqrtf ((float) s);    /* correctly rounded: near */
    while (r * r > s)
      r--;
    while ((r + 1) * (r + 1) <= s)
      r++;
    if (floor_sqrt_255 (s) != min (r, 255))
      atomicAdd (bad, 1u);
    if (s <= 65025 && __float_as_int (sep_floor_sqrt (fminf ((float) s +
                    0.5f, 65025.5f))) - 0x4b400000 != min (r, 255))
      atomicAdd (bad, 1u);
  }
}

}                               /* namespace */

extern "C" int
cv_sobel_cuda_mag_check (void)
{
  unsigned int *d = NULL, bad = 0;
  if (cudaMalloc (&d, sizeof (bad)) != cudaSuccess)
    return -1;
  cudaMemset (d, 0, sizeof (bad));
  mag_check_kernel <<<256, 256>>> (2 * 1020 * 1020 + 1, d);
  cudaError_t e = cudaMemcpy (&bad, d, sizeof (bad), cudaMemcpyDeviceToHost);
  cudaFree (d);
  return e == cudaSuccess ? (int) bad : -1;
}
